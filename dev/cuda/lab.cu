// dev/cuda/lab.cu — the kernel lab driver: checks every version in floyd_warshall.cuh against the
// CPU reference, then times it, and measures the min-plus ceiling in the same run.
//
// 1. Ceiling: ceiling.cuh's register-only kernel, int32, float32, int64 and float64.
// 2. Check: random graphs with odd sizes (a dense-ish one, a sparse one with unreachable pairs,
//    zero weights allowed); the device matrix is poisoned before the build and the host copy
//    before the download; every version must match the triple-loop CPU reference exactly.
// 3. Time: each version at the sizes it can do in reasonable time; median of `--trials` after
//    a warm-up, CUDA events around the rounds only (the build from edges is not timed). The v5
//    result at each size is verified against Dijkstra from sampled sources; the others must
//    equal v5 exactly.
// 4. The rest-update kernel alone (one round's GEMM over all tiles, repeated), every type.
// Prints `version | tile | V | ms | T updates/s | % of peak | check`; exit 1 on any mismatch.
// Usage: fw_lab [--quick] [--trials N]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "apsp/matrix.hpp"
#include "core/reference.hpp"
#include "cuda/ceiling.cuh"
#include "cuda/device_solver.cuh"
#include "floyd_warshall.cuh"

namespace {

using apsp::Graph;
using apsp::Matrix;

Graph random_graph(std::int64_t V, std::int64_t E, int wmax, std::uint64_t seed) {
  Graph g;
  g.num_vertices = V;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> vert(0, std::int32_t(V - 1)), wt(0, wmax);
  for (std::int64_t e = 0; e < E; ++e) g.add_edge(vert(rng), vert(rng), double(wt(rng)));  // self loops too
  return g;
}

struct Version {
  const char* name;
  const char* tile;
  std::int64_t max_time_v;  // largest V timed
  std::function<void(apsp::cuda::DeviceFw<int>&)> run_int;
  std::function<void(apsp::cuda::DeviceFw<float>&)> run_float;  // empty: int32 only
};

template <class T> using Runner = std::function<void(apsp::cuda::DeviceFw<T>&)>;
template <class T> Runner<T> plain(void (*f)(T*, std::int64_t, cudaStream_t), cudaStream_t s) {
  return [f, s](apsp::cuda::DeviceFw<T>& fw) { f(fw.data(), fw.n_pad(), s); };
}

int failures = 0;
bool s16_accepted = false;  // did the last v6 run keep its int16x2 result (else it fell back)?
int s16_band_lo = 0;        // the int16x2 check's band [lo, kInf16) for the graph being run

template <class T>
std::string check_version(const Runner<T>& run, const Graph& g, const Matrix& want, cudaStream_t s) {
  const std::int64_t V = g.num_vertices;
  apsp::cuda::DeviceFw<T> fw(V, s);
  APSP_CUDA_TRY(cudaMemsetAsync(fw.data(), 0xAB, sizeof(T) * fw.n_pad() * fw.n_pad(), s));  // poison
  fw.build(g);
  run(fw);
  Matrix got(V, V, apsp::DtypeOf<T>::value);
  std::memset(got.raw(), 0x7F, got.bytes());  // poison
  fw.download(got.data<T>(), V);
  APSP_CUDA_TRY(cudaStreamSynchronize(s));
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < V; ++i)
    for (std::int64_t j = 0; j < V; ++j)
      if (got.at<T>(i, j) != want.at<T>(i, j) && bad++ < 3)
        std::printf("\n    (%lld,%lld): got %g want %g", (long long)i, (long long)j, double(got.at<T>(i, j)),
                    double(want.at<T>(i, j)));
  if (bad) ++failures;
  return bad ? "FAIL(" + std::to_string(bad) + ")" : "PASS";
}

