// src/cuda/kernels/paths.cuh — device code of next hops (--paths). The cuda backend derives them
// after the rounds from the closed distances and the out-edges (next_hops_from_edges). Multi-gpu
// (and the mpi GPU ranks) keep them during the rounds with the CPU backend's arithmetic: a closure
// (closure_paths: blocked FW inside the tile, 64 x 64 blocks) and a min-plus GEMM that carries the
// next hop (and hop count) of the A side (minplus_paths), k in order for every output, so results
// equal `--backend cpu --block 128` bit for bit; its per-block body (paths_block) is shared with
// the listed variant of the sparse rounds (paths_listed.cuh). Reference: src/cpu/cpu_backend.cpp.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

#include "cuda/kernels/distances.cuh"

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

using i64 = std::int64_t;

// ---- next hops (--paths): from the closed distances and the out-edges --------------------------

/// next[i][j] = the out-neighbour v of i minimising w(i,v) + d[v][j] (the first in edge order on
/// ties), -1 for i == j or j unreachable. Each v it picks starts a shortest i -> j path; walks that
/// could circle a zero-weight cycle are repaired afterwards (repair_next_hops).
/// Laid out for the L2 cache: block (x, y) owns row i = x and the 4 * blockDim.x
/// columns of chunk y, one thread 4 columns. Blocks run roughly in linear order (x fastest), so
/// the blocks resident at any time share one column chunk, and the rows d[v][chunk] that the
/// out-neighbours of every row i read (A * V * 4 bytes in all, 327 GB for V = 16384, E = 5M)
/// come from a V x chunk slab that the host sizes to stay in L2: HBM sees d about once.
template <class T>
__global__ void next_hops_from_edges(const T* __restrict__ d, std::int64_t ld, std::int64_t n,
                                     const std::int64_t* __restrict__ row_ptr,
                                     const std::int32_t* __restrict__ col, const T* __restrict__ wt,
                                     std::int32_t* __restrict__ next) {
  const std::int64_t i = blockIdx.x;
  const std::int64_t j0 = (std::int64_t(blockIdx.y) * blockDim.x + threadIdx.x) * 4;
  if (i >= n || j0 >= n) return;
  // Integers: a start above every w + d (both below the unreachable value) so that some arc is
  // taken even toward unreachable j (masked below); floats: inf, never beaten by inf.
  constexpr T kStart = std::is_same_v<T, int>    ? T(0x7fffffff)
                       : std::is_same_v<T, long> ? T(0x7fffffffffffffffl)
                                                 : detail::sentinel<T>();
  T best[4];
  int arg[4] = {-1, -1, -1, -1};
#pragma unroll
  for (int q = 0; q < 4; ++q) best[q] = kStart;
  auto take = [&](int v, T w,
                  const T(&dv)[4]) {  // in edge order: strict '<' keeps the first minimum
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const T cand = w + dv[q];
      if (cand < best[q]) {
        best[q] = cand;
        arg[q] = v;
      }
    }
  };
  std::int64_t e = row_ptr[i];
  const std::int64_t e1 = row_ptr[i + 1];
  // Four out-neighbours' rows in flight at once: one at a time, each iteration waited a full
  // L2 round trip.
  for (; e + 4 <= e1; e += 4) {
    int v[4];
    T w[4];
    T dv[4][4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[k] = col[e + k];
      w[k] = wt[e + k];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) load4(&dv[k][0], d + v[k] * ld + j0);
#pragma unroll
    for (int k = 0; k < 4; ++k) take(v[k], w[k], dv[k]);
  }
  for (; e < e1; ++e) {
    T dv[4];
    load4(&dv[0], d + std::int64_t(col[e]) * ld + j0);
    take(col[e], wt[e], dv);
  }
  T dq[4];
  load4(&dq[0], d + i * ld + j0);
  int4 out;
  int* o = &out.x;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::int64_t j = j0 + q;
    o[q] = (j >= n || j == i || !detail::reachable(dq[q])) ? -1 : arg[q];
  }
  *reinterpret_cast<int4*>(next + i * ld + j0) = out;
}

