// src/mpi/mpi_backend.cpp — the mpi backend: blocked Floyd-Warshall over MPI ranks, one GPU per rank
// (NCCL between the GPUs) where every rank has a GPU of its own, else CPU kernels on every rank.
//
// Which kind: choose_device() decides collectively (every rank the same kind): GPU ranks when the
// build has NCCL, the type is int32 or float32, and every rank has a usable GPU no other rank of
// its host uses (local rank l takes GPU l mod count, of --devices if given); APSP_MPI_GPU=0|1
// forces CPU ranks / GPU ranks (or an error on every rank). Both kinds use the 2D block-cyclic
// layout of block_cyclic.hpp and the same gather (gather_to_root); Result::block says which tile
// ran (128 on GPU ranks, whatever --block asked).
//
// GPU ranks run the multi-gpu backend's driver with this rank's GPU as its one worker
// (multigpu/gpu_rank.hpp, multigpu_backend.cu): the cuda backend's kernels, NCCL broadcasts along
// grid rows and columns on communicators made with ncclCommInitRank (the id travels over the MPI
// row / column communicators), two-stream lookahead. Distances are identical to the cuda and cpu
// backends; with --paths, next hops equal `--backend cpu --block 128`.
//
// CPU ranks: every rank builds only its own tiles of the layout from the
// edge list, which every rank has read. Round t: the owner of the pivot tile closes it and
// broadcasts it along its grid row and grid column; the grid row holding tile row t updates the
// row panel (P* (x) D[t,J]), the grid column holding tile column t the column panel (D[I,t] (x)
// P*); the row panel is broadcast down grid columns and the column panel (with its next hops)
// along grid rows; every rank then does the rank-B min-plus update of its own tiles with the CPU
// kernels (src/cpu/kernels.hpp), OpenMP threads over macro tiles. The tile arithmetic is the CPU
// backend's, op for op (packed copies of the pre-update panels, strict-less next hops, pivots
// wider than 64 closed by blocked FW), so the result, next hops included, is byte-identical to
// `--backend cpu` with the same --block. One exception: streamed next hops of a graph with
// zero-weight edges use the (distance, hop count) comparison (next_hop_mode below), because the
// loop repair solve() applies to the cpu backend's whole matrix cannot run on stripes.
//
// Lookahead (CPU ranks; inside update_rest of the shared round scheduler, rounds.hpp): round t's
// rest update first does the tiles of tile row t+1 and tile column t+1, then closes pivot t+1,
// updates the t+1 panels and starts their broadcasts with MPI_Ibcast, and only then does the
// remaining tiles of round t; the master thread calls MPI_Testall between macro tiles so the
// broadcasts progress while the threads compute. close_pivot(t+1) / update_panels(t+1) then find
// their work done.
//
// Output (both kinds): after the last round rank 0 gathers stripes of whole tile rows (about
// 32 MiB each; non-root ranks send their rows of every stripe with MPI_Isend — GPU ranks copy
// stripe s+1 to pinned memory while stripe s is sent — and rank 0 receives stripe s+1 while it
// hands stripe s to the sink) and calls SolveOptions::dist_sink / next_sink; every rank leaves
// Result::dist / next empty. Without a sink rank 0 assembles the whole matrix in Result::dist
// (next), like a gather to root; the other ranks return empty matrices.
//
// MPI is initialised on first use (MPI_Init_thread, FUNNELED) unless the program did it, and
// finalised at exit when we initialised it; runs of other backends never touch MPI.
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/rounds.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "mpi/block_cyclic.hpp"
#ifdef APSP_WITH_NCCL
#include "multigpu/gpu_rank.hpp"
#endif

namespace apsp::detail {

namespace mpi {

[[noreturn]] void throw_mpi_error(int code, const char* what, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(std::string("MPI error: ") + std::string(text, std::size_t(len)) + " (" + what + " at " + file + ":" +
              std::to_string(line) + ")");
}

}  // namespace mpi

}  // namespace apsp::detail

