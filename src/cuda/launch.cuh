// src/cuda/launch.cuh — the one launch layer of every GPU backend (cuda, multi-gpu, mpi GPU ranks):
// each kernel of src/cuda/kernels/ is launched here and only here, with its grid, block and
// dynamic shared memory, and checked (APSP_CUDA_CHECK_LAUNCH). Callers say what to compute (how
// many 128 x 128 tiles, how many rows, which stream), never how to launch it. Grid-stride
// kernels run a fixed grid (kGridSmall / kGridLarge blocks of 256 threads).
// Reference: CUB's dispatch layer (dispatch_*.cuh: tuning chosen in one place).
#pragma once

#include "gpu/runtime.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "apsp/errors.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/kernels/build.cuh"
#include "cuda/kernels/distances.cuh"
#include "cuda/kernels/gather.cuh"
#include "cuda/kernels/int16x2.cuh"
#include "cuda/kernels/listed.cuh"
#include "cuda/kernels/paths.cuh"
#include "cuda/kernels/paths_listed.cuh"
#include "cuda/kernels/sparse_rows.cuh"
#include "cuda/kernels/batch_small.cuh"

// Internal linkage, as the kernels: attributes are set and kernels launched in the same file.
namespace apsp::cuda {
namespace {

inline constexpr int kElemThreads = 256;  // threads of the grid-stride (element-wise) kernels
inline constexpr int kGridSmall = 1024;   // their blocks
inline constexpr int kGridLarge = 2048;

/// Blocks of an edge scatter over m edges: one thread an edge, at most 4096 blocks.
inline int edge_blocks(std::int64_t m) {
  return int(std::min<std::int64_t>((m + kElemThreads - 1) / kElemThreads, 4096));
}

// ---- attributes (per device: call with the device current) ----

/// The distance rounds' kernels for T: closure and the Panels / Rest GEMMs.
template <class T>
void set_round_attributes() {
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_128x128<T, GemmMode::Panels>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_128x128<T, GemmMode::Rest>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose<T>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(closure_smem_bytes<T>())));
}
/// The int16x2 rounds' kernels.
inline void set_s16_attributes() {
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_128x128<int, GemmMode::ColPanelRep>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<int>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_128x128<unsigned, GemmMode::RowPanel>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<unsigned>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_128x128<unsigned, GemmMode::Rest>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<unsigned>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose_s16,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(closure_smem_bytes<int>())));
}

/// The sparse rounds' kernels (a TilePlan: listed tiles) for T, and the int16x2 ones for int32.
template <class T>
void set_listed_attributes() {
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<T, GemmMode::Panels>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<T, GemmMode::Rest>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose_listed<T>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(closure_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_batched<T, GemmMode::Panels>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_batched<T, GemmMode::Rest>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
  APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose_batched<T>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(closure_smem_bytes<T>())));
  if constexpr (std::is_same_v<T, int>) {
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<int, GemmMode::ColPanelRep>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<int>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<unsigned, GemmMode::RowPanel>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<unsigned>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<unsigned, GemmMode::Rest>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<unsigned>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose_s16_listed,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(closure_smem_bytes<int>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_batched<int, GemmMode::ColPanelRep>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<int>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_batched<unsigned, GemmMode::RowPanel>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<unsigned>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_batched<unsigned, GemmMode::Rest>,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(gemm_smem_bytes<unsigned>())));
    APSP_CUDA_TRY(gpuFuncSetAttribute(closure_and_transpose_s16_batched,
                                      gpuFuncAttributeMaxDynamicSharedMemorySize,
                                      int(closure_smem_bytes<int>())));
  }
}

/// The multi-gpu grid's listed rounds (src/multigpu/): set_listed_attributes<T>, and the row-form
/// panel GEMM over listed tiles in T (the grid's row panels, and its column panels, which run in
/// that form on the transposed strip).
template <class T>
void set_grid_listed_attributes() {
  set_listed_attributes<T>();
  APSP_CUDA_TRY(gpuFuncSetAttribute(minplus_gemm_listed<T, GemmMode::RowPanel>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize,
                                    int(gemm_smem_bytes<T>())));
}

/// The cuda backend's: the rounds of T (and the int16x2 rounds for int32), dense and listed,
/// once per process.
template <class T>
void set_attributes_once() {
  static const bool done = [] {
    set_round_attributes<T>();
    set_listed_attributes<T>();
    if constexpr (std::is_same_v<T, int>) set_s16_attributes();
    return true;
  }();
  (void)done;
}

