// src/cuda/device_solver.cuh — the single-GPU scheduler (internal): DeviceFw<T> owns one solve's
// device memory (the padded matrix, O(n*B) panel buffers, next hops with --paths), builds the
// matrix on the device from the edges (chunked upload, scatter) or from a dense view's stripes,
// and runs blocked FW as RoundOps (close_pivot = closure_and_transpose, update_panels = one GEMM
// launch for both panels, update_rest = one GEMM over all tiles), launched one by one or captured
// into a CUDA graph; the int16x2 rounds (two capped int16 values a word) as RoundOps too. Device
// memory: n_pad^2 + 3*B*n_pad + 2*B^2 elements plus at most kEdgeChunk edges in flight.
// Launch configuration: launch.cuh. Reference: Venkataraman et al. (JEA 2003).
#pragma once

#include "gpu/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "core/config.hpp"
#include "core/host_copy.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "core/rounds.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.cuh"
#include "cuda/host_arcs.hpp"
#include "cuda/launch.cuh"
#include "cuda/pacer.cuh"
#include "order/batches.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

// Internal linkage, as in cuda/kernels/distances.cuh.
namespace apsp::cuda {
namespace {

inline constexpr std::int64_t kEdgeChunk = std::int64_t(1) << 22;  // edges per upload (64 MiB)
/// Elimination-tree batches of a sparse order (order/batches.hpp): rounds a batch (P* slots), and
/// the rest tiles from which a round runs on its own (it fills the GPU by itself).
inline constexpr std::int64_t kBatchSlots = 64;
inline constexpr std::int64_t kBatchAloneTiles = 4096;

/// Device memory a solve of n vertices needs (bytes), for check_fits and its message.
inline std::size_t device_bytes_needed(std::int64_t n, std::size_t elem, std::int64_t edges) {
  const std::size_t np = std::size_t((n + kTile - 1) / kTile * kTile);
  const std::size_t chunk =
      std::size_t(std::min<std::int64_t>(std::max<std::int64_t>(edges, 1), kEdgeChunk));
  return np * np * elem + 3 * std::size_t(kTile) * np * elem +
         2 * std::size_t(kTile) * kTile * elem + chunk * (4 + 4 + 8);
}

template <class T>
class DeviceFw final : public detail::RoundOps {
 public:
  /// allocate_matrix = false: the int32 matrix is allocated by build() (int16x2 mode never
  /// needs it unless it falls back).
  DeviceFw(std::int64_t n, gpuStream_t stream, bool allocate_matrix = true)
      : n_(n),
        n_pad_(std::max<std::int64_t>(1, (n + kTile - 1) / kTile) * kTile),
        R_(n_pad_ / kTile),
        stream_(stream),
        d_(allocate_matrix ? std::size_t(n_pad_) * n_pad_ : 0),
        rowp_(std::size_t(kTile) * n_pad_),
        colT_(std::size_t(kTile) * n_pad_),
        csT_(std::size_t(kTile) * n_pad_),
        pS_(std::size_t(kTile) * kTile),
        pT_(std::size_t(kTile) * kTile) {
    set_attributes_once<T>();
  }

  std::int64_t n() const { return n_; }
  /// The result's size: n, or with set_order() the user's V (downloads leave in the user's order).
  std::int64_t n_out() const { return n_out_; }
  bool permuted() const { return ordered_; }

  /// Sparse rounds (docs/sparse.md): from now on each round runs only the plan's active tiles
  /// (the plan's tiles must be this matrix's kTile tiles), and every download leaves in the user's
  /// order: perm maps this matrix's positions (the ordered graph's vertices, padding included) to
  /// the user's vertices. Uploads the per-round tile lists and the permutation (synchronizes).
  /// packed: int16x2 rounds will be tried (their batches are made too).
  void set_order(const detail::TilePlan& plan, const detail::Permutation& perm,
                 bool packed = false);
  /// set_order()'s elimination-tree batches (APSP_ND_BATCH): the plan's rounds grouped by height
  /// (order/batches.hpp), their tasks uploaded (with `packed` the int16x2 rounds' too, over word
  /// tiles); nothing when the plan is no tree or the knob off.
  void set_batches(const detail::TilePlan& plan, bool packed);
  /// With set_order(): seconds the GPU spent gathering the result into the user's order.
  double unpermute_seconds() const { return gather_ms_ / 1000; }
  std::int64_t n_pad() const { return n_pad_; }
  T* data() const { return d_.get(); }