#define APSP_MPI_TRY(call)                                                              \
  do {                                                                                  \
    const int apsp_mpi_rc_ = (call);                                                    \
    if (apsp_mpi_rc_ != MPI_SUCCESS)                                                    \
      ::apsp::detail::mpi::throw_mpi_error(apsp_mpi_rc_, #call, __FILE__, __LINE__);    \
  } while (0)

namespace apsp::detail {

namespace mpi {

namespace {

using dist::Grid;
using dist::i64;
using dist::Layout;
using dist::TileRange;
using i32 = std::int32_t;
using cpu::pack_a;
using cpu::pack_a_next;
using cpu::pack_b;

/// Finalises MPI at exit if this library initialised it.
struct MpiLifetime {
  bool we_initialised = false;
  ~MpiLifetime() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (we_initialised && !finalized) MPI_Finalize();
  }
};

void ensure_mpi_initialised() {
  static MpiLifetime lifetime;
  int initialised = 0;
  APSP_MPI_TRY(MPI_Initialized(&initialised));
  if (initialised) return;
  int provided = 0;
  APSP_MPI_TRY(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  lifetime.we_initialised = true;
}

/// A communicator we own, freed on scope exit.
struct Comm {
  MPI_Comm c = MPI_COMM_NULL;
  Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm() {
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  int size() const {
    int s = 0;
    MPI_Comm_size(c, &s);
    return s;
  }
};

template <class T> MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else return MPI_DOUBLE;
}

int mpi_count(i64 n) {
  APSP_EXPECTS(n >= 0 && n <= INT_MAX, "MPI message larger than 2^31-1 elements");
  return int(n);
}

/// 64-byte aligned host array.
template <class T> class Buffer {
 public:
  void resize(i64 count) {
    const std::size_t bytes = (std::size_t(std::max<i64>(count, 1)) * sizeof(T) + 63) / 64 * 64;
    p_.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    if (!p_) throw ResourceError("cannot allocate " + std::to_string(bytes) + " bytes for the mpi backend's tiles");
    size_ = count;
  }
  T* get() const { return p_.get(); }
  i64 size() const { return size_; }

 private:
  struct Free { void operator()(T* p) const { std::free(p); } };
  std::unique_ptr<T, Free> p_;
  i64 size_ = 0;
};

/// One piece of the rest update: rows [r0, r0+rows) of local tile row `li` times local columns
/// [c0, c0+cols).
struct Task {
  i64 li, r0, rows, c0, cols;
};

constexpr i64 kMacroRows = 128;  // rows of C per task (rounded down to the micro-tile rows)
constexpr i64 kMacroCols = 256;  // columns of C per task (a multiple of every nr)
constexpr i64 kStripeBytes = i64(32) << 20;
constexpr int kInnerBlock = 64;  // the CPU backend closes wider pivots by blocked FW with this block

/// One rank's side of gathering a result matrix to rank 0 (gather_to_root).
template <class U> struct StripeSource {
  Grid grid;
  int rank = 0;
  i64 n = 0, R = 0, B = 0;
  /// Local row stride (elements) of rank q.
  std::function<i64(int q)> ld_of;
  /// This rank's local tile rows `lr` (contiguous, ld_of(rank) elements a row) in host memory,
  /// valid until the next call with the same slot (0 or 1).
  std::function<const U*(TileRange lr, int slot)> rows;
  /// rows() copies into one buffer per slot (GPU ranks): a slot's send must end before it is refilled.
  bool copies = false;
};

/// Gathers a matrix to rank 0 in stripes of whole tile rows (about kStripeBytes each), in row
/// order: the other ranks send their local rows of every stripe (MPI_Isend), rank 0 receives
/// stripe s+1 while it reassembles stripe s and hands it to `sink`, or copies it into `whole`
/// (rows x whole_stride) without one. Only rank 0 calls the sink. If the sink throws, rank 0
/// keeps receiving so that no rank hangs, then rethrows. Collective over `world`.
template <class U>
void gather_to_root(MPI_Comm world, const StripeSource<U>& src, bool next_hops, const RowSink& sink, U* whole,
                    i64 whole_stride, Dtype dtype, int threads) {
  const Grid& grid = src.grid;
  const i64 B = src.B, n = src.n;
  const auto stripes = dist::output_stripes(src.R, B, src.R * B, i64(sizeof(U)), kStripeBytes);
  const int tag0 = next_hops ? 1 << 20 : 0;
  // Local tile rows of rank q in stripe s.
  auto rows_of = [&](int q, const TileRange& s) {
    return TileRange{Layout::first_local(s.begin, grid.Pr, grid.row_of(q)),
                     Layout::first_local(s.end, grid.Pr, grid.row_of(q))};
  };
  if (src.rank != 0) {
    std::vector<MPI_Request> sends;
    MPI_Request last[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the send that last used each slot
    const i64 ld = src.ld_of(src.rank);
    for (std::size_t s = 0; s < stripes.size(); ++s) {
      const TileRange lr = rows_of(src.rank, stripes[s]);
      if (lr.empty()) continue;
      const int slot = int(s % 2);
      if (src.copies) APSP_MPI_TRY(MPI_Wait(&last[slot], MPI_STATUS_IGNORE));
      const U* data = src.rows(lr, slot);
      MPI_Request req = MPI_REQUEST_NULL;
      APSP_MPI_TRY(MPI_Isend(data, mpi_count((lr.end - lr.begin) * B * ld), mpi_type<U>(), 0, tag0 + int(s), world, &req));
      if (src.copies) last[slot] = req;
      else sends.push_back(req);
    }
    for (MPI_Request& r : last) sends.push_back(r);
    APSP_MPI_TRY(MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE));
    return;
  }
  // Rank 0: receive stripe s+1 while stripe s is assembled and handed out.
  std::vector<Buffer<U>> recv[2];
  std::vector<MPI_Request> reqs[2];
  for (auto& r : recv) r.resize(std::size_t(grid.P));
  auto post = [&](std::size_t s) {
    const int b = int(s % 2);
    reqs[b].clear();
    for (int q = 1; q < grid.P; ++q) {
      const TileRange lr = rows_of(q, stripes[s]);
      if (lr.empty()) continue;
      const i64 count = (lr.end - lr.begin) * B * src.ld_of(q);
      if (recv[b][q].size() < count) recv[b][q].resize(count);
      reqs[b].emplace_back();
      APSP_MPI_TRY(MPI_Irecv(recv[b][q].get(), mpi_count(count), mpi_type<U>(), q, tag0 + int(s), world,
                             &reqs[b].back()));
    }
  };
  Buffer<U> out;
  if (sink && !stripes.empty()) out.resize(std::min<i64>(stripes.front().end * B, src.R * B) * n);
  std::exception_ptr failed;
  if (!stripes.empty()) post(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    const int b = int(s % 2);
    APSP_MPI_TRY(MPI_Waitall(int(reqs[b].size()), reqs[b].data(), MPI_STATUSES_IGNORE));
    if (s + 1 < stripes.size()) post(s + 1);
    const i64 row0 = stripes[s].begin * B;
    const i64 rows = std::min(stripes[s].end * B, n) - row0;
    if (rows <= 0) continue;
    const TileRange own = rows_of(0, stripes[s]);
    const U* own_rows = own.empty() ? nullptr : src.rows(own, 0);
    U* dst = sink ? out.get() : whole + row0 * whole_stride;
    const i64 dst_ld = sink ? n : whole_stride;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (i64 r = 0; r < rows; ++r) {
      const i64 gi = row0 + r, I = gi / B;
      const int qr = int(I % grid.Pr);
      for (int qc = 0; qc < grid.Pc; ++qc) {
        const int q = grid.rank_of(qr, qc);
        const TileRange lr = rows_of(q, stripes[s]);
        const i64 q_ld = src.ld_of(q);
        const U* base = q == 0 ? own_rows : recv[b][q].get();
        const U* from = base + ((I / grid.Pr - lr.begin) * B + gi % B) * q_ld;
        for (i64 lj = 0; lj * B < q_ld; ++lj) {
          const i64 j0 = (lj * grid.Pc + qc) * B;
          if (j0 >= n) break;
          std::memcpy(dst + r * dst_ld + j0, from + lj * B, std::size_t(std::min(B, n - j0)) * sizeof(U));
        }
      }
    }
    if (sink && !failed) {
      try {
        sink(RowBlock{row0, rows, n, n, dtype, out.get()});
      } catch (...) {
        failed = std::current_exception();  // keep receiving so no rank is left hanging
      }
    }
  }
  if (failed) std::rethrow_exception(failed);
}

/// What the kernels keep beside the distances (as in the CPU backend).
enum class Mode { Distances, NextHops, HopCounts };

template <class T> class MpiRounds final : public RoundOps {
 public:
  MpiRounds(const Layout& lay, MPI_Comm world, MPI_Comm row_comm, MPI_Comm col_comm, Mode mode, int threads,
            const cpu::KernelSet<T>& ks)
      : L_(lay), world_(world), row_comm_(row_comm), col_comm_(col_comm), mode_(mode),
        paths_(mode != Mode::Distances), hops_(mode == Mode::HopCounts), threads_(threads), ks_(ks), B_(lay.B),
        ld_(lay.local_cols()),
        mr_(mode == Mode::Distances ? ks.mr : mode == Mode::NextHops ? ks.mr_paths : ks.mr_hops),
        nr_(mode == Mode::Distances ? ks.nr : ks.nr_paths),
        mc_(std::max<i64>(mr_, std::min<i64>(B_, kMacroRows) / mr_ * mr_)),
        strip_a_((B_ + mr_ - 1) / mr_ * mr_ * B_) {
    APSP_EXPECTS(B_ % nr_ == 0, "tile size is not a multiple of the CPU micro-tile width");
    D_.resize(L_.local_rows() * ld_);
    if (paths_) N_.resize(L_.local_rows() * ld_);
    piv_.resize(B_ * B_);
    pivot_a_.resize(strip_a_);
    pivot_b_.resize(B_ * B_);
    if (paths_) {
      pivn_.resize(B_ * B_);
      pivot_na_.resize(strip_a_);
    }
    if (hops_) {
      H_.resize(L_.local_rows() * ld_);
      pivh_.resize(B_ * B_);
      pivot_ha_.resize(strip_a_);
      pivot_hb_.resize(B_ * B_);
    }
    for (int s = 0; s < 2; ++s) {
      rowp_[s].resize(B_ * ld_);
      colp_[s].resize(L_.local_rows() * B_);
      pb_[s].resize(B_ * ld_);
      pa_[s].resize(L_.lr * strip_a_);
      if (paths_) {
        colpn_[s].resize(L_.local_rows() * B_);
        pna_[s].resize(L_.lr * strip_a_);
      }
      if (hops_) {
        rowph_[s].resize(B_ * ld_);
        colph_[s].resize(L_.local_rows() * B_);
        phb_[s].resize(B_ * ld_);
        pha_[s].resize(L_.lr * strip_a_);
      }
    }
  }

  /// Fills this rank's tiles: 0 on the diagonal, the lightest edge weight, unreachable elsewhere;
  /// next[i][j] = j where there is an edge (the same rules as core/reference.cpp).
  void build(const Graph& g) {
    const T inf = unreachable<T>();
    const i64 rows = L_.local_rows();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (i64 r = 0; r < rows; ++r) {
      T* d = D_.get() + r * ld_;
      std::fill(d, d + ld_, inf);
      const i64 gi = global_row(r);
      if (L_.owns_col(gi / B_)) d[L_.local_col(gi / B_) * B_ + gi % B_] = T(0);
    }
    auto relax = [&](i64 u, i64 v, double wd) {
      if (!L_.owns_row(u / B_) || !L_.owns_col(v / B_)) return;
      T w;
      if constexpr (std::is_floating_point_v<T>) w = T(wd);
      else w = T(std::llround(wd));
      T& d = D_.get()[(L_.local_row(u / B_) * B_ + u % B_) * ld_ + L_.local_col(v / B_) * B_ + v % B_];
      if (u == v) {
        if (w < T(0)) d = std::min(d, w);
        return;
      }
      if (w < d) d = w;
    };
    const std::size_t E = g.num_edges();
    for (std::size_t e = 0; e < E; ++e) {
      relax(g.src[e], g.dst[e], g.weight[e]);
      if (!g.directed) relax(g.dst[e], g.src[e], g.weight[e]);
    }
    if (!paths_) return;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (i64 r = 0; r < rows; ++r) {
      const T* d = D_.get() + r * ld_;
      i32* nx = N_.get() + r * ld_;
      const i64 gi = global_row(r);
      for (i64 c = 0; c < ld_; ++c) {
        const i64 gj = global_col(c);
        nx[c] = (gi != gj && gi < L_.n && gj < L_.n && d[c] < inf) ? i32(gj) : -1;
        // Hop counts: 1 for an edge, 0 elsewhere (as the CPU backend).
        if (hops_) H_.get()[r * ld_ + c] = nx[c] >= 0 ? 1 : 0;
      }
    }
  }

  i64 num_rounds() const override { return L_.R; }

  void close_pivot(i64 t) override {
    if (ahead_ < t) close_and_share_pivot(t);
  }
  void update_panels(i64 t) override {
    if (ahead_ < t) {
      panels(t);
      ahead_ = t;
    }
  }

  void update_rest(i64 t) override {
    wait_and_pack(t);
    const int slot = int(t % 2);
    const i64 skip_r = L_.owns_row(t) ? L_.local_row(t) : -1;
    const i64 skip_c = L_.owns_col(t) ? L_.local_col(t) : -1;
    if (t + 1 < L_.R) {
      // Lookahead: what round t+1's pivot and panels need first, then start round t+1.
      const i64 next_r = L_.owns_row(t + 1) ? L_.local_row(t + 1) : -1;
      const i64 next_c = L_.owns_col(t + 1) ? L_.local_col(t + 1) : -1;
      std::vector<Task> first;
      if (next_r >= 0) add_tasks(first, {{next_r, next_r + 1}}, dist::ranges_without(L_.lc, {skip_c}));
      if (next_c >= 0) add_tasks(first, dist::ranges_without(L_.lr, {skip_r, next_r}), {{next_c, next_c + 1}});
      run_tasks(first, slot, nullptr);
      close_and_share_pivot(t + 1);
      panels(t + 1);
      ahead_ = t + 1;
      std::vector<Task> rest;
      add_tasks(rest, dist::ranges_without(L_.lr, {skip_r, next_r}), dist::ranges_without(L_.lc, {skip_c, next_c}));
      run_tasks(rest, slot, &reqs_[(t + 1) % 2]);
    } else {
      std::vector<Task> rest;
      add_tasks(rest, dist::ranges_without(L_.lr, {skip_r}), dist::ranges_without(L_.lc, {skip_c}));
      run_tasks(rest, slot, nullptr);
    }
  }

  /// Hands the result to rank 0 in stripes of tile rows; rank 0 passes each to `sink` or, without
  /// one, copies it into `whole` (rows x stride). Distances when next_hops is false, else next hops.
  template <class U>
  void gather(bool next_hops, const RowSink& sink, U* whole, i64 whole_stride, Dtype dtype) {
    const U* local = next_hops ? reinterpret_cast<const U*>(N_.get()) : reinterpret_cast<const U*>(D_.get());
    StripeSource<U> src;
    src.grid = L_.grid;
    src.rank = L_.grid.rank_of(L_.pr, L_.pc);
    src.n = L_.n;
    src.R = L_.R;
    src.B = B_;
    const Grid grid = L_.grid;
    const i64 R = L_.R, B = B_, ld = ld_;
    src.ld_of = [grid, R, B](int q) { return Layout::tiles_of(R, grid.Pc, grid.col_of(q)) * B; };
    src.rows = [local, B, ld](TileRange lr, int) { return local + lr.begin * B * ld; };
    src.copies = false;
    gather_to_root(world_, src, next_hops, sink, whole, whole_stride, dtype, threads_);
  }

 private:
  i64 global_row(i64 r) const { return L_.global_row(r / B_) * B_ + r % B_; }
  i64 global_col(i64 c) const { return L_.global_col(c / B_) * B_ + c % B_; }
  T* tile(i64 li, i64 lj) const { return D_.get() + li * B_ * ld_ + lj * B_; }
  i32* ntile(i64 li, i64 lj) const { return N_.get() + li * B_ * ld_ + lj * B_; }
  i32* htile(i64 li, i64 lj) const { return H_.get() + li * B_ * ld_ + lj * B_; }

  void close_and_share_pivot(i64 t) {
    const int tr = L_.row_owner(t), tc = L_.col_owner(t);
    const bool in_row = L_.pr == tr, in_col = L_.pc == tc;
    if (in_row && in_col) {
      const i64 li = L_.local_row(t), lj = L_.local_col(t);
      T* p = tile(li, lj);
      i32* np = paths_ ? ntile(li, lj) : nullptr;
      i32* hp = hops_ ? htile(li, lj) : nullptr;
      close_tile(p, np, hp, int(B_));
      for (i64 r = 0; r < B_; ++r) {
        std::memcpy(piv_.get() + r * B_, p + r * ld_, std::size_t(B_) * sizeof(T));
        if (paths_) std::memcpy(pivn_.get() + r * B_, np + r * ld_, std::size_t(B_) * sizeof(i32));
        if (hops_) std::memcpy(pivh_.get() + r * B_, hp + r * ld_, std::size_t(B_) * sizeof(i32));
      }
    }
    const int count = mpi_count(B_ * B_);
    auto share = [&](MPI_Comm comm, int root) {
      APSP_MPI_TRY(MPI_Bcast(piv_.get(), count, mpi_type<T>(), root, comm));
      if (paths_) APSP_MPI_TRY(MPI_Bcast(pivn_.get(), count, MPI_INT32_T, root, comm));
      if (hops_) APSP_MPI_TRY(MPI_Bcast(pivh_.get(), count, MPI_INT32_T, root, comm));
    };
    if (in_row && L_.grid.Pc > 1) share(row_comm_, tc);
    if (in_col && L_.grid.Pr > 1) share(col_comm_, tr);
  }

  // Closes the w x w tile at p (stride ld_) as the CPU backend closes a pivot: plain FW up to
  // kInnerBlock wide, else blocked FW inside the tile with that block (cpu_backend.cpp,
  // close_pivot), so that next hops break ties the same way.
  void close_tile(T* p, i32* np, i32* hp, int w) {
    if (w <= kInnerBlock) {
      ks_.close_hops(p, ld_, w, np, hp, ld_);
      return;
    }
    const int R = (w + kInnerBlock - 1) / kInnerBlock;
    auto width = [&](int s) { return std::min(kInnerBlock, w - s * kInnerBlock); };
    auto at = [&](int I, int J) { return i64(I) * kInnerBlock * ld_ + i64(J) * kInnerBlock; };
    const std::size_t na = std::size_t((kInnerBlock + mr_ - 1) / mr_ * mr_ * kInnerBlock);
    const std::size_t nb = std::size_t(kInnerBlock) * kInnerBlock;
    std::vector<T> pa(na), qa(na), pb(nb), qb(nb);
    std::vector<i32> pna(na), pha(na), qna(na), qha(na), phb(nb), qhb(nb);
    auto sub_gemm = [&](const T* a, const i32* an, const i32* ah, const T* b, const i32* bh, int k, int I, int J) {
      const i64 c = at(I, J);
      const i64 m = width(I), n = width(J);
      switch (mode_) {
        case Mode::Distances: ks_.gemm(a, b, k, p + c, ld_, m, n); break;
        case Mode::NextHops: ks_.gemm_paths(a, an, b, k, p + c, ld_, np + c, ld_, m, n); break;
        case Mode::HopCounts: ks_.gemm_hops(a, an, ah, b, bh, k, p + c, ld_, np + c, hp + c, ld_, m, n); break;
      }
    };
    // Packs sub-tile (I, J) as A (qa, qna, qha) or as B (qb, qhb).
    auto pack_as_a = [&](int I, int J, T* a, i32* an, i32* ah) {
      const i64 o = at(I, J);
      pack_a(p + o, ld_, width(I), width(J), mr_, a);
      if (np) pack_a_next(np + o, ld_, width(I), width(J), mr_, an);
      if (hp) pack_a_next(hp + o, ld_, width(I), width(J), mr_, ah);
    };
    auto pack_as_b = [&](int I, int J, T* b, i32* bh) {
      const i64 o = at(I, J);
      pack_b(p + o, ld_, width(I), width(J), nr_, b);
      if (hp) pack_b(hp + o, ld_, width(I), width(J), nr_, bh);
    };
    for (int s = 0; s < R; ++s) {
      const int k = width(s);
      ks_.close_hops(p + at(s, s), ld_, k, np ? np + at(s, s) : nullptr, hp ? hp + at(s, s) : nullptr, ld_);
      pack_as_a(s, s, pa.data(), pna.data(), pha.data());
      pack_as_b(s, s, pb.data(), phb.data());
      for (int o = 0; o < R; ++o) {
        if (o == s) continue;
        pack_as_b(s, o, qb.data(), qhb.data());  // row panel from its old value
        sub_gemm(pa.data(), pna.data(), pha.data(), qb.data(), qhb.data(), k, s, o);
        pack_as_a(o, s, qa.data(), qna.data(), qha.data());  // column panel from its old value
        sub_gemm(qa.data(), qna.data(), qha.data(), pb.data(), phb.data(), k, o, s);
      }
      for (int i = 0; i < R; ++i) {
        if (i == s) continue;
        pack_as_a(i, s, qa.data(), qna.data(), qha.data());
        for (int j = 0; j < R; ++j) {
          if (j == s) continue;
          pack_as_b(s, j, qb.data(), qhb.data());
          sub_gemm(qa.data(), qna.data(), qha.data(), qb.data(), qhb.data(), k, i, j);
        }
      }
    }
  }

  // Panels of round t from packed copies of their pre-update values (as the CPU backend), then
  // the start of their broadcasts: row panel down grid columns, column panel along grid rows.
  void panels(i64 t) {
    const int slot = int(t % 2);
    const int tr = L_.row_owner(t), tc = L_.col_owner(t);
    const bool in_row = L_.pr == tr, in_col = L_.pc == tc;
    const int k = int(B_);
    T* const pb = pb_[slot].get();
    T* const pa = pa_[slot].get();
    i32* const pna = paths_ ? pna_[slot].get() : nullptr;
    i32* const phb = hops_ ? phb_[slot].get() : nullptr;
    i32* const pha = hops_ ? pha_[slot].get() : nullptr;
    if (in_row) {
      // C = D[t, J], A = P* (with its next hops and hop counts), B = the old row panel.
      const i64 li = L_.local_row(t);
      pack_a(piv_.get(), B_, B_, k, mr_, pivot_a_.get());
      if (paths_) pack_a_next(pivn_.get(), B_, B_, k, mr_, pivot_na_.get());
      if (hops_) pack_a_next(pivh_.get(), B_, B_, k, mr_, pivot_ha_.get());
      pack_b(tile(li, 0), ld_, k, ld_, nr_, pb);
      if (hops_) pack_b(htile(li, 0), ld_, k, ld_, nr_, phb);
      std::vector<Task> tasks;
      add_tasks(tasks, {{li, li + 1}}, dist::ranges_without(L_.lc, {in_col ? L_.local_col(t) : -1}));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
      for (std::size_t x = 0; x < tasks.size(); ++x) {
        const Task& w = tasks[x];
        const i64 off = w.r0 * k;
        gemm(pivot_a_.get() + off, at(pivot_na_, off), at(pivot_ha_, off), pb + w.c0 * k, phb ? phb + w.c0 * k : nullptr,
             w.li * B_ + w.r0, w.c0, w.rows, w.cols);
      }
    }
    if (in_col) {
      // C = D[I, t], A = the old column panel, B = P*.
      const i64 lj = L_.local_col(t);
      pack_b(piv_.get(), B_, k, B_, nr_, pivot_b_.get());
      if (hops_) pack_b(pivh_.get(), B_, k, B_, nr_, pivot_hb_.get());
      pack_col_panel(tile(0, lj), paths_ ? ntile(0, lj) : nullptr, hops_ ? htile(0, lj) : nullptr, ld_, pa, pna, pha);
      std::vector<Task> tasks;
      for (const TileRange& rr : dist::ranges_without(L_.lr, {in_row ? L_.local_row(t) : -1}))
        for (i64 li = rr.begin; li < rr.end; ++li)
          for (i64 r0 = 0; r0 < B_; r0 += mc_) tasks.push_back({li, r0, std::min(mc_, B_ - r0), lj * B_, B_});
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
      for (std::size_t x = 0; x < tasks.size(); ++x) {
        const Task& w = tasks[x];
        const i64 off = w.li * strip_a_ + w.r0 * k;
        gemm(pa + off, pna ? pna + off : nullptr, pha ? pha + off : nullptr, pivot_b_.get(),
             hops_ ? pivot_hb_.get() : nullptr, w.li * B_ + w.r0, w.c0, w.rows, w.cols);
      }
    }
    // Broadcast buffers: roots copy their strip in, then everyone takes part.
    auto& reqs = reqs_[slot];
    reqs.clear();
    if (in_row) {
      std::memcpy(rowp_[slot].get(), tile(L_.local_row(t), 0), std::size_t(B_ * ld_) * sizeof(T));
      if (hops_) std::memcpy(rowph_[slot].get(), htile(L_.local_row(t), 0), std::size_t(B_ * ld_) * sizeof(i32));
    }
    if (in_col) {
      const i64 lj = L_.local_col(t);
      for (i64 r = 0; r < L_.local_rows(); ++r) {
        const i64 at_rc = r * ld_ + lj * B_;
        std::memcpy(colp_[slot].get() + r * B_, D_.get() + at_rc, std::size_t(B_) * sizeof(T));
        if (paths_) std::memcpy(colpn_[slot].get() + r * B_, N_.get() + at_rc, std::size_t(B_) * sizeof(i32));
        if (hops_) std::memcpy(colph_[slot].get() + r * B_, H_.get() + at_rc, std::size_t(B_) * sizeof(i32));
      }
    }
    auto ibcast = [&](void* buf, i64 count, MPI_Datatype type, int root, MPI_Comm comm) {
      reqs.emplace_back();
      APSP_MPI_TRY(MPI_Ibcast(buf, mpi_count(count), type, root, comm, &reqs.back()));
    };
    if (L_.grid.Pr > 1 && ld_ > 0) {
      ibcast(rowp_[slot].get(), B_ * ld_, mpi_type<T>(), tr, col_comm_);
      if (hops_) ibcast(rowph_[slot].get(), B_ * ld_, MPI_INT32_T, tr, col_comm_);
    }
    if (L_.grid.Pc > 1 && L_.lr > 0) {
      ibcast(colp_[slot].get(), L_.local_rows() * B_, mpi_type<T>(), tc, row_comm_);
      if (paths_) ibcast(colpn_[slot].get(), L_.local_rows() * B_, MPI_INT32_T, tc, row_comm_);
      if (hops_) ibcast(colph_[slot].get(), L_.local_rows() * B_, MPI_INT32_T, tc, row_comm_);
    }
    packed_[slot] = -1;
  }

  // Waits for round t's panel broadcasts and packs them for the micro-kernels.
  void wait_and_pack(i64 t) {
    const int slot = int(t % 2);
    if (packed_[slot] == t) return;
    auto& reqs = reqs_[slot];
    APSP_MPI_TRY(MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
    reqs.clear();
    pack_b(rowp_[slot].get(), ld_, int(B_), ld_, nr_, pb_[slot].get());
    if (hops_) pack_b(rowph_[slot].get(), ld_, int(B_), ld_, nr_, phb_[slot].get());
    pack_col_panel(colp_[slot].get(), paths_ ? colpn_[slot].get() : nullptr, hops_ ? colph_[slot].get() : nullptr, B_,
                   pa_[slot].get(), paths_ ? pna_[slot].get() : nullptr, hops_ ? pha_[slot].get() : nullptr);
    packed_[slot] = t;
  }

  // Packs a column strip (local_rows x B, stride ld; next hops and hop counts alike when given)
  // tile row by tile row into the A layout.
  void pack_col_panel(const T* src, const i32* nsrc, const i32* hsrc, i64 ld, T* pa, i32* pna, i32* pha) const {
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (i64 li = 0; li < L_.lr; ++li) {
      pack_a(src + li * B_ * ld, ld, B_, int(B_), mr_, pa + li * strip_a_);
      if (nsrc) pack_a_next(nsrc + li * B_ * ld, ld, B_, int(B_), mr_, pna + li * strip_a_);
      if (hsrc) pack_a_next(hsrc + li * B_ * ld, ld, B_, int(B_), mr_, pha + li * strip_a_);
    }
  }

  void add_tasks(std::vector<Task>& out, const std::vector<TileRange>& rows, const std::vector<TileRange>& cols) const {
    for (const TileRange& rr : rows)
      for (i64 li = rr.begin; li < rr.end; ++li)
        for (i64 r0 = 0; r0 < B_; r0 += mc_)
          for (const TileRange& cr : cols)
            for (i64 c0 = cr.begin * B_; c0 < cr.end * B_; c0 += kMacroCols)
              out.push_back({li, r0, std::min(mc_, B_ - r0), c0, std::min(kMacroCols, cr.end * B_ - c0)});
  }

  // Rest-update tasks with the round's packed panels; the master thread drives `progress`
  // (round t+1's broadcasts) between tasks.
  void run_tasks(const std::vector<Task>& tasks, int slot, std::vector<MPI_Request>* progress) {
    const T* pa = pa_[slot].get();
    const T* pb = pb_[slot].get();
    const i32* pna = paths_ ? pna_[slot].get() : nullptr;
    const i32* pha = hops_ ? pha_[slot].get() : nullptr;
    const i32* phb = hops_ ? phb_[slot].get() : nullptr;
    const int k = int(B_);
    const bool poll = progress && !progress->empty();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (std::size_t x = 0; x < tasks.size(); ++x) {
      const Task& w = tasks[x];
      const i64 off = w.li * strip_a_ + w.r0 * k;
      gemm(pa + off, pna ? pna + off : nullptr, pha ? pha + off : nullptr, pb + w.c0 * k, phb ? phb + w.c0 * k : nullptr,
           w.li * B_ + w.r0, w.c0, w.rows, w.cols);
      if (poll && omp_get_thread_num() == 0) {
        int done = 0;
        MPI_Testall(int(progress->size()), progress->data(), &done, MPI_STATUSES_IGNORE);
      }
    }
  }

  // C = D[row0 : row0+m, col0 : col0+n] (local coordinates) = min(C, A (x) B), with next hops
  // (and hop counts) per mode_.
  void gemm(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb, i64 row0, i64 col0, i64 m,
            i64 n) const {
    const i64 at_c = row0 * ld_ + col0;
    T* c = D_.get() + at_c;
    switch (mode_) {
      case Mode::Distances: ks_.gemm(pa, pb, int(B_), c, ld_, m, n); break;
      case Mode::NextHops: ks_.gemm_paths(pa, pna, pb, int(B_), c, ld_, N_.get() + at_c, ld_, m, n); break;
      case Mode::HopCounts:
        ks_.gemm_hops(pa, pna, pha, pb, phb, int(B_), c, ld_, N_.get() + at_c, H_.get() + at_c, ld_, m, n);
        break;
    }
  }
  static const i32* at(const Buffer<i32>& b, i64 off) { return b.get() ? b.get() + off : nullptr; }

  Layout L_;
  MPI_Comm world_, row_comm_, col_comm_;
  Mode mode_;
  bool paths_, hops_;
  int threads_;
  cpu::KernelSet<T> ks_;
  i64 B_, ld_;
  int mr_, nr_;
  i64 mc_, strip_a_;
  Buffer<T> D_, piv_, pivot_a_, pivot_b_;
  Buffer<i32> N_, pivn_, pivot_na_, H_, pivh_, pivot_ha_, pivot_hb_;
  Buffer<T> rowp_[2], colp_[2], pb_[2], pa_[2];
  Buffer<i32> colpn_[2], pna_[2], rowph_[2], colph_[2], phb_[2], pha_[2];
  std::vector<MPI_Request> reqs_[2];
  i64 packed_[2] = {-1, -1};
  i64 ahead_ = -1;  // last round whose pivot and panels are done
};

/// The cpu backend keeps next hops with the strict-less kernels and leaves the rare loops that
/// zero-weight edges can cause to solve()'s repair_next_hops(), which needs the whole matrix. So:
/// strict-less (identical to the cpu backend) with positive weights or when rank 0 assembles the
/// whole matrix (solve() then repairs it); hop counts when next hops are streamed and zero-weight
/// edges exist, so that every walk ends without a repair (valid shortest paths, ties may differ).
Mode next_hop_mode(const Graph& g, Dtype t, bool paths, bool streamed) {
  if (!paths) return Mode::Distances;
  return !streamed || cpu::positive_weights(g, t) ? Mode::NextHops : Mode::HopCounts;
}

std::string first_problem(MPI_Comm comm, const std::string& problem);

/// Grid::for_run on every rank, and the same on every rank: APSP_GRID is read per rank (mpirun
/// passes it to other hosts only with -x), so a malformed value on some rank, or shapes that
/// differ, are one UsageError on every rank instead of mismatched collectives. Collective.
Grid agreed_grid(MPI_Comm world, int size) {
  Grid g;
  std::string error;
  try {
    g = Grid::for_run(size);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const std::string p = first_problem(world, error); !p.empty()) throw UsageError(p);
  int mine[2] = {g.Pr, -g.Pr}, all[2] = {0, 0};
  APSP_MPI_TRY(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, world));
  if (all[0] != -all[1])
    throw UsageError("the ranks do not agree on the grid (APSP_GRID differs between them: mpirun -x APSP_GRID)");
  return g;
}

/// The ranks of this rank's host (MPI_Comm_split_type SHARED): this rank's local rank (in
/// world-rank order) and how many there are.
struct Host {
  Comm comm;
  int rank = 0, size = 1;
  explicit Host(MPI_Comm world) {
    APSP_MPI_TRY(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm.c));
    APSP_MPI_TRY(MPI_Comm_rank(comm.c, &rank));
    size = comm.size();
  }
};

/// "" when `problem` is empty on every rank, else "rank R: <its problem>" for the lowest rank R
/// that has one: the same text on every rank, so that all of them fail alike. Collective.
std::string first_problem(MPI_Comm comm, const std::string& problem) {
  int rank = 0, size = 1;
  APSP_MPI_TRY(MPI_Comm_rank(comm, &rank));
  APSP_MPI_TRY(MPI_Comm_size(comm, &size));
  int mine = problem.empty() ? size : rank, first = size;
  APSP_MPI_TRY(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return "";
  char text[512] = {};
  if (rank == first) problem.copy(text, sizeof(text) - 1);
  APSP_MPI_TRY(MPI_Bcast(text, int(sizeof(text)), MPI_CHAR, first, comm));
  return size > 1 ? "rank " + std::to_string(first) + ": " + text : std::string(text);
}

[[maybe_unused]] std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g GiB", bytes / double(std::size_t(1) << 30));
  return text;
}

/// APSP_MPI_GPU: "0" CPU ranks, "1" GPU ranks or an error, unset or empty: GPU ranks where possible.
enum class GpuWish { Auto, Off, On };
GpuWish gpu_wish() {
  const auto on = config::get_switch(config::Knob::MpiGpu);
  return !on ? GpuWish::Auto : *on ? GpuWish::On : GpuWish::Off;
}

/// The CUDA device this rank computes on, or -1 for CPU ranks: the same kind on every rank
/// (collective). GPU ranks need a build with NCCL (--paths: int32 or float32), and for every rank a usable
/// GPU of its own (NCCL refuses two ranks of one communicator on one GPU): local rank l takes GPU
/// l mod count of --devices (default: every GPU the rank sees, in order), and no two ranks of a
/// host may end up on one physical GPU (compared by PCI bus id, so launchers that give each rank
/// its own CUDA_VISIBLE_DEVICES work too). Otherwise CPU ranks, or with APSP_MPI_GPU=1 a
/// BackendUnavailable on every rank. A GPU rank whose device lacks the memory is a ResourceError
/// on every rank (no silent fall-back to CPU ranks).
int choose_device(MPI_Comm world, const Host& host, Dtype t, std::int64_t n, bool paths, const SolveOptions& o) {
  const GpuWish wish = gpu_wish();
  std::string why;    // why this rank cannot be a GPU rank
  std::string usage;  // a --devices mistake
  int device = -1;
  if (wish == GpuWish::Off) {
    why = "APSP_MPI_GPU=0";
  } else if (paths && dtype_size(t) != 4) {
    why = std::string("GPU ranks run --paths in int32 and float32, not ") + dtype_name(t);
  } else {
#ifdef APSP_WITH_NCCL
    const int count = multigpu::gpu_count();
    std::vector<int> usable = o.devices;
    if (usable.empty())
      for (int d = 0; d < count; ++d) usable.push_back(d);
    std::vector<int> sorted = usable;
    std::sort(sorted.begin(), sorted.end());
    for (int d : o.devices)
      if (d < 0 || d >= count)
        usage = "--devices: no GPU " + std::to_string(d) + " (this host has " + std::to_string(count) + ")";
    if (usage.empty() && std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      usage = "--devices: a GPU is listed twice";
    if (!usage.empty()) {
      why = usage;
    } else if (count == 0) {
      why = "no usable CUDA device";
    } else {
      device = usable[std::size_t(host.rank) % usable.size()];
      why = multigpu::gpu_unusable(device);
    }
#else
    (void)o;
    (void)host;
    why = "this build has no GPU ranks (CUDA and NCCL were not found at configure time)";
#endif
  }
#ifdef APSP_WITH_NCCL
  // Two ranks of one host on one GPU: compare the chosen GPUs' bus ids within the host.
  {
    constexpr int kIdChars = 64;
    std::vector<char> ids(std::size_t(host.size) * kIdChars, '\0');
    char mine[kIdChars] = {};
    if (device >= 0) multigpu::gpu_bus_id(device).copy(mine, kIdChars - 1);
    APSP_MPI_TRY(MPI_Allgather(mine, kIdChars, MPI_CHAR, ids.data(), kIdChars, MPI_CHAR, host.comm.c));
    for (int r = 0; r < host.size && device >= 0 && why.empty(); ++r)
      if (r != host.rank && std::strncmp(mine, ids.data() + std::size_t(r) * kIdChars, kIdChars) == 0)
        why = "local ranks " + std::to_string(std::min(r, host.rank)) + " and " + std::to_string(std::max(r, host.rank)) +
              " would share GPU " + mine + " (a GPU rank needs a GPU of its own: " + std::to_string(host.size) +
              " ranks on this host)";
  }
#endif
  if (const std::string u = first_problem(world, usage); !u.empty()) throw UsageError(u);
  if (const std::string missing = first_problem(world, why); !missing.empty()) {
    if (wish == GpuWish::On) throw BackendUnavailable("APSP_MPI_GPU=1 but GPU ranks are not possible: " + missing);
    return -1;
  }
#ifdef APSP_WITH_NCCL
  std::string short_of;
  try {
    int size = 1;
    APSP_MPI_TRY(MPI_Comm_size(world, &size));
    const std::size_t need = multigpu::bytes_per_gpu(n, size, dtype_size(t), paths);
    const std::size_t free_b = multigpu::free_device_bytes(device);
    if (need > free_b)
      short_of = "V=" + std::to_string(n) + " needs " + gib(double(need)) + " on each of " + std::to_string(size) +
                 " GPUs; GPU " + std::to_string(device) + " has " + gib(double(free_b)) + " free";
  } catch (const std::exception& e) {
    short_of = e.what();
  }
  if (const std::string m = first_problem(world, short_of); !m.empty()) throw ResourceError(m);
#else
  (void)n;
  (void)paths;
#endif
  return device;
}

#ifdef APSP_WITH_NCCL
/// The NCCL id exchange of a GPU rank, over the MPI communicators of its grid row and column
/// (made with MPI_Comm_split keyed by the grid column / row index, so index = rank in them).
class MpiLinks final : public multigpu::RankLinks {
 public:
  MpiLinks(MPI_Comm row, MPI_Comm col, MPI_Comm world) : row_(row), col_(col), world_(world) {}
  void broadcast(void* data, std::size_t bytes, int root, bool row) override {
    APSP_MPI_TRY(MPI_Bcast(data, mpi_count(i64(bytes)), MPI_BYTE, root, row ? row_ : col_));
  }
  bool any(bool mine) override {
    int in = mine ? 1 : 0, out = 0;
    APSP_MPI_TRY(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, world_));
    return out != 0;
  }

 private:
  MPI_Comm row_, col_, world_;
};

multigpu::Mode gpu_mode(Mode m) {
  switch (m) {
    case Mode::Distances: break;
    case Mode::NextHops: return multigpu::Mode::NextHops;
    case Mode::HopCounts: return multigpu::Mode::HopCounts;
  }
  return multigpu::Mode::Distances;
}
#endif

class MpiBackend final : public BackendImpl {
 public:
  std::string name() const override { return "mpi"; }
  bool supports(Dtype) const override { return true; }
  /// GPU ranks: the type their rounds ran in (int16x2 where kept); CPU ranks: "" (the dtype).
  std::string rounds_used() const override { return rounds_; }
  int default_block(Dtype t, std::int64_t) const override { return cpu::default_block(t); }
  /// CPU ranks: the CPU backend's rule. GPU ranks (known once run() chose them): the GPU tile.
  int effective_block(Dtype t, int block) const override {
#ifdef APSP_WITH_NCCL
    if (gpu_ranks_) return multigpu::kGpuTile;
#endif
    return cpu::effective_block(t, block);
  }
  int pad_multiple(Dtype, int) const override { return 1; }
  bool builds_matrix() const override { return true; }
  /// Streamed next hops are loop-free (hop counts where zero-weight edges exist: next_hop_mode).
  bool streams_paths() const override { return true; }
  void agree_on(const std::string& problem) const override {
    ensure_mpi_initialised();
    if (const std::string p = first_problem(MPI_COMM_WORLD, problem); !p.empty()) throw ResourceError(p);
  }
  /// Only rank 0 gets the gathered matrices; the other ranks hold their blocks alone.
  bool receives_result() const override {
    ensure_mpi_initialised();
    int rank = 0;
    APSP_MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    return rank == 0;
  }

  /// A GPU rank needs more than one CPU: the host thread that drives the GPU and NCCL's proxy
  /// thread share whatever the rank is bound to, and OpenMPI binds each rank to one core by
  /// default when np <= 2. Measured on 2 x H200, V=32768: 16.7 T updates/s bound to a core each,
  /// 26.4 T with --bind-to none (bench/results/mpi-gpu-2026-11-21.md). Rank 0 says so.
  static void warn_if_bound_to_one_cpu(MPI_Comm world, int rank) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    int fewest = mine;
    APSP_MPI_TRY(MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, world));
    if (rank == 0 && fewest == 1)
      std::fprintf(stderr,
                   "apsp: warning: mpi GPU ranks are bound to one CPU each (mpirun's default for -np <= 2); the GPU's "
                   "host thread and NCCL share it, about 1.6x slower: run mpirun --bind-to none (or --map-by numa)\n");
  }

  void run(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o, Timings& timings) override {
    ensure_mpi_initialised();
    Comm world;
    APSP_MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &world.c));
    APSP_MPI_TRY(MPI_Comm_set_errhandler(world.c, MPI_ERRORS_RETURN));
    int rank = 0, size = 1;
    APSP_MPI_TRY(MPI_Comm_rank(world.c, &rank));
    APSP_MPI_TRY(MPI_Comm_size(world.c, &size));
    const Host host(world.c);
    const int threads = o.threads > 0 ? o.threads : std::max(1, omp_get_num_procs() / std::max(1, host.size));
    const int device = choose_device(world.c, host, dist.dtype(), g.num_vertices, next != nullptr, o);
    gpu_ranks_ = device >= 0;
    rounds_.clear();
    if (device >= 0) warn_if_bound_to_one_cpu(world.c, rank);
    if (device >= 0) run_gpu(g, dist, next, device, o, timings, world.c, rank, size, threads);
    else run_cpu(g, dist, next, block, o, timings, world.c, rank, size, threads);
  }

 private:
  std::string rounds_;

  void run_cpu(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o, Timings& timings,
               MPI_Comm world, int rank, int size, int threads) {
    const Dtype t = dist.dtype();
    const i64 n = g.num_vertices;
    // The CPU backend's tile rule (a multiple of 32), no larger than the padded matrix.
    const i64 B = std::min<i64>(cpu::effective_block(t, block), round_up(n, cpu::kPadMultiple));
    const Grid grid = agreed_grid(world, size);
    const Layout lay(grid, rank, n, B);
    Comm row_comm, col_comm;
    APSP_MPI_TRY(MPI_Comm_split(world, lay.pr, lay.pc, &row_comm.c));
    APSP_MPI_TRY(MPI_Comm_split(world, lay.pc, lay.pr, &col_comm.c));

    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      const double t0 = MPI_Wtime();
      std::unique_ptr<MpiRounds<T>> rounds;
      std::string error;
      try {
        const Mode mode = next_hop_mode(g, t, next != nullptr, bool(o.next_sink));
        rounds = std::make_unique<MpiRounds<T>>(lay, world, row_comm.c, col_comm.c, mode, threads,
                                                cpu::kernels_for<T>(cpu::active_isa()));
        rounds->build(g);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (const std::string p = first_problem(world, error); !p.empty()) throw ResourceError(p);
      const double t1 = MPI_Wtime();
      timings.build += t1 - t0;
      ProgressFn progress = rank == 0 ? o.progress : ProgressFn{};
      run_rounds(*rounds, progress);
      APSP_MPI_TRY(MPI_Barrier(world));
      const double t2 = MPI_Wtime();
      timings.compute = t2 - t1;

      const bool keep_dist = rank == 0 && !o.dist_sink;
      rounds->template gather<T>(false, o.dist_sink, keep_dist ? dist.data<T>() : nullptr, dist.stride(), t);
      if (!keep_dist) dist = Matrix{};
      if (next) {
        const bool keep_next = rank == 0 && !o.next_sink;
        rounds->template gather<i32>(true, o.next_sink, keep_next ? next->data<i32>() : nullptr, next->stride(),
                                     Dtype::Int32);
        if (!keep_next) *next = Matrix{};
      }
      timings.d2h = MPI_Wtime() - t2;
    });
  }

  // GPU ranks: the multi-gpu driver with this rank's GPU as its one worker (multigpu/gpu_rank.hpp),
  // NCCL between the ranks' GPUs, the result gathered to rank 0 over MPI as with CPU ranks.
  void run_gpu(const Graph& g, Matrix& dist, Matrix* next, int device, const SolveOptions& o, Timings& timings,
               MPI_Comm world, int rank, int size, int threads) {
#ifdef APSP_WITH_NCCL
    const Dtype t = dist.dtype();
    const i64 n = g.num_vertices;
    const i64 B = multigpu::kGpuTile;
    const Grid grid = agreed_grid(world, size);
    const Layout lay(grid, rank, n, B);
    Comm row_comm, col_comm;
    APSP_MPI_TRY(MPI_Comm_split(world, lay.pr, lay.pc, &row_comm.c));
    APSP_MPI_TRY(MPI_Comm_split(world, lay.pc, lay.pr, &col_comm.c));

    double t0 = MPI_Wtime();
    std::unique_ptr<multigpu::GpuRank> gpu;
    const Mode mode = next_hop_mode(g, t, next != nullptr, bool(o.next_sink));
    MpiLinks links(row_comm.c, col_comm.c, world);
    // An int64 result runs checked int32 rounds first where the weights allow (the cuda
    // backend's ladder; every rank decides alike from the same graph), int64 rounds after them
    // when some rank's band check fails.
    const Graph::WeightRange range = g.validated_weight_range();
    const bool checked = t == Dtype::Int64 &&
                         detail::rung_applicable(range.max_abs_weight, range.min_weight,
                                                 double(unreachable<std::int32_t>()));
    auto start = [&](bool checked32) {
      gpu.reset();
      std::string error;
      try {
        gpu = multigpu::make_gpu_rank(device, grid, rank, n, t, gpu_mode(mode), checked32);
        gpu->build(g);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (const std::string p = first_problem(world, error); !p.empty()) throw ResourceError(p);
      // A rank whose NCCL set-up fails leaves the others waiting in ncclCommInitRank; mpirun
      // ends the job when that rank exits with its error.
      gpu->connect(links);
    };
    start(checked);
    double t1 = MPI_Wtime();
    timings.h2d = t1 - t0;
    rounds_ = gpu->run(rank == 0 ? o.progress : ProgressFn{}, links, g);
    if (checked && gpu->dropped()) {
      const std::string why = rounds_;
      timings.compute = MPI_Wtime() - t1;  // the dropped pass counts in the times too
      t0 = MPI_Wtime();
      start(false);
      t1 = MPI_Wtime();
      timings.h2d += t1 - t0;
      (void)gpu->run(rank == 0 ? o.progress : ProgressFn{}, links, g);
      rounds_ = "int64 (" + why + ")";
      t1 -= timings.compute;
    } else if (t == Dtype::Int64 && !checked) {
      rounds_ = "int64 (weights reach 2^30-1)";
    }
    APSP_MPI_TRY(MPI_Barrier(world));
    const double t2 = MPI_Wtime();
    timings.compute = t2 - t1;

    auto gather = [&](auto tag, bool next_hops, const RowSink& sink, Matrix& m) {
      using U = decltype(tag);
      const bool keep = rank == 0 && !sink;
      StripeSource<U> src;
      src.grid = grid;
      src.rank = rank;
      src.n = n;
      src.R = lay.R;
      src.B = B;
      src.ld_of = [grid, R = lay.R, B](int q) { return Layout::tiles_of(R, grid.Pc, grid.col_of(q)) * B; };
      multigpu::GpuRank* gr = gpu.get();
      src.rows = [gr, B, next_hops](TileRange lr, int slot) {
        return static_cast<const U*>(gr->rows_to_host(next_hops, lr.begin * B, (lr.end - lr.begin) * B, slot));
      };
      src.copies = true;
      gather_to_root(world, src, next_hops, sink, keep ? m.data<U>() : nullptr, m.stride(),
                     next_hops ? Dtype::Int32 : t, threads);
      if (!keep) m = Matrix{};
    };
    switch (t) {
      case Dtype::Int32: gather(i32{}, false, o.dist_sink, dist); break;
      case Dtype::Int64: gather(std::int64_t{}, false, o.dist_sink, dist); break;
      case Dtype::Float32: gather(float{}, false, o.dist_sink, dist); break;
      case Dtype::Float64: gather(double{}, false, o.dist_sink, dist); break;
    }
    if (next) gather(i32{}, true, o.next_sink, *next);
    timings.d2h = MPI_Wtime() - t2;
#else
    (void)g, (void)dist, (void)next, (void)device, (void)o, (void)timings, (void)world, (void)rank, (void)size,
        (void)threads;
    throw BackendUnavailable("this build has no GPU ranks");
#endif
  }

  bool gpu_ranks_ = false;
};

}  // namespace

}  // namespace mpi

std::unique_ptr<BackendImpl> make_mpi_backend() { return std::make_unique<mpi::MpiBackend>(); }

BackendInfo mpi_backend_info() {
  // No MPI call here: `apsp info` and non-mpi runs must not initialise MPI.
  std::string version = "MPI";
#ifdef OMPI_MAJOR_VERSION
  version = "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." + std::to_string(OMPI_MINOR_VERSION) + "." +
            std::to_string(OMPI_RELEASE_VERSION);
#endif
#ifdef APSP_WITH_NCCL
  const int gpus = multigpu::gpu_count();
  const std::string kernels = gpus > 0 ? "GPU ranks when every rank has a GPU of its own (" + std::to_string(gpus) +
                                             " here), else CPU kernels; APSP_MPI_GPU=0|1 forces"
                                       : "CPU kernels per rank (no GPU here)";
#else
  const std::string kernels = "CPU kernels per rank";
#endif
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* s = std::getenv(var))
      return {"mpi", true, true, "run under mpirun: " + std::string(s) + " ranks (" + version + ", " + kernels + ")"};
  }
  return {"mpi", true, true, version + ", " + kernels + "; run under `mpirun -np N` (alone: 1 rank)"};
}

}  // namespace apsp::detail