// ---- the rounds ----

/// closure_and_transpose: block 0 closes the pivot; `blocks` - 1 more transpose the pivot column.
template <class T>
void launch_closure(const RoundArgs<T>& a, std::int64_t blocks, gpuStream_t s) {
  closure_and_transpose<T><<<unsigned(blocks), kClosureThreads, closure_smem_bytes<T>(), s>>>(a);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_closure_s16(const RoundArgsS16& a, std::int64_t blocks, gpuStream_t s) {
  closure_and_transpose_s16<<<unsigned(blocks), kClosureThreads, closure_smem_bytes<int>(), s>>>(a);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// The min-plus GEMM in mode M over a grid of tiles_x x tiles_y 128 x 128 C tiles (x: columns
/// of C, y: rows or, for Panels, 1 = row panel only / 2 = both panels).
template <class T, GemmMode M>
void launch_gemm(const RoundArgs<T>& a, std::int64_t tiles_x, std::int64_t tiles_y, gpuStream_t s) {
  const dim3 grid{unsigned(tiles_x), unsigned(tiles_y)};
  minplus_gemm_128x128<T, M><<<grid, gemm_threads<T>(), gemm_smem_bytes<T>(), s>>>(a);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// Sparse rounds (a TilePlan): closure_and_transpose with the pivot column's transposes for the
/// nrows tiles of `rows` (device memory) only.
template <class T>
void launch_closure_listed(const RoundArgs<T>& a, const int* rows, std::int64_t nrows,
                           gpuStream_t s) {
  closure_and_transpose_listed<T>
      <<<unsigned(1 + nrows), kClosureThreads, closure_smem_bytes<T>(), s>>>(a, rows);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_closure_s16_listed(const RoundArgsS16& a, const int* rows, std::int64_t nrows,
                                      gpuStream_t s) {
  closure_and_transpose_s16_listed<<<unsigned(1 + nrows), kClosureThreads,
                                     closure_smem_bytes<int>(), s>>>(a, rows);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// The min-plus GEMM in mode M over the listed tiles (minplus_gemm_listed gives the grids).
template <class T, GemmMode M>
void launch_gemm_listed(const RoundArgs<T>& a, const TileLists& l, gpuStream_t s) {
  APSP_EXPECTS(l.nrows > 0 && l.ncols > 0 && l.nrows <= 65535, "listed GEMM: bad tile lists");
  dim3 grid;
  if constexpr (M == GemmMode::Rest)
    grid = dim3(unsigned(l.ncols), unsigned(l.nrows));
  else if constexpr (M == GemmMode::Panels)
    grid = dim3(unsigned(std::max(l.nrows, l.ncols)), 2);
  else if constexpr (M == GemmMode::RowPanel)
    grid = dim3(unsigned(l.ncols), 1);
  else
    grid = dim3(unsigned(l.nrows), 1);
  minplus_gemm_listed<T, M><<<grid, gemm_threads<T>(), gemm_smem_bytes<T>(), s>>>(a, l);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// Elimination-tree batches (order/batches.hpp): one block a task; a.tasks this launch's.
template <class T>
void launch_closure_batched(const BatchArgs<T>& a, std::int64_t tasks, gpuStream_t s) {
  APSP_EXPECTS(tasks > 0 && tasks < (std::int64_t(1) << 31), "batched closure: bad task count");
  closure_and_transpose_batched<T>
      <<<unsigned(tasks), kClosureThreads, closure_smem_bytes<T>(), s>>>(a);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_closure_s16_batched(const BatchArgs<int>& a, unsigned* d16, std::int64_t ld16,
                                       unsigned* pT16, std::int64_t tasks, gpuStream_t s) {
  APSP_EXPECTS(tasks > 0 && tasks < (std::int64_t(1) << 31), "batched closure: bad task count");
  closure_and_transpose_s16_batched<<<unsigned(tasks), kClosureThreads, closure_smem_bytes<int>(),
                                      s>>>(a, d16, ld16, pT16);
  APSP_CUDA_CHECK_LAUNCH(s);
}
template <class T, GemmMode M>
void launch_gemm_batched(const BatchArgs<T>& a, std::int64_t tasks, gpuStream_t s) {
  APSP_EXPECTS(tasks > 0 && tasks < (std::int64_t(1) << 31), "batched GEMM: bad task count");
  minplus_gemm_batched<T, M><<<unsigned(tasks), gemm_threads<T>(), gemm_smem_bytes<T>(), s>>>(a);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// out (rows x n) = user rows [u0, u0 + rows) of the ordered matrix d (ld), columns in the user's
/// order (gather_rows).
template <class U, class S, GatherFrom F>
void launch_gather_rows(const S* d, std::int64_t ld, const int* new_of_old, const int* old_of_new,
                        std::int64_t u0, std::int64_t rows, std::int64_t n, U* out, gpuStream_t s) {
  gather_rows<U, S, F>
      <<<kGridLarge, kElemThreads, 0, s>>>(d, ld, new_of_old, old_of_new, u0, rows, n, out);
  APSP_CUDA_CHECK_LAUNCH(s);
}

/// out[k][r] = d[r][k], k < kTile, r < rows (a multiple of 32): a column strip, k-major.
template <class T>
void launch_transpose_strip(const T* d, i64 ld, i64 rows, T* out, i64 ldo, gpuStream_t s) {
  transpose_strip<T><<<dim3(kTile / 32, unsigned(rows / 32)), dim3(32, 8), 0, s>>>(d, ld, out, ldo);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_transpose_strip_s16(const unsigned* d16, i64 ld16, i64 rows, i64 w0, int* out,
                                       i64 ldo, gpuStream_t s) {
  transpose_strip_s16<<<dim3(kTile / 32, unsigned(rows / 32)), dim3(32, 8), 0, s>>>(d16, ld16, w0,
                                                                                    out, ldo);
  APSP_CUDA_CHECK_LAUNCH(s);
}

// ---- building the matrix ----

template <class T>
void launch_init_matrix(T* d, std::int64_t n_pad, gpuStream_t s) {
  init_matrix<T><<<kGridSmall, kElemThreads, 0, s>>>(d, n_pad);
  APSP_CUDA_CHECK_LAUNCH(s);
}
template <class T>
void launch_scatter_edges(T* d, std::int64_t ld, const std::int32_t* src, const std::int32_t* dst,
                          const double* w, std::int64_t m, bool undirected, gpuStream_t s) {
  scatter_edges<T><<<edge_blocks(m), kElemThreads, 0, s>>>(d, ld, src, dst, w, m, undirected);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_init_s16(unsigned* d16, std::int64_t n_pad, std::int64_t ld16, gpuStream_t s) {
  init_s16<<<kGridLarge, kElemThreads, 0, s>>>(d16, n_pad, ld16);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_scatter_edges_s16(unsigned* d16, std::int64_t ld16, const std::int32_t* src,
                                     const std::int32_t* dst, const double* w, std::int64_t m,
                                     bool undirected, gpuStream_t s) {
  scatter_edges_s16<<<edge_blocks(m), kElemThreads, 0, s>>>(d16, ld16, src, dst, w, m, undirected);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// One worker's local matrix (rows x ld) of the Pr x Pc grid, at (pr, pc): 0 / unreachable.
template <class T>
void launch_init_local(T* d, i64 ld, i64 rows, int Pr, int pr, int Pc, int pc, gpuStream_t s) {
  init_local<T><<<kGridSmall, kElemThreads, 0, s>>>(d, ld, rows, Pr, pr, Pc, pc);
  APSP_CUDA_CHECK_LAUNCH(s);
}
template <class T>
void launch_scatter_local(T* d, i64 ld, const std::int32_t* src, const std::int32_t* dst,
                          const double* w, i64 m, bool undirected, int Pr, int pr, int Pc, int pc,
                          gpuStream_t s) {
  scatter_local<T>
      <<<edge_blocks(m), kElemThreads, 0, s>>>(d, ld, src, dst, w, m, undirected, Pr, pr, Pc, pc);
  APSP_CUDA_CHECK_LAUNCH(s);
}

// ---- the type ladder ----

inline void launch_pack_s16(const int* d, std::int64_t n_pad, unsigned* d16, std::int64_t ld16,
                            gpuStream_t s) {
  pack_s16<<<kGridLarge, kElemThreads, 0, s>>>(d, n_pad, d16, ld16);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_unpack_s16(const unsigned* d16, std::int64_t ld16, int* d, std::int64_t n_pad,
                              gpuStream_t s) {
  unpack_s16<<<kGridLarge, kElemThreads, 0, s>>>(d16, ld16, d, n_pad);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_find_in_band(const int* d, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                                int lo, int cap, int* bad, gpuStream_t s) {
  find_in_band<<<kGridLarge, kElemThreads, 0, s>>>(d, ld, rows, cols, lo, cap, bad);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_find_in_band_s16(const unsigned* d16, std::int64_t ld16, std::int64_t n, int lo,
                                    int* bad, gpuStream_t s) {
  find_in_band_s16<<<kGridSmall, kElemThreads, 0, s>>>(d16, ld16, n, lo, bad);
  APSP_CUDA_CHECK_LAUNCH(s);
}
template <class U>
void launch_expand_rows_s16(const unsigned* d16, std::int64_t ld16, std::int64_t r0,
                            std::int64_t rows, std::int64_t n, U* out, gpuStream_t s) {
  expand_rows_s16<U><<<kGridSmall, kElemThreads, 0, s>>>(d16, ld16, r0, rows, n, out);
  APSP_CUDA_CHECK_LAUNCH(s);
}
template <class U>
void launch_widen_rows(const int* d, std::int64_t ld, std::int64_t r0, std::int64_t rows,
                       std::int64_t n, U* out, gpuStream_t s) {
  widen_rows<U><<<kGridSmall, kElemThreads, 0, s>>>(d, ld, r0, rows, n, out);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_pack_local_s16(const int* d, i64 ld, i64 rows, unsigned* d16, i64 ld16,
                                  gpuStream_t s) {
  pack_local_s16<<<kGridLarge, kElemThreads, 0, s>>>(d, ld, rows, d16, ld16);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_unpack_local_s16(const unsigned* d16, i64 ld16, i64 rows, int* d, i64 ld,
                                    gpuStream_t s) {
  unpack_local_s16<<<kGridLarge, kElemThreads, 0, s>>>(d16, ld16, rows, d, ld);
  APSP_CUDA_CHECK_LAUNCH(s);
}
inline void launch_find_in_band_local_s16(const unsigned* d16, i64 ld16, i64 rows, i64 words,
                                          int lo, int* bad, gpuStream_t s) {
  find_in_band_local_s16<<<kGridSmall, kElemThreads, 0, s>>>(d16, ld16, rows, words, lo, bad);
  APSP_CUDA_CHECK_LAUNCH(s);
}

// ---- next hops ----

/// next_hops_from_edges over n rows: column chunks whose V x chunk slab of d stays in L2 (about
/// 24 MiB of H100/H200's 50 MiB), 4 columns a thread, 32..256 threads a block.
template <class T>
void launch_next_hops_from_edges(const T* d, std::int64_t ld, std::int64_t n,
                                 const std::int64_t* row_ptr, const std::int32_t* col, const T* wt,
                                 std::int32_t* next, gpuStream_t s) {
  int threads = 256;
  while (threads > 32 &&
         std::int64_t(threads) * 4 * n * std::int64_t(sizeof(T)) > (std::int64_t(24) << 20))
    threads /= 2;
  const std::int64_t chunks = (n + 4 * threads - 1) / (4 * threads);
  APSP_EXPECTS(n <= std::int64_t(0x7fffffff) && chunks <= 65535,
               "compute_next: V too large for its grid");
  next_hops_from_edges<T><<<dim3(unsigned(n), unsigned(chunks)), unsigned(threads), 0, s>>>(
      d, ld, n, row_ptr, col, wt, next);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// One local matrix's next hops (and hop counts, hx non-null) from its distances.
template <class T>
void launch_init_next(const T* d, int* nx, int* hx, i64 ld, i64 rows, i64 n, int Pr, int pr, int Pc,
                      int pc, gpuStream_t s) {
  init_next<T><<<kGridSmall, kElemThreads, 0, s>>>(d, nx, hx, ld, rows, n, Pr, pr, Pc, pc);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// closure_paths on one tile (one block of 1024 threads); hop counts when `hops`.
template <class T>
void launch_closure_paths(bool hops, T* d, int* nx, int* hx, i64 ld, int* piv, gpuStream_t s) {
  if (hops)
    closure_paths<T, true><<<1, 1024, 0, s>>>(d, nx, hx, ld, piv);
  else
    closure_paths<T, false><<<1, 1024, 0, s>>>(d, nx, nullptr, ld, piv);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// minplus_paths over tiles_rows x tiles_cols kTile tiles of C (64 x 64 outputs a block); the
/// hop-count pointers are read only when `hops`.
template <class T>
void launch_minplus_paths(bool hops, i64 tiles_rows, i64 tiles_cols, const T* A, const int* An,
                          const int* Ah, i64 lda, const T* B, const int* Bh, i64 ldb, T* C, int* Cn,
                          int* Ch, i64 ldc, gpuStream_t s) {
  const dim3 grid(unsigned(tiles_cols * kTile / 64), unsigned(tiles_rows * kTile / 64));
  if (hops)
    minplus_paths<T, true><<<grid, 256, 0, s>>>(A, An, Ah, lda, B, Bh, ldb, C, Cn, Ch, ldc);
  else
    minplus_paths<T, false>
        <<<grid, 256, 0, s>>>(A, An, nullptr, lda, B, nullptr, ldb, C, Cn, nullptr, ldc);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// minplus_paths_listed: the C tiles l.rows x l.cols (a null list: tile 0 alone, count 1), grid
/// (2 ncols, 2 nrows) of 256 threads; the hop-count pointers are read only when `hops`.
template <class T>
void launch_minplus_paths_listed(bool hops, const TileLists& l, const T* A, const int* An,
                                 const int* Ah, i64 lda, const T* B, const int* Bh, i64 ldb, T* C,
                                 int* Cn, int* Ch, i64 ldc, gpuStream_t s) {
  APSP_EXPECTS(l.nrows > 0 && l.ncols > 0 && l.nrows <= 32767 && (l.rows || l.nrows == 1) &&
                   (l.cols || l.ncols == 1),
               "listed next-hop GEMM: bad tile lists");
  const dim3 grid(unsigned(2 * l.ncols), unsigned(2 * l.nrows));
  if (hops)
    minplus_paths_listed<T, true>
        <<<grid, 256, 0, s>>>(A, An, Ah, lda, B, Bh, ldb, C, Cn, Ch, ldc, l);
  else
    minplus_paths_listed<T, false>
        <<<grid, 256, 0, s>>>(A, An, nullptr, lda, B, nullptr, ldb, C, Cn, nullptr, ldc, l);
  APSP_CUDA_CHECK_LAUNCH(s);
}

// ---- the sparse direct engine's row sweeps (kernels/sparse_rows.cuh) ----

/// The products of `tasks` (device memory, first_tile ascending), `tiles` blocks in all, BM x
/// (4096 / BM) tiles (BM = 16 or 32).
template <class T, int BM>
void launch_sn_minplus(const SnTask<T>* tasks, int ntasks, std::int64_t tiles, std::int64_t q0,
                       gpuStream_t s) {
  if (tiles == 0) return;
  APSP_EXPECTS(tiles < (std::int64_t(1) << 31), "sparse rows: too many tiles in one launch");
  sn_minplus<T, BM><<<unsigned(tiles), kSnThreads, 0, s>>>(tasks, ntasks, q0);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// The narrow products of `tasks` (m <= M, not atomic), each over `cols` columns from its r0.
template <class T, int M>
void launch_sn_stream(const SnTask<T>* tasks, int ntasks, std::int64_t cols, std::int64_t q0,
                      gpuStream_t s) {
  constexpr int CV = kSnStreamCV<T, M>;
  constexpr std::int64_t per = std::int64_t(kSnStreamThreads) * CV;
  for (int t0 = 0; t0 < ntasks && cols > 0; t0 += 65535) {
    const dim3 grid(unsigned((cols + per - 1) / per), unsigned(std::min(65535, ntasks - t0)));
    sn_stream<T, M, CV><<<grid, kSnStreamThreads, 0, s>>>(tasks + t0, q0);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}
/// One block row of grid blocks per (row0, rows, r0, r1) task; at most 65535 tasks a launch.
template <class T>
void launch_sn_init_rows(T* x, std::int64_t ld, std::int64_t q0, const int4* tasks, int ntasks,
                         gpuStream_t s) {
  for (int t0 = 0; t0 < ntasks; t0 += 65535) {
    const unsigned y = unsigned(std::min(65535, ntasks - t0));
    sn_init_rows<T><<<dim3(16, y), kElemThreads, 0, s>>>(x, ld, q0, tasks + t0);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}
/// One block row of grid blocks per (row0, rows, r0, r1) task; at most 65535 tasks a launch.
template <class T>
void launch_sn_copy_rows(const T* src, T* dst, std::int64_t ld, const int4* tasks, int ntasks,
                         gpuStream_t s) {
  for (int t0 = 0; t0 < ntasks; t0 += 65535) {
    const unsigned y = unsigned(std::min(65535, ntasks - t0));
    sn_copy_rows<T><<<dim3(16, y), kElemThreads, 0, s>>>(src, dst, ld, tasks + t0);
    APSP_CUDA_CHECK_LAUNCH(s);
  }
}
template <class T>
void launch_sn_write_rows(const T* x, std::int64_t ld, std::int64_t n, const int* new_of_old,
                          const int* old_of_new, std::int64_t q0, std::int64_t rows, T* out,
                          std::int64_t ldo, gpuStream_t s) {
  APSP_EXPECTS(rows <= 65535 * 64 && ld % 4 == 0, "sparse rows: block too tall or misaligned");
  const dim3 grid(unsigned((n + 63) / 64), unsigned((rows + 63) / 64));
  sn_write_rows<T><<<grid, 256, 0, s>>>(x, ld, n, new_of_old, old_of_new, q0, rows, out, ldo);
  APSP_CUDA_CHECK_LAUNCH(s);
}

/// The metrics' sums of a block of `rows` sources (RowsJob::sums): per source, and per target
/// when s.targets.
template <class T>
void launch_sn_sums(const T* x, std::int64_t n, std::int64_t ld, std::int64_t q0, std::int64_t rows,
                    const SnSums<T>& sums, gpuStream_t s) {
  if (rows <= 0 || n <= 0) return;
  const std::int64_t slices = std::min<std::int64_t>(256, (n + 255) / 256);
  const std::int64_t slice = (n + slices - 1) / slices;
  const dim3 grid(unsigned((rows + 255) / 256), unsigned((n + slice - 1) / slice));
  sn_sum_sources<T><<<grid, 256, 0, s>>>(x, n, ld, q0, rows, slice, sums);
  APSP_CUDA_CHECK_LAUNCH(s);
  if (!sums.targets) return;
  sn_sum_targets<T>
      <<<unsigned(std::min<std::int64_t>(n, 65535)), kSnSumThreads, 0, s>>>(x, n, ld, rows, sums);
  APSP_CUDA_CHECK_LAUNCH(s);
}

}  // namespace
}  // namespace apsp::cuda

// ---- the multi-gpu user-order gather (kernels/user_blocks.cuh; multigpu/user_order.cuh) ----
// Appended with its own include so that sections added to this file by others stay apart.
#include "cuda/kernels/user_blocks.cuh"

namespace apsp::cuda {
namespace {

/// The grid of a user block of `rows` x `cols` entries: 256 threads along a row, up to 64 blocks
/// across the columns and one block row per row (at most 65535).
inline dim3 user_block_grid(std::int64_t rows, std::int64_t cols) {
  return dim3(unsigned(std::min<std::int64_t>((cols + kElemThreads - 1) / kElemThreads, 64)),
              unsigned(std::min<std::int64_t>(rows, 65535)));
}
/// gather_user_block: out (nrows x ncols) = src[rows[k]][cols[j]], next hops renamed by `rename`
/// (null: none).
template <class U>
void launch_gather_user_block(const U* src, std::int64_t ld, const int* rows, std::int64_t nrows,
                              const int* cols, std::int64_t ncols, const int* rename, U* out,
                              gpuStream_t s) {
  gather_user_block<U><<<user_block_grid(nrows, ncols), kElemThreads, 0, s>>>(
      src, ld, rows, nrows, cols, ncols, rename, out);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// scatter_user_block: a block (nrows x ncols) into the stripe `out` of user rows [u0, ...),
/// n entries a row.
template <class U, class R>
void launch_scatter_user_block(const U* block, std::int64_t nrows, const int* rows, std::int64_t u0,
                               const int* cols, std::int64_t ncols, R* out, std::int64_t n,
                               gpuStream_t s) {
  scatter_user_block<U, R><<<user_block_grid(nrows, ncols), kElemThreads, 0, s>>>(
      block, nrows, rows, u0, cols, ncols, out, n);
  APSP_CUDA_CHECK_LAUNCH(s);
}

// ---- the batch engine's small graphs (kernels/batch_small.cuh) ----

/// One block of kSmallGraphThreads per graph, with `n_max`^2 elements of shared memory (the
/// largest graph's matrix).
template <class T>
void launch_close_small_graphs(const std::int32_t* sizes, const std::int64_t* arc_ptr,
                               const std::int32_t* src, const std::int32_t* dst, const T* w,
                               const std::int64_t* out_offset, T* out, std::int64_t graphs,
                               int n_max, gpuStream_t s) {
  if (graphs == 0) return;
  APSP_EXPECTS(graphs < (std::int64_t(1) << 31), "small graphs: too many graphs for one launch");
  const int shared = n_max * n_max * int(sizeof(T));
  APSP_CUDA_TRY(gpuFuncSetAttribute(close_small_graphs<T>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize, shared));
  close_small_graphs<T><<<unsigned(graphs), kSmallGraphThreads, shared, s>>>(
      sizes, arc_ptr, src, dst, w, out_offset, out);
  APSP_CUDA_CHECK_LAUNCH(s);
}

/// The same, each graph written as the batch's output type O (close_small_graphs_into).
template <class T, class O>
void launch_close_small_graphs_into(const std::int32_t* sizes, const std::int64_t* arc_ptr,
                                    const std::int32_t* src, const std::int32_t* dst, const T* w,
                                    const std::int64_t* out_offset, O* out, const SmallOut<O>& p,
                                    long long* bad, std::int64_t graphs, int n_max, gpuStream_t s) {
  if (graphs == 0) return;
  APSP_EXPECTS(graphs < (std::int64_t(1) << 31), "small graphs: too many graphs for one launch");
  const int shared = std::max(n_max * n_max * int(sizeof(T)), 1);
  APSP_CUDA_TRY(gpuFuncSetAttribute(close_small_graphs_into<T, O>,
                                    gpuFuncAttributeMaxDynamicSharedMemorySize, shared));
  close_small_graphs_into<T, O><<<unsigned(graphs), kSmallGraphThreads, shared, s>>>(
      sizes, arc_ptr, src, dst, w, out_offset, out, p, bad);
  APSP_CUDA_CHECK_LAUNCH(s);
}

}  // namespace
}  // namespace apsp::cuda

// ---- the metrics engine's bit-parallel BFS (kernels/metrics_msbfs.cuh) ----
#include "cuda/kernels/metrics_msbfs.cuh"

namespace apsp::cuda {
namespace {

/// Blocks of kMsbfsThreads over n vertices' 32 lanes each, at most 8192 (grid-stride beyond).
inline int msbfs_blocks(std::int64_t n) {
  const std::int64_t blocks = (n * kMsbfsLanes + kMsbfsThreads - 1) / kMsbfsThreads;
  return int(std::clamp<std::int64_t>(blocks, 1, 8192));
}
/// msbfs_start: sources [s0, s0 + k) begin a batch.
inline void launch_msbfs_start(std::int64_t n, std::int64_t s0, int k, std::uint32_t* seen,
                               std::uint32_t* cur, unsigned char* cur_any, std::int64_t* reached,
                               gpuStream_t s) {
  msbfs_start<<<msbfs_blocks(n), kMsbfsThreads, 0, s>>>(n, s0, k, seen, cur, cur_any, reached);
  APSP_CUDA_CHECK_LAUNCH(s);
}
/// msbfs_level: one level of the batch (pulls along in-arcs).
inline void launch_msbfs_level(std::int64_t n, const std::int64_t* in_start,
                               const std::int32_t* in_adj, int k, int level, std::uint32_t* seen,
                               const std::uint32_t* cur, const unsigned char* cur_any,
                               std::uint32_t* nxt, unsigned char* nxt_any, std::int64_t* reached,
                               std::int64_t* hop_sum, double* harmonic, std::int32_t* farthest,
                               unsigned long long* pairs, gpuStream_t s) {
  msbfs_level<<<msbfs_blocks(n), kMsbfsThreads, 0, s>>>(n, in_start, in_adj, k, level, seen, cur,
                                                        cur_any, nxt, nxt_any, reached, hop_sum,
                                                        harmonic, farthest, pairs);
  APSP_CUDA_CHECK_LAUNCH(s);
}

}  // namespace
}  // namespace apsp::cuda
