// src/cuda/kernels/build.cuh — device code that builds the distance matrix from an edge list: a
// matrix of 0 (diagonal) / unreachable, then every edge scattered with an atomic minimum
// (duplicates keep the smallest weight, self loops with w >= 0 ignored). Two layouts: the cuda
// backend's whole padded matrix, and one worker's local tiles of the 2D block-cyclic grid
// (src/dist/block_cyclic.hpp) for multi-gpu and the mpi GPU ranks.
#pragma once

#include "gpu/intrinsics.cuh"

#include <cstdint>

#include "cuda/kernels/distances.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

using i64 = std::int64_t;

// ---- matrix build -------------------------------------------------------------------------------

/// d[i][j] = 0 on the diagonal, unreachable elsewhere, over the whole n_pad x n_pad matrix.
template <class T>
__global__ void init_matrix(T* __restrict__ d, std::int64_t n_pad) {
  const std::int64_t total = n_pad * n_pad;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    d[x] = i == j ? T(0) : detail::sentinel<T>();
  }
}

__device__ __forceinline__ void atomic_min_value(int* p, int w) { atomicMin(p, w); }
// Floats: for w >= +0 the int ordering of the bits is the float ordering; for w < 0 the unsigned
// ordering is reversed. Mixing the two is still a correct minimum (the usual sign trick).
__device__ __forceinline__ void atomic_min_value(float* p, float w) {
  if (w == 0.0f) w = 0.0f;  // -0 -> +0
  if (__float_as_int(w) >= 0)
    atomicMin(reinterpret_cast<int*>(p), __float_as_int(w));
  else
    atomicMax(reinterpret_cast<unsigned*>(p), __float_as_uint(w));
}

__device__ __forceinline__ void atomic_min_value(long* p, long w) {
  gpu::atomic_min_s64(reinterpret_cast<long long*>(p), static_cast<long long>(w));
}
__device__ __forceinline__ void atomic_min_value(double* p, double w) {
  if (w == 0.0) w = 0.0;  // -0 -> +0
  const long long bits = __double_as_longlong(w);
  if (bits >= 0)
    gpu::atomic_min_s64(reinterpret_cast<long long*>(p), bits);
  else
    atomicMax(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(bits));
}

/// Scatters E edges into d: duplicates keep the minimum, self loops with w >= 0 are ignored.
template <class T>
__global__ void scatter_edges(T* __restrict__ d, std::int64_t ld,
                              const std::int32_t* __restrict__ src,
                              const std::int32_t* __restrict__ dst, const double* __restrict__ w,
                              std::int64_t E, bool undirected) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < E;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t u = src[e], v = dst[e];
    T x;
    if constexpr (std::is_same_v<T, int>)
      x = __double2int_rn(w[e]);
    else if constexpr (std::is_same_v<T, long>)
      x = __double2ll_rn(w[e]);
    else
      x = T(w[e]);
    if (u == v && !(x < T(0))) continue;
    atomic_min_value(d + u * ld + v, x);
    if (undirected && u != v) atomic_min_value(d + v * ld + u, x);
  }
}

// ---- one worker of the block-cyclic grid (tile kTile) ----

/// Global vertex of local row (or column) x of worker q of p, tile B.
__device__ __forceinline__ i64 global_index(i64 x, int p, int q) {
  return ((x / kTile) * p + q) * kTile + x % kTile;
}

/// Local matrix (rows x ld) = 0 where the global row equals the global column, unreachable
/// elsewhere.
template <class T>
__global__ void init_local(T* __restrict__ d, i64 ld, i64 rows, int Pr, int pr, int Pc, int pc) {
  const i64 total = rows * ld;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total;
       x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld, c = x - r * ld;
    d[x] = global_index(r, Pr, pr) == global_index(c, Pc, pc) ? T(0) : detail::sentinel<T>();
  }
}

/// The edges this worker owns, min over duplicates; self loops with w >= 0 ignored.
template <class T>
__global__ void scatter_local(T* __restrict__ d, i64 ld, const std::int32_t* __restrict__ src,
                              const std::int32_t* __restrict__ dst, const double* __restrict__ w,
                              i64 E, bool undirected, int Pr, int pr, int Pc, int pc) {
  auto place = [&](i64 u, i64 v, T x) {
    const i64 I = u / kTile, J = v / kTile;
    if (I % Pr != pr || J % Pc != pc) return;
    atomic_min_value(d + ((I / Pr) * kTile + u % kTile) * ld + (J / Pc) * kTile + v % kTile, x);
  };
  for (i64 e = blockIdx.x * i64(blockDim.x) + threadIdx.x; e < E;
       e += i64(gridDim.x) * blockDim.x) {
    const i64 u = src[e], v = dst[e];
    T x;
    if constexpr (std::is_same_v<T, int>)
      x = __double2int_rn(w[e]);
    else if constexpr (std::is_same_v<T, long>)
      x = __double2ll_rn(w[e]);
    else
      x = T(w[e]);
    if (u == v && !(x < T(0))) continue;
    place(u, v, x);
    if (undirected && u != v) place(v, u, x);
  }
}
}  // namespace
}  // namespace apsp::cuda
