// src/cuda/cuda_backend.cu — the `cuda` backend: blocked Floyd-Warshall on one GPU.
//
// solve() leaves the unpadded host result unfilled (Capabilities::builds_matrix); run() builds the
// padded matrix on the device from the edge list, or for a dense graph (no edge list) from stripes
// of the caller's matrix converted on the host (device_solver.cuh upload_dense), runs the rounds
// (device_solver.cuh) and copies the n x n block back: in stripes to options.dist_sink when the
// caller streams (the CLI writes one while the next crosses PCIe), else into the host matrix.
// Also the CUDA-only pieces core/ declares (backend factory, status line, pinned allocator).
// Compiled by hipcc (src/hip/hip_backend.hip.cpp): the `hip` backend. Notes: docs/cuda-notes.md.
#include "gpu/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <sstream>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/ladder.hpp"
#include "core/host_copy.hpp"
#include "core/pinned.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "cuda/backend_rules.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_solver.cuh"
#include "cuda/backend_info.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail {

namespace sparse {
void run_sparse_rows_cuda(RowsJob& job);  // sparse_rows.cu
}

/// "cuda", or "hip" where this file is compiled for AMD (src/hip/hip_backend.hip.cpp).
inline constexpr const char* kGpuBackendName = APSP_GPU_HIP ? "hip" : "cuda";

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string gib(std::size_t b) {
  std::ostringstream os;
  os.precision(3);
  os << b << " bytes (" << double(b) / double(std::size_t(1) << 30) << " GiB)";
  return os.str();
}

/// The type the last run's rounds left the result in ("int16x2", "int32", "int64", "float32",
/// "float64"; "" before any): tests ask.
std::atomic<const char*> last_rounds{""};

int device_of(const SolveOptions& o) { return o.devices.empty() ? 0 : o.devices.front(); }

class CudaBackend final : public BackendImpl {
 public:
  std::string name() const override { return kGpuBackendName; }
  /// AMD: 4-byte types only (the 8-byte closure tile needs 128 KiB of LDS; AMD has 64 KiB).
  /// The matrix is built on the device (from edges or a dense graph); with both sinks, --paths
  /// streams (or, where next hops may loop, repairs here: run()). Host matrices in plain memory:
  /// with a sink (the CLI) it is never touched, so never paged in; without one the result comes
  /// through pinned stripes (pinning the whole matrix would cost more than it saves). Sparse
  /// rounds (docs/sparse.md): 128-wide tiles, listed per round; the result is gathered into the
  /// user's order on the device. On AMD the same code (compiled, not run: docs/amd.md), without
  /// the sparse direct engine's rows.
  Capabilities capabilities() const override {
    Capabilities c;
    c.dtypes = APSP_GPU_HIP ? dtype_bit(Dtype::Int32) | dtype_bit(Dtype::Float32) : 0xFu;
    c.pad_multiple = 1;
    c.builds_matrix = true;
    c.builds_matrix_from_dense = true;
    c.streams_paths = true;
    c.host_memory = Memory::Host;
    c.skips_tiles = true;
    c.uniform_tiles = true;
    c.unpermutes = true;
    c.sparse_rows =
        APSP_GPU_HIP ? Capabilities::SparseRows::None : Capabilities::SparseRows::Device;
    return c;
  }
  std::string rounds_used() const override { return rounds_; }
  int default_block(Dtype, std::int64_t) const override { return cuda::kTile; }
  int effective_block(Dtype, int) const override { return cuda::kTile; }
#if !APSP_GPU_HIP
  bool run_sparse_rows(sparse::RowsJob& job) override {
    sparse::run_sparse_rows_cuda(job);
    return true;
  }
#endif
  void set_tile_plan(std::shared_ptr<const TilePlan> plan) override { plan_ = std::move(plan); }
  void set_permutation(std::shared_ptr<const Permutation> perm) override {
    perm_ = std::move(perm);
  }

