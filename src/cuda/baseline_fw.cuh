// src/cuda/baseline_fw.cuh — the course-style blocked Floyd-Warshall, kept as a baseline rung.
//
// The common NTHU hw3 solution: B = 64 tiles, 32x32 threads, 4 cells per thread, three kernels
// per round (pivot, the two panels, the rest), every tile staged through shared memory and the k
// loop run in place. `apsp bench --backend cuda` times it next to the backend so every table
// shows the step from "what the course does" to the min-plus GEMM; the kernel lab (dev/cuda) runs
// it as rung v3. Works on any matrix whose side n_pad is a multiple of 64.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

#include "core/sentinel.hpp"
#include "cuda/cuda_check.hpp"

// Internal linkage, as in cuda/kernels/distances.cuh.
namespace apsp::cuda::baseline {
namespace {

inline constexpr int kB = 64;

/// The relax rule min(c, a + b) (core/sentinel.hpp: the one rule of host and device).
template <class T>
__device__ __forceinline__ T add_min(T c, T a, T b) {
  return detail::relax(a, b, c);
}

template <class T>
__global__ void __launch_bounds__(1024) pivot_64(T* d, std::int64_t ld, int t) {
  __shared__ T s[kB][kB];
  const int tx = threadIdx.x, ty = threadIdx.y;
  T* g = d + std::int64_t(t) * kB * ld + std::int64_t(t) * kB;
#pragma unroll
  for (int q = 0; q < 4; ++q)
    s[ty + 32 * (q / 2)][tx + 32 * (q % 2)] = g[(ty + 32 * (q / 2)) * ld + tx + 32 * (q % 2)];
  __syncthreads();
  for (int k = 0; k < kB; ++k) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int i = ty + 32 * (q / 2), j = tx + 32 * (q % 2);
      s[i][j] = add_min(s[i][j], s[i][k], s[k][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < 4; ++q)
    g[(ty + 32 * (q / 2)) * ld + tx + 32 * (q % 2)] = s[ty + 32 * (q / 2)][tx + 32 * (q % 2)];
}

/// grid (R, 2): y = 0 the row panel tile (t, x), y = 1 the column panel tile (x, t); x == t
/// skipped.
template <class T>
__global__ void __launch_bounds__(1024) panels_64(T* d, std::int64_t ld, int t) {
  if (int(blockIdx.x) == t) return;
  __shared__ T p[kB][kB], c[kB][kB];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool row = blockIdx.y == 0;
  const std::int64_t I = row ? t : blockIdx.x, J = row ? blockIdx.x : t;
  const T* gp = d + std::int64_t(t) * kB * ld + std::int64_t(t) * kB;
  T* gc = d + I * kB * ld + J * kB;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int i = ty + 32 * (q / 2), j = tx + 32 * (q % 2);
    p[i][j] = gp[i * ld + j];
    c[i][j] = gc[i * ld + j];
  }
  __syncthreads();
  for (int k = 0; k < kB; ++k) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int i = ty + 32 * (q / 2), j = tx + 32 * (q % 2);
      c[i][j] = row ? add_min(c[i][j], p[i][k], c[k][j]) : add_min(c[i][j], c[i][k], p[k][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int i = ty + 32 * (q / 2), j = tx + 32 * (q % 2);
    gc[i * ld + j] = c[i][j];
  }
}

/// grid (R, R); tiles in row or column t skipped.
template <class T>
__global__ void __launch_bounds__(1024) rest_64(T* d, std::int64_t ld, int t) {
  if (int(blockIdx.x) == t || int(blockIdx.y) == t) return;
  __shared__ T a[kB][kB], b[kB][kB];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t I = blockIdx.y, J = blockIdx.x;
  const T* ga = d + I * kB * ld + std::int64_t(t) * kB;
  const T* gb = d + std::int64_t(t) * kB * ld + J * kB;
  T* gc = d + I * kB * ld + J * kB;
  T c[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int i = ty + 32 * (q / 2), j = tx + 32 * (q % 2);
    a[i][j] = ga[i * ld + j];
    b[i][j] = gb[i * ld + j];
    c[q] = gc[i * ld + j];
  }
  __syncthreads();
#pragma unroll 16
  for (int k = 0; k < kB; ++k) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      c[q] = add_min(c[q], a[ty + 32 * (q / 2)][k], b[k][tx + 32 * (q % 2)]);
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) gc[(ty + 32 * (q / 2)) * ld + tx + 32 * (q % 2)] = c[q];
}

/// All rounds on `stream`, asynchronously.
template <class T>
void run_course_64(T* d, std::int64_t n_pad, gpuStream_t stream) {
  const int R = int(n_pad / kB);
  const dim3 threads(32, 32);
  for (int t = 0; t < R; ++t) {
    pivot_64<T><<<1, threads, 0, stream>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(stream);
    panels_64<T><<<dim3(R, 2), threads, 0, stream>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(stream);
    rest_64<T><<<dim3(R, R), threads, 0, stream>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(stream);
  }
}

}  // namespace
}  // namespace apsp::cuda::baseline
