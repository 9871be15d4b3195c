// src/cuda/kernels/paths_listed.cuh — device code of the listed (sparse) next-hop rounds of the
// multi-gpu backend and the mpi GPU ranks (a TilePlan, docs/sparse.md): the min-plus GEMM with
// next hops of paths.cuh over the 128 x 128 C tiles a round lists, one launch for a rectangle of
// listed tile rows x listed tile columns; blockIdx picks the listed tile (as listed.cuh does for
// the distance GEMM) and the per-block body is the dense kernel's (paths_block), so a listed
// tile's values, next hops and hop counts are exactly what minplus_paths gives it.
#pragma once

#include "cuda/kernels/listed.cuh"
#include "cuda/kernels/paths.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

static_assert(kTile == 2 * 64, "a tile is 2 x 2 blocks of paths_block's 64 x 64 outputs");

/// minplus_paths over listed tiles only: C tile (I, J) = min(C, A (x) B) for I in l.rows, J in
/// l.cols (tile indices, increasing, in device memory), where tile I is rows [128 I, 128 I + 128)
/// of A and C and tile J columns [128 J, 128 J + 128) of B and C. A null list stands for the one
/// tile 0 (count 1): a panel, whose fixed tile the caller's pointers already point at. Grid
/// (2 ncols, 2 nrows), 256 threads: block (x, y) the 64 x 64 outputs (y % 2, x % 2) of C tile
/// (rows[y / 2], cols[x / 2]). The dense kernel's launch bounds; ptxas (CUDA 13, sm_90a): 97
/// registers without hop counts (dense: 80, so 2 blocks an SM instead of 3; (256, 3) would give 80
/// with an 8-byte spill: to be measured on a GPU), 127 with them (dense 128); no spills.
template <class T, bool kHops>
__global__ void __launch_bounds__(256)
    minplus_paths_listed(const T* __restrict__ A, const int* __restrict__ An,
                         const int* __restrict__ Ah, i64 lda, const T* __restrict__ B,
                         const int* __restrict__ Bh, i64 ldb, T* C, int* Cn, int* Ch, i64 ldc,
                         TileLists l) {
  paths_block<T, kHops>(A, An, Ah, lda, B, Bh, ldb, C, Cn, Ch, ldc, [&l](bool row) {
    const int* list = row ? l.rows : l.cols;
    const unsigned b = row ? blockIdx.y : blockIdx.x;
    return (list ? i64(list[b / 2]) : 0) * kTile + i64(b % 2) * 64;
  });
}

}  // namespace
}  // namespace apsp::cuda
