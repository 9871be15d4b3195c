// src/cuda/kernels/sparse_rows.cuh — device code of the sparse direct engine's row sweeps
// (src/sparse, src/cuda/sparse_rows.cu). A block of R sources lives transposed, vertex-major:
// X^T row v holds vertex v's value for each of the R sources (ld apart), so every operand of the
// sweeps is a set of whole rows: gathered struct rows read coalesced, C rows written coalesced.
// One kernel runs a list of min-plus products C[i][r] = min(C[i][r], min_k B[i][k] + A[k][r])
// (B a small dense factor block, read as the transpose of the host's L, D or U block: L^T, D^T,
// U^T; A and C rows of X^T or of a scratch copy), 32 x 128 or 16 x 256
// C tiles a block; others set up a block, write it out transposed in the user's order or sum it.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

#include "cuda/kernels/distances.cuh"
#include "gpu/intrinsics.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

// A block computes BM x (4096 / BM) of C with 256 threads, 4 x 4 each, over inner stages of BK =
// BM: BM = 32 for wide factor blocks, 16 for narrow ones (less padding; the driver picks). Tried
// on the H200 and slower (bench/results/sparse-direct-engine-2026-11-29.md, calls 8-9): 8 x 4 a
// thread (36 KB of shared memory a block: lower occupancy), and the next stage's A rows fetched
// into registers during the current one (more registers a thread). The sweeps wait on memory.
inline constexpr int kSnThreads = 256;
template <int BM>
inline constexpr int kSnBN = 4096 / BM;

/// One product of a sweep. Rows of A and C are indices into a_base / c_base (ld apart): the
/// listed ones, or a0 + k / c0 + i when the list is null. With `atomic`, C is lowered by atomic
/// minima (several products of one launch may lower one row: the up sweep's scatters).
template <class T>
struct SnTask {
  const T* b = nullptr;  ///< m x k, stored transposed: B[i][k] at b[k * m + i] (the factor block)
  int m = 0, k = 0;
  const T* a_base = nullptr;
  const int* a_rows = nullptr;
  std::int64_t a0 = 0;
  T* c_base = nullptr;
  const int* c_rows = nullptr;
  std::int64_t c0 = 0;
  std::int64_t ld = 0;
  int r0 = 0, r1 = 0;  ///< columns [r0, r1)
  /// Columns whose C is read (C lowered); the others are written as computed, unreachable
  /// included: the sweeps' C rows hold nothing yet there. In ordered positions: column r of the
  /// block is position q0 + r (the launch's q0).
  std::int64_t keep_lo = 0, keep_hi = 0;
  int atomic = 0;
  int first_tile = 0;  ///< this task's first block in the launch (ascending over tasks)
};

/// Four consecutive elements, loaded and stored as one (16 bytes, or two for 8-byte types).
template <class T>
struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) SnVec4 {
  T x[4];
};

template <class T>
__device__ __forceinline__ T sn_addmin(T a, T b, T c) {
  if constexpr (std::is_same_v<T, int>)
    return gpu::viaddmin_s32(a, b, c);
  else
    return a + b < c ? a + b : c;
}

template <class T>
__device__ __forceinline__ void sn_atomic_min(T* p, T v) {
  if constexpr (std::is_same_v<T, int>)
    atomicMin(p, v);
  else if constexpr (std::is_same_v<T, long>)
    gpu::atomic_min_s64(reinterpret_cast<long long*>(p), (long long)v);
  else if constexpr (std::is_same_v<T, float>) {  // any sign (negative float weights run as given)
    int* q = reinterpret_cast<int*>(p);
    int old = *q;
    while (v < __int_as_float(old)) {
      const int seen = atomicCAS(q, old, __float_as_int(v));
      if (seen == old) break;
      old = seen;
    }
  } else {
    unsigned long long* q = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *q;
    while (v < __longlong_as_double((long long)old)) {
      const unsigned long long seen =
          atomicCAS(q, old, (unsigned long long)__double_as_longlong(v));
      if (seen == old) break;
      old = seen;
    }
  }
}