  /// d = 0 diagonal / unreachable elsewhere, then every edge (min for duplicates). A dense graph
  /// is converted on the host, padding included, and uploaded in stripes (synchronizes).
  void build(const Graph& g) {
    if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
    if (g.is_dense()) {
      upload_dense<T>(g, detail::sentinel<T>(), n_pad_, {}, n_pad_, {}, d_.get(), n_pad_, stream_);
      return;
    }
    launch_init_matrix<T>(d_.get(), n_pad_, stream_);
    upload_edges(
        g, [&](const std::int32_t* src, const std::int32_t* dst, const double* w, std::int64_t m) {
          launch_scatter_edges<T>(d_.get(), n_pad_, src, dst, w, m, !g.directed, stream_);
        });
  }

  /// int16x2 mode without the int32 matrix: build_s16 builds the packed matrix straight from the
  /// edges or the dense view (weights capped at kInf16); rounds_packed runs every round on it and
  /// checks it. True: the result is in the packed matrix and download_stripes widens it on the way
  /// out. False: some pair is unreachable or >= kInf16 apart; the packed matrix is freed and the
  /// caller runs build() + rounds(). Peak device memory: the packed matrix (half the int32 one) +
  /// panels.
  void build_s16(const Graph& g);
  /// band_lo: the rung's check (kernels/int16x2.cuh "the type ladder"): kept unless some cell lies
  /// in [band_lo, kInf16). `abandon` (optional) is asked before each round, at the GPU's pace (at
  /// most kAhead rounds queued): true drops the packed rounds there (sampled Dijkstra showed the
  /// band meanwhile).
  bool rounds_packed(const ProgressFn& progress, int band_lo,
                     const std::function<bool()>& abandon = {});

  /// Uploads the edges in chunks of at most kEdgeChunk and calls scatter(src, dst, w, m) (which
  /// launches on the stream) for each; synchronizes before the chunk buffers go.
  template <class F>
  void upload_edges(const Graph& g, F&& scatter) {
    APSP_EXPECTS(!g.is_dense(), "upload_edges needs an edge list");
    const std::int64_t E = std::int64_t(g.num_edges());
    if (E == 0) return;
    const std::int64_t chunk = std::min(E, kEdgeChunk);
    DeviceBuffer<std::int32_t> src(chunk), dst(chunk);
    DeviceBuffer<double> w(chunk);
    // Through the pinned stage, kStageBytes / 16 edges at a time: all cores copy a part into one
    // buffer while the other's part crosses PCIe (a pageable gpuMemcpy goes through the driver's
    // own staging, one core copying: 13 ms for 5M edges on the H200 host).
    stage_.reserve(kStageBytes);
    detail::trace("cuda: pinned stage ready");
    const std::int64_t part = std::int64_t(stage_.bytes() / 16);
    std::int64_t parts_issued = 0;
    for (std::int64_t e0 = 0; e0 < E; e0 += chunk) {
      const std::int64_t m = std::min(chunk, E - e0);
      for (std::int64_t p0 = 0; p0 < m; p0 += part, ++parts_issued) {
        const int b = int(parts_issued % 2);
        if (parts_issued >= 2)
          APSP_CUDA_TRY(gpuEventSynchronize(stage_.done(b)));  // its last part has gone up
        const std::int64_t k = std::min(part, m - p0), at = e0 + p0;
        char* h = static_cast<char*>(stage_.buffer(b));  // [src k][dst k][w k]: w 8-byte aligned
        detail::parallel_copy({{h, g.src.data() + at, std::size_t(k) * 4},
                               {h + 4 * k, g.dst.data() + at, std::size_t(k) * 4},
                               {h + 8 * k, g.weight.data() + at, std::size_t(k) * 8}});
        APSP_CUDA_TRY(gpuMemcpyAsync(src.get() + p0, h, k * 4, gpuMemcpyHostToDevice, stream_));
        APSP_CUDA_TRY(
            gpuMemcpyAsync(dst.get() + p0, h + 4 * k, k * 4, gpuMemcpyHostToDevice, stream_));
        APSP_CUDA_TRY(
            gpuMemcpyAsync(w.get() + p0, h + 8 * k, k * 8, gpuMemcpyHostToDevice, stream_));
        APSP_CUDA_TRY(gpuEventRecord(stage_.done(b), stream_));
      }
      scatter(src.get(), dst.get(), w.get(), m);
    }
    // The chunk buffers are freed when this returns; the stream must be done with them.
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
  }

