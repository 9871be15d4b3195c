// src/cuda/kernels/listed.cuh — device code of the sparse rounds (docs/sparse.md): the pivot
// closure and the min-plus GEMM of distances.cuh over the tiles a TilePlan lists for the round
// (one launch each; blockIdx picks the listed tile), with the dense kernels' per-tile bodies
// (closure_block, gemm_tile), so a listed tile costs what a dense one does.
#pragma once

#include "cuda/kernels/distances.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

/// Sparse rounds (a TilePlan, docs/sparse.md): block 0 closes the pivot, block b > 0 transposes
/// tile rows[b - 1] of the pivot column (the round's active rows only).
template <class T>
__global__ void __launch_bounds__(kClosureThreads)
    closure_and_transpose_listed(RoundArgs<T> r, const int* rows) {
  closure_block(r, blockIdx.x == 0 ? 0u : 1u + unsigned(rows[blockIdx.x - 1]));
}

/// Sparse rounds (a TilePlan, docs/sparse.md): the tiles of one round, by index, in device
/// memory. rows: the active tile rows and t; cols: the active tile columns and t (for int16x2
/// words: the 256-column word tiles that hold them). Increasing.
struct TileLists {
  const int* rows;
  const int* cols;
  int nrows, ncols;
};

/// minplus_gemm_128x128 over listed tiles only. Rest: grid (ncols, nrows), C tile (rows[y],
/// cols[x]). Panels: grid (max(nrows, ncols), 2), y = 0 the row panel at cols[x], y = 1 the
/// column panel at rows[x]; RowPanel: grid (ncols, 1); ColPanelRep: grid (nrows, 1). Blocks past
/// their list's end return at once.
template <class T, GemmMode M>
__global__ void APSP_LAUNCH_BOUNDS(gemm_threads<T>(), gemm_min_blocks<T>())
    minplus_gemm_listed(RoundArgs<T> r, TileLists l) {
  if constexpr (M == GemmMode::Rest) {
    gemm_tile<T, M>(r, unsigned(l.cols[blockIdx.x]), unsigned(l.rows[blockIdx.y]));
  } else {
    const bool row = M == GemmMode::RowPanel || (M == GemmMode::Panels && blockIdx.y == 0);
    if (int(blockIdx.x) >= (row ? l.ncols : l.nrows)) return;
    gemm_tile<T, M>(r, unsigned((row ? l.cols : l.rows)[blockIdx.x]), blockIdx.y);
  }
}

}  // namespace
}  // namespace apsp::cuda
