// src/cuda/kernels/listed.cuh — device code of the sparse rounds (docs/sparse.md): the pivot
// closure and the min-plus GEMM of distances.cuh over the tiles a TilePlan lists for the round
// (one launch each; blockIdx picks the listed tile), with the dense kernels' per-tile bodies
// (closure_block, gemm_tile), so a listed tile costs what a dense one does.
#pragma once

#include "cuda/kernels/distances.cuh"
#include "cuda/kernels/int16x2.cuh"
#include "order/batches.hpp"

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

/// Elimination-tree batches (order/batches.hpp): several rounds a launch, each with its own
/// panels in the scratch (tile columns of the (B, ldp) / (B, ldc) buffers) and its own P* slot.
template <class T>
struct BatchArgs {
  T* d;
  std::int64_t ld;
  T* rowp;  // (B, ldp): the rounds' row panels
  std::int64_t ldp;
  T* colT;  // (B, ldc): their column panels, transposed
  T* csT;   // (B, ldc): their pivot columns before the panel GEMM, transposed
  std::int64_t ldc;
  T* pS;  // (slots, B, B): P*
  T* pT;  // (slots, B, B): P*^T
  const detail::BatchRound* rounds;
  const int4* tasks;    // this launch's tasks (batches.hpp)
  const int4* contrib;  // the rest tasks' contributions
};

/// Round r of a batch as the dense kernels' RoundArgs, for a block whose column-panel tile is
/// tile row I at position p of the round's rows and whose row-panel tile is tile column J at
/// position q: the dense bodies address panel tile X at column X * kTile, so each panel base is
/// shifted by (its position in the scratch - X) tiles.
template <class T>
__device__ __forceinline__ RoundArgs<T> batch_round_args(const BatchArgs<T>& b, int r, int I,
                                                         int p, int J, int q) {
  const detail::BatchRound br = b.rounds[r];
  const std::int64_t rs = (br.row_at + p - I) * kTile, cs = (br.col_at + q - J) * kTile;
  const std::int64_t slot = std::int64_t(br.slot) * kTile * kTile;
  return RoundArgs<T>{b.d,       b.ld,      b.rowp + cs,  b.ldp,       b.colT + rs,
                      b.csT + rs, b.ldc,    b.pS + slot, b.pT + slot, br.t};
}

/// A batch's pivots and pivot-column transposes: task {round, X, position}; X = -1: close the
/// round's pivot (position: the pivot's among its rows), else transpose tile X.
template <class T>
__global__ void __launch_bounds__(kClosureThreads) closure_and_transpose_batched(BatchArgs<T> b) {
  const int4 k = b.tasks[blockIdx.x];
  const int X = k.y < 0 ? b.rounds[k.x].t : k.y;
  closure_block(batch_round_args(b, k.x, X, k.z, 0, 0), k.y < 0 ? 0u : 1u + unsigned(X));
}

/// int16x2 batches (word columns): the pivots closed on the packed matrix d16 (ld16 words a
/// row) and the pivot columns transposed into csT (int32), as closure_and_transpose_s16; P*^T
/// goes to pT16 (replicated words), slot by slot like b.pT. Tasks as closure_and_transpose_batched.
__global__ void __launch_bounds__(kClosureThreads)
    closure_and_transpose_s16_batched(BatchArgs<int> b, unsigned* d16, std::int64_t ld16,
                                      unsigned* pT16) {
  const int4 k = b.tasks[blockIdx.x];
  const detail::BatchRound br = b.rounds[k.x];
  const int X = k.y < 0 ? br.t : k.y;
  const std::int64_t rs = (br.row_at + k.z - X) * kTile;
  const std::int64_t slot = std::int64_t(br.slot) * kTile * kTile;
  const RoundArgsS16 a{d16, ld16, b.csT + rs, b.ldc, b.pS + slot, pT16 + slot, br.t};
  closure_block_s16(a, k.y < 0 ? 0u : 1u + unsigned(X));
}

/// A batch's panels (M = Panels: task {round, 0, J, position}: the row panel at tile column J;
/// {round, 1, I, position}: the column panel at tile row I; M = RowPanel / ColPanelRep: the
/// int16x2 rounds' row panels over word tiles / column panels in int32, replicated) or rest
/// (M = Rest: task {I, J, first, count}: tile (I, J) lowered by each contribution {round, p, q}
/// in turn; the blocks of a launch write distinct tiles).
template <class T, GemmMode M>
__global__ void APSP_LAUNCH_BOUNDS(gemm_threads<T>(), gemm_min_blocks<T>())
    minplus_gemm_batched(BatchArgs<T> b) {
  const int4 k = b.tasks[blockIdx.x];
  if constexpr (M != GemmMode::Rest) {
    const bool row = M == GemmMode::RowPanel || (M == GemmMode::Panels && k.y == 0);
    gemm_tile<T, M>(row ? batch_round_args(b, k.x, 0, 0, k.z, k.w)
                        : batch_round_args(b, k.x, k.z, k.w, 0, 0),
                    unsigned(k.z), row ? 0u : 1u);
  } else {
    static_assert(M == GemmMode::Rest, "batched GEMMs: Panels or Rest");
#pragma unroll 1
    for (int c = 0; c < k.w; ++c) {
      if (c > 0) __syncthreads();  // the previous product's last stage is read by all threads
      const int4 e = b.contrib[k.z + c];
      gemm_tile<T, M>(batch_round_args(b, e.x, k.x, e.y, k.y, e.z), unsigned(k.y), unsigned(k.x));
    }
  }
}

}  // namespace
}  // namespace apsp::cuda
