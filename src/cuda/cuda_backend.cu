// src/cuda/cuda_backend.cu — the `cuda` backend: blocked Floyd-Warshall on one GPU.
//
// solve() allocates the unpadded host result and leaves it unfilled (builds_matrix()); run()
// uploads the edge list and builds the padded matrix on the device from it, or for a dense graph
// (builds_matrix_from_dense(): no edge list) converts stripes of the caller's matrix into the
// padded matrix on the host and uploads them (device_solver.cuh upload_dense); runs the rounds
// (device_solver.cuh) and copies the leading n x n block back: in stripes to options.dist_sink
// when the caller streams (the CLI writes each stripe while the next crosses PCIe), else into
// the host matrix.
// Also defines the CUDA-only pieces core/ declares: the backend factory and status line, and the
// pinned allocator.
#include <cuda_runtime.h>

#include <atomic>
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
#include "core/host_copy.hpp"
#include "core/pinned.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_solver.cuh"

namespace apsp::detail {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string gib(std::size_t b) {
  std::ostringstream os;
  os.precision(3);
  os << b << " bytes (" << double(b) / double(std::size_t(1) << 30) << " GiB)";
  return os.str();
}

/// Whether every vertex of a dense graph has an in- and an out-edge (self loops do not count;
/// undirected: any edge at all), without reading the whole matrix where the answer shows early.
/// Lines are the view's rows or columns, whichever lie contiguous in memory. 1. Every line needs
/// an entry that is an edge: each line is read up to its first one, in parallel. 2. Every
/// position across the lines needs an edge in some line: lines are read in storage order, in
/// growing blocks, until every position has one. A graph with most entries edges answers after a
/// few entries per line and a few lines; a no answers as soon as it is known; the worst case
/// reads the matrix once.
bool dense_every_vertex_has_in_and_out_edges(const Graph& g) {
  const DenseAdjacency& a = g.dense;
  const std::int64_t n = g.num_vertices;
  const std::int64_t outer = a.line_stride(), inner = a.entry_stride();
  const char* base = static_cast<const char*>(a.data);
  return visit_dtype(a.kind, [&](auto tag) {
    using S = decltype(tag);
    auto edge = [&](std::int64_t line, std::int64_t k) {
      S x;
      std::memcpy(&x, base + line * outer + k * inner, sizeof x);
      return line != k && dense_is_edge(x);
    };
    // 1. line_has[o]: line o has an edge. Directed, every line needs one (out- or in-edges).
    std::vector<std::uint8_t> line_has(std::size_t(n), 0);
    bool all_lines = true;
#pragma omp parallel for schedule(dynamic, 256) reduction(&& : all_lines)
    for (std::int64_t o = 0; o < n; ++o) {
      std::int64_t k = 0;
      while (k < n && !edge(o, k)) ++k;
      line_has[std::size_t(o)] = k < n;
      all_lines = all_lines && k < n;
    }
    if (g.directed && !all_lines) return false;
    // 2. Positions still to cover: every one (directed: the other kind of edge), or undirected
    // the vertices whose own line has no edge (an edge across covers them both ways).
    std::vector<std::uint8_t> need(std::size_t(n), 0);
    std::int64_t left = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      need[std::size_t(k)] = g.directed || !line_has[std::size_t(k)];
      left += need[std::size_t(k)];
    }
    constexpr std::int64_t kChunk = 1024;  // positions per task
    for (std::int64_t o0 = 0, lines = 64; o0 < n && left > 0; o0 += lines, lines *= 2) {
      const std::int64_t o1 = std::min(n, o0 + lines);
      std::int64_t covered = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : covered) if ((o1 - o0) * n > (1 << 16))
      for (std::int64_t k0 = 0; k0 < n; k0 += kChunk)
        for (std::int64_t o = o0; o < o1; ++o)
          for (std::int64_t k = k0; k < std::min(n, k0 + kChunk); ++k)
            if (need[std::size_t(k)] && edge(o, k)) {
              need[std::size_t(k)] = 0;
              ++covered;
            }
      left -= covered;
    }
    return left == 0;
  });
}