  void check_fits(std::int64_t n, Dtype t, int block, bool paths) const override {
    // --block is a CPU-side tuning knob; the GPU kernels are built for one tile size (kTile) and
    // use it whatever was asked (so generic callers that sweep block sizes still run).
    (void)block;
    if (!capabilities().supports(t))
      throw UsageError(std::string("the ") + kGpuBackendName + " backend does not support " +
                       dtype_name(t));
    // The current device (solve() passes no device list here; run() selects SolveOptions::devices).
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(gpuMemGetInfo(&free_b, &total_b));
    const std::size_t np = std::size_t(round_up(n, cuda::kTile));
    const std::size_t need =
        cuda::device_bytes_needed(n, dtype_size(t), cuda::kEdgeChunk) + (paths ? np * np * 4 : 0);
    if (need > free_b)
      throw ResourceError("V=" + std::to_string(n) + " needs " + gib(need) +
                          " of GPU memory (the " + std::to_string(round_up(n, cuda::kTile)) +
                          "^2 " + dtype_name(t) + " matrix plus panels" +
                          (paths ? " and the int32 next-hop matrix" : "") + "); the GPU has " +
                          gib(free_b) + " free of " + gib(total_b));
  }

  /// GPU 0 must hold the matrix (the device check_fits asks about; other devices are checked
  /// by the run), and this host the whole result where it comes back whole (no sink).
  std::string early_memory_problem(std::int64_t n, Dtype t, const SolveOptions& o) const override {
    if (o.devices.empty() || (o.devices.size() == 1 && o.devices[0] == 0)) {
      try {
        check_fits(n, t, 0, o.paths);
      } catch (const ResourceError& e) {
        return e.what();
      }
    }
    return early_host_problem(n, t, o, capabilities());
  }

  void run(const Graph& g, Matrix& dist, Matrix* next, int, const SolveOptions& o,
           Timings& timings) override {
    APSP_CUDA_TRY(gpuSetDevice(device_of(o)));
    // The kernels see non-negative weights here (solve() reweights negative ones away). One
    // parallel pass for both ends of the range.
    const Graph::WeightRange range = g.validated_weight_range();
    const double max_w = range.max_abs_weight, min_w = range.min_weight;
    // int64: the int32 rung (capped at 2^30-1, kept when the band check passes) where the
    // weights allow; abandoned when sampled Dijkstra, beside the rounds, finds a distance in the
    // band.
    run_ladder(dist.dtype(), max_w, min_w, timings, rounds_, [&](auto t, auto r, Rung rung) {
      return run_typed<typename decltype(t)::type, typename decltype(r)::type>(g, dist, next, o,
                                                                               timings, rung);
    });
  }

 private:
  std::string rounds_;
  std::shared_ptr<const TilePlan> plan_;
  std::shared_ptr<const Permutation> perm_;

  /// Sampled Dijkstra (distance_evidence.hpp) on a helper thread, beside the rounds: shows(lo)
  /// asks, without waiting, whether it has found a distance >= lo; the destructor cancels it.
  class Evidence {
   public:
    void start(const Graph& g, double stop_at) {
      stop_at_ = stop_at;
      f_ = std::async(std::launch::async, [&g, stop_at, this] {
        return sampled_distance_lower_bound(g, 8, stop_at, &cancel_);
      });
    }
    bool started() const { return stop_at_ >= 0; }
    double stop_at() const { return stop_at_; }
    /// The bound once known (-1 before): the search's whole answer when it ran out below stop_at.
    double value() {
      if (f_.valid() && f_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        value_ = f_.get();
      return value_;
    }
    bool shows(double lo) { return value() >= lo; }
    /// Cancels a search still running and starts another.
    void restart(const Graph& g, double stop_at) {
      finish();
      cancel_ = false;
      value_ = -1;
      start(g, stop_at);
    }
    ~Evidence() { finish(); }

   private:
    void finish() {
      cancel_ = true;
      if (f_.valid()) f_.wait();
      f_ = {};
    }

   public:
   private:
    std::atomic<bool> cancel_{false};
    std::future<double> f_;
    double stop_at_ = -1, value_ = -1;
  };