template <class T, int BM>
__global__ void __launch_bounds__(kSnThreads)
    sn_minplus(const SnTask<T>* __restrict__ tasks, int ntasks, std::int64_t q0) {
  constexpr int BN = kSnBN<BM>, BK = BM, TX = BN / 4;  // TX threads across a row of C
  // The block's task: the last one whose first tile is at most blockIdx.x.
  int lo = 0, hi = ntasks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (tasks[mid].first_tile <= int(blockIdx.x))
      lo = mid;
    else
      hi = mid - 1;
  }
  const SnTask<T> t = tasks[lo];
  const int local = int(blockIdx.x) - t.first_tile;
  const int rtiles = (t.r1 - t.r0 + BN - 1) / BN;
  const int i0 = (local / rtiles) * BM, rb = t.r0 + (local % rtiles) * BN;
  __shared__ T sB[BK][BM];
  __shared__ __align__(16) T sA[BK][BN];  // rows of BN * sizeof(T) bytes: 16-byte aligned
  const int tid = threadIdx.x, ty = tid / TX, tx = tid % TX;  // rows ty*4.., columns tx*4..
  constexpr T inf = inf_value<T>();
  T acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = inf;
  for (int k0 = 0; k0 < t.k; k0 += BK) {
    const int kn = min(BK, t.k - k0);
    for (int e = tid; e < BM * BK; e += kSnThreads) {  // consecutive threads, consecutive i
      const int i = e % BM, kk = e / BM;
      sB[kk][i] = (i0 + i < t.m && kk < kn) ? t.b[std::int64_t(k0 + kk) * t.m + i0 + i] : inf;
    }
    if ((rb | int(t.ld)) % 4 == 0) {  // 4 sources a thread: 16-byte loads (32 for 8-byte T)
      for (int e = tid; e < kn * (BN / 4); e += kSnThreads) {
        const int kk = e / (BN / 4), r = (e % (BN / 4)) * 4;
        const std::int64_t row = t.a_rows ? t.a_rows[k0 + kk] : t.a0 + k0 + kk;
        const T* src = t.a_base + row * t.ld + rb + r;
        SnVec4<T> v;
        if (rb + r + 3 < t.r1) {
          v = *reinterpret_cast<const SnVec4<T>*>(src);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) v.x[j] = rb + r + j < t.r1 ? src[j] : inf;
        }
        *reinterpret_cast<SnVec4<T>*>(&sA[kk][r]) = v;
      }
    } else {
      for (int e = tid; e < kn * BN; e += kSnThreads) {
        const int kk = e / BN, r = e % BN;
        T v = inf;
        if (rb + r < t.r1) {
          const std::int64_t row = t.a_rows ? t.a_rows[k0 + kk] : t.a0 + k0 + kk;
          v = t.a_base[row * t.ld + rb + r];
        }
        sA[kk][r] = v;
      }
    }
    __syncthreads();