/// int16x2 mode (int32 distances, no next hops): worth trying when the graph is big enough for
/// the rounds to dominate and could have every pair reachable (every vertex has an in- and an
/// out-edge). It falls back to int32 by itself when some distance is >= 2^14-1 or some pair is
/// unreachable, at the cost of the packed pass (about half an int32 solve). Its packed matrix is
/// half the int32 one, so whatever check_fits accepts fits.
/// APSP_CUDA_INT16=0 never tries, =1 always tries.
bool try_int16(const Graph& g) {
  if (const char* e = std::getenv("APSP_CUDA_INT16")) return e[0] == '1';
  const std::int64_t n = g.num_vertices;
  if (n < 6144) return false;  // below, the packed pass and this check gain little (lab: 4096 -> 1.3x)
  if (g.is_dense()) return dense_every_vertex_has_in_and_out_edges(g);
  std::vector<std::uint8_t> in(std::size_t(n), 0), out(std::size_t(n), 0);
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    const std::int32_t u = g.src[e], v = g.dst[e];
    if (u == v) continue;
    out[u] = in[v] = 1;
    if (!g.directed) out[v] = in[u] = 1;
  }
  for (std::int64_t i = 0; i < n; ++i)
    if (!in[i] || !out[i]) return false;
  return true;
}

/// int16x2 rounds with --paths (then widened to int32 for the next-hop kernel): at V = 16384 the
/// int32 rounds take ~290 ms against ~160 ms packed, most of what --paths added to the compute
/// (bench/results/paths-gpu-2026-11-21.md; outputs byte-identical, scripts/gpu_check.sh paths).
/// On wherever try_int16() is (APSP_CUDA_INT16_PATHS=0 turns it off). Needs the packed, the
/// int32 and the next-hop matrices at once, so only where the GPU has room for them.
bool int16_with_paths(const Graph& g) {
  const char* e = std::getenv("APSP_CUDA_INT16_PATHS");
  if (e && e[0] == '0') return false;
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return false;
  const double np = double(round_up(g.num_vertices, cuda::kTile));
  const double arcs = double(g.num_edges()) * (g.directed ? 1 : 2);
  const double need = np * np * (2 + 4 + 4) + arcs * 12 + np * cuda::kTile * 4 * 8;
  return need < 0.9 * double(free_b);
}

/// What the last run's rounds used ("int16x2", "int32", "float32"; "" before any): tests ask.
std::atomic<const char*> last_rounds{""};

/// Rounds <= this many use one captured CUDA graph (V <= 32 * 128 = 4096); APSP_CUDA_GRAPH=0/1
/// overrides. Measured gain: see docs/cuda-notes.md.
constexpr std::int64_t kGraphMaxRounds = 32;

bool use_graph_for(std::int64_t rounds) {
  if (const char* e = std::getenv("APSP_CUDA_GRAPH")) return e[0] == '1';
  return rounds <= kGraphMaxRounds;
}

int device_of(const SolveOptions& o) { return o.devices.empty() ? 0 : o.devices.front(); }

/// Next hops by the edges rule (start_next) are tight: d(i,j) = w(i,v) + d(v,j) for v =
/// next[i][j], so d falls strictly along a walk except across zero-weight arcs, and only a
/// zero-weight cycle can trap one. With int32 (exact sums) and no zero-weight cycle every walk
/// ends, and the next hops need no repair (float32 sums can absorb a small weight).
bool next_hops_loop_free(const Graph& g, Dtype t) {
  return t == Dtype::Int32 && !may_have_zero_weight_cycle(g);
}

class CudaBackend final : public BackendImpl {
 public:
  std::string name() const override { return "cuda"; }
  bool supports(Dtype t) const override { return t == Dtype::Int32 || t == Dtype::Float32; }
  int default_block(Dtype, std::int64_t) const override { return cuda::kTile; }
  int effective_block(Dtype, int) const override { return cuda::kTile; }
  int pad_multiple(Dtype, int) const override { return 1; }
  bool builds_matrix() const override { return true; }
  bool builds_matrix_from_dense() const override { return true; }
  /// With both sinks, --paths streams (or, where next hops may loop, repairs here): run().
  bool streams_paths() const override { return true; }
  // Plain host memory: with a sink (the CLI) it is never touched, so never paged in; without one
  // the result comes through pinned stripes. Pinning the whole matrix would cost more than it
  // saves (APSP_CUDA_PINNED_HOST=1 asks for it anyway, for measurements).
  Memory host_memory() const override {
    const char* e = std::getenv("APSP_CUDA_PINNED_HOST");
    return e && e[0] == '1' ? Memory::Pinned : Memory::Host;
  }

