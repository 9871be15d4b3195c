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
#include "core/host_copy.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "core/rounds.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.cuh"
#include "cuda/host_arcs.hpp"
#include "cuda/launch.cuh"
#include "cuda/pacer.cuh"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

// Internal linkage, as in cuda/kernels/distances.cuh.
namespace apsp::cuda {
namespace {

inline constexpr std::int64_t kEdgeChunk = std::int64_t(1) << 22;  // edges per upload (64 MiB)

/// Device memory a solve of n vertices needs (bytes), for check_fits and its message.
inline std::size_t device_bytes_needed(std::int64_t n, std::size_t elem, std::int64_t edges) {
  const std::size_t np = std::size_t((n + kTile - 1) / kTile * kTile);
  const std::size_t chunk = std::size_t(std::min<std::int64_t>(std::max<std::int64_t>(edges, 1), kEdgeChunk));
  return np * np * elem + 3 * std::size_t(kTile) * np * elem + 2 * std::size_t(kTile) * kTile * elem +
         chunk * (4 + 4 + 8);
}

template <class T> class DeviceFw final : public detail::RoundOps {
 public:
  /// allocate_matrix = false: the int32 matrix is allocated by build() (int16x2 mode never
  /// needs it unless it falls back).
  DeviceFw(std::int64_t n, gpuStream_t stream, bool allocate_matrix = true)
      : n_(n), n_pad_(std::max<std::int64_t>(1, (n + kTile - 1) / kTile) * kTile), R_(n_pad_ / kTile),
        stream_(stream), d_(allocate_matrix ? std::size_t(n_pad_) * n_pad_ : 0), rowp_(std::size_t(kTile) * n_pad_),
        colT_(std::size_t(kTile) * n_pad_), csT_(std::size_t(kTile) * n_pad_), pS_(std::size_t(kTile) * kTile),
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
  void set_order(const detail::TilePlan& plan, const detail::Permutation& perm) {
    APSP_EXPECTS(plan.n == n_pad_ && plan.R == R_ && plan.n == n_,
                 "cuda: tile plan for another matrix");
    APSP_EXPECTS(std::int64_t(perm.old_of_new.size()) == n_,
                 "cuda: permutation for another matrix");
    for (std::int64_t I = 0; I <= R_; ++I)
      APSP_EXPECTS(plan.bounds[std::size_t(I)] == I * kTile,
                   "cuda: tile plan without uniform 128-wide tiles");
    std::vector<int> all;
    lists_at_.assign(std::size_t(R_), RoundLists{});
    // Round t's list of `tiles` with t itself inserted (the pivot row / column is written back by
    // the rest update; tile (t, t) is left as closed: min(P*, P* (x) P*) = P*).
    auto with_t = [](const std::vector<std::int32_t>& tiles, std::int64_t b, std::int64_t e,
                     int t) {
      std::vector<int> out(tiles.begin() + b, tiles.begin() + e);
      out.insert(std::lower_bound(out.begin(), out.end(), t), t);
      return out;
    };
    for (std::int64_t t = 0; t < R_; ++t) {
      const std::vector<int> rows = with_t(plan.rows, plan.row_start[std::size_t(t)],
                                           plan.row_start[std::size_t(t + 1)], int(t));
      const std::vector<int> cols = with_t(plan.cols, plan.col_start[std::size_t(t)],
                                           plan.col_start[std::size_t(t + 1)], int(t));
      std::vector<int> words;  // int16x2: the 256-column word tiles holding the columns
      for (const int c : cols)
        if (words.empty() || words.back() != c / 2) words.push_back(c / 2);
      RoundLists& l = lists_at_[std::size_t(t)];
      l.rows = std::int64_t(all.size());
      l.nrows = int(rows.size());
      all.insert(all.end(), rows.begin(), rows.end());
      l.cols = std::int64_t(all.size());
      l.ncols = int(cols.size());
      all.insert(all.end(), cols.begin(), cols.end());
      l.words = std::int64_t(all.size());
      l.nwords = int(words.size());
      all.insert(all.end(), words.begin(), words.end());
    }
    lists_ = DeviceBuffer<int>(all.size());
    APSP_CUDA_TRY(
        gpuMemcpy(lists_.get(), all.data(), all.size() * sizeof(int), gpuMemcpyHostToDevice));
    n_out_ = std::int64_t(perm.new_of_old.size());
    new_of_old_ = DeviceBuffer<int>(std::max<std::size_t>(perm.new_of_old.size(), 1));
    old_of_new_ = DeviceBuffer<int>(perm.old_of_new.size());
    APSP_CUDA_TRY(gpuMemcpy(new_of_old_.get(), perm.new_of_old.data(),
                            perm.new_of_old.size() * sizeof(int), gpuMemcpyHostToDevice));
    APSP_CUDA_TRY(gpuMemcpy(old_of_new_.get(), perm.old_of_new.data(),
                            perm.old_of_new.size() * sizeof(int), gpuMemcpyHostToDevice));
    ordered_ = true;
  }
  /// With set_order(): seconds the GPU spent gathering the result into the user's order.
  double unpermute_seconds() const { return gather_ms_ / 1000; }
  std::int64_t n_pad() const { return n_pad_; }
  T* data() const { return d_.get(); }

  /// d = 0 diagonal / unreachable elsewhere, then every edge (min for duplicates). A dense graph
  /// is converted on the host, padding included, and uploaded in stripes (synchronizes).
  void build(const Graph& g) {
    if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
    if (g.is_dense()) {
      upload_dense<T>(g, inf_value<T>(), n_pad_, {}, n_pad_, {}, d_.get(), n_pad_, stream_);
      return;
    }
    launch_init_matrix<T>(d_.get(), n_pad_, stream_);
    upload_edges(g, [&](const std::int32_t* src, const std::int32_t* dst, const double* w, std::int64_t m) {
      launch_scatter_edges<T>(d_.get(), n_pad_, src, dst, w, m, !g.directed, stream_);
    });
  }

  /// int16x2 mode without the int32 matrix: build_s16 builds the packed matrix straight from the
  /// edges or the dense view (weights capped at kInf16); rounds_packed runs every round on it and
  /// checks it. True: the result is in the packed matrix and download_stripes widens it on the way
  /// out. False: some pair is unreachable or >= kInf16 apart; the packed matrix is freed and the
  /// caller runs build() + rounds(). Peak device memory: the packed matrix (half the int32 one) +
  /// panels.
  void build_s16(const Graph& g) {
    static_assert(std::is_same_v<T, int>, "int16x2 mode is for int32 distances");
    d_ = DeviceBuffer<T>();
    if (d16_.size() == 0) d16_ = DeviceBuffer<unsigned>(std::size_t(n_pad_) * ld16());
    if (flag_.size() == 0) flag_ = DeviceBuffer<int>(1);
    if (g.is_dense()) {  // the packed words as 2 * ld16 int16 columns (the even column in the low half)
      upload_dense<std::int16_t>(g, std::int16_t(kInf16), n_pad_, {}, 2 * ld16(), {},
                                 reinterpret_cast<std::int16_t*>(d16_.get()), 2 * ld16(), stream_);
      return;
    }
    launch_init_s16(d16_.get(), n_pad_, ld16(), stream_);
    upload_edges(g, [&](const std::int32_t* src, const std::int32_t* dst, const double* w, std::int64_t m) {
      launch_scatter_edges_s16(d16_.get(), ld16(), src, dst, w, m, !g.directed, stream_);
    });
  }
  /// band_lo: the rung's check (kernels/int16x2.cuh "the type ladder"): kept unless some cell lies in
  /// [band_lo, kInf16).
  /// `abandon` (optional) is asked before each round, at the GPU's pace (at most kAhead rounds
  /// queued): true drops the packed rounds there (sampled Dijkstra showed the band meanwhile).
  bool rounds_packed(const ProgressFn& progress, int band_lo, const std::function<bool()>& abandon = {}) {
    PackedRounds ops(*this);
    Pacer pace(stream_, bool(abandon));
    std::int64_t t = 0;
    const bool done = abandon ? detail::run_rounds(ops, progress, [&] { return pace.before_round(t++) && abandon(); })
                              : detail::run_rounds(ops, progress);
    if (!done) {
      APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
      release_s16();
      return false;
    }
    if (s16_in_band(band_lo)) {
      release_s16();
      return false;
    }
    result_in_s16_ = true;
    return true;
  }

  /// Uploads the edges in chunks of at most kEdgeChunk and calls scatter(src, dst, w, m) (which
  /// launches on the stream) for each; synchronizes before the chunk buffers go.
  template <class F> void upload_edges(const Graph& g, F&& scatter) {
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
        if (parts_issued >= 2) APSP_CUDA_TRY(gpuEventSynchronize(stage_.done(b)));  // its last part has gone up
        const std::int64_t k = std::min(part, m - p0), at = e0 + p0;
        char* h = static_cast<char*>(stage_.buffer(b));  // [src k][dst k][w k]: w 8-byte aligned
        detail::parallel_copy({{h, g.src.data() + at, std::size_t(k) * 4},
                       {h + 4 * k, g.dst.data() + at, std::size_t(k) * 4},
                       {h + 8 * k, g.weight.data() + at, std::size_t(k) * 8}});
        APSP_CUDA_TRY(gpuMemcpyAsync(src.get() + p0, h, k * 4, gpuMemcpyHostToDevice, stream_));
        APSP_CUDA_TRY(gpuMemcpyAsync(dst.get() + p0, h + 4 * k, k * 4, gpuMemcpyHostToDevice, stream_));
        APSP_CUDA_TRY(gpuMemcpyAsync(w.get() + p0, h + 8 * k, k * 8, gpuMemcpyHostToDevice, stream_));
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
  void reserve_next(const Graph& g, std::int64_t arcs = -1) {
    if (arcs < 0 && !g.is_dense()) arcs = std::int64_t(g.src.size()) * (g.directed ? 1 : 2);
    const std::size_t a = std::size_t(std::max<std::int64_t>(arcs, 1));
    const bool lists = arcs >= 0;
    std::size_t need = 0;
    if (next_.size() == 0) need += std::size_t(n_pad_) * std::size_t(n_pad_) * 4;
    if (next_job_.row.size() < std::size_t(n_) + 1) need += (std::size_t(n_) + 1) * 8;
    if (lists && next_job_.col.size() < a) need += a * 4;
    if (lists && next_job_.wt.size() < a) need += a * sizeof(T);
    if (need > 0) {
      std::size_t free_b = 0, total_b = 0;
      APSP_CUDA_TRY(gpuMemGetInfo(&free_b, &total_b));
      if (need > free_b)
        throw ResourceError("--paths needs " + std::to_string(need) + " bytes more GPU memory (next-hop matrix and " +
                            std::to_string(a) + " arcs by source); the GPU has " + std::to_string(free_b) + " free");
    }
    if (next_.size() == 0) next_ = DeviceBuffer<std::int32_t>(std::size_t(n_pad_) * n_pad_);
    if (next_job_.row.size() < std::size_t(n_) + 1) next_job_.row = DeviceBuffer<std::int64_t>(std::size_t(n_) + 1);
    if (lists && next_job_.col.size() < a) next_job_.col = DeviceBuffer<std::int32_t>(a);
    if (lists && next_job_.wt.size() < a) next_job_.wt = DeviceBuffer<T>(a);
    if (!next_job_.stream) APSP_CUDA_TRY(gpuStreamCreateWithFlags(&next_job_.stream, gpuStreamNonBlocking));
    if (!next_job_.after) APSP_CUDA_TRY(gpuEventCreateWithFlags(&next_job_.after, gpuEventDisableTiming));
  }

  /// g's out-arcs sorted by source (CSR), as start_next() uploads them (host_arcs.hpp).
  using HostArcs = cuda::HostArcs<T>;
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
  void upload_arcs(const Graph& g, const HostArcs& arcs, int device = -1) {
    if (device >= 0) APSP_CUDA_TRY(gpuSetDevice(device));
    APSP_EXPECTS(std::int64_t(arcs.row_ptr.size()) == n_ + 1, "upload_arcs: arcs of another graph");
    reserve_next(g, arcs.row_ptr[n_]);  // allocates only for a dense view (an edge list's lists are reserved)
    gpuStream_t ns = next_job_.stream;
    APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.row.get(), arcs.row_ptr.data(), arcs.row_ptr.size() * 8,
                                  gpuMemcpyHostToDevice, ns));
    APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.col.get(), arcs.col.data(), arcs.col.size() * 4, gpuMemcpyHostToDevice, ns));
    APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.wt.get(), arcs.wt.data(), arcs.wt.size() * sizeof(T), gpuMemcpyHostToDevice, ns));
    APSP_CUDA_TRY(gpuStreamSynchronize(ns));
    arcs_uploaded_ = true;
  }
  /// Starts the next-hop kernel on its own stream after everything queued on the main stream so
  /// far (the rounds, widen_s16); upload_arcs() must have returned.
  void launch_next() {
    APSP_EXPECTS(arcs_uploaded_, "launch_next before upload_arcs");
    gpuStream_t ns = next_job_.stream;
    APSP_CUDA_TRY(gpuEventRecord(next_job_.after, stream_));  // the rounds
    APSP_CUDA_TRY(gpuStreamWaitEvent(ns, next_job_.after, 0));
    launch_next_hops_from_edges<T>(d_.get(), n_pad_, n_, next_job_.row.get(), next_job_.col.get(),
                                   next_job_.wt.get(), next_.get(), ns);
    next_job_.pending = true;
  }
  /// Waits for start_next()'s kernel and frees its arc lists.
  void finish_next() {
    if (!next_job_.pending) return;
    APSP_CUDA_TRY(gpuStreamSynchronize(next_job_.stream));
    next_job_.pending = false;
    next_job_.row = DeviceBuffer<std::int64_t>();
    next_job_.col = DeviceBuffer<std::int32_t>();
    next_job_.wt = DeviceBuffer<T>();
    arcs_uploaded_ = false;
    detail::trace("cuda: next hops computed");
  }
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
    launch_find_in_band(d_.get(), n_pad_, n_, n_, band_lo, inf_value<int>(), flag_.get(), stream_);
    return read_flag();
  }

  /// int16x2 mode (T = int only): packs the built matrix into two int16 per word, runs every
  /// round on the packed matrix (twice the updates per instruction, half the bytes), then checks
  /// that no logical cell stayed at kInf16. True: the int32 matrix now holds the exact result.
  /// False: some pair is unreachable or at least kInf16 apart; the int32 matrix is untouched (as
  /// built) and the caller runs the int32 rounds. Synchronizes.
  bool rounds_s16(const ProgressFn& progress, int band_lo = 0) {
    s16_begin();
    PackedRounds ops(*this);
    detail::run_rounds(ops, progress);
    return s16_end(band_lo);
  }

  // The pieces of rounds_s16 (the lab times the rest-update alone).
  std::int64_t ld16() const { return (n_pad_ / 2 + kTile - 1) / kTile * kTile; }
  void s16_begin() {
    static_assert(std::is_same_v<T, int>, "int16x2 mode is for int32 distances");
    if (d16_.size() == 0) d16_ = DeviceBuffer<unsigned>(std::size_t(n_pad_) * ld16());
    if (flag_.size() == 0) flag_ = DeviceBuffer<int>(1);
    launch_pack_s16(d_.get(), n_pad_, d16_.get(), ld16(), stream_);
  }
  /// part 0: closure + transposes, 1: column panel (int32, replicated), 2: row panel, 3: rest.
  void s16_round_part(std::int64_t t, int part) {
    const std::int64_t l16 = ld16();
    unsigned* rowp16 = reinterpret_cast<unsigned*>(rowp_.get());
    unsigned* colrep = reinterpret_cast<unsigned*>(colT_.get());
    unsigned* prep = reinterpret_cast<unsigned*>(pT_.get());
    const RoundArgs<unsigned> aw{d16_.get(), l16, rowp16, l16, colrep, nullptr, n_pad_, nullptr, prep, int(t)};
    if (part == 0) {
      const RoundArgsS16 a16{d16_.get(), l16, csT_.get(), n_pad_, pS_.get(), prep, int(t)};
      if (ordered_)
        launch_closure_s16_listed(a16, rows_of(t), lists_at_[std::size_t(t)].nrows, stream_);
      else
        launch_closure_s16(a16, 1 + R_, stream_);
    } else if (part == 1) {
      // The column panel in int32, stored replicated: the A operand of the packed GEMM.
      const RoundArgs<int> ai{d_.get(), n_pad_, rowp_.get(), n_pad_, colT_.get(), csT_.get(), n_pad_, pS_.get(),
                              pT_.get(), int(t)};
      if (ordered_)
        launch_gemm_listed<int, GemmMode::ColPanelRep>(ai, tile_lists(t, true), stream_);
      else
        launch_gemm<int, GemmMode::ColPanelRep>(ai, R_, 1, stream_);
    } else if (part == 2) {
      if (ordered_)
        launch_gemm_listed<unsigned, GemmMode::RowPanel>(aw, tile_lists(t, true), stream_);
      else
        launch_gemm<unsigned, GemmMode::RowPanel>(aw, l16 / kTile, 1, stream_);
    } else {
      if (ordered_)
        launch_gemm_listed<unsigned, GemmMode::Rest>(aw, tile_lists(t, true), stream_);
      else
        launch_gemm<unsigned, GemmMode::Rest>(aw, l16 / kTile, R_, stream_);
    }
  }
  /// Whether some logical cell of the packed matrix lies in [band_lo, kInf16) (synchronizes).
  bool s16_in_band(int band_lo) {
    APSP_CUDA_TRY(gpuMemsetAsync(flag_.get(), 0, sizeof(int), stream_));
    launch_find_in_band_s16(d16_.get(), ld16(), n_, band_lo, flag_.get(), stream_);
    return read_flag();
  }
  bool s16_end(int band_lo) {
    if (s16_in_band(band_lo)) return false;
    launch_unpack_s16(d16_.get(), ld16(), d_.get(), n_pad_, stream_);
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    return true;
  }
  /// Allocates the int32 matrix that widen_s16() fills, before the rounds are queued (a
  /// gpuMalloc after them would wait for them).
  void reserve_widen() {
    if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
  }
  /// After rounds_packed() kept its result: the int32 matrix from the packed one (allocated here),
  /// the packed one freed, so that everything after (next hops, downloads) reads int32 as usual.
  void widen_s16() {
    if (!result_in_s16_) return;
    if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
    launch_unpack_s16(d16_.get(), ld16(), reinterpret_cast<int*>(d_.get()), n_pad_, stream_);
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    release_s16();
  }
  /// Frees the int16x2 matrix (after rounds_s16, before anything else needs the memory).
  void release_s16() {
    d16_ = DeviceBuffer<unsigned>();
    result_in_s16_ = false;
  }

  /// All rounds on the stream (asynchronous unless use_graph: then captured into one CUDA graph,
  /// launched, and waited for). `abandon` as in rounds_packed (not with use_graph); false when
  /// it stopped the rounds.
  bool rounds(bool use_graph, const ProgressFn& progress, const std::function<bool()>& abandon = {}) {
    if (!use_graph) {
      if (!abandon) return detail::run_rounds(*this, progress);
      Pacer pace(stream_, true);
      std::int64_t t = 0;
      const bool done = detail::run_rounds(*this, progress, [&] { return pace.before_round(t++) && abandon(); });
      if (!done) APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
      return done;
    }
    gpuGraphExec_t exec = capture();
    gpuError_t l = gpuGraphLaunch(exec, stream_);
    if (l == gpuSuccess) l = gpuStreamSynchronize(stream_);
    (void)gpuGraphExecDestroy(exec);
    APSP_CUDA_TRY(l);
    if (progress) progress(R_, R_);
    return true;
  }

  /// The whole round sequence captured into an executable graph (caller destroys it); replaying
  /// it on this stream re-runs every round on the current matrix.
  gpuGraphExec_t capture() {
    gpuGraph_t graph = nullptr;
    APSP_CUDA_TRY(gpuStreamBeginCapture(stream_, gpuStreamCaptureModeThreadLocal));
    try {
      detail::run_rounds(*this, ProgressFn{});
    } catch (...) {
      (void)gpuStreamEndCapture(stream_, &graph);
      if (graph) (void)gpuGraphDestroy(graph);
      throw;
    }
    APSP_CUDA_TRY(gpuStreamEndCapture(stream_, &graph));
    gpuGraphExec_t exec = nullptr;
    const gpuError_t e = gpuGraphInstantiate(&exec, graph, 0);
    (void)gpuGraphDestroy(graph);
    APSP_CUDA_TRY(e);
    return exec;
  }

  /// Copies the leading n x n block to host memory with row stride `host_stride` elements.
  void download(T* host, std::int64_t host_stride) { download_matrix(d_.get(), host, host_stride); }
  void download_next(std::int32_t* host, std::int64_t host_stride) { download_matrix(next_.get(), host, host_stride); }
  template <class U> void download_matrix(const U* dev, U* host, std::int64_t host_stride) {
    APSP_EXPECTS(!ordered_, "download_matrix: an ordered result leaves through download_stripes");
    if (n_ == 0) return;
    APSP_CUDA_TRY(gpuMemcpy2DAsync(host, host_stride * sizeof(U), dev, n_pad_ * sizeof(U), n_ * sizeof(U), n_,
                                    gpuMemcpyDeviceToHost, stream_));
  }

  /// Copies the leading n x n block out in stripes of rows through two pinned staging buffers
  /// (the stage: 8 MiB each, little to pin per solve, still large enough for full-speed copies):
  /// stripe s+1 crosses PCIe while consume(row0, rows, data) handles stripe s (data: rows x n,
  /// stride n, valid during the call). Returns the seconds spent inside consume.
  template <class F> double download_stripes(F&& consume) { return download_stripes(consume, d_.get()); }
  /// The distances as U (T, or int64 from int32 rounds), expanded on the device where needed.
  template <class U, class F> double download_dist(F&& consume) {
    return download_stripes(consume, static_cast<const U*>(nullptr));
  }
  /// Pins the staging buffers now (an edge-list build already has): called before the rounds, so
  /// that the first stripe does not wait for them.
  void reserve_stage() { stage_.reserve(kStageBytes); }
  bool result_is_packed() const { return result_in_s16_; }
  template <class F, class U>
  double download_stripes(F&& consume, const U* dev, std::size_t stripe_bytes = std::size_t(8) << 20) {
    // With set_order() the stripes are the user's rows n_out_ x n_out_, gathered on the device.
    const std::int64_t n = n_out_;
    if (n == 0) return 0;
    const std::int64_t rows_per = std::max<std::int64_t>(
        1, std::min<std::int64_t>(n, std::int64_t(stripe_bytes / (n * sizeof(U)))));
    // Done with earlier copies through the stage (a regrow, for rows longer than a stripe, frees it).
    for (int b = 0; b < 2 && stage_.bytes() > 0; ++b) APSP_CUDA_TRY(gpuEventSynchronize(stage_.done(b)));
    stage_.reserve(std::size_t(rows_per) * n * sizeof(U));
    U* stage[2] = {static_cast<U*>(stage_.buffer(0)), static_cast<U*>(stage_.buffer(1))};
    gpuEvent_t done[2] = {stage_.done(0), stage_.done(1)};
    double in_consume = 0;
    const std::int64_t stripes = (n + rows_per - 1) / rows_per;
    // The distances (dev == d_ or null) leave as U: as stored when that is U, else expanded on the
    // device stripe by stripe, from the packed matrix (rounds_packed kept its result) or from
    // int32 rounds into int64 (a checked int32 rung).
    const bool is_dist = dev == nullptr || static_cast<const void*>(dev) == static_cast<const void*>(d_.get());
    const bool packed = result_in_s16_ && is_dist;
    const bool expand = packed || (is_dist && !std::is_same_v<U, T>);
    constexpr bool can_expand = std::is_same_v<U, int> || (std::is_same_v<U, long> && std::is_same_v<T, int>);
    APSP_EXPECTS(!expand || can_expand, "download_stripes: no expansion to this type");
    APSP_EXPECTS((is_dist || std::is_same_v<U, int>), "download_stripes: next hops are int32");
    const U* src = dev ? dev : reinterpret_cast<const U*>(d_.get());
    DeviceBuffer<U> wide(expand || ordered_ ? std::size_t(rows_per) * n : 0);
    // Gathers time themselves (events around each stripe's kernel): --stats' unpermute.
    TimingEvents gather_time(ordered_);
    auto issue = [&](std::int64_t s) {
      const std::int64_t r0 = s * rows_per, rows = std::min(rows_per, n - r0);
      if (ordered_) {
        gather_time.begin(int(s % 2), stream_);
        gather(wide.get(), src, is_dist, packed, r0, rows);
        gather_time.end(int(s % 2), stream_);
      } else if (expand) {
        if constexpr (can_expand) {
          if (packed)
            launch_expand_rows_s16<U>(d16_.get(), ld16(), r0, rows, n, wide.get(), stream_);
          else
            launch_widen_rows<U>(reinterpret_cast<const int*>(d_.get()), n_pad_, r0, rows, n,
                                 wide.get(), stream_);
        }
      }
      if (ordered_ || expand) {
        APSP_CUDA_TRY(gpuMemcpyAsync(stage[s % 2], wide.get(), std::size_t(rows) * n * sizeof(U),
                                     gpuMemcpyDeviceToHost, stream_));
      } else {
        APSP_CUDA_TRY(gpuMemcpy2DAsync(stage[s % 2], n * sizeof(U), src + r0 * n_pad_,
                                       n_pad_ * sizeof(U), n * sizeof(U), rows,
                                       gpuMemcpyDeviceToHost, stream_));
      }
      APSP_CUDA_TRY(gpuEventRecord(done[s % 2], stream_));
    };
    issue(0);
    for (std::int64_t s = 0; s < stripes; ++s) {
      if (s + 1 < stripes) issue(s + 1);  // buffer (s+1)%2 was consumed in iteration s-1
      APSP_CUDA_TRY(gpuEventSynchronize(done[s % 2]));
      gather_ms_ += gather_time.elapsed_ms(int(s % 2));
      const auto t0 = std::chrono::steady_clock::now();
      const std::int64_t r0 = s * rows_per;
      consume(r0, std::min(rows_per, n - r0), static_cast<const U*>(stage[s % 2]));
      in_consume += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return in_consume;
  }

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
  void gather(U* out, const U* src, bool is_dist, bool packed, std::int64_t r0, std::int64_t rows) {
    const int* no = new_of_old_.get();
    const int* on = old_of_new_.get();
    if (packed) {
      if constexpr (std::is_same_v<U, int> || std::is_same_v<U, long>)
        launch_gather_rows<U, unsigned, GatherFrom::Packed>(d16_.get(), ld16(), no, on, r0, rows,
                                                            n_out_, out, stream_);
    } else if (is_dist) {
      if constexpr (std::is_same_v<U, T> || (std::is_same_v<U, long> && std::is_same_v<T, int>))
        launch_gather_rows<U, T, GatherFrom::Values>(d_.get(), n_pad_, no, on, r0, rows, n_out_,
                                                     out, stream_);
    } else {
      if constexpr (std::is_same_v<U, int>)
        launch_gather_rows<int, int, GatherFrom::NextHops>(src, n_pad_, no, on, r0, rows, n_out_,
                                                           out, stream_);
    }
  }

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
    return RoundArgs<T>{d_.get(), n_pad_, rowp_.get(), n_pad_, colT_.get(), csT_.get(), n_pad_, pS_.get(), pT_.get(),
                        int(t)};
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
  float gather_ms_ = 0;
  DeviceBuffer<T> d_, rowp_, colT_, csT_, pS_, pT_;
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