#pragma unroll 4
    for (int kk = 0; kk < kn; ++kk) {
      T b[4], a[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) b[i] = sB[kk][ty * 4 + i];
#pragma unroll
      for (int j = 0; j < 4; ++j) a[j] = sA[kk][tx * 4 + j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = sn_addmin(b[i], a[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int ii = i0 + ty * 4 + i;
    if (ii >= t.m) continue;
    const std::int64_t row = t.c_rows ? t.c_rows[ii] : t.c0 + ii;
    T* c = t.c_base + row * t.ld;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int r = rb + tx * 4 + j;
      if (r >= t.r1) continue;
      if (q0 + r < t.keep_lo || q0 + r >= t.keep_hi) {
        c[r] = acc[i][j];
        continue;
      }
      if (acc[i][j] >= inf) continue;
      if (t.atomic)
        sn_atomic_min(c + r, acc[i][j]);
      else if (acc[i][j] < c[r])
        c[r] = acc[i][j];
    }
  }
}

/// Narrow products (m <= M) streamed: a block per (task, run of kSnStreamThreads x CV columns),
/// blockIdx.y the task. Each thread keeps all m rows of its CV columns in registers and reads
/// every A row once, CV elements at a time (16 bytes for 4-byte T), straight from memory: no A
/// tile, no task search, so a supernode of width 13 and structure 4 costs little more than its
/// m + k rows of traffic (the tiled kernel above pays a 16 x 256 tile's set-up for it).
inline constexpr int kSnStreamThreads = 256, kSnStreamK = 64;
/// CV consecutive elements loaded and stored as one (CV x sizeof(T) <= 16 bytes).
template <class T, int CV>
struct alignas(CV * sizeof(T)) SnVec {
  T x[CV];
};
/// Columns a thread: M x CV accumulators of 4-byte words at most 64, CV <= 4.
template <class T, int M>
inline constexpr int kSnStreamCV = 64 / (M * int(sizeof(T)) / 4) < 4 ? 64 / (M * int(sizeof(T)) / 4)
                                                                     : 4;
template <class T, int M, int CV>
__global__ void __launch_bounds__(kSnStreamThreads, 2)  // <= 128 registers: two blocks an SM
    sn_stream(const SnTask<T>* __restrict__ tasks, std::int64_t q0) {
  constexpr T inf = inf_value<T>();
  __shared__ T sB[kSnStreamK][M];
  __shared__ std::int64_t sRow[kSnStreamK];
  const SnTask<T>& t = tasks[blockIdx.y];
  const int m = t.m, k = t.k, r1 = t.r1;
  const int r = t.r0 + (int(blockIdx.x) * kSnStreamThreads + int(threadIdx.x)) * CV;
  const bool vec = ((t.r0 | int(t.ld)) % CV) == 0;  // CV-aligned rows: whole-vector accesses
  T acc[M][CV];
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int j = 0; j < CV; ++j) acc[i][j] = inf;
  for (int k0 = 0; k0 < k; k0 += kSnStreamK) {
    const int kn = min(kSnStreamK, k - k0);
    __syncthreads();  // the previous chunk's B and rows are read
    for (int e = int(threadIdx.x); e < kn * M; e += kSnStreamThreads) {
      const int kk = e / M, i = e % M;
      sB[kk][i] = i < m ? t.b[std::int64_t(k0 + kk) * m + i] : inf;
    }
    for (int e = int(threadIdx.x); e < kn; e += kSnStreamThreads)
      sRow[e] = (t.a_rows ? std::int64_t(t.a_rows[k0 + e]) : t.a0 + k0 + e) * t.ld;
    __syncthreads();
    if (r >= r1) continue;
#pragma unroll 2
    for (int kk = 0; kk < kn; ++kk) {
      const T* src = t.a_base + sRow[kk] + r;
      SnVec<T, CV> a;
      if (vec && r + CV <= r1) {
        a = *reinterpret_cast<const SnVec<T, CV>*>(src);
      } else {
#pragma unroll
        for (int j = 0; j < CV; ++j) a.x[j] = r + j < r1 ? src[j] : inf;
      }
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const T b = sB[kk][i];
#pragma unroll
        for (int j = 0; j < CV; ++j) acc[i][j] = sn_addmin(b, a.x[j], acc[i][j]);
      }
    }
  }
  if (r >= r1) return;
#pragma unroll
  for (int i = 0; i < M; ++i) {
    if (i >= m) break;
    const std::int64_t row = t.c_rows ? t.c_rows[i] : t.c0 + i;
    T* c = t.c_base + row * t.ld + r;
    if (vec && r + CV <= r1 && (q0 + r + CV <= t.keep_lo || q0 + r >= t.keep_hi)) {
      SnVec<T, CV> v;  // nothing to read: the whole vector written as computed
#pragma unroll
      for (int j = 0; j < CV; ++j) v.x[j] = acc[i][j];
      *reinterpret_cast<SnVec<T, CV>*>(c) = v;
      continue;
    }
#pragma unroll
    for (int j = 0; j < CV; ++j) {
      const std::int64_t q = q0 + r + j;
      if (r + j >= r1) continue;
      if (q < t.keep_lo || q >= t.keep_hi)
        c[j] = acc[i][j];
      else if (acc[i][j] < inf && acc[i][j] < c[j])
        c[j] = acc[i][j];
    }
  }
}