  void check_fits(std::int64_t n, Dtype t, int block, bool paths) const override {
    // --block is a CPU-side tuning knob; the GPU kernels are built for one tile size (kTile) and
    // use it whatever was asked (so generic callers that sweep block sizes still run).
    (void)block;
    if (!supports(t)) throw UsageError(std::string("the cuda backend does not support ") + dtype_name(t));
    // The current device (solve() passes no device list here; run() selects SolveOptions::devices).
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t np = std::size_t(round_up(n, cuda::kTile));
    const std::size_t need = cuda::device_bytes_needed(n, dtype_size(t), cuda::kEdgeChunk) + (paths ? np * np * 4 : 0);
    if (need > free_b)
      throw ResourceError("V=" + std::to_string(n) + " needs " + gib(need) + " of GPU memory (the " +
                          std::to_string(round_up(n, cuda::kTile)) + "^2 " + dtype_name(t) +
                          " matrix plus panels" + (paths ? " and the int32 next-hop matrix" : "") + "); the GPU has " +
                          gib(free_b) + " free of " + gib(total_b));
  }

  void run(const Graph& g, Matrix& dist, Matrix* next, int, const SolveOptions& o, Timings& timings) override {
    APSP_CUDA_TRY(cudaSetDevice(device_of(o)));
    if (dist.dtype() == Dtype::Int32) run_typed<int>(g, dist, next, o, timings);
    else if (dist.dtype() == Dtype::Float32) run_typed<float>(g, dist, next, o, timings);
    else throw UsageError(std::string("the cuda backend does not support ") + dtype_name(dist.dtype()));
  }

 private:
  template <class T>
  void run_typed(const Graph& g, Matrix& dist, Matrix* next, const SolveOptions& o, Timings& timings) {
    trace("cuda: run starts");
    cudaStream_t s = nullptr;
    APSP_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    struct StreamGuard {
      cudaStream_t s;
      ~StreamGuard() { cudaStreamDestroy(s); }
    } guard{s};
    // int16x2 mode builds only the packed matrix; the int32 one appears only if it falls back
    // (or, with paths, after the rounds: widen_s16, for the next-hop kernel).
    bool s16 = false;
    if constexpr (std::is_same_v<T, int>) s16 = (next == nullptr || int16_with_paths(g)) && try_int16(g);
    trace(s16 ? "cuda: int16x2 rounds to be tried" : "cuda: int16x2 rounds not tried");
    auto t0 = Clock::now();
    std::optional<detail::HostBusy> busy(std::in_place);  // the build's copies have the cores
    cuda::DeviceFw<T> fw(g.num_vertices, s, !s16);
    trace("cuda: device buffers allocated");
    if constexpr (std::is_same_v<T, int>) {
      if (s16) fw.build_s16(g);  // synchronizes
      if (s16 && next) fw.reserve_widen();
    }
    if (!s16) fw.build(g);  // synchronizes
    if (next) fw.reserve_next(g);  // allocations before the rounds are queued (a cudaMalloc waits)
    fw.reserve_stage();            // the result's pinned stripes (a dense build has its own)
    timings.h2d = seconds_since(t0);
    busy.reset();
    trace("cuda: device matrix built");
    t0 = Clock::now();
    // With --paths the out-arcs are sorted by source and uploaded on a helper thread while the
    // rounds run (declared after fw: joined before fw goes, whatever throws).
    std::future<void> arcs;
    if (next) {
      int device = 0;
      APSP_CUDA_TRY(cudaGetDevice(&device));
      arcs = std::async(std::launch::async, [&fw, &g, device] {
        const detail::HostBusy busy;  // the arc sort is host work the next-hop kernel waits for
        fw.upload_arcs(g, fw.sort_arcs(g), device);
      });
    }
    bool done = false;
    if constexpr (std::is_same_v<T, int>) {
      if (s16 && !(done = fw.rounds_packed(o.progress))) {
        const detail::HostBusy rebuild;  // int16x2 fell back: the int32 matrix from the edges
        fw.build(g);
      }
    }
    if (!done) fw.rounds(use_graph_for(fw.num_rounds()), o.progress);
    if constexpr (std::is_same_v<T, int>) {
      if (done && next) fw.widen_s16();
    }
    last_rounds = done ? "int16x2" : std::is_same_v<T, int> ? "int32" : "float32";
    // Next hops on a stream of their own; the distances go out meanwhile (finish_next below).
    if (next) {
      arcs.get();
      fw.launch_next();
    }
    APSP_CUDA_TRY(cudaStreamSynchronize(s));
    timings.compute = seconds_since(t0);
    trace("cuda: rounds done");
    t0 = Clock::now();
    const std::int64_t n = g.num_vertices;
    double in_sink = 0;
    auto stream_out = [&](auto tag, const decltype(tag)* dev, const RowSink& sink) {
      using U = decltype(tag);
      return fw.download_stripes(
          [&](std::int64_t row0, std::int64_t rows, const U* data) {
            sink(RowBlock{row0, rows, n, n, DtypeOf<U>::value, data});
          },
          dev);
    };
    if (next && dist.empty() && o.dist_sink && o.next_sink) {
      // Streamed paths (streams_paths(): solve() allocated nothing). Without a possible loop both
      // matrices go to the sinks stripe by stripe, like distances; otherwise they come back whole
      // here, are repaired (what solve() does for the matrices it holds) and handed out.
      if (next_hops_loop_free(g, DtypeOf<T>::value)) {
        in_sink = stream_out(T{}, fw.data(), o.dist_sink);
        fw.finish_next();
        in_sink += stream_out(std::int32_t{}, fw.next_data(), o.next_sink);
      } else {
        check_host_memory(n, n, DtypeOf<T>::value, true);  // solve() skipped it (streams_paths)
        Matrix whole_d(n, n, DtypeOf<T>::value), whole_n(n, n, Dtype::Int32);
        fill_host(fw, fw.data(), whole_d);
        fw.finish_next();
        fill_host(fw, fw.next_data(), whole_n);
        trace("cuda: result downloaded, repairing next hops");
        repair_next_hops(g, whole_d, whole_n);  // its time stays in d2h
        const auto handed = Clock::now();
        o.dist_sink(RowBlock{0, n, n, whole_d.stride(), whole_d.dtype(), whole_d.raw()});
        o.next_sink(RowBlock{0, n, n, whole_n.stride(), Dtype::Int32, whole_n.raw()});
        in_sink = seconds_since(handed);
      }
      dist = Matrix{};
      *next = Matrix{};
    } else if (next) {
      // solve() repairs next hops on whole matrices, so without sinks both come back whole.
      fill_host(fw, fw.data(), dist);
      fw.finish_next();
      fill_host(fw, fw.next_data(), *next);
    } else if (o.dist_sink) {
      // Stream stripes to the writer: the copy of stripe s+1 overlaps the write of stripe s, and
      // the host matrix (never touched) costs nothing.
      in_sink = fw.download_stripes([&](std::int64_t row0, std::int64_t rows, const T* data) {
        o.dist_sink(RowBlock{row0, rows, n, n, DtypeOf<T>::value, data});
      });
      dist = Matrix{};
    } else {
      fill_host(fw, fw.data(), dist);
    }
    APSP_CUDA_TRY(cudaStreamSynchronize(s));
    timings.d2h = seconds_since(t0) - in_sink;
    trace("cuda: result downloaded (and streamed to the sink)");
  }

