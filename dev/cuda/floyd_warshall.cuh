// dev/cuda/floyd_warshall.cuh — every version of the GPU Floyd-Warshall solve, in order.
//
// Each version runs all rounds on a padded n_pad x n_pad matrix (n_pad a multiple of 128; the
// padding vertices are isolated, so they change nothing) on one stream:
//   v1 naive         one launch per k over the whole matrix, one thread per cell, global memory.
//   v2 smem 32x32    blocked 3-phase (pivot, panels, rest), 32x32 tiles staged in shared memory,
//                    one thread per cell; row reads broadcast, column reads walk the banks.
//   v3 course 64x64  64x64 tiles, 32x32 threads, 4 cells per thread: the usual course solution
//                    (lives in src/cuda/baseline_fw.cuh, where the bench uses it as baseline).
//   v4 reg 4x4       v3's pivot and panels; the rest-update with the A tile stored transposed
//                    so that each thread reads 4 a's and 4 b's with two 128-bit loads and keeps a
//                    4x4 block of C in registers (16 updates per 2 loads instead of 1 per 2).
//   v5 gemm 128      the tropical-GEMM form promoted to src/cuda (fw_kernels.cuh): B = 128,
//                    closure + pivot-column transpose, both panels as ONE min-plus product with
//                    P*, the rest (all tiles) as a 128x128x128 min-plus GEMM per block, 8x8 per
//                    thread, 4-stage cp.async pipeline, VIADDMNMX.
//   v5 graph         v5 with the round sequence captured into one CUDA graph.
//   v6 s16x2         v5's rounds on two int16 distances per 32-bit word (VIADDMNMX.S16x2: two
//                    updates per instruction, half the bytes), values capped at 2^14-1; kept only
//                    when no pair ends at the cap (then every distance is exact), else the int32
//                    rounds run again from the untouched int32 matrix (src/cuda/device_solver.cuh).
// Build: part of the CMake build when CUDA is on (target fw_lab); run `fw_lab --help`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/baseline_fw.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/fw_kernels.cuh"