  /// Rounds in T, result handed out as R (R = T, or int64 from checked int32 rounds). Returns
  /// false, having handed nothing out, when a checked rung failed its band check.
  template <class T, class R>
  bool run_typed(const Graph& g, Matrix& dist, Matrix* next, const SolveOptions& o,
                 Timings& timings, Rung rung) {
    trace("cuda: run starts");
    gpuStream_t s = nullptr;
    APSP_CUDA_TRY(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking));
    struct StreamGuard {
      gpuStream_t s;
      ~StreamGuard() { (void)gpuStreamDestroy(s); }
    } guard{s};
    // int16x2 mode builds only the packed matrix; the int32 one appears only if it falls back
    // (or, with paths, after the rounds: widen_s16, for the next-hop kernel). Sampled Dijkstra
    // runs on a helper thread beside the rounds and abandons a rung whose band it reaches.
    bool s16 = false;
    const double band16 = int16x2_band_low(rung.max_w);
    const double band32 = int32_band_low(rung.max_w);
    bool ask16 = false;
    std::string note16;
    const bool ordered = plan_ && perm_ && !perm_->empty();
    if constexpr (std::is_same_v<T, int>) {
      const Int16Try how = int16_try(g.num_vertices, rung.max_w, rung.min_w);
      s16 = how != Int16Try::No && (next == nullptr || int16_with_paths(g));
      ask16 = s16 && how == Int16Try::IfNoEvidence;
      // A sparse order's packed rounds are short (its work fraction of n^3) and a sparse graph's
      // sampled Dijkstra cheap: asked first, where it pays, as the distributed backends do, a
      // graph whose distances pass the cap loses no packed pass (and no rebuild) to the rung.
      if (ask16 && ordered &&
          evidence_skips_rung(g, band16,
                              kInt16x2UpdatesPerGpu / std::max(plan_->work_fraction, 1e-9))) {
        s16 = ask16 = false;
        note16 = ladder_note::kInt16x2Skipped;
      }
    }
    trace(s16 ? "cuda: int16x2 rounds to be tried"
              : note16.empty() ? "cuda: int16x2 rounds not tried" : ("cuda: " + note16).c_str());
    auto t0 = Clock::now();
    std::optional<detail::HostBusy> busy(std::in_place);  // the build's copies have the cores
    cuda::DeviceFw<T> fw(g.num_vertices, s, !s16);
    if (ordered) fw.set_order(*plan_, *perm_, s16);  // g is the ordered graph (solve.cpp)
    trace("cuda: device buffers allocated");
    if constexpr (std::is_same_v<T, int>) {
      if (s16) fw.build_s16(g);  // synchronizes
      if (s16 && next) fw.reserve_widen();
    }
    if (!s16) fw.build(g);         // synchronizes
    if (next) fw.reserve_next(g);  // allocations before the rounds are queued (a gpuMalloc waits)
    fw.reserve_stage();            // the result's pinned stripes (a dense build has its own)
    timings.h2d = seconds_since(t0);
    busy.reset();
    trace("cuda: device matrix built");
    t0 = Clock::now();
    Evidence evidence;
    const double n_arcs = g.is_dense() ? 0.0 : double(g.src.size()) * (g.directed ? 1 : 2);
    const double nv = double(g.num_vertices);
    if (ask16 && !evidence_pays(n_arcs, nv, kInt16x2UpdatesPerGpu)) ask16 = false;
    const bool ask32 = rung.checked && evidence_pays(n_arcs, nv, kInt32UpdatesPerGpu);
    if (ask16)
      evidence.start(g, band16);
    else if (ask32)
      evidence.start(g, band32);
    // With --paths the out-arcs are sorted by source and uploaded on a helper thread while the
    // rounds run (declared after fw: joined before fw goes, whatever throws).
    std::future<void> arcs;
    if (next) {
      int device = 0;
      APSP_CUDA_TRY(gpuGetDevice(&device));
      arcs = std::async(std::launch::async, [&fw, &g, device] {
        const detail::HostBusy busy;  // the arc sort is host work the next-hop kernel waits for
        fw.upload_arcs(g, fw.sort_arcs(g), device);
      });
    }
    bool done = false;
    if constexpr (std::is_same_v<T, int>) {
      if (s16) {
        std::function<bool()> abandon;
        if (ask16) abandon = [&] { return evidence.shows(band16); };
        done = fw.rounds_packed(o.progress, int(band16), abandon);
        if (!done) {
          note16 =
              evidence.shows(band16) ? ladder_note::kInt16x2Abandoned : ladder_note::kInt16x2Fell;
          trace(note16.c_str());
          const detail::HostBusy rebuild;  // int16x2 fell back: the int32 matrix from the edges
          fw.build(g);
        }
      }
    }
    if (!done) {
      std::function<bool()> abandon;
      if constexpr (std::is_same_v<T, int>) {
        if (ask32) {
          // The evidence asked about the int16x2 band and stopped at it: ask again for int32's.
          if (!evidence.started() ||
              (evidence.stop_at() < band32 && evidence.value() >= evidence.stop_at()))
            evidence.restart(g, band32);
          abandon = [&] { return evidence.shows(band32); };
        }
      }
      const bool ran = fw.rounds(use_graph_for(fw.num_rounds()), o.progress, abandon);
      if constexpr (std::is_same_v<T, int>) {
        if (!ran || (rung.checked && fw.int32_in_band(int(band32)))) {
          rounds_ = !ran ? ladder_note::kEvidenceReachesInt32 : ladder_note::kInt32BandHit;
          trace(("cuda: checked int32 rounds dropped (" + rounds_ + "); int64 rounds follow")
                    .c_str());
          if (arcs.valid()) arcs.get();
          APSP_CUDA_TRY(gpuStreamSynchronize(s));
          return false;
        }
      }
    }
    if constexpr (std::is_same_v<T, int>) {
      if (done && next) fw.widen_s16();
    }
    last_rounds = done ? ladder_note::kInt16x2 : dtype_name(DtypeOf<T>::value);
    const char* asked = rung.checked ? ladder_note::kCheckedInt32 : "";
    rounds_ = done ? std::string(ladder_note::kInt16x2) + asked
                   : note16 + dtype_name(DtypeOf<T>::value) + asked;
    // Next hops on a stream of their own; the distances go out meanwhile (finish_next below).
    if (next) {
      arcs.get();
      fw.launch_next();
    }
    APSP_CUDA_TRY(gpuStreamSynchronize(s));
    timings.compute = seconds_since(t0);
    trace("cuda: rounds done");
    t0 = Clock::now();
    const std::int64_t n = fw.n_out();  // the user's V (the ordered graph may have padding)
    constexpr Dtype rt = DtypeOf<R>::value;
    double in_sink = 0;
    auto sink_of = [&](const RowSink& sink, Dtype dt) {
      return [&sink, n, dt](std::int64_t row0, std::int64_t rows, const void* data) {
        sink(RowBlock{row0, rows, n, n, dt, data});
      };
    };
    auto stream_dist = [&](const RowSink& sink) {
      auto f = sink_of(sink, rt);
      return fw.template download_dist<R>(
          [&](std::int64_t r0, std::int64_t rows, const R* d) { f(r0, rows, d); });
    };
    auto stream_next = [&](const RowSink& sink) {
      auto f = sink_of(sink, Dtype::Int32);
      return fw.download_stripes(
          [&](std::int64_t r0, std::int64_t rows, const std::int32_t* d) { f(r0, rows, d); },
          fw.next_data());
    };
    if (next && dist.empty() && o.dist_sink && o.next_sink) {
      // Streamed paths (Capabilities::streams_paths: solve() allocated nothing). Without a
      // possible loop both matrices go to the sinks stripe by stripe, like distances; otherwise
      // they come back whole here, are repaired (what solve() does for the matrices it holds) and
      // handed out.
      if (next_hops_loop_free(g, rt)) {
        in_sink = stream_dist(o.dist_sink);
        fw.finish_next();
        in_sink += stream_next(o.next_sink);
      } else {
        check_host_memory(n, n, rt, true);  // solve() skipped it (streams_paths)
        Matrix whole_d(n, n, rt), whole_n(n, n, Dtype::Int32);
        fill_dist<R>(fw, whole_d);
        fw.finish_next();
        fill_next(fw, whole_n);
        trace("cuda: result downloaded, repairing next hops");
        if (ordered) {  // the matrices are in the user's order: so must the graph be
          const Graph user_g = relabel(g, Permutation{perm_->new_of_old, perm_->old_of_new});
          repair_next_hops(user_g, whole_d, whole_n);
        } else {
          repair_next_hops(g, whole_d, whole_n);  // its time stays in d2h
        }
        const auto handed = Clock::now();
        o.dist_sink(RowBlock{0, n, n, whole_d.stride(), whole_d.dtype(), whole_d.raw()});
        o.next_sink(RowBlock{0, n, n, whole_n.stride(), Dtype::Int32, whole_n.raw()});
        in_sink = seconds_since(handed);
      }
      dist = Matrix{};
      *next = Matrix{};
    } else if (next) {
      // solve() repairs next hops on whole matrices, so without sinks both come back whole.
      fill_dist<R>(fw, dist);
      fw.finish_next();
      fill_next(fw, *next);
    } else if (o.dist_sink) {
      // Stream stripes to the writer: the copy of stripe s+1 overlaps the write of stripe s, and
      // the host matrix (never touched) costs nothing. Checked int32 rounds kept for an int64
      // result go out as int32 where the sink takes them (SolveOptions::int32_stripes).
      bool narrow = false;
      if constexpr (std::is_same_v<T, int> && !std::is_same_v<R, int>) {
        if (o.int32_stripes) {
          auto f = sink_of(o.dist_sink, Dtype::Int32);
          in_sink = fw.template download_dist<int>(
              [&](std::int64_t r0, std::int64_t rows, const int* d) { f(r0, rows, d); });
          narrow = true;
        }
      }
      if (!narrow) in_sink = stream_dist(o.dist_sink);
      dist = Matrix{};
    } else {
      fill_dist<R>(fw, dist);
    }
    APSP_CUDA_TRY(gpuStreamSynchronize(s));
    // The gathers into the user's order (GPU time between the copies) count as unpermute.
    timings.unpermute = fw.unpermute_seconds();
    timings.d2h = std::max(0.0, seconds_since(t0) - in_sink - timings.unpermute);
    trace("cuda: result downloaded (and streamed to the sink)");
    return true;
  }