// ---- next hops kept during the rounds (multi-gpu, mpi GPU ranks) ----
//
// With next hops the tiles are updated exactly as the CPU backend does (src/cpu/cpu_backend.cpp):
// panels in place from copies of their pre-update values, the rest update outside the pivot row
// and column, a sum replacing c only when strictly smaller (next[i][j] = next[i][k]). Each
// output's k loop runs in order, so results, next hops included, equal `--backend cpu --block 128`
// bit for bit. For streamed next hops of graphs with zero-weight edges (kHops) the comparison is
// on (distance, hop count), as the CPU kernels' hop-count variant, so that every walk ends without
// solve()'s repair. These kernels favour being obviously right over speed (plain tiling).

/// (s, sh) better than (c, ch): strictly shorter, or (with hop counts) as short with fewer edges.
template <class T, bool kHops>
__device__ __forceinline__ bool better(T s, int sh, T c, int ch) {
  if constexpr (kHops)
    return s < c || (s == c && sh < ch);
  else
    return s < c;
}

/// Closes one kTile x kTile tile in place (values d, next hops nx, hop counts hx; stride ld) as
/// the CPU backend closes a pivot wider than 64: blocked FW inside the tile with 64 x 64 blocks
/// (plain FW on the diagonal block, panels from copies of their old values, then the rest); then
/// copies the closed tile to piv = (values, next hops, hop counts), each B x B. One block.
template <class T, bool kHops>
__global__ void __launch_bounds__(1024) closure_paths(T* d, int* nx, int* hx, i64 ld, int* piv) {
  constexpr int kIn = 64, kR = kTile / kIn, kPer = kIn * kIn / 1024;  // 4 elements per thread
  __shared__ T oldv[kIn][kIn];
  __shared__ int oldn[kIn][kIn];
  __shared__ int oldh[kHops ? kIn : 1][kIn];
  auto at = [ld](int I, int J, int i, int j) { return i64(I * kIn + i) * ld + J * kIn + j; };
  for (int s = 0; s < kR; ++s) {
    // 1. Plain FW on the diagonal block (s, s).
    for (int k = 0; k < kIn; ++k) {
#pragma unroll
      for (int q = 0; q < kPer; ++q) {
        const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
        const T dik = d[at(s, s, i, k)];
        if (!detail::reachable(dik)) continue;  // nothing through k from i
        const T sv = dik + d[at(s, s, k, j)];
        const int sh = kHops ? hx[at(s, s, i, k)] + hx[at(s, s, k, j)] : 0;
        if (better<T, kHops>(sv, sh, d[at(s, s, i, j)], kHops ? hx[at(s, s, i, j)] : 0)) {
          d[at(s, s, i, j)] = sv;
          nx[at(s, s, i, j)] = nx[at(s, s, i, k)];
          if constexpr (kHops) hx[at(s, s, i, j)] = sh;
        }
      }
      __syncthreads();
    }
    // 2. Panels: (s, o) = P* (x) old (s, o) and (o, s) = old (o, s) (x) P*.
    for (int o = 0; o < kR; ++o) {
      if (o == s) continue;
#pragma unroll
      for (int q = 0; q < kPer; ++q) {
        const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
        oldv[i][j] = d[at(s, o, i, j)];
        if constexpr (kHops) oldh[i][j] = hx[at(s, o, i, j)];
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPer; ++q) {
        const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
        T c = d[at(s, o, i, j)];
        int cn = nx[at(s, o, i, j)], ch = kHops ? hx[at(s, o, i, j)] : 0;
        for (int k = 0; k < kIn; ++k) {
          const T sv = d[at(s, s, i, k)] + oldv[k][j];
          const int sh = kHops ? hx[at(s, s, i, k)] + oldh[k][j] : 0;
          if (better<T, kHops>(sv, sh, c, ch)) {
            c = sv;
            cn = nx[at(s, s, i, k)];
            ch = sh;
          }
        }
        d[at(s, o, i, j)] = c;
        nx[at(s, o, i, j)] = cn;
        if constexpr (kHops) hx[at(s, o, i, j)] = ch;
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPer; ++q) {
        const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
        oldv[i][j] = d[at(o, s, i, j)];
        oldn[i][j] = nx[at(o, s, i, j)];
        if constexpr (kHops) oldh[i][j] = hx[at(o, s, i, j)];
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kPer; ++q) {
        const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
        T c = d[at(o, s, i, j)];
        int cn = nx[at(o, s, i, j)], ch = kHops ? hx[at(o, s, i, j)] : 0;
        for (int k = 0; k < kIn; ++k) {
          const T sv = oldv[i][k] + d[at(s, s, k, j)];
          const int sh = kHops ? oldh[i][k] + hx[at(s, s, k, j)] : 0;
          if (better<T, kHops>(sv, sh, c, ch)) {
            c = sv;
            cn = oldn[i][k];
            ch = sh;
          }
        }
        d[at(o, s, i, j)] = c;
        nx[at(o, s, i, j)] = cn;
        if constexpr (kHops) hx[at(o, s, i, j)] = ch;
      }
      __syncthreads();
    }
    // 3. The rest: (I, J) = min((I, J), (I, s) (x) (s, J)) for I, J != s.
    for (int I = 0; I < kR; ++I)
      for (int J = 0; J < kR; ++J) {
        if (I == s || J == s) continue;
#pragma unroll
        for (int q = 0; q < kPer; ++q) {
          const int e = threadIdx.x + 1024 * q, i = e / kIn, j = e % kIn;
          T c = d[at(I, J, i, j)];
          int cn = nx[at(I, J, i, j)], ch = kHops ? hx[at(I, J, i, j)] : 0;
          for (int k = 0; k < kIn; ++k) {
            const T sv = d[at(I, s, i, k)] + d[at(s, J, k, j)];
            const int sh = kHops ? hx[at(I, s, i, k)] + hx[at(s, J, k, j)] : 0;
            if (better<T, kHops>(sv, sh, c, ch)) {
              c = sv;
              cn = nx[at(I, s, i, k)];
              ch = sh;
            }
          }
          d[at(I, J, i, j)] = c;
          nx[at(I, J, i, j)] = cn;
          if constexpr (kHops) hx[at(I, J, i, j)] = ch;
        }
      }
    __syncthreads();
  }
  const int j = threadIdx.x % kTile, i0 = threadIdx.x / kTile;  // 8 row groups
  for (int i = i0; i < kTile; i += 8) {
    T v = d[i * ld + j];
    piv[i * kTile + j] = *reinterpret_cast<int*>(&v);
    piv[kTile * kTile + i * kTile + j] = nx[i * ld + j];
    piv[2 * kTile * kTile + i * kTile + j] = kHops ? hx[i * ld + j] : 0;
  }
}