/// The parts of a block the sweeps read before they write: rows [row0, row0 + rows) x columns
/// [r0, r1) of X^T unreachable, but X^T[q0 + r][r] = 0 (a task = (row0, rows, r0, r1); a block
/// row of the grid per task).
template <class T>
__global__ void sn_init_rows(T* __restrict__ x, std::int64_t ld, std::int64_t q0,
                             const int4* __restrict__ tasks) {
  constexpr T inf = inf_value<T>();
  const int4 t = tasks[blockIdx.y];
  const std::int64_t width = t.w - t.z, total = std::int64_t(t.y) * width;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = e / width, r = t.z + (e - i * width), row = t.x + i;
    x[row * ld + r] = row == q0 + r ? T(0) : inf;
  }
}

/// dst rows [row0, row0 + rows) x columns [r0, r1) = the same rows of src (ld apart): the up
/// sweep's copies, one task per supernode (a task = (row0, rows, r0, r1)).
template <class T>
__global__ void sn_copy_rows(const T* __restrict__ src, T* __restrict__ dst, std::int64_t ld,
                             const int4* __restrict__ tasks) {
  const int4 t = tasks[blockIdx.y];
  const std::int64_t total = std::int64_t(t.y) * (t.w - t.z);
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = e / (t.w - t.z), r = t.z + (e - i * (t.w - t.z));
    dst[(t.x + i) * ld + r] = src[(t.x + i) * ld + r];
  }
}

/// out[old_of_new[q0 + r]][v] = X^T[new_of_old[v]][r] for r < rows, v < n: the block's rows in
/// the user's order (out rows `ldo` apart). A 64 x 64 tile a block of 256 threads: X^T rows read
/// 256 bytes at a time (16-byte loads; ld and the tile's first column are multiples of 4), out
/// rows written 128 bytes a warp.
template <class T>
__global__ void sn_write_rows(const T* __restrict__ x, std::int64_t ld, std::int64_t n,
                              const int* __restrict__ new_of_old,
                              const int* __restrict__ old_of_new, std::int64_t q0,
                              std::int64_t rows, T* __restrict__ out, std::int64_t ldo) {
  __shared__ T tile[64][65];
  const std::int64_t v0 = std::int64_t(blockIdx.x) * 64, r0 = std::int64_t(blockIdx.y) * 64;
  const int t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int i = t / 16 + 16 * k, c = (t % 16) * 4;
    const std::int64_t v = v0 + i, r = r0 + c;
    if (v >= n) continue;
    const T* src = x + std::int64_t(new_of_old[v]) * ld + r;
    if (r + 3 < rows) {
      const SnVec4<T> q = *reinterpret_cast<const SnVec4<T>*>(src);
#pragma unroll
      for (int e = 0; e < 4; ++e) tile[i][c + e] = q.x[e];
    } else {
      for (int e = 0; e < 4 && r + e < rows; ++e) tile[i][c + e] = src[e];
    }
  }
  __syncthreads();
  const int v = t % 64;
#pragma unroll 4
  for (int j = t / 64; j < 64; j += 4) {
    const std::int64_t r = r0 + j;
    if (r < rows && v0 + v < n) out[std::int64_t(old_of_new[q0 + r]) * ldo + v0 + v] = tile[v][j];
  }
}

/// The metrics' accumulators of the engine's rows (RowsJob::sums), indexed by ordered position:
/// per source (a column of X^T) and per target (a row of X^T). Integer dtypes sum exactly in 64
/// bits (non-negative distances: the host checks n x the largest one), floats in double. Every
/// distance is >= 0 here (the metrics' engine runs on non-negative weights), so the largest is
/// kept by an unsigned atomic maximum of its bits.
template <class T>
struct SnSums {
  unsigned long long *out_cnt, *in_cnt;
  unsigned long long *out_sum_i, *in_sum_i;  // integer dtypes
  double *out_sum_f, *in_sum_f;              // float dtypes
  T* out_max;
  double *out_harm, *in_harm;
  int targets;  // the per-target sums too
};

template <class T>
__device__ __forceinline__ void sn_atomic_max_nonneg(T* p, T v) {
  if constexpr (sizeof(T) == 4)
    atomicMax(reinterpret_cast<unsigned*>(p),
              std::is_same_v<T, float> ? __float_as_uint(v) : unsigned(v));
  else
    atomicMax(reinterpret_cast<unsigned long long*>(p),
              std::is_same_v<T, double> ? (unsigned long long)__double_as_longlong(v)
                                        : (unsigned long long)v);
}

