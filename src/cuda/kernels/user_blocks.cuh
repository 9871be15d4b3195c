// src/cuda/kernels/user_blocks.cuh — device code of the multi-gpu user-order gather
// (src/multigpu/user_order.cuh, dist/user_order.hpp): each GPU gathers its block of a stripe of
// user rows (its user rows x its user columns, next hops renamed to user vertices), and GPU 0
// scatters every block into the stripe in the user's order. Launched by launch.cuh.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/distances.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

/// out[k][j] = src[rows[k]][cols[j]] (ld elements a source row), for k < nrows, j < ncols; with
/// `rename`, an entry x >= 0 (a next hop: an ordered position) becomes rename[x].
template <class U>
__global__ void gather_user_block(const U* __restrict__ src, std::int64_t ld,
                                  const int* __restrict__ rows, std::int64_t nrows,
                                  const int* __restrict__ cols, std::int64_t ncols,
                                  const int* __restrict__ rename, U* __restrict__ out) {
  for (std::int64_t k = blockIdx.y; k < nrows; k += gridDim.y) {
    const U* row = src + std::int64_t(rows[k]) * ld;
    U* dst = out + k * ncols;
    for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < ncols;
         j += std::int64_t(gridDim.x) * blockDim.x) {
      U x = row[cols[j]];
      if constexpr (std::is_integral_v<U>)
        if (rename && x >= 0) x = U(rename[x]);
      dst[j] = x;
    }
  }
}

/// out[rows[k] - u0][cols[j]] = convert(block[k][j]) (out: n entries a row): one worker's block of
/// a stripe of user rows [u0, ...) scattered into the stripe in the user's order, where rows are
/// the block's user rows and cols its user columns; U -> R maps the unreachable value (a checked
/// int32 rung's int64 result), else copies.
template <class U, class R>
__global__ void scatter_user_block(const U* __restrict__ block, std::int64_t nrows,
                                   const int* __restrict__ rows, std::int64_t u0,
                                   const int* __restrict__ cols, std::int64_t ncols,
                                   R* __restrict__ out, std::int64_t n) {
  for (std::int64_t k = blockIdx.y; k < nrows; k += gridDim.y) {
    const U* src = block + k * ncols;
    R* dst = out + (std::int64_t(rows[k]) - u0) * n;
    for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < ncols;
         j += std::int64_t(gridDim.x) * blockDim.x) {
      const U x = src[j];
      if constexpr (std::is_same_v<U, R>)
        dst[cols[j]] = x;
      else
        dst[cols[j]] = detail::widen_value<R>(x);
    }
  }
}

}  // namespace
}  // namespace apsp::cuda
