// src/mpi/cpu_ranks.cpp — the mpi backend's CPU ranks: blocked Floyd-Warshall over the 2D
// block-cyclic tiles (dist/block_cyclic.hpp) with the CPU tile operations (cpu/tile_ops.hpp).
//
// Each rank builds its own tiles; per round the pivot is closed and broadcast, the panels updated
// and broadcast (MPI_Ibcast) along grid rows and columns, and every rank updates its tiles (OpenMP
// over macro tiles), scheduled by run_rounds_lookahead (core/rounds.hpp). Results, next hops
// included, are byte-identical to `--backend cpu` with the same --block (streamed next hops with
// zero-weight edges excepted: next_hop_mode, mpi_common.hpp).
// Sparse rounds: with a TilePlan (uniform tiles of the plan's B, 128 on this backend) every step
// touches only round t's listed tiles (mpi/round_tiles.hpp): the pivot closes as always; the row
// panel covers the listed local columns, the column panel the listed local rows, the rest their
// product, the lookahead's Ahead / Behind split likewise; panels are broadcast whole, and only in
// rounds with a rest update (some row and some column listed). Distances are those of the dense
// rounds (exact min-plus: integer weights, or floats whose sums are exact); next hops are valid
// shortest-path walks (ties may differ from other tile widths).
// Rounds, lookahead, exactness: docs/distributed.md.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/rounds.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "cpu/tile_ops.hpp"
#include "mpi/gather.hpp"
#include "mpi/mpi_common.hpp"
#include "mpi/ranks.hpp"
#include "mpi/round_tiles.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail::mpi {