namespace lab {

using apsp::cuda::relax;

// ---- v1: naive ---------------------------------------------------------------------------------
template <class T> __global__ void naive_step(T* d, std::int64_t ld, std::int64_t n, std::int64_t k) {
  const std::int64_t i = blockIdx.y * std::int64_t(blockDim.y) + threadIdx.y;
  const std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= n || j >= n) return;
  d[i * ld + j] = relax(d[i * ld + k], d[k * ld + j], d[i * ld + j]);
}
template <class T> void run_v1(T* d, std::int64_t n_pad, cudaStream_t s) {
  const dim3 threads(32, 8), blocks(unsigned(n_pad / 32), unsigned(n_pad / 8));
  for (std::int64_t k = 0; k < n_pad; ++k) {
    naive_step<T><<<blocks, threads, 0, s>>>(d, n_pad, n_pad, k);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}

// ---- v2: blocked 32x32 in shared memory --------------------------------------------------------
constexpr int kB2 = 32;
template <class T> __global__ void v2_pivot(T* d, std::int64_t ld, int t) {
  __shared__ T p[kB2][kB2];
  const int x = threadIdx.x, y = threadIdx.y;
  T* g = d + std::int64_t(t) * kB2 * ld + std::int64_t(t) * kB2;
  p[y][x] = g[y * ld + x];
  __syncthreads();
  for (int k = 0; k < kB2; ++k) {
    p[y][x] = relax(p[y][k], p[k][x], p[y][x]);
    __syncthreads();
  }
  g[y * ld + x] = p[y][x];
}
template <class T> __global__ void v2_panels(T* d, std::int64_t ld, int t) {
  if (int(blockIdx.x) == t) return;
  __shared__ T p[kB2][kB2], c[kB2][kB2];
  const int x = threadIdx.x, y = threadIdx.y;
  const bool row = blockIdx.y == 0;
  const std::int64_t I = row ? t : blockIdx.x, J = row ? blockIdx.x : t;
  const T* gp = d + std::int64_t(t) * kB2 * ld + std::int64_t(t) * kB2;
  T* gc = d + I * kB2 * ld + J * kB2;
  p[y][x] = gp[y * ld + x];
  c[y][x] = gc[y * ld + x];
  __syncthreads();
  for (int k = 0; k < kB2; ++k) {
    c[y][x] = row ? relax(p[y][k], c[k][x], c[y][x]) : relax(c[y][k], p[k][x], c[y][x]);
    __syncthreads();
  }
  gc[y * ld + x] = c[y][x];
}
template <class T> __global__ void v2_rest(T* d, std::int64_t ld, int t) {
  if (int(blockIdx.x) == t || int(blockIdx.y) == t) return;
  __shared__ T a[kB2][kB2], b[kB2][kB2];
  const int x = threadIdx.x, y = threadIdx.y;
  const std::int64_t I = blockIdx.y, J = blockIdx.x;
  a[y][x] = d[(I * kB2 + y) * ld + std::int64_t(t) * kB2 + x];
  b[y][x] = d[(std::int64_t(t) * kB2 + y) * ld + J * kB2 + x];
  T c = d[(I * kB2 + y) * ld + J * kB2 + x];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kB2; ++k) c = relax(a[y][k], b[k][x], c);
  d[(I * kB2 + y) * ld + J * kB2 + x] = c;
}
template <class T> void run_v2(T* d, std::int64_t n_pad, cudaStream_t s) {
  const int R = int(n_pad / kB2);
  const dim3 th(kB2, kB2);
  for (int t = 0; t < R; ++t) {
    v2_pivot<T><<<1, th, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
    v2_panels<T><<<dim3(R, 2), th, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
    v2_rest<T><<<dim3(R, R), th, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}

// ---- v3: the course solution (src/cuda/baseline_fw.cuh) ----------------------------------------
template <class T> void run_v3(T* d, std::int64_t n_pad, cudaStream_t s) {
  apsp::cuda::baseline::run_course_64(d, n_pad, s);
}

// ---- v4: 64x64 with a 4x4 register tile and 128-bit shared loads -------------------------------
constexpr int kB4 = 64, kPad4 = 4;  // rows of 68 elements: 16-byte aligned, fewer bank conflicts
template <class T> __global__ void __launch_bounds__(256) v4_rest(T* d, std::int64_t ld, int t) {
  if (int(blockIdx.x) == t || int(blockIdx.y) == t) return;
  using V4 = apsp::cuda::Vec4<T>;
  __shared__ __align__(16) T aT[kB4][kB4 + kPad4];  // aT[k][m] = A[m][k]
  __shared__ __align__(16) T b[kB4][kB4 + kPad4];   // b[k][n]
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const std::int64_t I0 = std::int64_t(blockIdx.y) * kB4, J0 = std::int64_t(blockIdx.x) * kB4,
                     t0 = std::int64_t(t) * kB4;
#pragma unroll
  for (int q = 0; q < 4; ++q) {  // 64 rows x 16 vectors per operand, 4 per thread
    const int idx = tid + q * 256, r = idx / 16, c4 = (idx % 16) * 4;
    const V4 va = *reinterpret_cast<const V4*>(d + (I0 + r) * ld + t0 + c4);
    aT[c4 + 0][r] = va.x; aT[c4 + 1][r] = va.y; aT[c4 + 2][r] = va.z; aT[c4 + 3][r] = va.w;
    *reinterpret_cast<V4*>(&b[r][c4]) = *reinterpret_cast<const V4*>(d + (t0 + r) * ld + J0 + c4);
  }
  T c[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const V4 v = *reinterpret_cast<const V4*>(d + (I0 + ty * 4 + i) * ld + J0 + tx * 4);
    c[i][0] = v.x; c[i][1] = v.y; c[i][2] = v.z; c[i][3] = v.w;
  }
  __syncthreads();
#pragma unroll 8
  for (int k = 0; k < kB4; ++k) {
    const V4 a4 = *reinterpret_cast<const V4*>(&aT[k][ty * 4]);
    const V4 b4 = *reinterpret_cast<const V4*>(&b[k][tx * 4]);
    const T a[4] = {a4.x, a4.y, a4.z, a4.w}, bb[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) c[i][j] = relax(a[i], bb[j], c[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    V4 v;
    v.x = c[i][0]; v.y = c[i][1]; v.z = c[i][2]; v.w = c[i][3];
    *reinterpret_cast<V4*>(d + (I0 + ty * 4 + i) * ld + J0 + tx * 4) = v;
  }
}
template <class T> void run_v4(T* d, std::int64_t n_pad, cudaStream_t s) {
  namespace bl = apsp::cuda::baseline;
  const int R = int(n_pad / kB4);
  const dim3 th(32, 32);
  for (int t = 0; t < R; ++t) {
    bl::pivot_64<T><<<1, th, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
    bl::panels_64<T><<<dim3(R, 2), th, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
    v4_rest<T><<<dim3(R, R), 256, 0, s>>>(d, n_pad, t);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}

}  // namespace lab