  /// Starts the next-hop matrix (n_pad x n_pad int32, ld n_pad) from the closed distances and
  /// g's out-edges (as the kernels saw them: self loops dropped, undirected edges both ways), on
  /// a stream of its own after the work queued so far, so that the caller can download the
  /// distances meanwhile (both only read d): sort_arcs() (host) and upload_arcs() (own stream)
  /// can run on a helper thread while the rounds run, then launch_next() queues the kernel after
  /// them. finish_next() waits for it; next_data() is valid after that.
  /// Allocates what start_next() needs: the next-hop matrix, the stream and, for an edge list
  /// (or `arcs` >= 0), the arc lists (an edge list: up to 2E arcs; a dense view's are sized by
  /// start_next once it has counted them, without a V^2 scan here). Called before the rounds are
  /// queued. Throws ResourceError, with the bytes, when the GPU lacks the memory.
  void reserve_next(const Graph& g, std::int64_t arcs = -1);

  /// g's out-arcs sorted by source (CSR), as start_next() uploads them (host_arcs.hpp).
  using HostArcs = detail::Csr<T>;
  static HostArcs sort_arcs(const Graph& g) { return cuda::sort_arcs<T>(g); }

  /// sort_arcs + upload_arcs + launch_next in one go (on the caller's thread).
  void start_next(const Graph& g) {
    upload_arcs(g, sort_arcs(g));
    launch_next();
  }
  /// Copies `arcs` (= sort_arcs(g)) into the arc lists on the next-hop stream, NOT ordered after
  /// the rounds (they touch neither matrix), and waits for the copies: called on a helper thread
  /// while the rounds run, the upload is off the critical path. (A copy from pageable memory
  /// queued behind the rounds would hold the host until they end: the driver stages it.)
  /// `device` = the ordinal the rounds run on (the calling thread may have another current).
  void upload_arcs(const Graph& g, const HostArcs& arcs, int device = -1);
  /// Starts the next-hop kernel on its own stream after everything queued on the main stream so
  /// far (the rounds, widen_s16); upload_arcs() must have returned.
  void launch_next();
  /// Waits for start_next()'s kernel and frees its arc lists.
  void finish_next();
  std::int32_t* next_data() const { return next_.get(); }

  // ---- RoundOps ----
  std::int64_t num_rounds() const override { return R_; }
  void close_pivot(std::int64_t t) override {
    if (ordered_)
      return launch_closure_listed<T>(args(t), rows_of(t), lists_at_[std::size_t(t)].nrows,
                                      stream_);
    launch_closure<T>(args(t), 1 + R_, stream_);
  }
  void update_panels(std::int64_t t) override {
    if (ordered_)
      return launch_gemm_listed<T, GemmMode::Panels>(args(t), tile_lists(t, false), stream_);
    launch_gemm<T, GemmMode::Panels>(args(t), R_, 2, stream_);
  }
  void update_rest(std::int64_t t) override {
    if (ordered_)
      return launch_gemm_listed<T, GemmMode::Rest>(args(t), tile_lists(t, false), stream_);
    launch_gemm<T, GemmMode::Rest>(args(t), R_, R_, stream_);
  }