/// The per-block body of minplus_paths (and of minplus_paths_listed, paths_listed.cuh): the
/// 64 x 64 outputs of C from row m0 = origin(true) and column n0 = origin(false) (rows m0.. of A,
/// columns n0.. of B), depth kTile. 256 threads, 4 x 4 outputs per thread, A and B through shared
/// memory in chunks of 32 k; k runs in order for every output. (origin is called where
/// minplus_paths computed m0 and n0 before this body was shared: its PTX is unchanged.)
template <class T, bool kHops, class Origin>
__device__ __forceinline__ void paths_block(const T* __restrict__ A, const int* __restrict__ An,
                                            const int* __restrict__ Ah, i64 lda,
                                            const T* __restrict__ B, const int* __restrict__ Bh,
                                            i64 ldb, T* C, int* Cn, int* Ch, i64 ldc,
                                            Origin origin) {
  constexpr int kM = 64, kK = 32;
  __shared__ T sA[kK][kM + 1];
  __shared__ int sAn[kK][kM + 1];
  __shared__ int sAh[kHops ? kK : 1][kM + 1];
  __shared__ T sB[kK][kM];
  __shared__ int sBh[kHops ? kK : 1][kM];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const i64 m0 = origin(true), n0 = origin(false);
  T c[4][4];
  int cn[4][4], ch[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const i64 at = (m0 + ty + 16 * a) * ldc + n0 + tx + 16 * b;
      c[a][b] = C[at];
      cn[a][b] = Cn[at];
      ch[a][b] = kHops ? Ch[at] : 0;
    }
  for (int k0 = 0; k0 < kTile; k0 += kK) {
    __syncthreads();
    for (int x = threadIdx.x; x < kM * kK; x += 256) {
      const int r = x / kK, kk = x % kK;  // A: row r of the block, column k0 + kk
      const i64 at = (m0 + r) * lda + k0 + kk;
      sA[kk][r] = A[at];
      sAn[kk][r] = An[at];
      if constexpr (kHops) sAh[kk][r] = Ah[at];
      const int kr = x / kM, col = x % kM;  // B: row k0 + kr, column col of the block
      const i64 bt = (k0 + kr) * ldb + n0 + col;
      sB[kr][col] = B[bt];
      if constexpr (kHops) sBh[kr][col] = Bh[bt];
    }
    __syncthreads();
    for (int kk = 0; kk < kK; ++kk) {
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        const T av = sA[kk][ty + 16 * a];
        const int an = sAn[kk][ty + 16 * a];
        const int ah = kHops ? sAh[kk][ty + 16 * a] : 0;
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const T sv = av + sB[kk][tx + 16 * b];
          const int sh = kHops ? ah + sBh[kk][tx + 16 * b] : 0;
          if (better<T, kHops>(sv, sh, c[a][b], ch[a][b])) {
            c[a][b] = sv;
            cn[a][b] = an;
            ch[a][b] = sh;
          }
        }
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const i64 at = (m0 + ty + 16 * a) * ldc + n0 + tx + 16 * b;
      C[at] = c[a][b];
      Cn[at] = cn[a][b];
      if constexpr (kHops) Ch[at] = ch[a][b];
    }
}

