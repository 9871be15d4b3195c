// src/multigpu/workers.cuh — the GPUs one process drives in the 2D block-cyclic grid
// (src/dist/block_cyclic.hpp): each GPU's tiles, streams, events, NCCL communicators and buffers
// (Gpu<T>), and what every kind of round shares (Workers<T>): set-up, communicators, the build of
// the local matrices, the listed rounds' tile lists (set_plan), synchronisation, the pivot
// broadcast, band checks and the optional profile.
// The rounds themselves are LookaheadOps over a Workers: rounds_distances.cuh, rounds_int16x2.cuh,
// rounds_paths.cuh. Tile B = cuda::kTile = 128; row strides are the same on every GPU
// (gpu_strides, dist/gpu_rank.hpp), so every broadcast has one count on all members.
// References: ScaLAPACK's 2D block-cyclic layout; HPL's lookahead (depth 1).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.cuh"
#include "multigpu/gpu.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

/// Profile phases (APSP_MG_PROFILE=1), in report order.
enum Phase { kClosure, kPivotBcast, kPanels, kPanelBcast, kRest, kMainWait, kLookWait, kPhases };

/// The GPUs this process drives (`members`), which hold some or all of the grid's workers: all of
/// them (the multi-gpu backend: one process, connect_in_process()) or one (an mpi GPU rank:
/// connect_ranks()). Everything works on the members it has; only the in-process gather
/// (gather.cuh) needs every worker here. The rounds' classes read and drive its members.
template <class T>
struct Workers {
  Workers(const Grid& grid, const std::vector<Member>& members, i64 n, Mode mode)
      : grid_(grid), mode_(mode) {
    // The next-hop kernels (cuda/kernels/paths.cuh) hold 4-byte values (their shared tiles): int64
    // / float64 run distances only (check_fits refuses them with paths).
    APSP_EXPECTS(sizeof(T) == 4 || mode == Mode::Distances,
                 "multi-gpu next hops need 4-byte distances");
    const GpuStrides strides = gpu_strides(grid_, n);
    ld_ = strides.cols;
    ldt_ = strides.rows;
    gpus_.reserve(members.size());
    for (const Member& m : members) {
      gpus_.push_back(std::make_unique<Gpu<T>>());
      Gpu<T>& g = *gpus_.back();
      g.ordinal = m.ordinal;
      g.L = Layout(grid_, m.worker, n, kTile);
      APSP_CUDA_TRY(cudaSetDevice(g.ordinal));
      int lo = 0, hi = 0;
      APSP_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&lo, &hi));
      APSP_CUDA_TRY(cudaStreamCreateWithPriority(&g.main, cudaStreamNonBlocking, lo));
      APSP_CUDA_TRY(cudaStreamCreateWithPriority(&g.look, cudaStreamNonBlocking, hi));
      for (cudaEvent_t* e : {&g.ready[0], &g.ready[1], &g.a_done, &g.copied[0], &g.copied[1]})
        APSP_CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
      const std::size_t local = std::size_t(std::max<i64>(1, g.L.local_rows() * ld_));
      g.D = DeviceBuffer<T>(local);
      if (mode_ == Mode::Distances) {
        g.csT = DeviceBuffer<T>(std::size_t(kTile * ldt_));
        for (int s = 0; s < 2; ++s) {
          g.rowp[s] = DeviceBuffer<T>(std::size_t(kTile * ld_));
          g.colT[s] = DeviceBuffer<T>(std::size_t(kTile * ldt_));
          g.piv[s] = DeviceBuffer<T>(std::size_t(2 * kTile * kTile));
        }
      } else {
        const std::size_t col = std::size_t(std::max<i64>(1, 3 * g.L.local_rows() * kTile));
        g.N = DeviceBuffer<int>(local);
        if (mode_ == Mode::HopCounts) g.H = DeviceBuffer<int>(local);
        g.rowold = DeviceBuffer<int>(std::size_t(2 * kTile * ld_));
        g.colold = DeviceBuffer<int>(col);
        for (int s = 0; s < 2; ++s) {
          g.pw[s] = DeviceBuffer<int>(std::size_t(3 * kTile * kTile));
          g.rowpw[s] = DeviceBuffer<int>(std::size_t(2 * kTile * ld_));
          g.colpw[s] = DeviceBuffer<int>(col);
        }
      }
      // Per device: the attribute is set in the current device's context.
      cuda::set_round_attributes<T>();
    }
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  /// One communicator per grid row and per grid column, every worker in this process
  /// (ncclCommInitAll over the members of each row and column).
  void connect_in_process() {
    APSP_EXPECTS(int(gpus_.size()) == grid_.P,
                 "connect_in_process needs every worker of the grid in this process");
    if (grid_.Pc > 1)
      for (int pr = 0; pr < grid_.Pr; ++pr) make_comms(pr, true);
    if (grid_.Pr > 1)
      for (int pc = 0; pc < grid_.Pc; ++pc) make_comms(pc, false);
    warm_up_comms();
  }

  /// The communicators of this process's one worker (an MPI rank): its grid row, then its grid
  /// column, each from an NCCL id that the member with index 0 creates and `links` broadcasts.
  /// Every rank joins its row before its column, so the blocking ncclCommInitRank calls cannot
  /// wait on each other in a cycle.
  void connect_ranks(RankLinks& links) {
    APSP_EXPECTS(gpus_.size() == 1, "connect_ranks drives exactly one GPU");
    Gpu<T>& q = *gpus_.front();
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    if (grid_.Pc > 1) q.row = join(links, true, grid_.Pc, q.L.pc);
    if (grid_.Pr > 1) q.col = join(links, false, grid_.Pr, q.L.pr);
    warm_up_comms();
  }

  /// Listed rounds (docs/sparse.md) from `plan`, whose tiles must be this solve's (uniform,
  /// kTile wide, n vertices): every GPU's lists of every round (dist/local_plan.hpp), uploaded
  /// once. The distance, int16x2 and next-hop rounds then run over them; without a plan they are
  /// dense.
  /// `who` names the backend in the error for a plan of other tiles.
  void set_plan(const TilePlan& plan, const char* who = "multi-gpu") {
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      q.plan = LocalPlan::of(plan, q.L, who);
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const std::vector<int>& tiles = q.plan.tiles;
      q.lists = DeviceBuffer<int>(std::max<std::size_t>(1, tiles.size()));
      if (!tiles.empty())
        APSP_CUDA_TRY(cudaMemcpy(q.lists.get(), tiles.data(), tiles.size() * sizeof(int),
                                 cudaMemcpyHostToDevice));
      // Per device, as in the constructor.
      cuda::set_grid_listed_attributes<T>();
    }
    listed_ = true;
  }

  /// NCCL connects a communicator's peers lazily, inside its first collective (NCCL 2.22+). Left
  /// to round 0's pivot broadcast, that set-up lands in the rounds: measured on 2 x H200 at
  /// V=32768, the pivot broadcasts took 169 ms in all with one process per GPU vs 68 ms in one
  /// process (APSP_MG_PROFILE=1; 256 rounds, the same per-round cost otherwise). So every row
  /// and column communicator does one panel-sized broadcast here, grouped as in the rounds, and
  /// the set-up counts as set-up: grid columns a row panel's size (B x ld), grid rows a
  /// transposed column panel's (B x ldt), from one scratch buffer of the larger (counted in
  /// gpu_bytes_on). Collective over the grid (all members call connect_*()).
  void warm_up_comms() {
    if (grid_.P == 1) return;
    const std::size_t col_bytes =
        std::size_t(kTile * ld_) * sizeof(T);  // grid columns: a row panel
    const std::size_t row_bytes =
        std::size_t(kTile * ldt_) * sizeof(T);  // grid rows: a column panel
    std::vector<DeviceBuffer<char>> scratch;
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      scratch.emplace_back(std::max(col_bytes, row_bytes));
    }
    APSP_NCCL_TRY(ncclGroupStart());
    for (std::size_t x = 0; x < gpus_.size(); ++x) {
      Gpu<T>& q = *gpus_[x];
      char* buf = scratch[x].get();
      if (q.col) APSP_NCCL_TRY(ncclBroadcast(buf, buf, col_bytes, ncclInt8, 0, q.col, q.look));
      if (q.row) APSP_NCCL_TRY(ncclBroadcast(buf, buf, row_bytes, ncclInt8, 0, q.row, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
    synchronize();
  }

  const Grid& grid() const { return grid_; }
  i64 ld() const { return ld_; }

  /// Copies `rows` local rows from local row `row0` of member 0's distances (or next hops) to
  /// host memory at `dst`, densely: local_cols() elements a row (T, or int32 next hops; the
  /// device rows are ld() wide, which may be more). Returns when they are there.
  void rows_to_host(bool next_hops, i64 row0, i64 rows, void* dst) {
    Gpu<T>& q = *gpus_.front();
    const i64 cols = q.L.local_cols();
    if (rows <= 0 || cols <= 0) return;
    APSP_EXPECTS(row0 >= 0 && row0 + rows <= q.L.local_rows(),
                 "rows_to_host: rows outside the local matrix");
    APSP_EXPECTS(!next_hops || q.N.get(), "rows_to_host: no next hops were kept");
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const void* src = next_hops ? static_cast<const void*>(q.N.get() + row0 * ld_)
                                : static_cast<const void*>(q.D.get() + row0 * ld_);
    const std::size_t elem = next_hops ? 4 : sizeof(T);
    APSP_CUDA_TRY(cudaMemcpy2DAsync(dst, std::size_t(cols) * elem, src, std::size_t(ld_) * elem,
                                    std::size_t(cols) * elem, std::size_t(rows),
                                    cudaMemcpyDeviceToHost, q.main));
    APSP_CUDA_TRY(cudaStreamSynchronize(q.main));
  }

  void build(const Graph& g) {
    if (g.is_dense())
      build_dense(g);
    else
      build_edges(g);
    if (mode_ != Mode::Distances)
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.L.local_rows() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        cuda::launch_init_next<T>(q.D.get(), q.N.get(), q.H.get(), ld_, q.L.local_rows(), q.L.n,
                                  grid_.Pr, q.L.pr, grid_.Pc, q.L.pc, q.main);
      }
    synchronize();
  }

  /// Each GPU's local matrix straight from a dense graph's matrix, all ld() columns (padding and
  /// the columns past local_cols() included, as init_local leaves them): its local rows converted
  /// on the host in stripes and uploaded (cuda::upload_dense), one GPU after the other.
  void build_dense(const Graph& g) {
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      if (q.L.local_rows() == 0) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      cuda::upload_dense<T>(g, sentinel<T>(), q.L.local_rows(),
                            detail::TileMap{kTile, grid_.Pr, q.L.pr}, ld_,
                            detail::TileMap{kTile, grid_.Pc, q.L.pc}, q.D.get(), ld_, q.main);
    }
  }

  void build_edges(const Graph& g) {
    const i64 E = i64(g.num_edges());
    const i64 chunk = std::max<i64>(1, std::min(E, cuda::kEdgeChunk));
    std::vector<DeviceBuffer<std::int32_t>> src, dst;
    std::vector<DeviceBuffer<double>> w;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.local_rows() > 0) {
        cuda::launch_init_local<T>(q.D.get(), ld_, q.L.local_rows(), grid_.Pr, q.L.pr, grid_.Pc,
                                   q.L.pc, q.main);
      }
      src.emplace_back(std::size_t(chunk));
      dst.emplace_back(std::size_t(chunk));
      w.emplace_back(std::size_t(chunk));
    }
    for (i64 e0 = 0; e0 < E; e0 += chunk) {
      const i64 m = std::min(chunk, E - e0);
      for (std::size_t x = 0; x < gpus_.size(); ++x) {
        Gpu<T>& q = *gpus_[x];
        if (q.L.local_rows() == 0 || q.L.local_cols() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        APSP_CUDA_TRY(cudaMemcpyAsync(src[x].get(), g.src.data() + e0, m * 4,
                                      cudaMemcpyHostToDevice, q.main));
        APSP_CUDA_TRY(cudaMemcpyAsync(dst[x].get(), g.dst.data() + e0, m * 4,
                                      cudaMemcpyHostToDevice, q.main));
        APSP_CUDA_TRY(cudaMemcpyAsync(w[x].get(), g.weight.data() + e0, m * 8,
                                      cudaMemcpyHostToDevice, q.main));
        cuda::launch_scatter_local<T>(q.D.get(), ld_, src[x].get(), dst[x].get(), w[x].get(), m,
                                      !g.directed, grid_.Pr, q.L.pr, grid_.Pc, q.L.pc, q.main);
      }
      // The next chunk overwrites the upload buffers.
      synchronize();
    }
  }

  void synchronize() {
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->look));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
    }
  }

  void set_progress(ProgressFn f) { progress_ = std::move(f); }

  /// APSP_MG_PROFILE=1 (distances only): after the rounds, one line per GPU on stderr with the
  /// summed GPU time of each phase, measured by timed events on its two streams: "closure",
  /// "pivot_bcast", "panels", "panel_bcast" (look stream), "rest" (main stream, from the end of
  /// its wait for the round's panels to its last rest tile), "main_wait" (the main stream idle
  /// until the panels are ready), "look_wait" (the look stream idle until this round's first
  /// rest tiles are done), and "span" (first to last event). A diagnostic, off by default.
  void report_profile() {
    if (!profiling_) return;
    static const char* names[] = {"closure", "pivot_bcast", "panels",   "panel_bcast",
                                  "rest",    "main_wait",   "look_wait"};
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      double sum[kPhases] = {}, total = 0;
      if (q.marks.size() >= 2) {
        float ms = 0;
        APSP_CUDA_TRY(cudaEventSynchronize(q.marks.back()));
        for (const auto& sp : q.spans) {
          APSP_CUDA_TRY(cudaEventElapsedTime(&ms, sp.begin, sp.end));
          sum[sp.phase] += ms;
        }
        float first = 0, last = 0;
        for (cudaEvent_t e : q.marks) {  // the earliest and latest event on either stream
          APSP_CUDA_TRY(cudaEventElapsedTime(&ms, q.marks.front(), e));
          first = std::min(first, ms);
          last = std::max(last, ms);
        }
        total = last - first;
      }
      std::ostringstream os;
      os.precision(1);
      os << std::fixed << "mgprof gpu=" << q.ordinal << " worker=" << grid_.rank_of(q.L.pr, q.L.pc)
         << " grid=" << grid_.Pr << "x" << grid_.Pc << " rounds=" << q.L.R << " span_ms=" << total;
      for (int ph = 0; ph < kPhases; ++ph) os << " " << names[ph] << "_ms=" << sum[ph];
      std::fprintf(stderr, "%s\n", os.str().c_str());
    }
  }

  /// Checked int32 rounds (an int64 result): whether some GPU holds a value in [band_lo, the
  /// int32 unreachable value), i.e. the rung cannot be trusted. Synchronizes.
  bool int32_in_band(int band_lo) {
    static_assert(std::is_same_v<T, int>, "the checked int32 rung");
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.flag.size() == 0) q.flag = DeviceBuffer<int>(1);
      APSP_CUDA_TRY(cudaMemsetAsync(q.flag.get(), 0, sizeof(int), q.main));
      if (q.L.local_rows() > 0)
        cuda::launch_find_in_band(q.D.get(), ld_, q.L.local_rows(), ld_, band_lo, sentinel<int>(),
                                  q.flag.get(), q.main);
      APSP_CUDA_CHECK_LAUNCH(q.main);
    }
    return read_flags();
  }

  /// OR of every GPU's flag (synchronizes).
  bool read_flags() {
    bool any = false;
    for (auto& p : gpus_) {
      int v = 0;
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(
          cudaMemcpyAsync(&v, p->flag.get(), sizeof(int), cudaMemcpyDeviceToHost, p->main));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
      any |= v != 0;
    }
    return any;
  }

  i64 num_rounds() const { return gpus_.front()->L.R; }

  // ---- what every kind of round shares ----

  /// Round t's rest waits, on each main stream, for its panels (event ready[t % 2] on look).
  /// Round t's pivot and panels are queued on look: event ready[t % 2], which wait_ready waits for.
  void mark_ready(i64 t) {
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaEventRecord(p->ready[t % 2], p->look));
    }
  }
  void wait_ready(i64 t) {
    const int slot = int(t % 2);
    const auto w0 = mark_all(&Gpu<T>::main);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaStreamWaitEvent(q.main, q.ready[slot], 0));
    }
    span_all(kMainWait, w0, &Gpu<T>::main);
  }
  /// Round t+1's pivot and panels (look) start after round t's tiles that they read (main):
  /// event a_done. `timed`: a look_wait span in the profile.
  void hand_over(Gpu<T>& q, bool timed) {
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    APSP_CUDA_TRY(cudaEventRecord(q.a_done, q.main));
    cudaEvent_t l0 = timed ? mark(q, q.look) : nullptr;
    APSP_CUDA_TRY(cudaStreamWaitEvent(q.look, q.a_done, 0));
    if (timed) span(q, kLookWait, l0, q.look);
  }
  /// After round t is queued: progress is reported then; wait for the GPUs now and then so that
  /// it tells the truth (about 100 waits over a run; the queue refills at once).
  void sync_for_progress(i64 t) {
    const i64 R = num_rounds(), every = R >= 100 ? R / 100 : 1;
    if (progress_ && ((t + 1) % every == 0 || t + 1 == R))
      for (auto& p : gpus_) {
        APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
        APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
      }
  }

  /// (P*, P*^T), 2 B^2 elements of T, from the pivot's owner along its grid row and column.
  void broadcast_pivot(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    if (grid_.P == 1) return;
    const auto b0 = mark_all(&Gpu<T>::look);
    APSP_NCCL_TRY(ncclGroupStart());
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      T* buf = q.piv[slot].get();
      if (q.L.pr == tr && q.row)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, std::size_t(2 * kTile * kTile), nccl_type<T>(), tc,
                                    q.row, q.look));
      if (q.L.pc == tc && q.col)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, std::size_t(2 * kTile * kTile), nccl_type<T>(), tr,
                                    q.col, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
    span_all(kPivotBcast, b0, &Gpu<T>::look);
  }

  /// A timed event recorded on `s` (APSP_MG_PROFILE), else null.
  cudaEvent_t mark(Gpu<T>& q, cudaStream_t s) {
    if (!profiling_) return nullptr;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cudaEvent_t e = nullptr;
    APSP_CUDA_TRY(cudaEventCreate(&e));
    q.marks.push_back(e);
    APSP_CUDA_TRY(cudaEventRecord(e, s));
    return e;
  }
  /// Ends the span that `begin` started: `phase`, up to an event recorded now on `s`.
  void span(Gpu<T>& q, int phase, cudaEvent_t begin, cudaStream_t s) {
    if (profiling_) q.spans.push_back({phase, begin, mark(q, s)});
  }
  /// mark() on every GPU's stream `which` (look or main): begin events, by position in gpus_.
  std::vector<cudaEvent_t> mark_all(cudaStream_t Gpu<T>::*which) {
    std::vector<cudaEvent_t> m;
    if (profiling_)
      for (auto& p : gpus_) m.push_back(mark(*p, (*p).*which));
    return m;
  }
  void span_all(int phase, const std::vector<cudaEvent_t>& begins, cudaStream_t Gpu<T>::*which) {
    if (!profiling_) return;
    for (std::size_t x = 0; x < gpus_.size(); ++x)
      span(*gpus_[x], phase, begins[x], (*gpus_[x]).*which);
  }

  /// Joins the NCCL communicator of this worker's grid row (`row`) or column: `members` ranks,
  /// this one with index `me`.
  static ncclComm_t join(RankLinks& links, bool row, int members, int me) {
    struct {
      ncclUniqueId id;
      int ok;
    } msg{};
    ncclResult_t made = ncclSuccess;
    if (me == 0) {
      made = ncclGetUniqueId(&msg.id);
      msg.ok = made == ncclSuccess ? 1 : 0;
    }
    links.broadcast(&msg, sizeof(msg), 0, row);
    if (!msg.ok)
      throw Error(std::string("NCCL: the first rank of a grid ") + (row ? "row" : "column") +
                  " could not create an id" +
                  (me == 0 ? std::string(": ") + ncclGetErrorString(made) : std::string()));
    ncclComm_t comm = nullptr;
    APSP_NCCL_TRY(ncclCommInitRank(&comm, members, msg.id, me));
    return comm;
  }

  /// Communicators of grid row (`rows`) or column `index`, every member here (ncclCommInitAll).
  void make_comms(int index, bool rows) {
    const int members = rows ? grid_.Pc : grid_.Pr;
    std::vector<int> devs(std::size_t(members), 0);
    std::vector<Gpu<T>*> who(std::size_t(members), nullptr);
    for (int m = 0; m < members; ++m) {
      who[std::size_t(m)] =
          gpus_[std::size_t(rows ? grid_.rank_of(index, m) : grid_.rank_of(m, index))].get();
      devs[std::size_t(m)] = who[std::size_t(m)]->ordinal;
    }
    std::vector<ncclComm_t> comms(std::size_t(members), nullptr);
    APSP_NCCL_TRY(ncclCommInitAll(comms.data(), members, devs.data()));
    for (int m = 0; m < members; ++m)
      (rows ? who[std::size_t(m)]->row : who[std::size_t(m)]->col) = comms[std::size_t(m)];
  }

  Grid grid_;
  Mode mode_;
  // Row strides, the same on every GPU of the grid (gpu_strides): ld_ the widest local column
  // count (D, N, H, rowp, rowold, rowpw), ldt_ the widest local row count (csT, colT). Row panels
  // (B x ld_) go down grid columns, transposed column panels (B x ldt_) along grid rows, so every
  // broadcast has one element count on all members of its communicator.
  i64 ld_ = 0, ldt_ = 0;
  std::vector<std::unique_ptr<Gpu<T>>> gpus_;
  ProgressFn progress_;
  bool listed_ = false;  // set_plan: listed rounds
  bool profiling_ = config::get_bool(config::Knob::MgProfile);
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