namespace {

using cpu::AlignedBuffer;
using cpu::kMacroCols;
using cpu::kMacroRows;
using cpu::Mode;
using dist::holds;
using dist::RoundTiles;
using dist::runs_without;
using dist::span_of;

/// One piece of the rest update: rows [r0, r0+rows) of local tile row `li` times local columns
/// [c0, c0+cols).
struct Task {
  i64 li, r0, rows, c0, cols;
};

template <class T>
class MpiRounds final : public LookaheadOps {
 public:
  // plan: the sparse rounds' lists (null: dense rounds), for lay's R and B.
  MpiRounds(const Layout& lay, MPI_Comm world, MPI_Comm row_comm, MPI_Comm col_comm, Mode mode,
            int threads, const cpu::KernelSet<T>& ks, const TilePlan* plan)
      : L_(lay),
        plan_(plan),
        world_(world),
        row_comm_(row_comm),
        col_comm_(col_comm),
        mode_(mode),
        paths_(mode != Mode::Distances),
        hops_(mode == Mode::HopCounts),
        threads_(threads),
        ks_(ks),
        B_(lay.B),
        ld_(lay.local_cols()),
        mr_(cpu::mr_for(ks, mode)),
        nr_(cpu::nr_for(ks, mode)),
        mc_(std::max<i64>(mr_, std::min<i64>(B_, kMacroRows) / mr_ * mr_)),
        strip_a_((B_ + mr_ - 1) / mr_ * mr_ * B_) {
    APSP_EXPECTS(B_ % nr_ == 0, "tile size is not a multiple of the CPU micro-tile width");
    APSP_EXPECTS(!plan_ || (plan_->B == B_ && plan_->R == L_.R && plan_->n == L_.n_pad()),
                 "mpi CPU ranks: tile plan for another layout");
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
      if constexpr (std::is_floating_point_v<T>)
        w = T(wd);
      else
        w = T(std::llround(wd));
      T& d =
          D_.get()[(L_.local_row(u / B_) * B_ + u % B_) * ld_ + L_.local_col(v / B_) * B_ + v % B_];
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

  // Round t's rest update on `set`'s tiles with the packed panels of round t. Behind: the
  // master thread drives round t+1's panel broadcasts between macro tiles.
  // Only round t's tiles (round_tiles: every local tile outside row and column t when dense):
  // Ahead = its tiles in local row / column t+1, Behind = the others.
  void rest(i64 t, TileSet set) override {
    const RoundTiles& rt = tiles_[t % 2];
    const bool ahead = set != TileSet::All;  // round t+1 exists
    const i64 next_r = ahead && L_.owns_row(t + 1) ? L_.local_row(t + 1) : -1;
    const i64 next_c = ahead && L_.owns_col(t + 1) ? L_.local_col(t + 1) : -1;
    std::vector<Task> tasks;
    if (set == TileSet::Ahead) {
      if (holds(rt.rows, next_r)) add_tasks(tasks, {{next_r, next_r + 1}}, runs_without(rt.cols));
      if (holds(rt.cols, next_c))
        add_tasks(tasks, runs_without(rt.rows, next_r), {{next_c, next_c + 1}});
    } else {
      add_tasks(tasks, runs_without(rt.rows, next_r), runs_without(rt.cols, next_c));
    }
    run_tasks(tasks, int(t % 2), set == TileSet::Behind ? &reqs_[(t + 1) % 2] : nullptr);
  }

  /// Hands the result to rank 0 (gather_host_local): distances when next_hops is false, else
  /// next hops; in the user's order with `user` (an ordered graph's result).
  template <class U>
  void gather(bool next_hops, const RowSink& sink, U* whole, i64 whole_stride, Dtype dtype,
              const dist::UserOrder* user) {
    const U* local =
        next_hops ? reinterpret_cast<const U*>(N_.get()) : reinterpret_cast<const U*>(D_.get());
    gather_host_local(world_, L_, ld_, local, next_hops, user, sink, whole, whole_stride, dtype,
                      threads_);
  }

 private:
  i64 global_row(i64 r) const { return L_.global_row(r / B_) * B_ + r % B_; }
  i64 global_col(i64 c) const { return L_.global_col(c / B_) * B_ + c % B_; }
  T* tile(i64 li, i64 lj) const { return D_.get() + li * B_ * ld_ + lj * B_; }
  i32* ntile(i64 li, i64 lj) const { return N_.get() + li * B_ * ld_ + lj * B_; }
  i32* htile(i64 li, i64 lj) const { return H_.get() + li * B_ * ld_ + lj * B_; }

  // Closes pivot tile t on its owner and broadcasts it along the owner's grid row (when some
  // column of the round is listed: the row panel needs it) and column (some row listed). The
  // round's tiles are worked out here, the round's first step.
  void pivot(i64 t) override {
    tiles_[t % 2] = dist::round_tiles(L_, plan_, t);
    const RoundTiles& rt = tiles_[t % 2];
    const int tr = L_.row_owner(t), tc = L_.col_owner(t);
    const bool in_row = L_.pr == tr, in_col = L_.pc == tc;
    if (in_row && in_col) {
      const i64 li = L_.local_row(t), lj = L_.local_col(t);
      T* p = tile(li, lj);
      i32* np = paths_ ? ntile(li, lj) : nullptr;
      i32* hp = hops_ ? htile(li, lj) : nullptr;
      cpu::close_tile(ks_, mode_, p, np, hp, ld_, ld_, int(B_));
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
    if (in_row && L_.grid.Pc > 1 && rt.any_cols) share(row_comm_, tc);
    if (in_col && L_.grid.Pr > 1 && rt.any_rows) share(col_comm_, tr);
  }

  // Panels of round t (its listed local columns / rows) from packed copies of their old values
  // (as the CPU backend), then, with a rest update, their broadcasts (down / along the grid).
  void panels(i64 t) override {
    const RoundTiles& rt = tiles_[t % 2];
    const int slot = int(t % 2);
    const bool in_row = L_.pr == L_.row_owner(t), in_col = L_.pc == L_.col_owner(t);
    if (in_row && !rt.cols.empty()) row_panel(t, rt, slot);
    if (in_col && !rt.rows.empty()) col_panel(t, rt, slot);
    reqs_[slot].clear();
    if (rt.rest()) start_broadcasts(t, rt, slot);  // else nobody needs the panels
  }

  // C = D[t, J], A = P* (with its next hops and hop counts), B = the old row panel.
  void row_panel(i64 t, const RoundTiles& rt, int slot) {
    const int k = int(B_);
    T* const pb = pb_[slot].get();
    i32* const phb = hops_ ? phb_[slot].get() : nullptr;
    const i64 li = L_.local_row(t);
    cpu::pack_a_panel(piv_.get(), paths_ ? pivn_.get() : nullptr, hops_ ? pivh_.get() : nullptr, B_,
                      B_, B_, k, mr_, pivot_a_.get(), pivot_na_.get(), pivot_ha_.get());
    pack_row_panel(tile(li, 0), hops_ ? htile(li, 0) : nullptr, ld_, 0, rt.cols, pb, phb);
    std::vector<Task> tasks;
    add_tasks(tasks, {{li, li + 1}}, runs_without(rt.cols));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (std::size_t x = 0; x < tasks.size(); ++x) {
      const Task& w = tasks[x];
      const i64 off = w.r0 * k;
      gemm(pivot_a_.get() + off, at(pivot_na_, off), at(pivot_ha_, off), pb + w.c0 * k,
           phb ? phb + w.c0 * k : nullptr, w.li * B_ + w.r0, w.c0, w.rows, w.cols);
    }
  }

  // C = D[I, t], A = the old column panel, B = P*.
  void col_panel(i64 t, const RoundTiles& rt, int slot) {
    const int k = int(B_);
    T* const pa = pa_[slot].get();
    i32* const pna = paths_ ? pna_[slot].get() : nullptr;
    i32* const pha = hops_ ? pha_[slot].get() : nullptr;
    const i64 lj = L_.local_col(t);
    cpu::pack_b_panel(piv_.get(), hops_ ? pivh_.get() : nullptr, B_, B_, k, B_, nr_, pivot_b_.get(),
                      pivot_hb_.get());
    pack_col_panel(tile(0, lj), paths_ ? ntile(0, lj) : nullptr, hops_ ? htile(0, lj) : nullptr,
                   ld_, rt.rows, pa, pna, pha);
    std::vector<Task> tasks;
    for (const i64 li : rt.rows)
      for (i64 r0 = 0; r0 < B_; r0 += mc_)
        tasks.push_back({li, r0, std::min(mc_, B_ - r0), lj * B_, B_});
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (std::size_t x = 0; x < tasks.size(); ++x) {
      const Task& w = tasks[x];
      const i64 off = w.li * strip_a_ + w.r0 * k;
      gemm(pa + off, pna ? pna + off : nullptr, pha ? pha + off : nullptr, pivot_b_.get(),
           hops_ ? pivot_hb_.get() : nullptr, w.li * B_ + w.r0, w.c0, w.rows, w.cols);
    }
  }

  // Broadcast buffers: roots copy their strip in, then everyone takes part. Only the span from
  // the first to the last listed local tile (the same on every member of a grid row or column):
  // the row panel as B x that span (its own stride), the column panel at its local rows' place.
  void start_broadcasts(i64 t, const RoundTiles& rt, int slot) {
    const int tr = L_.row_owner(t), tc = L_.col_owner(t);
    const bool in_row = L_.pr == tr, in_col = L_.pc == tc;
    auto& reqs = reqs_[slot];
    const auto [c0, c1] = span_of(rt.cols);
    const auto [r0, r1] = span_of(rt.rows);
    const i64 wr = (c1 - c0) * B_;  // the row panel buffer's stride
    if (in_row && wr > 0) {
      const i64 li = L_.local_row(t);
      for (i64 r = 0; r < B_; ++r) {
        std::memcpy(rowp_[slot].get() + r * wr, tile(li, c0) + r * ld_,
                    std::size_t(wr) * sizeof(T));
        if (hops_)
          std::memcpy(rowph_[slot].get() + r * wr, htile(li, c0) + r * ld_,
                      std::size_t(wr) * sizeof(i32));
      }
    }
    if (in_col) {
      const i64 lj = L_.local_col(t);
      for (i64 r = r0 * B_; r < r1 * B_; ++r) {
        const i64 at_rc = r * ld_ + lj * B_;
        std::memcpy(colp_[slot].get() + r * B_, D_.get() + at_rc, std::size_t(B_) * sizeof(T));
        if (paths_)
          std::memcpy(colpn_[slot].get() + r * B_, N_.get() + at_rc, std::size_t(B_) * sizeof(i32));
        if (hops_)
          std::memcpy(colph_[slot].get() + r * B_, H_.get() + at_rc, std::size_t(B_) * sizeof(i32));
      }
    }
    auto ibcast = [&](void* buf, i64 count, MPI_Datatype type, int root, MPI_Comm comm) {
      reqs.emplace_back();
      APSP_MPI_TRY(MPI_Ibcast(buf, mpi_count(count), type, root, comm, &reqs.back()));
    };
    if (L_.grid.Pr > 1 && wr > 0) {
      ibcast(rowp_[slot].get(), B_ * wr, mpi_type<T>(), tr, col_comm_);
      if (hops_) ibcast(rowph_[slot].get(), B_ * wr, MPI_INT32_T, tr, col_comm_);
    }
    if (L_.grid.Pc > 1 && r1 > r0) {
      const i64 at = r0 * B_ * B_, count = (r1 - r0) * B_ * B_;
      ibcast(colp_[slot].get() + at, count, mpi_type<T>(), tc, row_comm_);
      if (paths_) ibcast(colpn_[slot].get() + at, count, MPI_INT32_T, tc, row_comm_);
      if (hops_) ibcast(colph_[slot].get() + at, count, MPI_INT32_T, tc, row_comm_);
    }
  }

  // Waits for round t's panel broadcasts and packs their listed tiles for the micro-kernels.
  void wait(i64 t) override {
    const RoundTiles& rt = tiles_[t % 2];
    const int slot = int(t % 2);
    auto& reqs = reqs_[slot];
    APSP_MPI_TRY(MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
    reqs.clear();
    if (!rt.rest()) return;
    const auto [c0, c1] = span_of(rt.cols);
    pack_row_panel(rowp_[slot].get(), hops_ ? rowph_[slot].get() : nullptr, (c1 - c0) * B_, c0,
                   rt.cols, pb_[slot].get(), phb_[slot].get());
    pack_col_panel(colp_[slot].get(), paths_ ? colpn_[slot].get() : nullptr,
                   hops_ ? colph_[slot].get() : nullptr, B_, rt.rows, pa_[slot].get(),
                   paths_ ? pna_[slot].get() : nullptr, hops_ ? pha_[slot].get() : nullptr);
  }

  // Packs the local tile columns `cols` of a row strip (B rows, stride ld, starting at local tile
  // column `first`; hop counts alike when given) into the B layout, each at its own offset (local
  // column c at c * B).
  void pack_row_panel(const T* src, const i32* hsrc, i64 ld, i64 first,
                      const std::vector<i64>& cols, T* pb, i32* phb) const {
    for (const TileRange& r : runs_without(cols)) {
      const i64 at = (r.begin - first) * B_, c0 = r.begin * B_, n = (r.end - r.begin) * B_;
      cpu::pack_b_panel(src + at, hsrc ? hsrc + at : nullptr, ld, ld, int(B_), n, nr_, pb + c0 * B_,
                        phb ? phb + c0 * B_ : nullptr);
    }
  }

  // Packs the local tile rows `rows` of a column strip (local_rows x B, stride ld; next hops and
  // hop counts alike when given) tile row by tile row into the A layout.
  void pack_col_panel(const T* src, const i32* nsrc, const i32* hsrc, i64 ld,
                      const std::vector<i64>& rows, T* pa, i32* pna, i32* pha) const {
    const i64 count = i64(rows.size());
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (i64 x = 0; x < count; ++x) {
      const i64 li = rows[std::size_t(x)];
      const i64 at_src = li * B_ * ld, at_pa = li * strip_a_;
      cpu::pack_a_panel(src + at_src, nsrc ? nsrc + at_src : nullptr,
                        hsrc ? hsrc + at_src : nullptr, ld, ld, B_, int(B_), mr_, pa + at_pa,
                        pna ? pna + at_pa : nullptr, pha ? pha + at_pa : nullptr);
    }
  }

  void add_tasks(std::vector<Task>& out, const std::vector<TileRange>& rows,
                 const std::vector<TileRange>& cols) const {
    for (const TileRange& rr : rows)
      for (i64 li = rr.begin; li < rr.end; ++li)
        for (i64 r0 = 0; r0 < B_; r0 += mc_)
          for (const TileRange& cr : cols)
            for (i64 c0 = cr.begin * B_; c0 < cr.end * B_; c0 += kMacroCols)
              out.push_back(
                  {li, r0, std::min(mc_, B_ - r0), c0, std::min(kMacroCols, cr.end * B_ - c0)});
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
      gemm(pa + off, pna ? pna + off : nullptr, pha ? pha + off : nullptr, pb + w.c0 * k,
           phb ? phb + w.c0 * k : nullptr, w.li * B_ + w.r0, w.c0, w.rows, w.cols);
      if (poll && omp_get_thread_num() == 0) {
        int done = 0;
        MPI_Testall(int(progress->size()), progress->data(), &done, MPI_STATUSES_IGNORE);
      }
    }
  }

  // C = D[row0 : row0+m, col0 : col0+n] (local coordinates) = min(C, A (x) B), with next hops
  // (and hop counts) per mode_.
  void gemm(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb, i64 row0,
            i64 col0, i64 m, i64 n) const {
    const i64 at_c = row0 * ld_ + col0;
    cpu::gemm(ks_, mode_, pa, pna, pha, pb, phb, int(B_), D_.get() + at_c, ld_,
              paths_ ? N_.get() + at_c : nullptr, hops_ ? H_.get() + at_c : nullptr, ld_, m, n);
  }
  static const i32* at(const AlignedBuffer<i32>& b, i64 off) {
    return b.get() ? b.get() + off : nullptr;
  }

  Layout L_;
  const TilePlan* plan_;
  RoundTiles tiles_[2];  // rounds t and t+1 (lookahead), by parity; set by pivot()
  MPI_Comm world_, row_comm_, col_comm_;
  Mode mode_;
  bool paths_, hops_;
  int threads_;
  cpu::KernelSet<T> ks_;
  i64 B_, ld_;
  int mr_, nr_;
  i64 mc_, strip_a_;
  AlignedBuffer<T> D_, piv_, pivot_a_, pivot_b_;
  AlignedBuffer<i32> N_, pivn_, pivot_na_, H_, pivh_, pivot_ha_, pivot_hb_;
  AlignedBuffer<T> rowp_[2], colp_[2], pb_[2], pa_[2];
  AlignedBuffer<i32> colpn_[2], pna_[2], rowph_[2], colph_[2], phb_[2], pha_[2];
  std::vector<MPI_Request> reqs_[2];
};

}  // namespace

void run_cpu_ranks(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o,
                   Timings& timings, MPI_Comm world, int rank, int size, int threads,
                   const TilePlan* plan, const Permutation* perm) {
  const Dtype t = dist.dtype();
  const i64 n = g.num_vertices;
  // The CPU backend's tile rule (a multiple of 32), no larger than the padded matrix; with a plan
  // its uniform tile (mpi_backend.cpp: 128, n a multiple of it), whatever --block.
  const i64 B = plan
                    ? plan->B
                    : std::min<i64>(cpu::effective_block(t, block), round_up(n, cpu::kPadMultiple));
  const Grid grid = agreed_grid(world, size);
  const Layout lay(grid, rank, n, B);
  Comm row_comm, col_comm;
  APSP_MPI_TRY(MPI_Comm_split(world, lay.pr, lay.pc, &row_comm.c));
  APSP_MPI_TRY(MPI_Comm_split(world, lay.pc, lay.pr, &col_comm.c));
  const std::unique_ptr<dist::UserOrder> user = dist::user_order_of(grid, B, perm);

  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const double t0 = MPI_Wtime();
    std::unique_ptr<MpiRounds<T>> rounds;
    std::string error;
    try {
      const Mode mode = next_hop_mode(g, t, next != nullptr, bool(o.next_sink));
      rounds = std::make_unique<MpiRounds<T>>(lay, world, row_comm.c, col_comm.c, mode, threads,
                                              cpu::kernels_for<T>(cpu::active_isa()), plan);
      rounds->build(g);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (const std::string p = first_problem(world, error); !p.empty()) throw ResourceError(p);
    const double t1 = MPI_Wtime();
    timings.build += t1 - t0;
    ProgressFn progress = rank == 0 ? o.progress : ProgressFn{};
    run_rounds_lookahead(*rounds, progress);
    APSP_MPI_TRY(MPI_Barrier(world));
    const double t2 = MPI_Wtime();
    timings.compute = t2 - t1;

    const bool keep_dist = rank == 0 && !o.dist_sink;
    rounds->template gather<T>(false, o.dist_sink, keep_dist ? dist.data<T>() : nullptr,
                               dist.stride(), t, user.get());
    if (!keep_dist) dist = Matrix{};
    if (next) {
      const bool keep_next = rank == 0 && !o.next_sink;
      rounds->template gather<i32>(true, o.next_sink, keep_next ? next->data<i32>() : nullptr,
                                   next->stride(), Dtype::Int32, user.get());
      if (!keep_next) *next = Matrix{};
    }
    timings.d2h = MPI_Wtime() - t2;
  });
}

}  // namespace apsp::detail::mpi
