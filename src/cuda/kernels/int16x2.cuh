// src/cuda/kernels/int16x2.cuh — device code of the type ladder: the int16x2 rounds (two capped
// int16 distances per word: closure, packed build, pack/unpack, widening on the way out), on the
// cuda backend's padded matrix and on one worker's local tiles (multi-gpu, mpi GPU ranks), and
// the checks that keep or drop a capped rung (a cell in the band [cap - max w, cap) means the rung
// cannot be trusted; core/ladder.hpp has the proof), plus the int32 -> int64 widening
// of a checked int32 rung. The rounds' GEMM is distances.cuh's (RowPanel / ColPanelRep / Rest).
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

#include "cuda/kernels/distances.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

using i64 = std::int64_t;

// ---- int16x2 mode: the same rounds on two int16 distances per word ----------------------------
// Values are capped at kInf16. By induction over the updates every cell holds
// min(kInf16, its exact FW value), so after the last round a cell below kInf16 is the exact
// distance; a cell at kInf16 is "unreachable or >= kInf16" and the caller falls back to int32
// unless no logical cell is at kInf16. Rows keep B = 128; columns come two per word.

struct RoundArgsS16 {
  unsigned* d;  // (n_pad, ld) words; ld = round_up(n_pad / 2, 128)
  std::int64_t ld;
  int* csT;          // (B, ldc) int32, the transposed pivot column
  std::int64_t ldc;  // n_pad
  int* pS;           // (B, B) int32 P*
  unsigned* pT;      // (B, B) words: P*^T replicated into both halves
  int t;
};

__device__ __forceinline__ int lo16(unsigned w) { return int(w & 0xffffu); }
__device__ __forceinline__ int hi16(unsigned w) { return int(w >> 16); }
__device__ __forceinline__ unsigned pack16(int lo, int hi) {
  return (unsigned(lo) & 0xffffu) | (unsigned(hi) << 16);
}

/// closure_and_transpose for int16x2 storage: the closure runs on int32 registers.
__device__ __forceinline__ void closure_block_s16(const RoundArgsS16& r, unsigned block) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  int* rowbuf = reinterpret_cast<int*>(smem_raw);  // (2, B)
  int* colbuf = rowbuf + 2 * kTile;                // (2, B)
  int(*s)[kTile + kClosurePad] = reinterpret_cast<int(*)[kTile + kClosurePad]>(
      kClosureOverlay ? rowbuf : colbuf + 2 * kTile);  // (B, B + pad)
  const int tid = threadIdx.x;
  const std::int64_t t0 = std::int64_t(r.t) * kTile, t0w = t0 / 2;
  if (block == 0) {
    const int tx = tid % 16, ty = tid / 16;
    unsigned* gP = r.d + t0 * r.ld + t0w;
    int c[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
      const uint2 lo = *reinterpret_cast<const uint2*>(gP + row * r.ld + tx * 2);
      const uint2 hi = *reinterpret_cast<const uint2*>(gP + row * r.ld + 32 + tx * 2);
      c[i][0] = lo16(lo.x);
      c[i][1] = hi16(lo.x);
      c[i][2] = lo16(lo.y);
      c[i][3] = hi16(lo.y);
      c[i][4] = lo16(hi.x);
      c[i][5] = hi16(hi.x);
      c[i][6] = lo16(hi.y);
      c[i][7] = hi16(hi.y);
    }
    close_in_registers(c, rowbuf, colbuf, tx, ty);
    if constexpr (kClosureOverlay) __syncthreads();  // s overlays the buffers just read
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
      *reinterpret_cast<uint2*>(gP + row * r.ld + tx * 2) =
          make_uint2(pack16(c[i][0], c[i][1]), pack16(c[i][2], c[i][3]));
      *reinterpret_cast<uint2*>(gP + row * r.ld + 32 + tx * 2) =
          make_uint2(pack16(c[i][4], c[i][5]), pack16(c[i][6], c[i][7]));
      *reinterpret_cast<int4*>(r.pS + row * kTile + tx * 4) =
          make_int4(c[i][0], c[i][1], c[i][2], c[i][3]);
      *reinterpret_cast<int4*>(r.pS + row * kTile + 64 + tx * 4) =
          make_int4(c[i][4], c[i][5], c[i][6], c[i][7]);
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) s[row][(jj < 4 ? 0 : 64) + tx * 4 + (jj & 3)] = c[i][jj];
    }
    __syncthreads();
    const int j = tid % kTile, i0 = tid / kTile;
#pragma unroll 8
    for (int q = 0; q < kTile / 2; ++q) {
      const int i = i0 + 2 * q;
      r.pT[i * kTile + j] = replicate16(s[j][i]);
      r.csT[i * r.ldc + t0 + j] = s[j][i];
    }
    return;
  }
  const int X = int(block) - 1;
  if (X == r.t) return;
  const std::int64_t x0 = std::int64_t(X) * kTile;
  const unsigned* g = r.d + x0 * r.ld + t0w;
  const int j = tid % kTile, i0 = tid / kTile;
