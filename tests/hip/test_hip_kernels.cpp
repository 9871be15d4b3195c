// tests/hip/test_hip_kernels.cpp — the shared kernels (src/cuda/kernels, launched through
// src/cuda/launch.cuh) built by hipcc for AMD, or by nvcc: int32 and float32 blocked FW rounds on
// the device (closure, Panels and Rest GEMMs) against a triple-loop Floyd-Warshall on the host.
// Exits 77 (ctest: skipped) with "SKIP: ..." when no GPU of the compiled vendor is present; 1 on
// a mismatch.
// Build: cmake -DAPSP_WITH_HIP=ON (target apsp_hip_kernels_test, tests/hip.cmake).
#include <cstdint>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include "cuda/launch.cuh"
#include "gpu/runtime.hpp"

namespace {

using apsp::cuda::GemmMode;
using apsp::cuda::kTile;

template <class T>
std::vector<T> random_graph(int n, std::int64_t n_pad, unsigned seed) {
  std::vector<T> d(std::size_t(n_pad * n_pad), apsp::cuda::inf_value<T>());
  for (std::int64_t i = 0; i < n_pad; ++i) d[std::size_t(i * n_pad + i)] = T(0);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> vert(0, n - 1), wt(0, 100);
  for (int e = 0; e < 4 * n; ++e) {
    const int u = vert(rng), v = vert(rng);
    if (u != v) {
      T& x = d[std::size_t(u * n_pad + v)];
      x = std::min(x, T(wt(rng)));
    }
  }
  return d;
}

template <class T>
void reference_fw(std::vector<T>& d, std::int64_t n) {
  const T inf = apsp::cuda::inf_value<T>();
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < n; ++i) {
      const T a = d[std::size_t(i * n + k)];
      if (a >= inf) continue;
      for (std::int64_t j = 0; j < n; ++j) {
        const T b = d[std::size_t(k * n + j)];
        if (b < inf && a + b < d[std::size_t(i * n + j)]) d[std::size_t(i * n + j)] = a + b;
      }
    }
}

template <class T>
T* device_alloc(std::size_t count) {
  void* p = nullptr;
  APSP_CUDA_TRY(gpuMalloc(&p, count * sizeof(T)));
  return static_cast<T*>(p);
}

/// Blocked FW of a random graph with n vertices on the device; returns the number of mismatches.
template <class T>
int check_rounds(int n, unsigned seed) {
  const std::int64_t R = (n + kTile - 1) / kTile, n_pad = R * kTile;
  std::vector<T> h = random_graph<T>(n, n_pad, seed);
  std::vector<T> want = h;
  reference_fw(want, n_pad);
  T* d = device_alloc<T>(std::size_t(n_pad * n_pad));
  T* rowp = device_alloc<T>(std::size_t(kTile * n_pad));
  T* colT = device_alloc<T>(std::size_t(kTile * n_pad));
  T* csT = device_alloc<T>(std::size_t(kTile * n_pad));
  T* pS = device_alloc<T>(std::size_t(kTile * kTile));
  T* pT = device_alloc<T>(std::size_t(kTile * kTile));
  gpuStream_t s = nullptr;
  APSP_CUDA_TRY(gpuMemcpy(d, h.data(), h.size() * sizeof(T), gpuMemcpyHostToDevice));
  apsp::cuda::set_round_attributes<T>();
  for (std::int64_t t = 0; t < R; ++t) {
    const apsp::cuda::RoundArgs<T> a{d, n_pad, rowp, n_pad, colT, csT, n_pad, pS, pT, int(t)};
    apsp::cuda::launch_closure<T>(a, 1 + R, s);
    apsp::cuda::launch_gemm<T, GemmMode::Panels>(a, R, 2, s);
    apsp::cuda::launch_gemm<T, GemmMode::Rest>(a, R, R, s);
  }
  APSP_CUDA_TRY(gpuStreamSynchronize(s));
  APSP_CUDA_TRY(gpuMemcpy(h.data(), d, h.size() * sizeof(T), gpuMemcpyDeviceToHost));
  for (T* p : {d, rowp, colT, csT, pS, pT}) APSP_CUDA_TRY(gpuFree(p));
  int bad = 0, finite = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t x = std::size_t(i * n_pad + j);
      finite += want[x] < apsp::cuda::inf_value<T>() && i != j;
      if (h[x] != want[x] && ++bad <= 5)
        std::printf("  (%lld,%lld): got %g want %g\n", (long long)i, (long long)j, double(h[x]),
                    double(want[x]));
    }
  if (finite == 0) ++bad;  // an all-unreachable result proves nothing
  std::printf("%s V=%d seed=%u: %s (%d mismatches, %d finite)\n",
              std::is_same_v<T, float> ? "float32" : "int32", n, seed, bad ? "FAIL" : "ok", bad,
              finite);
  return bad;
}

}  // namespace

int main() {
  int count = 0;
  if (gpuGetDeviceCount(&count) != gpuSuccess || count == 0) {
    std::printf("SKIP: no %s device here; the kernels were compiled only\n",
                APSP_GPU_HIP ? "AMD (HIP)" : "CUDA");
    return 77;
  }
  int bad = 0;
  for (int n : {1, 127, 128, 129, 259, 300}) {
    bad += check_rounds<int>(n, 7u + unsigned(n));
    bad += check_rounds<float>(n, 11u + unsigned(n));
  }
  std::printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
