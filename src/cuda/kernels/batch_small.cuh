// src/cuda/kernels/batch_small.cuh — the GPU batch engine's kernel (src/cuda/batch_small.cu,
// src/batch/gpu_engine.hpp): one thread block closes one small graph in shared memory.
//
// The block builds the graph's n x n matrix in shared memory (0 diagonal, unreachable elsewhere,
// the lightest arc per pair by a shared-memory atomic minimum), runs the n k-steps of plain
// Floyd-Warshall with a barrier between steps (row and column k do not change in step k, weights
// being >= 0), and writes the n x n result to its place in the flat output. Plain FW is what the
// cpu backend's pivot closure runs up to 64 vertices, so float sums round as solve()'s there.
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

// Builds graph b's n x n matrix in sD (shared) and closes it: sizes[b] vertices, local arcs
// src/dst with weights w (as T, >= 0). Returns n. Ends with a barrier.
template <class T>
__device__ int close_in_shared(T* sD, std::int64_t b, const std::int32_t* sizes,
                               const std::int64_t* arc_ptr, const std::int32_t* src,
                               const std::int32_t* dst, const T* w) {
  const int n = sizes[b];
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
  return n;
}

// Block b closes graph b and writes its n x n distances (row-major) at out + out_offset[b].
template <class T>
__global__ void close_small_graphs(const std::int32_t* sizes, const std::int64_t* arc_ptr,
                                   const std::int32_t* src, const std::int32_t* dst, const T* w,
                                   const std::int64_t* out_offset, T* out) {
  extern __shared__ unsigned char smem[];
  T* sD = reinterpret_cast<T*>(smem);  // (n, n)
  const std::int64_t b = blockIdx.x;
  const int n = close_in_shared(sD, b, sizes, arc_ptr, src, dst, w);
  T* gD = out + out_offset[b];
  for (int c = threadIdx.x; c < n * n; c += blockDim.x) gD[c] = sD[c];
}

// The range of an integer output type, as the host's exactness rule (batch/output.cpp) sees it.
template <class O>
struct OutRange;
template <>
struct OutRange<std::int8_t> {
  static constexpr long long lo = -128, hi = 127;
};
template <>
struct OutRange<std::int16_t> {
  static constexpr long long lo = -32768, hi = 32767;
};
template <>
struct OutRange<std::int32_t> {
  static constexpr long long lo = -2147483648LL, hi = 2147483647LL;
};
template <>
struct OutRange<std::int64_t> {
  static constexpr long long lo = (-9223372036854775807LL - 1), hi = 9223372036854775807LL;
};

// x as O when O holds it exactly (batch/output.cpp's convert(), without long double: a float
// fits an integer type when it is whole and in [lo, hi + 1); hi + 1 is a power of two).
template <class O, class T>
__device__ bool convert_exact(T x, O& out) {
  if constexpr (std::is_integral_v<O> && std::is_integral_v<T>) {
    if constexpr (sizeof(T) > sizeof(O)) {
      if (x < T(OutRange<O>::lo) || x > T(OutRange<O>::hi)) return false;
    }
    out = O(x);
    return true;
  } else if constexpr (std::is_integral_v<O>) {
    const double y = double(x);
    const double lo = double(OutRange<O>::lo), hi_plus_1 = -lo;
    if (!(y >= lo && y < hi_plus_1) || y != trunc(y)) return false;
    out = O(y);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    out = O(x);  // |x| < 2^62: converts back without overflow
    return T(out) == x;
  } else {
    out = O(x);
    return double(out) == double(x);
  }
}

/// What close_small_graphs_into writes besides distances (apsp::BatchOutput, converted).
template <class O>
struct SmallOut {
  O none, pad, clipped;      // unreachable, padding, max_dist: checked on the host
  bool clip;                 // max_dist given
  double max_dist;           // clip float distances above it
  long long max_dist_floor;  // clip integer distances above it (floor(max_dist), saturated)
  int n_max;                 // padded rows n_max apart (every cell written); 0: flat, rows n apart
};

// Block b closes graph b and writes it as apsp::write_distances would, as O, at
// out + out_offset[b] (padded: n_max x n_max, pad beyond n; flat: n x n). A distance O cannot
// hold exactly lowers *bad to b (the host reports it).
template <class T, class O>
__global__ void close_small_graphs_into(const std::int32_t* sizes, const std::int64_t* arc_ptr,
                                        const std::int32_t* src, const std::int32_t* dst,
                                        const T* w, const std::int64_t* out_offset, O* out,
                                        SmallOut<O> p, long long* bad) {
  extern __shared__ unsigned char smem[];
  T* sD = reinterpret_cast<T*>(smem);  // (n, n)
  const std::int64_t b = blockIdx.x;
  const int n = close_in_shared(sD, b, sizes, arc_ptr, src, dst, w);
  const int stride = p.n_max > 0 ? p.n_max : n;
  O* gD = out + out_offset[b];
  bool exact = true;
  for (int c = threadIdx.x; c < stride * stride; c += blockDim.x) {
    const int i = c / stride, j = c % stride;
    O v = p.pad;
    if (i < n && j < n) {
      const T x = sD[i * n + j];
      if (x == unreachable_value<T>())
        v = p.none;
      else if (p.clip &&
               (std::is_integral_v<T> ? (long long)(x) > p.max_dist_floor : double(x) > p.max_dist))
        v = p.clipped;
      else if (!convert_exact(x, v))
        exact = false;
    }
    gD[c] = v;
  }
  if (!exact) gpu::atomic_min_s64(bad, (long long)(b));
}

}  // namespace
}  // namespace apsp::cuda