#pragma unroll 8
  for (int q = 0; q < kTile / 2; ++q) {
    const unsigned w = g[(i0 + 2 * q) * r.ld + j / 2];
    s[i0 + 2 * q][j] = (j & 1) ? hi16(w) : lo16(w);
  }
  __syncthreads();
#pragma unroll 8
  for (int q = 0; q < kTile / 2; ++q) {
    const int k = i0 + 2 * q;
    r.csT[k * r.ldc + x0 + j] = s[j][k];
  }
}
__global__ void __launch_bounds__(kClosureThreads) closure_and_transpose_s16(RoundArgsS16 r) {
  closure_block_s16(r, blockIdx.x);
}
/// Sparse rounds: closure_and_transpose_listed for int16x2 storage (block b > 0: tile rows[b - 1]).
__global__ void __launch_bounds__(kClosureThreads)
    closure_and_transpose_s16_listed(RoundArgsS16 r, const int* rows) {
  closure_block_s16(r, blockIdx.x == 0 ? 0u : 1u + unsigned(rows[blockIdx.x - 1]));
}

/// The packed matrix built directly (no int32 matrix beside it): 0 on the diagonal, kInf16
/// elsewhere, including the words past n_pad.
__global__ void init_s16(unsigned* __restrict__ d16, std::int64_t n_pad, std::int64_t ld16) {
  const std::int64_t total = n_pad * ld16;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / ld16, j = 2 * (x - i * ld16);
    d16[x] = pack16(j == i ? 0 : kInf16, j + 1 == i ? 0 : kInf16);
  }
}

/// min into one int16 half of a word (no 16-bit atomicMin exists): compare-and-swap loop.
__device__ __forceinline__ void atomic_min_half(unsigned* word, bool high, int v) {
  unsigned old = *word, assumed;
  do {
    assumed = old;
    const int cur = high ? hi16(assumed) : lo16(assumed);
    if (v >= cur) return;
    const unsigned nw = high ? pack16(lo16(assumed), v) : pack16(v, hi16(assumed));
    old = atomicCAS(word, assumed, nw);
  } while (old != assumed);
}

/// scatter_edges for the packed matrix; weights (non-negative here) are capped at kInf16.
__global__ void scatter_edges_s16(unsigned* __restrict__ d16, std::int64_t ld16,
                                  const std::int32_t* __restrict__ src,
                                  const std::int32_t* __restrict__ dst,
                                  const double* __restrict__ w, std::int64_t E, bool undirected) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < E;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t u = src[e], v = dst[e];
    if (u == v) continue;
    const int x = min(__double2int_rn(w[e]), kInf16);
    atomic_min_half(d16 + u * ld16 + v / 2, v & 1, x);
    if (undirected) atomic_min_half(d16 + v * ld16 + u / 2, u & 1, x);
  }
}

/// Rows [r0, r0 + rows) of the packed matrix as U (int32 or int64; kInf16 -> U's unreachable),
/// n per row.
template <class U>
__global__ void expand_rows_s16(const unsigned* __restrict__ d16, std::int64_t ld16,
                                std::int64_t r0, std::int64_t rows, std::int64_t n,
                                U* __restrict__ out) {
  const std::int64_t total = rows * n;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = x / n, j = x - r * n;
    const unsigned w = d16[(r0 + r) * ld16 + j / 2];
    const int v = (j & 1) ? hi16(w) : lo16(w);
    out[x] = v >= kInf16 ? detail::sentinel<U>() : U(v);
  }
}

/// d16[i][p] = min(d[i][2p], kInf16) | min(d[i][2p+1], kInf16) << 16; columns >= n_pad get kInf16.
__global__ void pack_s16(const int* __restrict__ d, std::int64_t n_pad, unsigned* __restrict__ d16,
                         std::int64_t ld16) {
  const std::int64_t total = n_pad * ld16;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / ld16, p = x - i * ld16, j = 2 * p;
    int lo = kInf16, hi = kInf16;
    if (j < n_pad) {
      const int2 v = *reinterpret_cast<const int2*>(d + i * n_pad + j);
      lo = min(v.x, kInf16);
      hi = min(v.y, kInf16);
    }
    d16[x] = pack16(lo, hi);
  }
}

/// d[i][j] = d16's value (kInf16 -> the int32 unreachable value), over the n_pad x n_pad matrix.
__global__ void unpack_s16(const unsigned* __restrict__ d16, std::int64_t ld16, int* __restrict__ d,
                           std::int64_t n_pad) {
  const std::int64_t words = n_pad / 2, total = n_pad * words;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / words, p = x - i * words;
    const unsigned w = d16[i * ld16 + p];
    const int lo = lo16(w), hi = hi16(w);
    *reinterpret_cast<int2*>(d + i * n_pad + 2 * p) = make_int2(
        lo >= kInf16 ? detail::sentinel<int>() : lo, hi >= kInf16 ? detail::sentinel<int>() : hi);
  }
}

