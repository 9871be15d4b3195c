// dev/cpu/minplus_lab.cpp — the CPU ladder: each version of blocked Floyd-Warshall in order,
// checked against the triple-loop reference and timed by one driver.
//
//   v1 triple loop           textbook k-i-j, one thread (src/cpu/baselines.cpp)
//   v2 blocked, omp rows     3-phase blocked FW (B=64), OpenMP over tile rows, scalar tile loops:
//                            the shape of the NTHU course reports (src/cpu/baselines.cpp)
//   v3 blocked, SIMD sweeps  same schedule, every tile update a k-loop of 512-bit row sweeps
//                            (load C row, add, min, store): vector lanes, but C goes through L1
//                            on every k and nothing stays in registers (this file)
//   v4 ours, portable        packed panels + register-blocked min-plus GEMM micro-kernel, plain
//                            C++ (src/cpu, APSP_CPU_ISA=scalar)
//   v5 ours, AVX2            the same micro-kernel on 8 lanes, 6x16 tile
//   v6 ours, AVX-512         the same on 16 lanes, 8x32 tile: 16 accumulators stay in registers
//                            for the whole depth-256 inner loop; the production kernel
//
// Build: ninja -C build cpu_minplus_lab. Run: build/dev/cpu/cpu_minplus_lab [V ...] [--threads N]
// Prints: version | tile | ms | G updates/s | % of peak (peak = the register-resident probe on
// the same thread count, measured first).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(__x86_64__)
// GCC 12 warns inside its own avx512fintrin.h set1 helpers (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

#include "apsp/generate.hpp"
#include "core/reference.hpp"
#include "cpu/baselines.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"

using namespace apsp;
namespace cpu = apsp::detail::cpu;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

#if defined(__x86_64__)
// v3: D[I,J] = min(D[I,J], D[I,K] (+) D[K,J]) as k-ordered 512-bit row sweeps (aliasing-safe).
__attribute__((target("avx512f"))) void sweep_tile(std::int32_t* d, std::int64_t ld, std::int64_t I,
                                                   std::int64_t J, std::int64_t K, int B) {
  for (std::int64_t k = K * B; k < (K + 1) * B; ++k) {
    const std::int32_t* dk = d + k * ld + J * B;
    for (std::int64_t i = I * B; i < (I + 1) * B; ++i) {
      std::int32_t* di = d + i * ld + J * B;
      const __m512i a = _mm512_set1_epi32(d[i * ld + k]);
      for (int j = 0; j < B; j += 16)
        _mm512_storeu_si512(di + j, _mm512_min_epi32(_mm512_loadu_si512(di + j),
                                                     _mm512_add_epi32(a, _mm512_loadu_si512(dk + j))));
    }
  }
}

void blocked_simd_sweeps(Matrix& m, int B, int threads) {
  const std::int64_t ld = m.stride(), R = ld / B;
  std::int32_t* d = m.data<std::int32_t>();
  for (std::int64_t t = 0; t < R; ++t) {
    sweep_tile(d, ld, t, t, t, B);
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (std::int64_t x = 0; x < 2 * R; ++x) {
      const std::int64_t o = x % R;
      if (o == t) continue;
      if (x < R) sweep_tile(d, ld, t, o, t, B);
      else sweep_tile(d, ld, o, t, t, B);
    }
#pragma omp parallel for collapse(2) num_threads(threads) schedule(dynamic)
    for (std::int64_t I = 0; I < R; ++I)
      for (std::int64_t J = 0; J < R; ++J)
        if (I != t && J != t) sweep_tile(d, ld, I, J, t, B);
  }
}
#endif

double peak(int threads) {
  const auto ks = cpu::kernels_for<std::int32_t>(cpu::detected_isa());
  const long iters = 50000000;
  const auto t0 = Clock::now();
  std::vector<long> sink(static_cast<std::size_t>(threads), 0);
#pragma omp parallel num_threads(threads)
  sink[std::size_t(omp_get_thread_num())] = ks.probe(iters, omp_get_thread_num() + 1);
  return double(threads) * double(iters) * ks.probe_updates_per_iter / since(t0) / 1e9;
}