  /// Device matrix (ld n_pad) -> host matrix m: directly when m is pinned, else through pinned
  /// stripes copied out by all cores.
  template <class T, class U> static void fill_host(cuda::DeviceFw<T>& fw, const U* dev, Matrix& m) {
    if (m.memory() == Memory::Pinned && !fw.result_is_packed()) {
      fw.download_matrix(dev, m.data<U>(), m.stride());
      return;
    }
    const std::int64_t n = fw.n();
    fw.download_stripes(
        [&](std::int64_t row0, std::int64_t rows, const U* data) {
#pragma omp parallel for schedule(static)
          for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(m.row<U>(row0 + r), data + r * n, std::size_t(n) * sizeof(U));
        },
        dev);
  }
};

}  // namespace

std::unique_ptr<BackendImpl> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

const char* cuda_last_rounds() { return last_rounds.load(); }

BackendInfo cuda_backend_info() {
  BackendInfo info{"cuda", true, false, ""};
  const cuda::DeviceProbe d = cuda::probe_devices();
  if (!d.error.empty()) {
    info.detail = d.error;
    return info;
  }
  const cudaDeviceProp& p = d.props;
  const int count = d.count;
  std::ostringstream os;
  os.precision(3);
  os << p.name << ", " << p.multiProcessorCount << " SMs, compute " << p.major << "." << p.minor << ", "
     << double(p.totalGlobalMem) / double(std::size_t(1) << 30) << " GiB";
  if (count > 1) os << " (device 0 of " << count << ")";
  info.usable = d.capable();
  info.detail = os.str() + (d.capable() ? "" : cuda::kNeedsSm90);
  return info;
}

void* pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (cudaMallocHost(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void pinned_free(void* p) {
  if (p) cudaFreeHost(p);
}

}  // namespace apsp::detail