  /// int32 rounds run as a checked rung (an int64 result): true when some cell of the closed
  /// matrix lies in [band_lo, unreachable), i.e. the rung cannot be trusted.
  bool int32_in_band(int band_lo) {
    static_assert(std::is_same_v<T, int>, "the checked int32 rung");
    if (flag_.size() == 0) flag_ = DeviceBuffer<int>(1);
    APSP_CUDA_TRY(gpuMemsetAsync(flag_.get(), 0, sizeof(int), stream_));
    launch_find_in_band(d_.get(), n_pad_, n_, n_, band_lo, detail::sentinel<int>(), flag_.get(),
                        stream_);
    return read_flag();
  }

  /// int16x2 mode (T = int only): packs the built matrix into two int16 per word, runs every
  /// round on the packed matrix (twice the updates per instruction, half the bytes), then checks
  /// that no logical cell stayed at kInf16. True: the int32 matrix now holds the exact result.
  /// False: some pair is unreachable or at least kInf16 apart; the int32 matrix is untouched (as
  /// built) and the caller runs the int32 rounds. Synchronizes.
  bool rounds_s16(const ProgressFn& progress, int band_lo = 0);

  // The pieces of rounds_s16 (the lab times the rest-update alone).
  std::int64_t ld16() const { return (n_pad_ / 2 + kTile - 1) / kTile * kTile; }
  void s16_begin();
  /// part 0: closure + transposes, 1: column panel (int32, replicated), 2: row panel, 3: rest.
  void s16_round_part(std::int64_t t, int part);
  /// Whether some logical cell of the packed matrix lies in [band_lo, kInf16) (synchronizes).
  bool s16_in_band(int band_lo);
  bool s16_end(int band_lo);
  /// Allocates the int32 matrix that widen_s16() fills, before the rounds are queued (a
  /// gpuMalloc after them would wait for them).
  void reserve_widen() {
    if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
  }
  /// After rounds_packed() kept its result: the int32 matrix from the packed one (allocated here),
  /// the packed one freed, so that everything after (next hops, downloads) reads int32 as usual.
  void widen_s16();
  /// Frees the int16x2 matrix (after rounds_s16, before anything else needs the memory).
  void release_s16() {
    d16_ = DeviceBuffer<unsigned>();
    result_in_s16_ = false;
  }

  /// All rounds on the stream (asynchronous unless use_graph: then captured into one CUDA graph,
  /// launched, and waited for). `abandon` as in rounds_packed (not with use_graph); false when
  /// it stopped the rounds.
  bool rounds(bool use_graph, const ProgressFn& progress,
              const std::function<bool()>& abandon = {});

  /// The whole round sequence captured into an executable graph (caller destroys it); replaying
  /// it on this stream re-runs every round on the current matrix.
  gpuGraphExec_t capture();

  /// Copies the leading n x n block to host memory with row stride `host_stride` elements.
  void download(T* host, std::int64_t host_stride) { download_matrix(d_.get(), host, host_stride); }
  void download_next(std::int32_t* host, std::int64_t host_stride) {
    download_matrix(next_.get(), host, host_stride);
  }
  template <class U>
  void download_matrix(const U* dev, U* host, std::int64_t host_stride) {
    APSP_EXPECTS(!ordered_, "download_matrix: an ordered result leaves through download_stripes");
    if (n_ == 0) return;
    APSP_CUDA_TRY(gpuMemcpy2DAsync(host, host_stride * sizeof(U), dev, n_pad_ * sizeof(U),
                                   n_ * sizeof(U), n_, gpuMemcpyDeviceToHost, stream_));
  }