/// C = min(C, A (x) B) with next hops taken from the A side (and hop counts), for an m x n block of
/// C (multiples of 64) and depth kTile: block (x, y) the 64 x 64 outputs from row 64 y, column
/// 64 x (paths_block).
template <class T, bool kHops>
__global__ void __launch_bounds__(256)
    minplus_paths(const T* __restrict__ A, const int* __restrict__ An, const int* __restrict__ Ah,
                  i64 lda, const T* __restrict__ B, const int* __restrict__ Bh, i64 ldb, T* C,
                  int* Cn, int* Ch, i64 ldc) {
  paths_block<T, kHops>(A, An, Ah, lda, B, Bh, ldb, C, Cn, Ch, ldc,
                        [](bool row) { return row ? i64(blockIdx.y) * 64 : i64(blockIdx.x) * 64; });
}

/// next[r][c] = global column if the entry is finite off the diagonal (and inside V), else -1;
/// hops = 1 where next >= 0, else 0 (as src/core/reference.cpp and the CPU backend).
template <class T>
__global__ void init_next(const T* __restrict__ d, int* __restrict__ nx, int* __restrict__ hx,
                          i64 ld, i64 rows, i64 n, int Pr, int pr, int Pc, int pc) {
  const i64 total = rows * ld;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total;
       x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld, c = x - r * ld;
    const i64 gi = global_index(r, Pr, pr), gj = global_index(c, Pc, pc);
    const int v = (gi != gj && gi < n && gj < n && detail::reachable(d[x])) ? int(gj) : -1;
    nx[x] = v;
    if (hx) hx[x] = v >= 0 ? 1 : 0;
  }
}
}  // namespace
}  // namespace apsp::cuda