  /// The distances as R -> host matrix m: directly when m is pinned and holds the rounds' type,
  /// else through pinned stripes (widened on the device where needed) copied out by all cores.
  template <class R, class T>
  static void fill_dist(cuda::DeviceFw<T>& fw, Matrix& m) {
    if constexpr (std::is_same_v<R, T>) {
      if (m.memory() == Memory::Pinned && !fw.result_is_packed() && !fw.permuted()) {
        fw.download_matrix(fw.data(), m.data<T>(), m.stride());
        return;
      }
    }
    const std::int64_t n = fw.n_out();
    fw.template download_dist<R>([&](std::int64_t row0, std::int64_t rows, const R* data) {
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(m.row<R>(row0 + r), data + r * n, std::size_t(n) * sizeof(R));
    });
  }
  template <class T>
  static void fill_next(cuda::DeviceFw<T>& fw, Matrix& m) {
    if (m.memory() == Memory::Pinned && !fw.permuted()) {
      fw.download_matrix(fw.next_data(), m.data<std::int32_t>(), m.stride());
      return;
    }
    const std::int64_t n = fw.n_out();
    fw.download_stripes(
        [&](std::int64_t row0, std::int64_t rows, const std::int32_t* data) {
#pragma omp parallel for schedule(static)
          for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(m.row<std::int32_t>(row0 + r), data + r * n,
                        std::size_t(n) * sizeof(std::int32_t));
        },
        fw.next_data());
  }
};

}  // namespace

