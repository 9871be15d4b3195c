// src/cuda/ceiling.cuh — the min-plus ceiling of this GPU, measured in the same run as the kernels.
//
// Every thread keeps an 8x8 block of accumulators (4x8 for 8-byte types, which have no room for
// 64 in registers) and two 8-vectors in registers and applies c = min(c, a + b), 4 times per pass
// over its rows, with no memory traffic at all: the rate is what the ALUs give (int32: one
// VIADDMNMX per update on sm_90; float32: FADD + FMNMX). The operands drift by a run-time step
// after every 64 updates so the compiler can neither fold nor reuse sums (8 extra adds per 64
// updates: the float figure is about 6% conservative). The result is the denominator of every
// "% of ceiling" this project prints.
#pragma once

#include "gpu/runtime.hpp"

#include <algorithm>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/fw_kernels.cuh"

// Internal linkage, as in cuda/kernels/distances.cuh.
namespace apsp::cuda {
namespace {

/// TM rows of accumulators per thread: 8 for 4-byte types; 4 for 8-byte ones (an 8x8 block of
/// 8-byte values needs more than the 255 registers a thread has, and would measure spills).
template <class T>
__host__ __device__ constexpr int ceiling_rows() {
  return sizeof(T) == 4 ? 8 : 4;
}

/// Op = 0: relax(); 1: relax_fmin() (float64 only: the other way to write the min, measured too so
/// that the ceiling is the better of the two).
template <class T, int Op = 0>
__global__ void __launch_bounds__(256) minplus_ceiling_kernel(T* out, int passes, T step) {
  constexpr int TM = ceiling_rows<T>();
  T a[8], b[8], c[TM][8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    a[i] = T((threadIdx.x * 5 + i * 11) & 511);
    b[i] = T((blockIdx.x * 3 + i * 7) & 511);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) c[i][j] = T(1 << 24);
  for (int p = 0; p < passes; ++p) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          // TM = 4: two steps (a[0..3], then a[4..7]) use 64 distinct pairs between drifts.
          const int x = TM == 8 ? (i + r) & 7 : (i + 4 * (r & 1) + (r >> 1)) & 7;
          if constexpr (Op == 1)
            c[i][j] = relax_fmin(a[x], b[j], c[i][j]);
          else
            c[i][j] = relax(a[x], b[j], c[i][j]);
        }
      // New b after every 64 updates, else the 64 distinct sums a[x] + b[j] could be computed
      // once and reused (nvcc does that for floats), measuring only the min.
      if (TM == 8 || (r & 1)) {
#pragma unroll
        for (int j = 0; j < 8; ++j) b[j] += step;
      }
    }
  }
  T s = T(0);
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) s = s < c[i][j] ? c[i][j] : s;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// Median over `trials` of the ceiling in updates per second (T = int, float, long or double;
/// Op as minplus_ceiling_kernel).
template <class T, int Op = 0>
double measure_minplus_ceiling(int trials = 5) {
  int dev = 0, sms = 0;
  APSP_CUDA_TRY(gpuGetDevice(&dev));
  APSP_CUDA_TRY(gpuDeviceGetAttribute(&sms, gpuDevAttrMultiProcessorCount, dev));
  const int blocks = sms * 8, threads = 256, passes = 2048;
  T* out = nullptr;
  APSP_CUDA_TRY(gpuMalloc(&out, sizeof(T) * blocks * threads));
  gpuEvent_t e0, e1;
  APSP_CUDA_TRY(gpuEventCreate(&e0));
  APSP_CUDA_TRY(gpuEventCreate(&e1));
  std::vector<float> ms;
  for (int r = 0; r < trials + 1; ++r) {  // the first is a warm-up
    APSP_CUDA_TRY(gpuEventRecord(e0));
    minplus_ceiling_kernel<T, Op><<<blocks, threads>>>(out, passes, T(1));
    APSP_CUDA_CHECK_LAUNCH(gpuStreamLegacy);
    APSP_CUDA_TRY(gpuEventRecord(e1));
    APSP_CUDA_TRY(gpuEventSynchronize(e1));
    float m = 0;
    APSP_CUDA_TRY(gpuEventElapsedTime(&m, e0, e1));
    if (r) ms.push_back(m);
  }
  gpuEventDestroy(e0);
  gpuEventDestroy(e1);
  gpuFree(out);
  std::sort(ms.begin(), ms.end());
  const double updates = double(blocks) * threads * passes * 4 * 8 * ceiling_rows<T>();
  return updates / (double(ms[ms.size() / 2]) * 1e-3);
}

}  // namespace
}  // namespace apsp::cuda