  /// Copies the leading n x n block out in stripes of rows through two pinned staging buffers
  /// (the stage: 8 MiB each, little to pin per solve, still large enough for full-speed copies):
  /// stripe s+1 crosses PCIe while consume(row0, rows, data) handles stripe s (data: rows x n,
  /// stride n, valid during the call). Returns the seconds spent inside consume.
  template <class F>
  double download_stripes(F&& consume) {
    return download_stripes(consume, d_.get());
  }
  /// The distances as U (T, or int64 from int32 rounds), expanded on the device where needed.
  template <class U, class F>
  double download_dist(F&& consume) {
    return download_stripes(consume, static_cast<const U*>(nullptr));
  }
  /// Pins the staging buffers now (an edge-list build already has): called before the rounds, so
  /// that the first stripe does not wait for them.
  void reserve_stage() { stage_.reserve(kStageBytes); }
  bool result_is_packed() const { return result_in_s16_; }
  template <class F, class U>
  double download_stripes(F&& consume, const U* dev,
                          std::size_t stripe_bytes = std::size_t(8) << 20);

 private:
  /// The int16x2 rounds as the shared RoundOps shape: the pivot is s16_round_part 0, the panels
  /// parts 1 (column, int32 replicated) and 2 (row, packed), the rest part 3.
  class PackedRounds final : public detail::RoundOps {
   public:
    explicit PackedRounds(DeviceFw& fw) : fw_(fw) {}
    std::int64_t num_rounds() const override { return fw_.R_; }
    void close_pivot(std::int64_t t) override { fw_.s16_round_part(t, 0); }
    void update_panels(std::int64_t t) override {
      fw_.s16_round_part(t, 1);
      fw_.s16_round_part(t, 2);
    }
    void update_rest(std::int64_t t) override { fw_.s16_round_part(t, 3); }

   private:
    DeviceFw& fw_;
  };

  /// Two pairs of timing events (one per stage buffer), or nothing when off.
  class TimingEvents {
   public:
    explicit TimingEvents(bool on) {
      for (int b = 0; b < 2 && on; ++b)
        for (gpuEvent_t* e : {&begin_[b], &end_[b]}) APSP_CUDA_TRY(gpuEventCreate(e));
    }
    ~TimingEvents() {
      for (int b = 0; b < 2; ++b)
        for (gpuEvent_t e : {begin_[b], end_[b]})
          if (e) (void)gpuEventDestroy(e);
    }
    TimingEvents(const TimingEvents&) = delete;
    TimingEvents& operator=(const TimingEvents&) = delete;
    void begin(int b, gpuStream_t s) {
      if (begin_[b]) APSP_CUDA_TRY(gpuEventRecord(begin_[b], s));
    }
    void end(int b, gpuStream_t s) {
      if (end_[b]) APSP_CUDA_TRY(gpuEventRecord(end_[b], s));
      recorded_[b] = end_[b] != nullptr;
    }
    /// The last begin..end on buffer b (its end has completed), once; 0 when none.
    float elapsed_ms(int b) {
      if (!recorded_[b]) return 0;
      recorded_[b] = false;
      float ms = 0;
      APSP_CUDA_TRY(gpuEventElapsedTime(&ms, begin_[b], end_[b]));
      return ms;
    }

   private:
    gpuEvent_t begin_[2] = {nullptr, nullptr}, end_[2] = {nullptr, nullptr};
    bool recorded_[2] = {false, false};
  };

  /// User rows [r0, r0 + rows) of the result into out (rows x n_out_): distances from the packed
  /// or the T matrix (as U), or next hops (src: the next-hop matrix, U = int32) renamed.
  template <class U>
  void gather(U* out, const U* src, bool is_dist, bool packed, std::int64_t r0, std::int64_t rows);