#if APSP_GPU_HIP
std::unique_ptr<BackendImpl> make_hip_backend() { return std::make_unique<CudaBackend>(); }

const char* hip_last_rounds() { return last_rounds.load(); }

BackendInfo hip_backend_info() {
  return cuda::probe_backend_info("hip", [](const cuda::DeviceProbe& d) {
    const gpuDeviceProp& p = d.props;
    std::ostringstream os;
    os.precision(3);
    os << p.name << ", " << p.gcnArchName << ", " << p.multiProcessorCount << " CUs, "
       << double(p.totalGlobalMem) / double(std::size_t(1) << 30) << " GiB";
    if (d.count > 1) os << " (device 0 of " << d.count << ")";
    return os.str();
  });
}
#else
std::unique_ptr<BackendImpl> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

const char* cuda_last_rounds() { return last_rounds.load(); }

BackendInfo cuda_backend_info() {
  return cuda::probe_backend_info("cuda", [](const cuda::DeviceProbe& d) {
    const gpuDeviceProp& p = d.props;
    std::ostringstream os;
    os.precision(3);
    os << p.name << ", " << p.multiProcessorCount << " SMs, compute " << p.major << "." << p.minor
       << ", " << double(p.totalGlobalMem) / double(std::size_t(1) << 30) << " GiB";
    if (d.count > 1) os << " (device 0 of " << d.count << ")";
    return os.str();
  });
}

#endif

#if !APSP_GPU_HIP || !defined(APSP_WITH_CUDA)
void* pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (gpuMallocHost(&p, bytes) != gpuSuccess) {
    (void)gpuGetLastError();
    return nullptr;
  }
  return p;
}

void pinned_free(void* p) {
  if (p) (void)gpuFreeHost(p);
}

#endif
}  // namespace apsp::detail