template <class T> double median_ms(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int trials = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--trials") && i + 1 < argc) trials = std::max(1, std::atoi(argv[++i]));
    else {
      std::printf("usage: fw_lab [--quick] [--trials N]\n");
      return 2;
    }
  }
  try {
    cudaDeviceProp p{};
    APSP_CUDA_TRY(cudaGetDeviceProperties(&p, 0));
    const double ceil_i = apsp::cuda::measure_minplus_ceiling<int>();
    const double ceil_f = apsp::cuda::measure_minplus_ceiling<float>();
    const double ceil_l = apsp::cuda::measure_minplus_ceiling<long>();
    // float64: the better of the two ways to write min(c, a + b) (compare + select, fmin).
    const double ceil_d_sel = apsp::cuda::measure_minplus_ceiling<double>();
    const double ceil_d_fmin = apsp::cuda::measure_minplus_ceiling<double, 1>();
    const double ceil_d = std::max(ceil_d_sel, ceil_d_fmin);
    std::printf("float64 ceiling: compare+select %.2f, fmin %.2f T updates/s\n", ceil_d_sel / 1e12, ceil_d_fmin / 1e12);
    std::printf("device %s, %d SMs, %.1f GiB\n", p.name, p.multiProcessorCount, double(p.totalGlobalMem) / (1 << 30));
    std::printf("min-plus ceiling: int32 %.2f, float32 %.2f, int64 %.2f, float64 %.2f T updates/s "
                "(register-only kernel)\n",
                ceil_i / 1e12, ceil_f / 1e12, ceil_l / 1e12, ceil_d / 1e12);

    cudaStream_t s = nullptr;
    APSP_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<Version> versions = {
        {"v1 naive", "1 cell/thr", 4096, plain<int>(lab::run_v1<int>, s), {}},
        {"v2 smem", "32x32", 8192, plain<int>(lab::run_v2<int>, s), {}},
        {"v3 course", "64x64 4/thr", 8192, plain<int>(lab::run_v3<int>, s), {}},
        {"v4 reg4x4", "64x64 4x4/thr", 8192, plain<int>(lab::run_v4<int>, s), {}},
        {"v5 gemm", "128 8x8/thr", 32768, [](apsp::cuda::DeviceFw<int>& fw) { fw.rounds(false, {}); },
         [](apsp::cuda::DeviceFw<float>& fw) { fw.rounds(false, {}); }},
        {"v5 graph", "128 8x8/thr", 4096, [](apsp::cuda::DeviceFw<int>& fw) { fw.rounds(true, {}); },
         [](apsp::cuda::DeviceFw<float>& fw) { fw.rounds(true, {}); }},
        {"v6 s16x2", "128x256 8x16/thr", 32768,
         [](apsp::cuda::DeviceFw<int>& fw) {
           s16_accepted = fw.rounds_s16({}, s16_band_lo);
           if (!s16_accepted) fw.rounds(false, {});
         },
         {}},
    };

    // ---- check ----
    struct Case { std::int64_t V, E; int wmax; };
    std::vector<Case> cases = quick ? std::vector<Case>{{333, 2000, 100}, {129, 60, 5}}
                                    : std::vector<Case>{{333, 2000, 100}, {777, 600, 9}, {1237, 9000, 1000},
                                                        {517, 30000, 50}};
    std::printf("\ncheck against the triple-loop CPU reference (exact)\n");
    for (const Case& cs : cases) {
      const Graph g = random_graph(cs.V, cs.E, cs.wmax, 7 + std::uint64_t(cs.V));
      s16_band_lo = apsp::cuda::kInf16 - cs.wmax;
      Matrix wi = apsp::detail::build_matrix(g, apsp::Dtype::Int32, cs.V, cs.V);
      apsp::detail::reference_floyd_warshall(wi);
      Matrix wf = apsp::detail::build_matrix(g, apsp::Dtype::Float32, cs.V, cs.V);
      apsp::detail::reference_floyd_warshall(wf);
      std::int64_t finite = 0;
      for (std::int64_t i = 0; i < cs.V; ++i)
        for (std::int64_t j = 0; j < cs.V; ++j) finite += i != j && wi.at<int>(i, j) < apsp::kNthuInf;
      std::printf("  V=%lld E=%lld w<=%d (%lld finite off-diagonal):", (long long)cs.V, (long long)cs.E, cs.wmax,
                  (long long)finite);
      if (finite == 0) { std::printf(" trivial input\n"); ++failures; continue; }
      for (const Version& v : versions) {
        std::printf(" %s %s", v.name, check_version<int>(v.run_int, g, wi, s).c_str());
        if (&v == &versions[6]) std::printf("%s", s16_accepted ? "[int16]" : "[int32]");
        if (v.run_float) std::printf(" (f32 %s)", check_version<float>(v.run_float, g, wf, s).c_str());
      }
      std::printf("\n");
    }

    // ---- time ----
    cudaEvent_t e0, e1;
    APSP_CUDA_TRY(cudaEventCreate(&e0));
    APSP_CUDA_TRY(cudaEventCreate(&e1));
    std::printf("\n%-10s | %-13s | %6s | %10s | %11s | %9s | %s\n", "version", "tile", "V", "ms", "T updates/s",
                "% of peak", "check");
    std::vector<std::int64_t> sizes = quick ? std::vector<std::int64_t>{2048, 4096}
                                            : std::vector<std::int64_t>{2048, 4096, 8192, 16384};
    for (const std::int64_t V : sizes) {
      const Graph g = random_graph(V, std::min<std::int64_t>(5'000'000, V * V / 4), 1000, 99 + std::uint64_t(V));
      s16_band_lo = apsp::cuda::kInf16 - 1000;
      apsp::cuda::DeviceFw<int> fw(V, s);
      Matrix ref(V, V, apsp::Dtype::Int32), got(V, V, apsp::Dtype::Int32);
      bool have_ref = false;
      std::vector<int> order;  // v5 first (its result is the reference for the others at this V)
      order.push_back(4);
      for (int vi = 0; vi < int(versions.size()); ++vi)
        if (vi != 4) order.push_back(vi);
      for (int vi : order) {
        const Version& v = versions[vi];
        if (V > v.max_time_v) continue;
        std::vector<float> ms;
        for (int r = 0; r <= trials; ++r) {
          fw.build(g);
          APSP_CUDA_TRY(cudaEventRecord(e0, s));
          v.run_int(fw);
          APSP_CUDA_TRY(cudaEventRecord(e1, s));
          APSP_CUDA_TRY(cudaEventSynchronize(e1));
          float m = 0;
          APSP_CUDA_TRY(cudaEventElapsedTime(&m, e0, e1));
          if (r) ms.push_back(m);
        }
        std::memset(got.raw(), 0x7F, got.bytes());
        fw.download(got.data<int>(), V);
        APSP_CUDA_TRY(cudaStreamSynchronize(s));
        std::string check;
        if (!have_ref) {
          const std::string r = apsp::detail::verify(g, got, 0, 4, 5);
          check = r.empty() ? "PASS (Dijkstra x4)" : "FAIL " + r;
          std::memcpy(ref.raw(), got.raw(), got.bytes());
          have_ref = true;
        } else {
          check = std::equal(got.data<int>(), got.data<int>() + V * V, ref.data<int>()) ? "PASS (= v5)" : "FAIL (!= v5)";
        }
        if (check.rfind("FAIL", 0) == 0) ++failures;
        if (vi == 6) check += s16_accepted ? " [int16 kept]" : " [fell back to int32]";
        const double t = median_ms<float>(ms);
        const double tups = double(V) * V * V / (t * 1e-3);
        std::printf("%-10s | %-13s | %6lld | %10.3f | %11.3f | %8.1f%% | %s\n", v.name, v.tile, (long long)V, t,
                    tups / 1e12, 100 * tups / ceil_i, check.c_str());
      }
    }

    // ---- the rest-update kernel alone ----
    std::printf("\nrest-update kernel alone (one round's min-plus GEMM over all n_pad^2 cells, K = 128)\n");
    auto rest_only = [&](auto tag, std::int64_t V, double ceiling) {
      using T = decltype(tag);
      const Graph g = random_graph(V, std::min<std::int64_t>(5'000'000, V * 8), 1000, 3);
      apsp::cuda::DeviceFw<T> fw(V, s);
      fw.build(g);
      fw.close_pivot(0);
      fw.update_panels(0);
      std::vector<float> ms;
      for (int r = 0; r < 11; ++r) {
        APSP_CUDA_TRY(cudaEventRecord(e0, s));
        fw.update_rest(0);
        APSP_CUDA_TRY(cudaEventRecord(e1, s));
        APSP_CUDA_TRY(cudaEventSynchronize(e1));
        float m = 0;
        APSP_CUDA_TRY(cudaEventElapsedTime(&m, e0, e1));
        if (r) ms.push_back(m);
      }
      const double t = median_ms<float>(ms);
      const double tups = double(fw.n_pad()) * fw.n_pad() * apsp::cuda::kTile / (t * 1e-3);
      const char* name = std::is_same_v<T, int>     ? "int32"
                         : std::is_same_v<T, float> ? "float32"
                         : std::is_same_v<T, long>  ? "int64"
                                                    : "float64";
      std::printf("%-10s | %-13s | %6lld | %10.4f | %11.3f | %8.1f%% | %s\n", "rest", name, (long long)V, t,
                  tups / 1e12, 100 * tups / ceiling, "-");
    };
    for (std::int64_t V : quick ? std::vector<std::int64_t>{8192} : std::vector<std::int64_t>{16384, 32768}) {
      rest_only(int{}, V, ceil_i);
      rest_only(float{}, V, ceil_f);
      rest_only(long{}, V, ceil_l);
      rest_only(double{}, V, ceil_d);
      // int16x2: the same GEMM on packed words, 2 updates per VIADDMNMX.S16x2.
      const Graph g = random_graph(V, std::min<std::int64_t>(5'000'000, V * 8), 1000, 3);
      apsp::cuda::DeviceFw<int> fw(V, s);
      fw.build(g);
      fw.s16_begin();
      for (int part = 0; part < 3; ++part) fw.s16_round_part(0, part);
      std::vector<float> ms;
      for (int r = 0; r < 11; ++r) {
        APSP_CUDA_TRY(cudaEventRecord(e0, s));
        fw.s16_round_part(0, 3);
        APSP_CUDA_TRY(cudaEventRecord(e1, s));
        APSP_CUDA_TRY(cudaEventSynchronize(e1));
        float m = 0;
        APSP_CUDA_TRY(cudaEventElapsedTime(&m, e0, e1));
        if (r) ms.push_back(m);
      }
      const double t = median_ms<float>(ms);
      const double tups = double(fw.n_pad()) * double(fw.ld16() * 2) * apsp::cuda::kTile / (t * 1e-3);
      std::printf("%-10s | %-13s | %6lld | %10.4f | %11.3f | %8.1f%% | %s\n", "rest", "int16x2", (long long)V, t,
                  tups / 1e12, 100 * tups / ceil_i, "(% of the int32 ceiling)");
    }
    std::printf("\n%s\n", failures ? "LAB: FAIL" : "LAB: all versions PASS");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fw_lab: %s\n", e.what());
    return 1;
  }
}