/// Per-source sums of a block: a thread per column r < rows (source q0 + r), over the rows
/// [v0, v1) of X^T that its grid row covers; atomics combine the grid rows.
template <class T>
__global__ void sn_sum_sources(const T* __restrict__ x, std::int64_t n, std::int64_t ld,
                               std::int64_t q0, std::int64_t rows, std::int64_t slice,
                               SnSums<T> s) {
  constexpr T inf = inf_value<T>();
  constexpr bool integer = std::is_integral_v<T>;
  const std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const std::int64_t v0 = std::int64_t(blockIdx.y) * slice, v1 = min(n, v0 + slice);
  unsigned long long cnt = 0, sum_i = 0;
  double sum_f = 0, harm = 0;
  T mx = T(0);
  for (std::int64_t v = v0; v < v1; ++v) {
    const T d = x[v * ld + r];
    if (!(d < inf)) continue;
    ++cnt;
    if constexpr (integer)
      sum_i += (unsigned long long)d;
    else
      sum_f += double(d);
    if (d > T(0)) harm += 1.0 / double(d);
    mx = d > mx ? d : mx;
  }
  const std::int64_t q = q0 + r;
  if (cnt == 0) return;
  atomicAdd(s.out_cnt + q, cnt);
  if constexpr (integer)
    atomicAdd(s.out_sum_i + q, sum_i);
  else
    atomicAdd(s.out_sum_f + q, sum_f);
  atomicAdd(s.out_harm + q, harm);
  sn_atomic_max_nonneg(s.out_max + q, mx);
}

/// Per-target sums of a block: a block of kSnSumThreads per row v of X^T (grid-stride), its
/// `rows` columns reduced in shared memory (a tree: no warp shuffles, the same code for HIP's
/// 64-wide wavefronts) and added to v's sums (one block a row: no atomics).
inline constexpr int kSnSumThreads = 256;
template <class T>
__global__ void __launch_bounds__(kSnSumThreads)
    sn_sum_targets(const T* __restrict__ x, std::int64_t n, std::int64_t ld, std::int64_t rows,
                   SnSums<T> s) {
  constexpr T inf = inf_value<T>();
  constexpr bool integer = std::is_integral_v<T>;
  __shared__ unsigned long long s_cnt[kSnSumThreads], s_sum_i[kSnSumThreads];
  __shared__ double s_sum_f[kSnSumThreads], s_harm[kSnSumThreads];
  const int tid = int(threadIdx.x);
  for (std::int64_t v = blockIdx.x; v < n; v += gridDim.x) {
    const T* row = x + v * ld;
    unsigned long long cnt = 0, sum_i = 0;
    double sum_f = 0, harm = 0;
    for (std::int64_t r = tid; r < rows; r += kSnSumThreads) {
      const T d = row[r];
      if (!(d < inf)) continue;
      ++cnt;
      if constexpr (integer)
        sum_i += (unsigned long long)d;
      else
        sum_f += double(d);
      if (d > T(0)) harm += 1.0 / double(d);
    }
    s_cnt[tid] = cnt, s_sum_i[tid] = sum_i, s_sum_f[tid] = sum_f, s_harm[tid] = harm;
    __syncthreads();
    for (int half = kSnSumThreads / 2; half > 0; half /= 2) {
      if (tid < half) {
        s_cnt[tid] += s_cnt[tid + half];
        s_sum_i[tid] += s_sum_i[tid + half];
        s_sum_f[tid] += s_sum_f[tid + half];
        s_harm[tid] += s_harm[tid + half];
      }
      __syncthreads();
    }
    if (tid == 0) {
      s.in_cnt[v] += s_cnt[0];
      if constexpr (integer)
        s.in_sum_i[v] += s_sum_i[0];
      else
        s.in_sum_f[v] += s_sum_f[0];
      s.in_harm[v] += s_harm[0];
    }
    __syncthreads();
  }
}

}  // namespace
}  // namespace apsp::cuda