struct Rung {
  const char* name;
  const char* tile;
  bool available;
  int threads;  // 0 = the run's thread count
  std::int64_t max_v;
  std::function<void(Matrix&, int)> run;  // (padded matrix, threads)
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes;
  int threads = omp_get_max_threads();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else sizes.push_back(std::atoll(argv[i]));
  }
  if (sizes.empty()) sizes = {1024, 2048};

  auto ours = [](cpu::Isa isa) {
    return [isa](Matrix& m, int th) { cpu::blocked_floyd_warshall(m, nullptr, 0, th, isa); };
  };
  const std::vector<Rung> rungs = {
      {"v1 triple loop", "-", true, 1, 2048, [](Matrix& m, int) { cpu::baseline_triple_loop(m); }},
      {"v2 blocked, omp rows", "64", true, 0, 1 << 20,
       [](Matrix& m, int th) { cpu::baseline_blocked_omp_rows(m, 64, th); }},
#if defined(__x86_64__)
      {"v3 blocked, SIMD sweeps", "64", cpu::isa_supported(cpu::Isa::Avx512), 0, 1 << 20,
       [](Matrix& m, int th) { blocked_simd_sweeps(m, 64, th); }},
#endif
      {"v4 ours, portable", "256, 4x8", true, 0, 1 << 20, ours(cpu::Isa::Scalar)},
      {"v5 ours, AVX2", "256, 6x16", cpu::isa_supported(cpu::Isa::Avx2), 0, 1 << 20, ours(cpu::Isa::Avx2)},
      {"v6 ours, AVX-512", "256, 8x32", cpu::isa_supported(cpu::Isa::Avx512), 0, 1 << 20, ours(cpu::Isa::Avx512)},
  };

  const double peak_n = peak(threads), peak_1 = threads == 1 ? peak_n : peak(1);
  std::printf("CPU min-plus ladder, int32, %d thread(s); peak (register-resident probe): %.1f G updates/s "
              "on 1 thread, %.1f on %d\n", threads, peak_1, peak_n, threads);
  for (const std::int64_t V : sizes) {
    const Graph g = generate_uniform(V, std::min<std::int64_t>(5000000, V * V / 4), 0, 1000, 42);
    Matrix want = detail::build_matrix(g, Dtype::Int32, V, V);
    std::printf("\nV=%lld (reference: triple loop)\n%-26s | %-10s | %10s | %12s | %9s | %s\n", (long long)V,
                "version", "tile", "ms", "G updates/s", "% of peak", "check");
    detail::reference_floyd_warshall(want);
    for (const Rung& r : rungs) {
      if (!r.available || V > r.max_v) {
        std::printf("%-26s | %-10s | %10s | %12s | %9s | skipped\n", r.name, r.tile, "-", "-", "-");
        continue;
      }
      const int th = r.threads ? r.threads : threads;
      const std::int64_t n_pad = round_up(V, 256);
      Matrix m = detail::build_matrix(g, Dtype::Int32, n_pad, n_pad);
      if (r.threads == 1) m = detail::build_matrix(g, Dtype::Int32, V, V);
      const auto t0 = Clock::now();
      r.run(m, th);
      const double s = since(t0);
      bool ok = true;
      for (std::int64_t i = 0; i < V && ok; ++i)
        for (std::int64_t j = 0; j < V; ++j)
          if (m.at<std::int32_t>(i, j) != want.at<std::int32_t>(i, j)) {
            std::printf("  (%lld,%lld): got %d want %d\n", (long long)i, (long long)j, m.at<std::int32_t>(i, j),
                        want.at<std::int32_t>(i, j));
            ok = false;
            break;
          }
      const double g_ups = double(V) * double(V) * double(V) / s / 1e9;
      std::printf("%-26s | %-10s | %10.1f | %12.1f | %8.1f%% | %s\n", r.name, r.tile, s * 1e3, g_ups,
                  100 * g_ups / (th == 1 ? peak_1 : peak_n), ok ? "PASS" : "FAIL");
    }
  }
  return 0;
}
