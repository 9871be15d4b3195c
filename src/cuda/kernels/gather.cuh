// src/cuda/kernels/gather.cuh — device code of sparse orders (docs/sparse.md): the result leaves
// the GPU in the user's vertex order. The rounds ran on the matrix of the ordered graph (user
// vertex v at position new(v); padding positions are isolated); a stripe of user rows is gathered
// as out[u][v] = D[new(u)][new(v)] into a buffer that is then downloaded, next hops renamed back
// to user vertices (old(p)) on the way. Same expansions as the plain download (int16x2 words,
// int32 -> int64), so every rung's result leaves through here.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/int16x2.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

/// What gather_rows reads: values of S (as U, unreachable mapped), int16x2 words, or next hops.
enum class GatherFrom { Values, Packed, NextHops };

/// out[r][v] = D[new_of_old[u0 + r]][new_of_old[v]] for r < rows, v < n (out: rows x n).
template <class U, class S, GatherFrom F>
__global__ void gather_rows(const S* __restrict__ d, std::int64_t ld,
                            const int* __restrict__ new_of_old, const int* __restrict__ old_of_new,
                            std::int64_t u0, std::int64_t rows, std::int64_t n,
                            U* __restrict__ out) {
  const std::int64_t total = rows * n;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = x / n, v = x - r * n;
    const std::int64_t i = new_of_old[u0 + r], j = new_of_old[v];
    if constexpr (F == GatherFrom::Packed) {
      const unsigned w = reinterpret_cast<const unsigned*>(d)[i * ld + j / 2];
      const int val = (j & 1) ? hi16(w) : lo16(w);
      out[x] = val >= kInf16 ? detail::sentinel<U>() : U(val);
    } else if constexpr (F == GatherFrom::NextHops) {
      const int h = reinterpret_cast<const int*>(d)[i * ld + j];
      out[x] = U(h >= 0 ? old_of_new[h] : h);
    } else if constexpr (std::is_same_v<U, S>) {
      out[x] = d[i * ld + j];
    } else {
      const S val = d[i * ld + j];
      out[x] = detail::widen_value<U>(val);
    }
  }
}

}  // namespace
}  // namespace apsp::cuda