  /// Every round: in order (run_rounds), or with set_order()'s batches in their schedule (a
  /// round alone as usual, a batch as three launches). `abandon` is asked before each step.
  /// timed (not while capturing): the steps' GPU times on the trace (APSP_TRACE).
  /// packed: the int16x2 rounds (s16_round_part; batches over word tiles).
  bool run_schedule(const ProgressFn& progress, const std::function<bool()>& abandon,
                    bool timed = false, bool packed = false);
  void run_batch(const detail::RoundBatch& b);
  void run_batch16(const detail::RoundBatch& b);

  bool read_flag() {
    int bad = 0;
    APSP_CUDA_TRY(gpuMemcpyAsync(&bad, flag_.get(), sizeof(int), gpuMemcpyDeviceToHost, stream_));
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    return bad != 0;
  }
  /// Round t's tile lists (set_order); `words`: columns as int16x2 word tiles.
  const int* rows_of(std::int64_t t) const { return lists_.get() + lists_at_[std::size_t(t)].rows; }
  TileLists tile_lists(std::int64_t t, bool words) const {
    const RoundLists& l = lists_at_[std::size_t(t)];
    return TileLists{lists_.get() + l.rows, lists_.get() + (words ? l.words : l.cols), l.nrows,
                     words ? l.nwords : l.ncols};
  }
  RoundArgs<T> args(std::int64_t t) const {
    return RoundArgs<T>{d_.get(),   n_pad_, rowp_.get(), n_pad_,    colT_.get(),
                        csT_.get(), n_pad_, pS_.get(),   pT_.get(), int(t)};
  }

  std::int64_t n_, n_pad_, R_, n_out_ = n_;
  gpuStream_t stream_;
  // set_order(): each round's tile lists in lists_ (offsets and counts), the permutation.
  struct RoundLists {
    std::int64_t rows = 0, cols = 0, words = 0;
    int nrows = 0, ncols = 0, nwords = 0;
  };
  bool ordered_ = false;
  std::vector<RoundLists> lists_at_;
  DeviceBuffer<int> lists_, new_of_old_, old_of_new_;
  // set_order() (APSP_ND_BATCH on): the rounds' batches (batches16_: the int16x2 rounds', by
  // word tiles), each with its tasks (closure, panels, rest, contributions: one int4 array,
  // sections at the offsets) and rounds on the device; the P* / P*^T slots are shared.
  struct BatchSet {
    detail::RoundBatches host;
    DeviceBuffer<detail::BatchRound> rounds;
    DeviceBuffer<int4> tasks;
    std::int64_t panels = 0, rest = 0, contrib = 0;
    bool on = false;
  };
  BatchSet batches_, batches16_;
  float gather_ms_ = 0;
  DeviceBuffer<T> d_, rowp_, colT_, csT_, pS_, pT_, batch_pS_, batch_pT_;
  DeviceBuffer<std::int32_t> next_;
  // start_next()'s stream, its arc lists (CSR by source) and whether its kernel may still run.
  struct NextJob {
    gpuStream_t stream = nullptr;
    gpuEvent_t after = nullptr;
    DeviceBuffer<std::int64_t> row;
    DeviceBuffer<std::int32_t> col;
    DeviceBuffer<T> wt;
    bool pending = false;
    NextJob() = default;
    NextJob(const NextJob&) = delete;
    NextJob& operator=(const NextJob&) = delete;
    ~NextJob() {
      if (stream) (void)gpuStreamSynchronize(stream);
      if (after) (void)gpuEventDestroy(after);
      if (stream) (void)gpuStreamDestroy(stream);
    }
  } next_job_;
  DeviceBuffer<unsigned> d16_;
  DeviceBuffer<int> flag_;
  PinnedStage stage_;
  bool arcs_uploaded_ = false;  // upload_arcs() done, launch_next() may go
  bool result_in_s16_ = false;  // solve_s16 succeeded: the result lives in d16_, not d_
};

}  // namespace
}  // namespace apsp::cuda

#include "cuda/device_solver_next.cuh"
#include "cuda/device_solver_out.cuh"
