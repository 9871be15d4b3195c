// src/cuda/kernels/batch_small.cuh — the GPU batch engine's kernel (issue 35; not wired yet,
// src/cuda/batch_small.cuh): one thread block closes one small graph in shared memory.
#pragma once

#include "gpu/runtime.hpp"

#include "gpu/intrinsics.cuh"

#include <cstdint>
#include <type_traits>

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

inline constexpr int kSmallGraphThreads = 256;

// Shared-memory min for values >= 0 (non-negative floats order like their bit patterns).
__device__ inline void atomic_min_shared(std::int32_t* p, std::int32_t x) { atomicMin(p, x); }
__device__ inline void atomic_min_shared(std::int64_t* p, std::int64_t x) {
  gpu::atomic_min_s64(reinterpret_cast<long long*>(p), static_cast<long long>(x));
}
__device__ inline void atomic_min_shared(float* p, float x) {
  atomicMin(reinterpret_cast<int*>(p), __float_as_int(x));
}
__device__ inline void atomic_min_shared(double* p, double x) {
  gpu::atomic_min_s64(reinterpret_cast<long long*>(p), __double_as_longlong(x));
}

template <class T>
__device__ T unreachable_value() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return (std::int32_t{1} << 30) - 1;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return (std::int64_t{1} << 62) - 1;
  else
    return T(1) / T(0);  // +inf
}

// Block b closes graph b: local arcs src/dst (ids within the graph), weights w (as T, >= 0).
template <class T>
__global__ void close_small_graphs(const std::int64_t* node_ptr, const std::int64_t* arc_ptr,
                                   const std::int32_t* src, const std::int32_t* dst, const T* w,
                                   const std::int64_t* out_offsets, T* out, int cap) {
  extern __shared__ unsigned char smem[];
  T* sD = reinterpret_cast<T*>(smem);  // (n, n)
  const std::int64_t b = blockIdx.x;
  const int n = int(node_ptr[b + 1] - node_ptr[b]);
  if (n == 0 || n > cap) return;
  const int cells = n * n;
  for (int c = threadIdx.x; c < cells; c += blockDim.x)
    sD[c] = c / n == c % n ? T(0) : unreachable_value<T>();
  __syncthreads();
  for (std::int64_t e = arc_ptr[b] + threadIdx.x; e < arc_ptr[b + 1]; e += blockDim.x)
    atomic_min_shared(&sD[src[e] * n + dst[e]], w[e]);
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    for (int c = threadIdx.x; c < cells; c += blockDim.x) {
      const T s = sD[(c / n) * n + k] + sD[k * n + c % n];
      if (s < sD[c]) sD[c] = s;
    }
    __syncthreads();
  }
  T* gD = out + out_offsets[b];
  for (int c = threadIdx.x; c < cells; c += blockDim.x) gD[c] = sD[c];
}

}  // namespace
}  // namespace apsp::cuda