// ---- the type ladder: checking a capped rung, widening its result ------------------------------
// A rung runs the rounds in a narrow type capped at C (int16x2: kInf16, int32: its unreachable
// value) and is kept when no cell lies in the band [lo, C) with lo = C - max weight
// (core/ladder.hpp has the proof). Then cells at C are unreachable and the rest exact.

/// *bad = 1 when some cell of the (rows x cols, ld) int32 matrix lies in [lo, cap).
__global__ void find_in_band(const int* __restrict__ d, std::int64_t ld, std::int64_t rows,
                             std::int64_t cols, int lo, int cap, int* bad) {
  const std::int64_t total = rows * cols;
  bool found = false;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / cols, j = x - i * cols;
    const int v = d[i * ld + j];
    found |= v >= lo && v < cap;
  }
  if (found) atomicOr(bad, 1);
}

/// The same on the packed int16x2 matrix (n logical columns per row).
__global__ void find_in_band_s16(const unsigned* __restrict__ d16, std::int64_t ld16,
                                 std::int64_t n, int lo, int* bad) {
  const std::int64_t words = (n + 1) / 2, total = n * words;
  bool found = false;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / words, p = x - i * words;
    const unsigned w = d16[i * ld16 + p];
    const int a = lo16(w), b = hi16(w);
    found |= (a >= lo && a < kInf16) || (2 * p + 1 < n && b >= lo && b < kInf16);
  }
  if (found) atomicOr(bad, 1);
}

/// Rows [r0, r0 + rows) of an int32 matrix (ld) as U, n per row: the int32 unreachable value ->
/// U's (an int32 rung's result handed out as int64).
template <class U>
__global__ void widen_rows(const int* __restrict__ d, std::int64_t ld, std::int64_t r0,
                           std::int64_t rows, std::int64_t n, U* __restrict__ out) {
  const std::int64_t total = rows * n;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = x / n, j = x - r * n;
    const int v = d[(r0 + r) * ld + j];
    out[x] = detail::widen_value<U>(v);
  }
}

// ---- the int16x2 rung on a worker's local matrix (the encoding above: two int16 distances
// a word, capped at kInf16; local columns 2p and 2p+1 share word p, both in one tile) ----------

/// d16 (rows x ld16 words) from the int32 local matrix d (rows x ld): values capped at kInf16;
/// words past ld / 2 are kInf16.
__global__ void pack_local_s16(const int* __restrict__ d, i64 ld, i64 rows,
                               unsigned* __restrict__ d16, i64 ld16) {
  const i64 total = rows * ld16;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total;
       x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld16, p = x - r * ld16;
    int lo = kInf16, hi = kInf16;
    if (2 * p < ld) {
      const int2 v = *reinterpret_cast<const int2*>(d + r * ld + 2 * p);
      lo = min(v.x, kInf16);
      hi = min(v.y, kInf16);
    }
    d16[x] = pack16(lo, hi);
  }
}

/// d (rows x ld) from d16: kInf16 -> the int32 unreachable value.
__global__ void unpack_local_s16(const unsigned* __restrict__ d16, i64 ld16, i64 rows,
                                 int* __restrict__ d, i64 ld) {
  const i64 words = ld / 2, total = rows * words;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total;
       x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / words, p = x - r * words;
    const unsigned w = d16[r * ld16 + p];
    const int lo = lo16(w), hi = hi16(w);
    *reinterpret_cast<int2*>(d + r * ld + 2 * p) = make_int2(
        lo >= kInf16 ? detail::sentinel<int>() : lo, hi >= kInf16 ? detail::sentinel<int>() : hi);
  }
}

/// *bad = 1 when a value of the packed local matrix (rows x words used, stride ld16) lies in
/// [lo, kInf16).
__global__ void find_in_band_local_s16(const unsigned* __restrict__ d16, i64 ld16, i64 rows,
                                       i64 words, int lo, int* bad) {
  const i64 total = rows * words;
  bool found = false;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total;
       x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / words, p = x - r * words;
    const unsigned w = d16[r * ld16 + p];
    const int a = lo16(w), b = hi16(w);
    found |= (a >= lo && a < kInf16) || (b >= lo && b < kInf16);
  }
  if (found) atomicOr(bad, 1);
}

/// transpose_strip from the packed matrix: out[k][r] (int32) = column k0 + k of local row r, for
/// the 128 columns starting at word `w0` (= column 2 * w0). Grid (kTile / 32, rows / 32).
__global__ void transpose_strip_s16(const unsigned* __restrict__ d16, i64 ld16, i64 w0,
                                    int* __restrict__ out, i64 ldo) {
  __shared__ int s[32][33];
  const i64 r0 = i64(blockIdx.y) * 32, k0 = i64(blockIdx.x) * 32;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const i64 k = k0 + threadIdx.x;
    const unsigned w = d16[(r0 + y) * ld16 + w0 + k / 2];
    s[y][threadIdx.x] = (k & 1) ? hi16(w) : lo16(w);
  }
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y)
    out[(k0 + y) * ldo + r0 + threadIdx.x] = s[threadIdx.x][y];
}

}  // namespace
}  // namespace apsp::cuda
