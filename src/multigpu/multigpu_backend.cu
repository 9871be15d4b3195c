// src/multigpu/multigpu_backend.cu — the multi-gpu backend: blocked Floyd-Warshall over the GPUs
// of one host, one process, NCCL between them.
//
// The GPUs form the 2D block-cyclic grid of src/mpi/block_cyclic.hpp (2 GPUs: 1 x 2, 4: 2 x 2)
// with tile B = cuda::kTile = 128; each GPU builds its own tiles from the edge list (or, for a
// dense graph, from stripes of the caller's matrix converted on the host: no edge list) and holds
// them as one local matrix. Row strides are the same on every GPU (gpu_strides, gpu_rank.hpp): ld,
// the grid's widest local column count, for the local matrix and the row panels; ldt, the widest
// local row count, for the transposed column strips. The device code is the cuda
// backend's (src/cuda/fw_kernels.cuh): closure_and_transpose closes the pivot, the Panels GEMM
// (grid y = 1 only, so only its row-panel form runs) computes P* (x) D[t,J] and, on the transposed
// column strip, (D[I,t] (x) P*)^T, and the Rest GEMM updates every local tile, pivot row and column
// included (for those it writes the panel value; see fw_kernels.cuh). Only the transpose of the
// pivot column strip, the layout-aware build and the driver below are this file's own.
//
// Round t, per GPU, on two streams:
//   look (high priority): [pivot owner] close P -> (P*, P*^T); NCCL broadcast of (P*, P*^T) along
//          the pivot's grid row and grid column; [grid row of t] row panel -> rowp; [grid column
//          of t] transpose the column strip and compute colT; NCCL broadcast of rowp down grid
//          columns and of colT along grid rows; event ready[t % 2].
//   main:  wait ready[t % 2]; Rest GEMM over local tile row t+1 and column t+1 first (lookahead:
//          event a_done, on which look waits before it starts round t+1 — so round t+1's pivot,
//          panels and broadcasts run while main does the remaining tiles of round t).
// One host thread drives every GPU; NCCL calls for several GPUs are grouped (ncclGroupStart/End).
// rowp/colT/pivot buffers are double-buffered by round parity.
//
// The driver (MultiGpuRounds) works on whichever workers of the grid this process holds: all of
// them here (communicators by ncclCommInitAll), or one in an mpi GPU rank (gpu_rank.hpp:
// GpuRankOf, communicators by ncclCommInitRank from ids the mpi backend broadcasts over MPI; the
// mpi backend gathers the result).
//
// Output: stripes of whole tile rows are copied device -> pinned host (stripe s+1 in flight while
// stripe s is reassembled and handed to SolveOptions::dist_sink), or into Result::dist without a
// sink. References: Venkataraman et al. (JEA 2003) for the blocking; ScaLAPACK's 2D block-cyclic
// layout and lookahead (HPL's "lookahead depth 1").
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/rounds.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_solver.cuh"
#include "cuda/fw_kernels.cuh"
#include "cuda/ladder_kernels.cuh"
#include "cpu/blocked_fw.hpp"
#include "dist/block_cyclic.hpp"
#include "dist/gpu_rank.hpp"

#define APSP_NCCL_TRY(call)                                                                          \
  do {                                                                                               \
    const ncclResult_t apsp_nccl_rc_ = (call);                                                       \
    if (apsp_nccl_rc_ != ncclSuccess)                                                                \
      throw ::apsp::Error(std::string("NCCL error: ") + ncclGetErrorString(apsp_nccl_rc_) + " (" + #call + \
                          " at " + __FILE__ + ":" + std::to_string(__LINE__) + ")");                 \
  } while (0)

namespace apsp::detail {

/// cuda_backend.cu's choice of the int16x2 rung for a graph: 0 not tried, 1 tried (the cuda
/// backend asks sampled-distance evidence first), 2 forced (APSP_CUDA_INT16=1).
int cuda_int16_policy(const Graph& g, double max_w, double min_w);

namespace multigpu {

namespace {

using cuda::DeviceBuffer;
using cuda::GemmMode;
using cuda::kTile;
using dist::Grid;
using dist::i64;
using dist::Layout;
using dist::TileRange;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr i64 kStripeBytes = i64(64) << 20;

// ---- device code of this file: layout-aware build and the column-strip transpose ----------------

/// Global vertex of local row (or column) x of worker q of p, tile B.
__device__ __forceinline__ i64 global_index(i64 x, int p, int q) { return ((x / kTile) * p + q) * kTile + x % kTile; }

/// Local matrix (rows x ld) = 0 where the global row equals the global column, unreachable elsewhere.
template <class T>
__global__ void init_local(T* __restrict__ d, i64 ld, i64 rows, int Pr, int pr, int Pc, int pc) {
  const i64 total = rows * ld;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total; x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld, c = x - r * ld;
    d[x] = global_index(r, Pr, pr) == global_index(c, Pc, pc) ? T(0) : cuda::inf_value<T>();
  }
}

/// The edges this worker owns, min over duplicates; self loops with w >= 0 ignored.
template <class T>
__global__ void scatter_local(T* __restrict__ d, i64 ld, const std::int32_t* __restrict__ src,
                              const std::int32_t* __restrict__ dst, const double* __restrict__ w, i64 E,
                              bool undirected, int Pr, int pr, int Pc, int pc) {
  auto place = [&](i64 u, i64 v, T x) {
    const i64 I = u / kTile, J = v / kTile;
    if (I % Pr != pr || J % Pc != pc) return;
    cuda::atomic_min_value(d + ((I / Pr) * kTile + u % kTile) * ld + (J / Pc) * kTile + v % kTile, x);
  };
  for (i64 e = blockIdx.x * i64(blockDim.x) + threadIdx.x; e < E; e += i64(gridDim.x) * blockDim.x) {
    const i64 u = src[e], v = dst[e];
    T x;
    if constexpr (std::is_same_v<T, int>) x = __double2int_rn(w[e]);
    else if constexpr (std::is_same_v<T, long>) x = __double2ll_rn(w[e]);
    else x = T(w[e]);
    if (u == v && !(x < T(0))) continue;
    place(u, v, x);
    if (undirected && u != v) place(v, u, x);
  }
}

/// out[k][r] = d[r][k] for r < rows, k < kTile: the pivot column strip, k-major, as the Panels
/// GEMM reads it. 32 x 32 tiles through shared memory; grid (kTile / 32, rows / 32).
template <class T> __global__ void transpose_strip(const T* __restrict__ d, i64 ld, T* __restrict__ out, i64 ldo) {
  __shared__ T s[32][33];
  const i64 r0 = i64(blockIdx.y) * 32, k0 = i64(blockIdx.x) * 32;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) s[y][threadIdx.x] = d[(r0 + y) * ld + k0 + threadIdx.x];
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y) out[(k0 + y) * ldo + r0 + threadIdx.x] = s[threadIdx.x][y];
}


// ---- the int16x2 rung on the local matrix (the ladder_kernels.cuh encoding: two int16 distances
// a word, capped at kInf16; local columns 2p and 2p+1 share word p, both in one tile) ----------

/// d16 (rows x ld16 words) from the int32 local matrix d (rows x ld): values capped at kInf16;
/// words past ld / 2 are kInf16.
__global__ void pack_local_s16(const int* __restrict__ d, i64 ld, i64 rows, unsigned* __restrict__ d16, i64 ld16) {
  const i64 total = rows * ld16;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total; x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld16, p = x - r * ld16;
    int lo = cuda::kInf16, hi = cuda::kInf16;
    if (2 * p < ld) {
      const int2 v = *reinterpret_cast<const int2*>(d + r * ld + 2 * p);
      lo = min(v.x, cuda::kInf16);
      hi = min(v.y, cuda::kInf16);
    }
    d16[x] = cuda::pack16(lo, hi);
  }
}

/// d (rows x ld) from d16: kInf16 -> the int32 unreachable value.
__global__ void unpack_local_s16(const unsigned* __restrict__ d16, i64 ld16, i64 rows, int* __restrict__ d, i64 ld) {
  const i64 words = ld / 2, total = rows * words;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total; x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / words, p = x - r * words;
    const unsigned w = d16[r * ld16 + p];
    const int lo = cuda::lo16(w), hi = cuda::hi16(w);
    *reinterpret_cast<int2*>(d + r * ld + 2 * p) = make_int2(lo >= cuda::kInf16 ? cuda::inf_value<int>() : lo,
                                                           hi >= cuda::kInf16 ? cuda::inf_value<int>() : hi);
  }
}

/// *bad = 1 when a value of the packed local matrix (rows x words used, stride ld16) lies in
/// [lo, kInf16).
__global__ void find_in_band_local_s16(const unsigned* __restrict__ d16, i64 ld16, i64 rows, i64 words, int lo,
                                       int* bad) {
  const i64 total = rows * words;
  bool found = false;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total; x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / words, p = x - r * words;
    const unsigned w = d16[r * ld16 + p];
    const int a = cuda::lo16(w), b = cuda::hi16(w);
    found |= (a >= lo && a < cuda::kInf16) || (b >= lo && b < cuda::kInf16);
  }
  if (found) atomicOr(bad, 1);
}

/// transpose_strip from the packed matrix: out[k][r] (int32) = column k0 + k of local row r, for
/// the 128 columns starting at word `w0` (= column 2 * w0). Grid (kTile / 32, rows / 32).
__global__ void transpose_strip_s16(const unsigned* __restrict__ d16, i64 ld16, i64 w0, int* __restrict__ out,
                                    i64 ldo) {
  __shared__ int s[32][33];
  const i64 r0 = i64(blockIdx.y) * 32, k0 = i64(blockIdx.x) * 32;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const i64 k = k0 + threadIdx.x;
    const unsigned w = d16[(r0 + y) * ld16 + w0 + k / 2];
    s[y][threadIdx.x] = (k & 1) ? cuda::hi16(w) : cuda::lo16(w);
  }
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y) out[(k0 + y) * ldo + r0 + threadIdx.x] = s[threadIdx.x][y];
}

// ---- next hops (--paths): this file's own kernels, the CPU backend's arithmetic ----------------
//
// With next hops the tiles are updated exactly as the CPU backend does (src/cpu/cpu_backend.cpp):
// panels in place from copies of their pre-update values, the rest update outside the pivot row
// and column, a sum replacing c only when strictly smaller (next[i][j] = next[i][k]). Each
// output's k loop runs in order, so results, next hops included, equal `--backend cpu --block 128`
// bit for bit. For streamed next hops of graphs with zero-weight edges (kHops) the comparison is
// on (distance, hop count), as the CPU kernels' hop-count variant, so that every walk ends without
// solve()'s repair. These kernels favour being obviously right over speed (plain tiling).

/// (s, sh) better than (c, ch): strictly shorter, or (with hop counts) as short with fewer edges.
template <class T, bool kHops> __device__ __forceinline__ bool better(T s, int sh, T c, int ch) {
  if constexpr (kHops) return s < c || (s == c && sh < ch);
  else return s < c;
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
        if (!(dik < cuda::inf_value<T>())) continue;  // nothing through k from i
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

/// C = min(C, A (x) B) with next hops taken from the A side (and hop counts), for an m x n block of
/// C (multiples of 64) and depth kTile. 64 x 64 outputs per 256-thread block, 4 x 4 per thread,
/// A and B through shared memory in chunks of 32 k; k runs in order for every output.
template <class T, bool kHops>
__global__ void __launch_bounds__(256) minplus_paths(const T* __restrict__ A, const int* __restrict__ An,
                                                     const int* __restrict__ Ah, i64 lda, const T* __restrict__ B,
                                                     const int* __restrict__ Bh, i64 ldb, T* C, int* Cn, int* Ch,
                                                     i64 ldc) {
  constexpr int kM = 64, kK = 32;
  __shared__ T sA[kK][kM + 1];
  __shared__ int sAn[kK][kM + 1];
  __shared__ int sAh[kHops ? kK : 1][kM + 1];
  __shared__ T sB[kK][kM];
  __shared__ int sBh[kHops ? kK : 1][kM];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const i64 m0 = i64(blockIdx.y) * kM, n0 = i64(blockIdx.x) * kM;
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

/// next[r][c] = global column if the entry is finite off the diagonal (and inside V), else -1;
/// hops = 1 where next >= 0, else 0 (as src/core/reference.cpp and the CPU backend).
template <class T>
__global__ void init_next(const T* __restrict__ d, int* __restrict__ nx, int* __restrict__ hx, i64 ld, i64 rows, i64 n,
                          int Pr, int pr, int Pc, int pc) {
  const i64 total = rows * ld;
  for (i64 x = blockIdx.x * i64(blockDim.x) + threadIdx.x; x < total; x += i64(gridDim.x) * blockDim.x) {
    const i64 r = x / ld, c = x - r * ld;
    const i64 gi = global_index(r, Pr, pr), gj = global_index(c, Pc, pc);
    const int v = (gi != gj && gi < n && gj < n && d[x] < cuda::inf_value<T>()) ? int(gj) : -1;
    nx[x] = v;
    if (hx) hx[x] = v >= 0 ? 1 : 0;
  }
}

// ---- host side -----------------------------------------------------------------------------------

template <class T> ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, int>) return ncclInt32;
  else if constexpr (std::is_same_v<T, long>) return ncclInt64;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else return ncclFloat64;
}

static_assert(kGpuTile == kTile, "gpu_rank.hpp's tile must be the cuda backend's");
static_assert(kGpuEdgeChunk == cuda::kEdgeChunk, "gpu_rank.hpp's edge chunk (memory estimate) must be the build's");

/// One GPU's share: its layout, streams, events, communicators and buffers.
template <class T> struct Gpu {
  int ordinal = 0;
  Layout L;
  cudaStream_t main = nullptr, look = nullptr;
  cudaEvent_t ready[2] = {nullptr, nullptr}, a_done = nullptr, copied[2] = {nullptr, nullptr};
  ncclComm_t row = nullptr, col = nullptr;  // this GPU's grid row / grid column (null when of size 1)
  // D: local_rows x ld; rowp: B x ld; csT, colT: B x ldt (transposed: indexed by local rows);
  // piv: (P*, P*^T), 2 B^2. ld / ldt: MultiGpuRounds::ld_ / ldt_.
  DeviceBuffer<T> D, csT, rowp[2], colT[2], piv[2];
  // With next hops (4-byte words; values, next hops and hop counts side by side):
  DeviceBuffer<int> N, H;                     // local next hops / hop counts, like D (stride ld)
  DeviceBuffer<int> pw[2];                    // pivot: values | next | hops, B^2 each
  DeviceBuffer<int> rowpw[2], rowold;         // row panel: values | hops, B x ld each
  DeviceBuffer<int> colpw[2], colold;         // column panel: values | next | hops, local_rows x B each
  // The int16x2 rung (T = int, distances): D16 (local_rows x ld16 words), row panels likewise
  // (B x ld16); the column panel is colT holding replicated words, the pivot piv (P* int32 |
  // P*^T replicated words). flag: a band check's answer.
  DeviceBuffer<unsigned> D16, rowp16[2];
  DeviceBuffer<int> flag;
  // APSP_MG_PROFILE=1: timed events bracketing each phase (phase, begin, end), read after the run.
  struct Span {
    int phase;
    cudaEvent_t begin, end;
  };
  std::vector<Span> spans;
  std::vector<cudaEvent_t> marks;

  Gpu() = default;
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;
  ~Gpu() {
    cudaSetDevice(ordinal);
    if (row) ncclCommDestroy(row);
    if (col) ncclCommDestroy(col);
    for (cudaEvent_t e : {ready[0], ready[1], a_done, copied[0], copied[1]})
      if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : marks) cudaEventDestroy(e);
    if (main) cudaStreamDestroy(main);
    if (look) cudaStreamDestroy(look);
  }
};

/// Pinned host array, freed on scope exit.
template <class T> struct PinnedArray {
  T* p = nullptr;
  i64 count = 0;
  void resize(i64 n) {
    if (p) cudaFreeHost(p);
    p = nullptr;
    count = n;
    if (n > 0) APSP_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&p), std::size_t(n) * sizeof(T)));
  }
  PinnedArray() = default;
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  ~PinnedArray() {
    if (p) cudaFreeHost(p);
  }
};

std::string gib(double b) {
  std::ostringstream os;
  os.precision(3);
  os << b / double(std::size_t(1) << 30) << " GiB";
  return os.str();
}

/// Runs f(r) for r in [0, rows) on up to 32 host threads (the stripe reassembly is memory-bound).
template <class F> void parallel_rows(i64 rows, const F& f) {
  const i64 threads = std::min<i64>({i64(std::max(1u, std::thread::hardware_concurrency())), 32, (rows + 63) / 64});
  if (threads <= 1) {
    for (i64 r = 0; r < rows; ++r) f(r);
    return;
  }
  std::vector<std::thread> pool;
  for (i64 w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (i64 r = rows * w / threads; r < rows * (w + 1) / threads; ++r) f(r);
    });
  for (auto& th : pool) th.join();
}

/// A GPU of the grid that this process drives: its device ordinal and its worker index in the grid.
struct Member {
  int ordinal = 0;
  int worker = 0;
};

/// The round loop over the GPUs this process drives (`members`), which hold some or all of the
/// grid's workers: all of them (the multi-gpu backend: one process, connect_in_process()) or one
/// (an mpi GPU rank: connect_ranks()). Everything below works on the members it has; only the
/// in-process gather() needs every worker here.
template <class T> class MultiGpuRounds final : public RoundOps {
 public:
  MultiGpuRounds(const Grid& grid, const std::vector<Member>& members, i64 n, Mode mode) : grid_(grid), mode_(mode) {
    // The next-hop kernels below hold 4-byte values (their shared tiles): int64 / float64 run
    // distances only (check_fits refuses them with paths).
    APSP_EXPECTS(sizeof(T) == 4 || mode == Mode::Distances, "multi-gpu next hops need 4-byte distances");
    const GpuStrides strides = gpu_strides(grid_, n);
    ld_ = strides.cols;
    ldt_ = strides.rows;
    gpus_.reserve(members.size());
    for (const Member& m : members) {
      gpus_.push_back(std::make_unique<Gpu<T>>());
      Gpu<T>& g = *gpus_.back();
      g.ordinal = m.ordinal;
      g.L = Layout(grid_, m.worker, n, kTile);
      APSP_CUDA_TRY(cudaSetDevice(g.ordinal));
      int lo = 0, hi = 0;
      APSP_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&lo, &hi));
      APSP_CUDA_TRY(cudaStreamCreateWithPriority(&g.main, cudaStreamNonBlocking, lo));
      APSP_CUDA_TRY(cudaStreamCreateWithPriority(&g.look, cudaStreamNonBlocking, hi));
      for (cudaEvent_t* e : {&g.ready[0], &g.ready[1], &g.a_done, &g.copied[0], &g.copied[1]})
        APSP_CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
      const std::size_t local = std::size_t(std::max<i64>(1, g.L.local_rows() * ld_));
      g.D = DeviceBuffer<T>(local);
      if (mode_ == Mode::Distances) {
        g.csT = DeviceBuffer<T>(std::size_t(kTile * ldt_));
        for (int s = 0; s < 2; ++s) {
          g.rowp[s] = DeviceBuffer<T>(std::size_t(kTile * ld_));
          g.colT[s] = DeviceBuffer<T>(std::size_t(kTile * ldt_));
          g.piv[s] = DeviceBuffer<T>(std::size_t(2 * kTile * kTile));
        }
      } else {
        const std::size_t col = std::size_t(std::max<i64>(1, 3 * g.L.local_rows() * kTile));
        g.N = DeviceBuffer<int>(local);
        if (mode_ == Mode::HopCounts) g.H = DeviceBuffer<int>(local);
        g.rowold = DeviceBuffer<int>(std::size_t(2 * kTile * ld_));
        g.colold = DeviceBuffer<int>(col);
        for (int s = 0; s < 2; ++s) {
          g.pw[s] = DeviceBuffer<int>(std::size_t(3 * kTile * kTile));
          g.rowpw[s] = DeviceBuffer<int>(std::size_t(2 * kTile * ld_));
          g.colpw[s] = DeviceBuffer<int>(col);
        }
      }
      // Per device: the attribute is set in the current device's context.
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::minplus_gemm_128x128<T, GemmMode::Panels>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::gemm_smem_bytes<T>())));
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::minplus_gemm_128x128<T, GemmMode::Rest>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::gemm_smem_bytes<T>())));
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::closure_and_transpose<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(cuda::closure_smem_bytes<T>())));
    }
  }

  /// One communicator per grid row and per grid column, every worker in this process
  /// (ncclCommInitAll over the members of each row and column).
  void connect_in_process() {
    APSP_EXPECTS(int(gpus_.size()) == grid_.P, "connect_in_process needs every worker of the grid in this process");
    if (grid_.Pc > 1)
      for (int pr = 0; pr < grid_.Pr; ++pr) make_comms(pr, true);
    if (grid_.Pr > 1)
      for (int pc = 0; pc < grid_.Pc; ++pc) make_comms(pc, false);
    warm_up_comms();
  }

  /// The communicators of this process's one worker (an MPI rank): its grid row, then its grid
  /// column, each from an NCCL id that the member with index 0 creates and `links` broadcasts.
  /// Every rank joins its row before its column, so the blocking ncclCommInitRank calls cannot
  /// wait on each other in a cycle.
  void connect_ranks(RankLinks& links) {
    APSP_EXPECTS(gpus_.size() == 1, "connect_ranks drives exactly one GPU");
    Gpu<T>& q = *gpus_.front();
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    if (grid_.Pc > 1) q.row = join(links, true, grid_.Pc, q.L.pc);
    if (grid_.Pr > 1) q.col = join(links, false, grid_.Pr, q.L.pr);
    warm_up_comms();
  }

  /// NCCL connects a communicator's peers lazily, inside its first collective (NCCL 2.22+). Left
  /// to round 0's pivot broadcast, that set-up lands in the rounds: measured on 2 x H200 at
  /// V=32768, the pivot broadcasts took 169 ms in all with one process per GPU vs 68 ms in one
  /// process (APSP_MG_PROFILE=1; 256 rounds, the same per-round cost otherwise). So every row
  /// and column communicator does one panel-sized broadcast here, grouped as in the rounds, and
  /// the set-up counts as set-up: grid columns a row panel's size (B x ld), grid rows a
  /// transposed column panel's (B x ldt), from one scratch buffer of the larger (counted in
  /// gpu_bytes_on). Collective over the grid (all members call connect_*()).
  void warm_up_comms() {
    if (grid_.P == 1) return;
    const std::size_t col_bytes = std::size_t(kTile * ld_) * sizeof(T);   // grid columns: a row panel
    const std::size_t row_bytes = std::size_t(kTile * ldt_) * sizeof(T);  // grid rows: a column panel
    std::vector<DeviceBuffer<char>> scratch;
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      scratch.emplace_back(std::max(col_bytes, row_bytes));
    }
    APSP_NCCL_TRY(ncclGroupStart());
    for (std::size_t x = 0; x < gpus_.size(); ++x) {
      Gpu<T>& q = *gpus_[x];
      char* buf = scratch[x].get();
      if (q.col) APSP_NCCL_TRY(ncclBroadcast(buf, buf, col_bytes, ncclInt8, 0, q.col, q.look));
      if (q.row) APSP_NCCL_TRY(ncclBroadcast(buf, buf, row_bytes, ncclInt8, 0, q.row, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
    synchronize();
  }

  const Grid& grid() const { return grid_; }
  i64 ld() const { return ld_; }

  /// Copies `rows` local rows from local row `row0` of member 0's distances (or next hops) to
  /// host memory at `dst`, densely: local_cols() elements a row (T, or int32 next hops; the
  /// device rows are ld() wide, which may be more). Returns when they are there.
  void rows_to_host(bool next_hops, i64 row0, i64 rows, void* dst) {
    Gpu<T>& q = *gpus_.front();
    const i64 cols = q.L.local_cols();
    if (rows <= 0 || cols <= 0) return;
    APSP_EXPECTS(row0 >= 0 && row0 + rows <= q.L.local_rows(), "rows_to_host: rows outside the local matrix");
    APSP_EXPECTS(!next_hops || q.N.get(), "rows_to_host: no next hops were kept");
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const void* src = next_hops ? static_cast<const void*>(q.N.get() + row0 * ld_)
                                : static_cast<const void*>(q.D.get() + row0 * ld_);
    const std::size_t elem = next_hops ? 4 : sizeof(T);
    APSP_CUDA_TRY(cudaMemcpy2DAsync(dst, std::size_t(cols) * elem, src, std::size_t(ld_) * elem,
                                    std::size_t(cols) * elem, std::size_t(rows), cudaMemcpyDeviceToHost, q.main));
    APSP_CUDA_TRY(cudaStreamSynchronize(q.main));
  }

  void build(const Graph& g) {
    if (g.is_dense()) build_dense(g);
    else build_edges(g);
    if (mode_ != Mode::Distances)
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.L.local_rows() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        init_next<T><<<1024, 256, 0, q.main>>>(q.D.get(), q.N.get(), q.H.get(), ld_, q.L.local_rows(), q.L.n, grid_.Pr,
                                               q.L.pr, grid_.Pc, q.L.pc);
        APSP_CUDA_CHECK_LAUNCH(q.main);
      }
    synchronize();
  }

  /// Each GPU's local matrix straight from a dense graph's matrix, all ld() columns (padding and
  /// the columns past local_cols() included, as init_local leaves them): its local rows converted
  /// on the host in stripes and uploaded (cuda::upload_dense), one GPU after the other.
  void build_dense(const Graph& g) {
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      if (q.L.local_rows() == 0) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      cuda::upload_dense<T>(g, cuda::inf_value<T>(), q.L.local_rows(), detail::TileMap{kTile, grid_.Pr, q.L.pr}, ld_,
                            detail::TileMap{kTile, grid_.Pc, q.L.pc}, q.D.get(), ld_, q.main);
    }
  }

  void build_edges(const Graph& g) {
    const i64 E = i64(g.num_edges());
    const i64 chunk = std::max<i64>(1, std::min(E, cuda::kEdgeChunk));
    std::vector<DeviceBuffer<std::int32_t>> src, dst;
    std::vector<DeviceBuffer<double>> w;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.local_rows() > 0) {
        init_local<T><<<1024, 256, 0, q.main>>>(q.D.get(), ld_, q.L.local_rows(), grid_.Pr, q.L.pr, grid_.Pc, q.L.pc);
        APSP_CUDA_CHECK_LAUNCH(q.main);
      }
      src.emplace_back(std::size_t(chunk));
      dst.emplace_back(std::size_t(chunk));
      w.emplace_back(std::size_t(chunk));
    }
    for (i64 e0 = 0; e0 < E; e0 += chunk) {
      const i64 m = std::min(chunk, E - e0);
      for (std::size_t x = 0; x < gpus_.size(); ++x) {
        Gpu<T>& q = *gpus_[x];
        if (q.L.local_rows() == 0 || q.L.local_cols() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        APSP_CUDA_TRY(cudaMemcpyAsync(src[x].get(), g.src.data() + e0, m * 4, cudaMemcpyHostToDevice, q.main));
        APSP_CUDA_TRY(cudaMemcpyAsync(dst[x].get(), g.dst.data() + e0, m * 4, cudaMemcpyHostToDevice, q.main));
        APSP_CUDA_TRY(cudaMemcpyAsync(w[x].get(), g.weight.data() + e0, m * 8, cudaMemcpyHostToDevice, q.main));
        const int blocks = int(std::min<i64>((m + 255) / 256, 4096));
        scatter_local<T><<<blocks, 256, 0, q.main>>>(q.D.get(), ld_, src[x].get(), dst[x].get(), w[x].get(), m,
                                                     !g.directed, grid_.Pr, q.L.pr, grid_.Pc, q.L.pc);
        APSP_CUDA_CHECK_LAUNCH(q.main);
      }
      // The next chunk overwrites the upload buffers.
      synchronize();
    }
  }

  void synchronize() {
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->look));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
    }
  }

  void set_progress(ProgressFn f) { progress_ = std::move(f); }

  /// APSP_MG_PROFILE=1 (distances only): after the rounds, one line per GPU on stderr with the
  /// summed GPU time of each phase, measured by timed events on its two streams: "closure",
  /// "pivot_bcast", "panels", "panel_bcast" (look stream), "rest" (main stream, from the end of
  /// its wait for the round's panels to its last rest tile), "main_wait" (the main stream idle
  /// until the panels are ready), "look_wait" (the look stream idle until this round's first
  /// rest tiles are done), and "span" (first to last event). A diagnostic, off by default.
  void report_profile() {
    if (!profiling_) return;
    static const char* names[] = {"closure", "pivot_bcast", "panels", "panel_bcast", "rest", "main_wait", "look_wait"};
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      double sum[kPhases] = {}, total = 0;
      if (q.marks.size() >= 2) {
        float ms = 0;
        APSP_CUDA_TRY(cudaEventSynchronize(q.marks.back()));
        for (const auto& sp : q.spans) {
          APSP_CUDA_TRY(cudaEventElapsedTime(&ms, sp.begin, sp.end));
          sum[sp.phase] += ms;
        }
        float first = 0, last = 0;
        for (cudaEvent_t e : q.marks) {  // the earliest and latest event on either stream
          APSP_CUDA_TRY(cudaEventElapsedTime(&ms, q.marks.front(), e));
          first = std::min(first, ms);
          last = std::max(last, ms);
        }
        total = last - first;
      }
      std::ostringstream os;
      os.precision(1);
      os << std::fixed << "mgprof gpu=" << q.ordinal << " worker=" << grid_.rank_of(q.L.pr, q.L.pc)
         << " grid=" << grid_.Pr << "x" << grid_.Pc << " rounds=" << q.L.R << " span_ms=" << total;
      for (int ph = 0; ph < kPhases; ++ph) os << " " << names[ph] << "_ms=" << sum[ph];
      std::fprintf(stderr, "%s\n", os.str().c_str());
    }
  }

  // ---- the type ladder (core/distance_evidence.hpp): capped rungs kept only when a band check
  // over every GPU's local matrix passes ----

  /// Whether every GPU here has the memory for the packed matrix and row panels (with 256 MiB
  /// to spare).
  bool s16_fits() {
    const i64 ld16 = (ld_ / 2 + kTile - 1) / kTile * kTile;
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      std::size_t free_b = 0, total_b = 0;
      APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
      const std::size_t need = std::size_t(p->L.local_rows() + 2 * kTile) * std::size_t(ld16) * 4;
      if (need + (std::size_t(256) << 20) > free_b) return false;
    }
    return true;
  }

  /// int16x2 rounds next (T = int, distances; s16_fits()): packs every GPU's built int32
  /// matrix, which stays as built for a fall-back.
  void begin_s16() {
    static_assert(std::is_same_v<T, int>, "int16x2 rounds hold int32 distances");
    APSP_EXPECTS(mode_ == Mode::Distances, "int16x2 rounds are for distances");
    ld16_ = (ld_ / 2 + kTile - 1) / kTile * kTile;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      q.D16 = DeviceBuffer<unsigned>(std::size_t(std::max<i64>(1, q.L.local_rows() * ld16_)));
      for (auto& r : q.rowp16) r = DeviceBuffer<unsigned>(std::size_t(kTile * ld16_));
      if (q.flag.size() == 0) q.flag = DeviceBuffer<int>(1);
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::minplus_gemm_128x128<int, GemmMode::ColPanelRep>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::kGemmSmemBytes)));
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::minplus_gemm_128x128<unsigned, GemmMode::RowPanel>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::kGemmSmemBytes)));
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::minplus_gemm_128x128<unsigned, GemmMode::Rest>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(cuda::kGemmSmemBytes)));
      APSP_CUDA_TRY(cudaFuncSetAttribute(cuda::closure_and_transpose_s16, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(cuda::kClosureSmemBytes)));
      if (q.L.local_rows() > 0) {
        pack_local_s16<<<2048, 256, 0, q.main>>>(q.D.get(), ld_, q.L.local_rows(), q.D16.get(), ld16_);
        APSP_CUDA_CHECK_LAUNCH(q.main);
      }
    }
    synchronize();
    s16_ = true;
    ahead_ = -1;
  }

  /// After int16x2 rounds: true when no GPU holds a value in [band_lo, kInf16), and then every
  /// int32 matrix holds the exact result; false when some may, and every int32 matrix is still
  /// as built (the int32 rounds follow). Either way the packed buffers are freed. Synchronizes.
  /// `agree` turns this process's answer ("some GPU here is in the band") into the grid's (an
  /// mpi GPU rank: an OR over the ranks).
  bool end_s16(int band_lo, const std::function<bool(bool)>& agree = {}) {
    APSP_EXPECTS(s16_, "end_s16 without begin_s16");
    bool bad = false;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaMemsetAsync(q.flag.get(), 0, sizeof(int), q.main));
      if (q.L.local_rows() > 0)
        find_in_band_local_s16<<<1024, 256, 0, q.main>>>(q.D16.get(), ld16_, q.L.local_rows(), ld_ / 2, band_lo,
                                                         q.flag.get());
      APSP_CUDA_CHECK_LAUNCH(q.main);
    }
    bad = read_flags();
    if (agree) bad = agree(bad);
    if (!bad)
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.L.local_rows() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        unpack_local_s16<<<2048, 256, 0, q.main>>>(q.D16.get(), ld16_, q.L.local_rows(), q.D.get(), ld_);
        APSP_CUDA_CHECK_LAUNCH(q.main);
      }
    synchronize();
    release_s16();
    ahead_ = -1;
    return !bad;
  }

  /// Checked int32 rounds (an int64 result): whether some GPU holds a value in [band_lo, the
  /// int32 unreachable value), i.e. the rung cannot be trusted. Synchronizes.
  bool int32_in_band(int band_lo) {
    static_assert(std::is_same_v<T, int>, "the checked int32 rung");
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.flag.size() == 0) q.flag = DeviceBuffer<int>(1);
      APSP_CUDA_TRY(cudaMemsetAsync(q.flag.get(), 0, sizeof(int), q.main));
      if (q.L.local_rows() > 0)
        cuda::find_in_band<<<2048, 256, 0, q.main>>>(q.D.get(), ld_, q.L.local_rows(), ld_, band_lo,
                                                     cuda::inf_value<int>(), q.flag.get());
      APSP_CUDA_CHECK_LAUNCH(q.main);
    }
    return read_flags();
  }

  // ---- RoundOps ----
  i64 num_rounds() const override { return gpus_.front()->L.R; }
  void close_pivot(i64 t) override {
    if (ahead_ < t) pivot_any(t);
  }
  void update_panels(i64 t) override {
    if (ahead_ < t) {
      panels_any(t);
      ahead_ = t;
    }
  }
  void update_rest(i64 t) override {
    const int slot = int(t % 2);
    const i64 R = num_rounds();
    const auto w0 = mark_all(&Gpu<T>::main);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaStreamWaitEvent(q.main, q.ready[slot], 0));
    }
    span_all(kMainWait, w0, &Gpu<T>::main);
    if (mode_ != Mode::Distances) {
      if constexpr (sizeof(T) == 4) update_rest_paths(t);
      return;
    }
    if constexpr (std::is_same_v<T, int>) {
      if (s16_) return update_rest_s16(t);
    }
    const auto r0 = mark_all(&Gpu<T>::main);
    if (t + 1 >= R) {
      for (auto& p : gpus_) rest(*p, slot, {0, p->L.lr}, {0, p->L.lc});
      span_all(kRest, r0, &Gpu<T>::main);
      return;
    }
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) : -1;
      if (r1 >= 0) rest(q, slot, {r1, r1 + 1}, {0, q.L.lc});
      if (c1 >= 0)
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1})) rest(q, slot, rr, {c1, c1 + 1});
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaEventRecord(q.a_done, q.main));
      cudaEvent_t l0 = mark(q, q.look);
      APSP_CUDA_TRY(cudaStreamWaitEvent(q.look, q.a_done, 0));
      span(q, kLookWait, l0, q.look);
    }
    pivot(t + 1);
    panels(t + 1);
    ahead_ = t + 1;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) : -1;
      for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
        for (const TileRange& cr : dist::ranges_without(q.L.lc, {c1})) rest(q, slot, rr, cr);
    }
    span_all(kRest, r0, &Gpu<T>::main);
  }
  void finish_round(i64 t) override {
    // Progress is reported after the host has queued the round; wait for the GPUs now and then
    // so that it tells the truth (about 100 waits over a run; the queue refills at once).
    const i64 R = num_rounds(), every = R >= 100 ? R / 100 : 1;
    if (progress_ && ((t + 1) % every == 0 || t + 1 == R))
      for (auto& p : gpus_) {
        APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
        APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
      }
  }

  /// Hands out the distances (U = T) or next hops (U = int, next_hops) in stripes of tile rows:
  /// to `sink` if set, else into `whole`, as R (U = int, R = long: a checked int32 rung's result,
  /// the unreachable value mapped).
  template <class U, class R = U>
  void gather(bool next_hops, const RowSink& sink, R* whole, i64 whole_stride, Dtype dtype) {
    APSP_EXPECTS(int(gpus_.size()) == grid_.P, "the in-process gather needs every worker of the grid in this process");
    auto source = [&](Gpu<T>& q) -> const U* {
      return next_hops ? reinterpret_cast<const U*>(q.N.get()) : reinterpret_cast<const U*>(q.D.get());
    };
    const Layout& L0 = gpus_.front()->L;
    const i64 n = L0.n, B = kTile;
    const auto stripes = dist::output_stripes(L0.R, B, L0.n_pad(), i64(sizeof(T)), kStripeBytes);
    if (stripes.empty() || n == 0) return;
    const i64 per = stripes.front().end - stripes.front().begin;
    std::vector<PinnedArray<U>> stage[2];
    for (auto& s : stage) {
      s = std::vector<PinnedArray<U>>(gpus_.size());
      for (std::size_t x = 0; x < gpus_.size(); ++x)
        s[x].resize(Layout::tiles_of(per, grid_.Pr, 0) * B * ld_);
    }
    auto issue = [&](std::size_t s) {
      for (std::size_t x = 0; x < gpus_.size(); ++x) {
        Gpu<T>& q = *gpus_[x];
        const TileRange lr = q.L.local_rows_in(stripes[s].begin, stripes[s].end);
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        if (!lr.empty())
          APSP_CUDA_TRY(cudaMemcpyAsync(stage[s % 2][x].p, source(q) + lr.begin * B * ld_,
                                        std::size_t((lr.end - lr.begin) * B * ld_) * sizeof(U), cudaMemcpyDeviceToHost,
                                        q.main));
        APSP_CUDA_TRY(cudaEventRecord(q.copied[s % 2], q.main));
      }
    };
    std::vector<R> out(sink ? std::size_t(per * B * n) : 0);
    std::exception_ptr failed;
    issue(0);
    for (std::size_t s = 0; s < stripes.size(); ++s) {
      for (auto& p : gpus_) APSP_CUDA_TRY(cudaEventSynchronize(p->copied[s % 2]));
      if (s + 1 < stripes.size()) issue(s + 1);
      const i64 row0 = stripes[s].begin * B, rows = std::min(stripes[s].end * B, n) - row0;
      R* dst = sink ? out.data() : whole + row0 * whole_stride;
      const i64 dst_ld = sink ? n : whole_stride;
      parallel_rows(rows, [&](i64 r) {
        const i64 gi = row0 + r, I = gi / B;
        const int qr = int(I % grid_.Pr);
        for (int qc = 0; qc < grid_.Pc; ++qc) {
          const int x = grid_.rank_of(qr, qc);
          const Layout& L = gpus_[std::size_t(x)]->L;
          const TileRange lr = L.local_rows_in(stripes[s].begin, stripes[s].end);
          const U* src = stage[s % 2][std::size_t(x)].p + ((L.local_row(I) - lr.begin) * B + gi % B) * ld_;
          for (i64 lj = 0; lj < L.lc; ++lj) {
            const i64 j0 = L.global_col(lj) * B;
            if (j0 >= n) break;
            const i64 w = std::min(B, n - j0);
            if constexpr (std::is_same_v<U, R>) {
              std::memcpy(dst + r * dst_ld + j0, src + lj * B, std::size_t(w) * sizeof(U));
            } else {
              R* o = dst + r * dst_ld + j0;
              const U* in = src + lj * B;
              for (i64 k = 0; k < w; ++k) o[k] = in[k] >= cuda::inf_value<U>() ? cuda::inf_value<R>() : R(in[k]);
            }
          }
        }
      });
      if (sink && !failed) {
        try {
          sink(RowBlock{row0, rows, n, n, dtype, out.data()});
        } catch (...) {
          failed = std::current_exception();
          break;
        }
      }
    }
    synchronize();
    if (failed) std::rethrow_exception(failed);
  }

 private:
  /// Joins the NCCL communicator of this worker's grid row (`row`) or column: `members` ranks,
  /// this one with index `me`.
  static ncclComm_t join(RankLinks& links, bool row, int members, int me) {
    struct {
      ncclUniqueId id;
      int ok;
    } msg{};
    ncclResult_t made = ncclSuccess;
    if (me == 0) {
      made = ncclGetUniqueId(&msg.id);
      msg.ok = made == ncclSuccess ? 1 : 0;
    }
    links.broadcast(&msg, sizeof(msg), 0, row);
    if (!msg.ok)
      throw Error(std::string("NCCL: the first rank of a grid ") + (row ? "row" : "column") +
                  " could not create an id" + (me == 0 ? std::string(": ") + ncclGetErrorString(made) : std::string()));
    ncclComm_t comm = nullptr;
    APSP_NCCL_TRY(ncclCommInitRank(&comm, members, msg.id, me));
    return comm;
  }

  void make_comms(int index, bool rows) {
    const int members = rows ? grid_.Pc : grid_.Pr;
    std::vector<int> devs(std::size_t(members), 0);
    std::vector<Gpu<T>*> who(std::size_t(members), nullptr);
    for (int m = 0; m < members; ++m) {
      who[std::size_t(m)] = gpus_[std::size_t(rows ? grid_.rank_of(index, m) : grid_.rank_of(m, index))].get();
      devs[std::size_t(m)] = who[std::size_t(m)]->ordinal;
    }
    std::vector<ncclComm_t> comms(std::size_t(members), nullptr);
    APSP_NCCL_TRY(ncclCommInitAll(comms.data(), members, devs.data()));
    for (int m = 0; m < members; ++m) (rows ? who[std::size_t(m)]->row : who[std::size_t(m)]->col) = comms[std::size_t(m)];
  }

  // The strides as the distance kernels read them: d (the local matrix) and rowp (row panels)
  // ld_, csT and colT (transposed column strips, indexed by local rows) ldt_. The column-panel
  // GEMM in panels() runs through the row-panel form and sets its own (ld = ldp = ldt_).
  cuda::RoundArgs<T> args() const {
    cuda::RoundArgs<T> a{};
    a.ld = ld_;
    a.ldp = ld_;
    a.ldc = ldt_;
    return a;
  }

  // The pivot: closed on its owner, (P*, P*^T) broadcast along its grid row and column.
  void pivot(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 li = q.L.local_row(t), lj = q.L.local_col(t);
      cuda::RoundArgs<T> a = args();
      a.d = q.D.get() + li * kTile * ld_ + lj * kTile;
      a.csT = q.csT.get();  // block 0 also writes P*^T here; the transpose below rewrites csT anyway
      a.pS = q.piv[slot].get();
      a.pT = q.piv[slot].get() + kTile * kTile;
      cudaEvent_t c0 = mark(q, q.look);
      cuda::closure_and_transpose<T><<<1, cuda::kClosureThreads, cuda::closure_smem_bytes<T>(), q.look>>>(a);
      APSP_CUDA_CHECK_LAUNCH(q.look);
      span(q, kClosure, c0, q.look);
    }
    broadcast_pivot(t);
  }

  /// (P*, P*^T), 2 B^2 elements of T, from the pivot's owner along its grid row and column.
  void broadcast_pivot(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    if (grid_.P == 1) return;
    const auto b0 = mark_all(&Gpu<T>::look);
    APSP_NCCL_TRY(ncclGroupStart());
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      T* buf = q.piv[slot].get();
      if (q.L.pr == tr && q.row)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, std::size_t(2 * kTile * kTile), nccl_type<T>(), tc, q.row, q.look));
      if (q.L.pc == tc && q.col)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, std::size_t(2 * kTile * kTile), nccl_type<T>(), tr, q.col, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
    span_all(kPivotBcast, b0, &Gpu<T>::look);
  }

  // Row panel on the pivot's grid row, column panel (transposed) on its grid column, then the
  // broadcasts that give every GPU the panels of its own tile rows and columns.
  void panels(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    const auto p0 = mark_all(&Gpu<T>::look);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.pr == tr && q.L.lc > 0) {
        cuda::RoundArgs<T> a = args();
        a.d = q.D.get() + q.L.local_row(t) * kTile * ld_;  // row mode reads d + 0 * ld + X0: D[t, X]
        a.rowp = q.rowp[slot].get();
        a.pT = q.piv[slot].get() + kTile * kTile;          // A = P*
        cuda::minplus_gemm_128x128<T, GemmMode::Panels>
            <<<dim3(unsigned(q.L.lc), 1), cuda::gemm_threads<T>(), cuda::gemm_smem_bytes<T>(), q.look>>>(a);
        APSP_CUDA_CHECK_LAUNCH(q.look);
      }
      if (q.L.pc == tc && q.L.lr > 0) {
        const i64 lj = q.L.local_col(t);
        transpose_strip<T><<<dim3(kTile / 32, unsigned(q.L.local_rows() / 32)), dim3(32, 8), 0, q.look>>>(
            q.D.get() + lj * kTile, ld_, q.csT.get(), ldt_);
        APSP_CUDA_CHECK_LAUNCH(q.look);
        // colT[:, X] = P*^T (x) csT[:, X], through the row-panel form: A = P*^T is passed as pT;
        // its "d" is csT and its "rowp" colT, both B x ldt.
        cuda::RoundArgs<T> a = args();
        a.d = q.csT.get();
        a.ld = ldt_;
        a.rowp = q.colT[slot].get();
        a.ldp = ldt_;
        a.pT = q.piv[slot].get();
        cuda::minplus_gemm_128x128<T, GemmMode::Panels>
            <<<dim3(unsigned(q.L.lr), 1), cuda::gemm_threads<T>(), cuda::gemm_smem_bytes<T>(), q.look>>>(a);
        APSP_CUDA_CHECK_LAUNCH(q.look);
      }
    }
    span_all(kPanels, p0, &Gpu<T>::look);
    if (grid_.P > 1) {
      const auto b0 = mark_all(&Gpu<T>::look);
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowp[slot].get(), q.rowp[slot].get(), std::size_t(kTile * ld_), nccl_type<T>(),
                                      tr, q.col, q.look));
        if (q.row)
          APSP_NCCL_TRY(ncclBroadcast(q.colT[slot].get(), q.colT[slot].get(), std::size_t(kTile * ldt_), nccl_type<T>(),
                                      tc, q.row, q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
      span_all(kPanelBcast, b0, &Gpu<T>::look);
    }
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaEventRecord(p->ready[slot], p->look));
    }
  }

  // ---- int16x2 rounds: the cuda backend's packed pieces on the local matrices ----
  // Round t as pivot() / panels() / update_rest() above, on D16: the pivot closed by
  // closure_and_transpose_s16 (P* int32 and P*^T replicated, broadcast as 2 B^2 words), the row
  // panel by the packed RowPanel GEMM (rowp16, B x ld16 words, down grid columns), the column
  // panel in int32 from the transposed strip (transpose_strip_s16) by the ColPanelRep GEMM
  // (colT: replicated words, along grid rows), and the rest by the packed Rest GEMM over blocks
  // of 128 words (two local tile columns): with lookahead, tile row t+1 and the word block
  // holding tile column t+1 first.

  void pivot_s16(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 li = q.L.local_row(t), lj = q.L.local_col(t);
      // t = 0 with d at the pivot: block 0 closes it in place (csT's first tile gets P*^T; the
      // transpose in panels_s16 rewrites csT).
      const cuda::RoundArgsS16 a{q.D16.get() + li * kTile * ld16_ + lj * (kTile / 2), ld16_, q.csT.get(), ldt_,
                                 q.piv[slot].get(), reinterpret_cast<unsigned*>(q.piv[slot].get() + kTile * kTile), 0};
      cuda::closure_and_transpose_s16<<<1, cuda::kClosureThreads, cuda::kClosureSmemBytes, q.look>>>(a);
      APSP_CUDA_CHECK_LAUNCH(q.look);
    }
    broadcast_pivot(t);
  }

  void panels_s16(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.pr == tr && q.L.lc > 0) {
        cuda::RoundArgs<unsigned> a{};
        a.d = q.D16.get() + q.L.local_row(t) * kTile * ld16_;
        a.ld = ld16_;
        a.rowp = q.rowp16[slot].get();
        a.ldp = ld16_;
        a.pT = reinterpret_cast<unsigned*>(q.piv[slot].get() + kTile * kTile);
        cuda::minplus_gemm_128x128<unsigned, GemmMode::RowPanel>
            <<<dim3(unsigned(word_blocks(q)), 1), cuda::kGemmThreads, cuda::kGemmSmemBytes, q.look>>>(a);
        APSP_CUDA_CHECK_LAUNCH(q.look);
      }
      if (q.L.pc == tc && q.L.lr > 0) {
        transpose_strip_s16<<<dim3(kTile / 32, unsigned(q.L.local_rows() / 32)), dim3(32, 8), 0, q.look>>>(
            q.D16.get(), ld16_, q.L.local_col(t) * (kTile / 2), q.csT.get(), ldt_);
        APSP_CUDA_CHECK_LAUNCH(q.look);
        cuda::RoundArgs<int> a{};
        a.pS = q.piv[slot].get();
        a.csT = q.csT.get();
        a.colT = q.colT[slot].get();
        a.ldc = ldt_;
        cuda::minplus_gemm_128x128<int, GemmMode::ColPanelRep>
            <<<dim3(unsigned(q.L.lr), 1), cuda::kGemmThreads, cuda::kGemmSmemBytes, q.look>>>(a);
        APSP_CUDA_CHECK_LAUNCH(q.look);
      }
    }
    if (grid_.P > 1) {
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowp16[slot].get(), q.rowp16[slot].get(), std::size_t(kTile * ld16_),
                                      ncclUint32, tr, q.col, q.look));
        if (q.row)
          APSP_NCCL_TRY(ncclBroadcast(q.colT[slot].get(), q.colT[slot].get(), std::size_t(kTile * ldt_), ncclInt32,
                                      tc, q.row, q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
    }
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaEventRecord(p->ready[slot], p->look));
    }
  }

  /// Word blocks (128 words: two local tile columns) that hold this GPU's local columns.
  static i64 word_blocks(const Gpu<T>& q) { return (q.L.lc + 1) / 2; }

  // Packed Rest GEMM over local tile rows `rr` x word blocks `cb` on the main stream.
  void rest_s16(Gpu<T>& q, int slot, TileRange rr, TileRange cb) {
    if (rr.empty() || cb.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cuda::RoundArgs<unsigned> a{};
    a.d = q.D16.get() + rr.begin * kTile * ld16_ + cb.begin * kTile;
    a.ld = ld16_;
    a.colT = reinterpret_cast<unsigned*>(q.colT[slot].get()) + rr.begin * kTile;
    a.ldc = ldt_;
    a.rowp = q.rowp16[slot].get() + cb.begin * kTile;
    a.ldp = ld16_;
    cuda::minplus_gemm_128x128<unsigned, GemmMode::Rest>
        <<<dim3(unsigned(cb.end - cb.begin), unsigned(rr.end - rr.begin)), cuda::kGemmThreads, cuda::kGemmSmemBytes,
           q.main>>>(a);
    APSP_CUDA_CHECK_LAUNCH(q.main);
  }

  void update_rest_s16(i64 t) {
    const int slot = int(t % 2);
    if (t + 1 >= num_rounds()) {
      for (auto& p : gpus_) rest_s16(*p, slot, {0, p->L.lr}, {0, word_blocks(*p)});
      return;
    }
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) / 2 : -1;
      if (r1 >= 0) rest_s16(q, slot, {r1, r1 + 1}, {0, word_blocks(q)});
      if (c1 >= 0)
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1})) rest_s16(q, slot, rr, {c1, c1 + 1});
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaEventRecord(q.a_done, q.main));
      APSP_CUDA_TRY(cudaStreamWaitEvent(q.look, q.a_done, 0));
    }
    pivot_s16(t + 1);
    panels_s16(t + 1);
    ahead_ = t + 1;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) / 2 : -1;
      for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
        for (const TileRange& cb : dist::ranges_without(word_blocks(q), {c1})) rest_s16(q, slot, rr, cb);
    }
  }

  void release_s16() {
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      p->D16 = DeviceBuffer<unsigned>();
      for (auto& r : p->rowp16) r = DeviceBuffer<unsigned>();
    }
    s16_ = false;
  }

  /// OR of every GPU's flag (synchronizes).
  bool read_flags() {
    bool any = false;
    for (auto& p : gpus_) {
      int v = 0;
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaMemcpyAsync(&v, p->flag.get(), sizeof(int), cudaMemcpyDeviceToHost, p->main));
      APSP_CUDA_TRY(cudaStreamSynchronize(p->main));
      any |= v != 0;
    }
    return any;
  }

  void pivot_any(i64 t) {
    if constexpr (std::is_same_v<T, int>) {
      if (s16_) return pivot_s16(t);
    }
    if (mode_ == Mode::Distances) pivot(t);
    else if constexpr (sizeof(T) == 4) pivot_paths(t);
  }
  void panels_any(i64 t) {
    if constexpr (std::is_same_v<T, int>) {
      if (s16_) return panels_s16(t);
    }
    if (mode_ == Mode::Distances) panels(t);
    else if constexpr (sizeof(T) == 4) panels_paths(t);
  }

  // ---- with next hops: panels in place, the rest outside the pivot row and column ----

  void update_rest_paths(i64 t) {
    const int slot = int(t % 2);
    auto skip = [&](const Gpu<T>& q, i64 x, bool row) -> i64 {
      return row ? (q.L.owns_row(x) ? q.L.local_row(x) : -1) : (q.L.owns_col(x) ? q.L.local_col(x) : -1);
    };
    if (t + 1 >= num_rounds()) {
      for (auto& p : gpus_)
        for (const TileRange& rr : dist::ranges_without(p->L.lr, {skip(*p, t, true)}))
          for (const TileRange& cr : dist::ranges_without(p->L.lc, {skip(*p, t, false)})) rest_paths(*p, slot, rr, cr);
      return;
    }
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r0 = skip(q, t, true), c0 = skip(q, t, false), r1 = skip(q, t + 1, true), c1 = skip(q, t + 1, false);
      if (r1 >= 0)
        for (const TileRange& cr : dist::ranges_without(q.L.lc, {c0})) rest_paths(q, slot, {r1, r1 + 1}, cr);
      if (c1 >= 0)
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r0, r1})) rest_paths(q, slot, rr, {c1, c1 + 1});
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaEventRecord(q.a_done, q.main));
      APSP_CUDA_TRY(cudaStreamWaitEvent(q.look, q.a_done, 0));
    }
    pivot_paths(t + 1);
    panels_paths(t + 1);
    ahead_ = t + 1;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      const i64 r0 = skip(q, t, true), c0 = skip(q, t, false), r1 = skip(q, t + 1, true), c1 = skip(q, t + 1, false);
      for (const TileRange& rr : dist::ranges_without(q.L.lr, {r0, r1}))
        for (const TileRange& cr : dist::ranges_without(q.L.lc, {c0, c1})) rest_paths(q, slot, rr, cr);
    }
  }

  // C (local tiles rr x cr of D, N, H) = min(C, A (x) B) on `stream`, rows of A and columns of B
  // given by the caller.
  void gemm_paths(Gpu<T>& q, cudaStream_t stream, TileRange rr, TileRange cr, const int* a, const int* an,
                  const int* ah, i64 lda, const int* b, const int* bh, i64 ldb) {
    if (rr.empty() || cr.empty()) return;
    const i64 at = rr.begin * kTile * ld_ + cr.begin * kTile;
    const dim3 grid(unsigned((cr.end - cr.begin) * kTile / 64), unsigned((rr.end - rr.begin) * kTile / 64));
    const T* av = reinterpret_cast<const T*>(a);
    const T* bv = reinterpret_cast<const T*>(b);
    if (mode_ == Mode::HopCounts)
      minplus_paths<T, true><<<grid, 256, 0, stream>>>(av, an, ah, lda, bv, bh, ldb, q.D.get() + at, q.N.get() + at,
                                                       q.H.get() + at, ld_);
    else
      minplus_paths<T, false><<<grid, 256, 0, stream>>>(av, an, nullptr, lda, bv, nullptr, ldb, q.D.get() + at,
                                                        q.N.get() + at, nullptr, ld_);
    APSP_CUDA_CHECK_LAUNCH(stream);
  }

  void rest_paths(Gpu<T>& q, int slot, TileRange rr, TileRange cr) {
    if (rr.empty() || cr.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const i64 rows = q.L.local_rows(), a0 = rr.begin * kTile * kTile, b0 = cr.begin * kTile;
    const int* cp = q.colpw[slot].get();
    const int* rp = q.rowpw[slot].get();
    gemm_paths(q, q.main, rr, cr, cp + a0, cp + rows * kTile + a0, cp + 2 * rows * kTile + a0, kTile, rp + b0,
               rp + kTile * ld_ + b0, ld_);
  }

  void pivot_paths(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 at = q.L.local_row(t) * kTile * ld_ + q.L.local_col(t) * kTile;
      if (mode_ == Mode::HopCounts)
        closure_paths<T, true><<<1, 1024, 0, q.look>>>(q.D.get() + at, q.N.get() + at, q.H.get() + at, ld_,
                                                       q.pw[slot].get());
      else
        closure_paths<T, false><<<1, 1024, 0, q.look>>>(q.D.get() + at, q.N.get() + at, nullptr, ld_,
                                                        q.pw[slot].get());
      APSP_CUDA_CHECK_LAUNCH(q.look);
    }
    if (grid_.P == 1) return;
    const std::size_t count = std::size_t(3 * kTile * kTile);
    APSP_NCCL_TRY(ncclGroupStart());
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      int* buf = q.pw[slot].get();
      if (q.L.pr == tr && q.row) APSP_NCCL_TRY(ncclBroadcast(buf, buf, count, ncclInt32, tc, q.row, q.look));
      if (q.L.pc == tc && q.col) APSP_NCCL_TRY(ncclBroadcast(buf, buf, count, ncclInt32, tr, q.col, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
  }

  void panels_paths(i64 t) {
    const int slot = int(t % 2);
    const int tr = int(t % grid_.Pr), tc = int(t % grid_.Pc);
    const bool hops = mode_ == Mode::HopCounts;
    const i64 BB = kTile * kTile;
    for (auto& p : gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const int* piv = q.pw[slot].get();
      const i64 rows = q.L.local_rows(), strip = kTile * ld_;
      const bool in_row = q.L.pr == tr, in_col = q.L.pc == tc;
      if (in_row && q.L.lc > 0) {
        // D[t, J] = P* (x) old D[t, J], for J outside the pivot column.
        const i64 li = q.L.local_row(t);
        int* old = q.rowold.get();
        APSP_CUDA_TRY(cudaMemcpyAsync(old, q.D.get() + li * strip, strip * 4, cudaMemcpyDeviceToDevice, q.look));
        if (hops) APSP_CUDA_TRY(cudaMemcpyAsync(old + strip, q.H.get() + li * strip, strip * 4, cudaMemcpyDeviceToDevice, q.look));
        for (const TileRange& cr : dist::ranges_without(q.L.lc, {in_col ? q.L.local_col(t) : -1}))
          gemm_paths(q, q.look, {li, li + 1}, cr, piv, piv + BB, piv + 2 * BB, kTile, old + cr.begin * kTile,
                     old + strip + cr.begin * kTile, ld_);
        int* out = q.rowpw[slot].get();
        APSP_CUDA_TRY(cudaMemcpyAsync(out, q.D.get() + li * strip, strip * 4, cudaMemcpyDeviceToDevice, q.look));
        if (hops) APSP_CUDA_TRY(cudaMemcpyAsync(out + strip, q.H.get() + li * strip, strip * 4, cudaMemcpyDeviceToDevice, q.look));
      }
      if (in_col && q.L.lr > 0) {
        // D[I, t] = old D[I, t] (x) P*, for I outside the pivot row.
        const i64 lj = q.L.local_col(t);
        int* old = q.colold.get();
        auto strip_copy = [&](int* dst, const void* src) {
          APSP_CUDA_TRY(cudaMemcpy2DAsync(dst, kTile * 4, static_cast<const char*>(src) + lj * kTile * 4, ld_ * 4,
                                          kTile * 4, rows, cudaMemcpyDeviceToDevice, q.look));
        };
        strip_copy(old, q.D.get());
        strip_copy(old + rows * kTile, q.N.get());
        if (hops) strip_copy(old + 2 * rows * kTile, q.H.get());
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {in_row ? q.L.local_row(t) : -1})) {
          const i64 a0 = rr.begin * BB;
          gemm_paths(q, q.look, rr, {lj, lj + 1}, old + a0, old + rows * kTile + a0, old + 2 * rows * kTile + a0, kTile,
                     piv, piv + 2 * BB, kTile);
        }
        int* out = q.colpw[slot].get();
        strip_copy(out, q.D.get());
        strip_copy(out + rows * kTile, q.N.get());
        if (hops) strip_copy(out + 2 * rows * kTile, q.H.get());
      }
    }
    if (grid_.P > 1) {
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowpw[slot].get(), q.rowpw[slot].get(), std::size_t(2 * kTile * ld_), ncclInt32,
                                      tr, q.col, q.look));
        if (q.row && q.L.lr > 0)
          APSP_NCCL_TRY(ncclBroadcast(q.colpw[slot].get(), q.colpw[slot].get(), std::size_t(3 * q.L.local_rows() * kTile),
                                      ncclInt32, tc, q.row, q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
    }
    for (auto& p : gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      APSP_CUDA_TRY(cudaEventRecord(p->ready[slot], p->look));
    }
  }

  // Rest GEMM over local tile rows `rr` x local tile columns `cr` on the main stream.
  enum Phase { kClosure, kPivotBcast, kPanels, kPanelBcast, kRest, kMainWait, kLookWait, kPhases };
  /// A timed event recorded on `s` (APSP_MG_PROFILE), else null.
  cudaEvent_t mark(Gpu<T>& q, cudaStream_t s) {
    if (!profiling_) return nullptr;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cudaEvent_t e = nullptr;
    APSP_CUDA_TRY(cudaEventCreate(&e));
    q.marks.push_back(e);
    APSP_CUDA_TRY(cudaEventRecord(e, s));
    return e;
  }
  /// Ends the span that `begin` started: `phase`, up to an event recorded now on `s`.
  void span(Gpu<T>& q, int phase, cudaEvent_t begin, cudaStream_t s) {
    if (profiling_) q.spans.push_back({phase, begin, mark(q, s)});
  }
  /// mark() on every GPU's stream `which` (look or main): begin events, by position in gpus_.
  std::vector<cudaEvent_t> mark_all(cudaStream_t Gpu<T>::*which) {
    std::vector<cudaEvent_t> m;
    if (profiling_)
      for (auto& p : gpus_) m.push_back(mark(*p, (*p).*which));
    return m;
  }
  void span_all(int phase, const std::vector<cudaEvent_t>& begins, cudaStream_t Gpu<T>::*which) {
    if (!profiling_) return;
    for (std::size_t x = 0; x < gpus_.size(); ++x) span(*gpus_[x], phase, begins[x], (*gpus_[x]).*which);
  }

  void rest(Gpu<T>& q, int slot, TileRange rr, TileRange cr) {
    if (rr.empty() || cr.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cuda::RoundArgs<T> a = args();
    a.d = q.D.get() + rr.begin * kTile * ld_ + cr.begin * kTile;
    a.colT = q.colT[slot].get() + rr.begin * kTile;
    a.rowp = q.rowp[slot].get() + cr.begin * kTile;
    cuda::minplus_gemm_128x128<T, GemmMode::Rest>
        <<<dim3(unsigned(cr.end - cr.begin), unsigned(rr.end - rr.begin)), cuda::gemm_threads<T>(),
           cuda::gemm_smem_bytes<T>(), q.main>>>(a);
    APSP_CUDA_CHECK_LAUNCH(q.main);
  }

  Grid grid_;
  Mode mode_;
  // Row strides, the same on every GPU of the grid (gpu_strides): ld_ the widest local column
  // count (D, N, H, rowp, rowold, rowpw), ldt_ the widest local row count (csT, colT). Row panels
  // (B x ld_) go down grid columns, transposed column panels (B x ldt_) along grid rows, so every
  // broadcast has one element count on all members of its communicator.
  i64 ld_ = 0, ldt_ = 0;
  std::vector<std::unique_ptr<Gpu<T>>> gpus_;
  ProgressFn progress_;
  i64 ahead_ = -1;
  bool s16_ = false;  // the rounds run on the packed D16 (begin_s16 .. end_s16)
  i64 ld16_ = 0;      // D16's and rowp16's row stride in words
  bool profiling_ = config::get_bool(config::Knob::MgProfile);
};

std::vector<int> devices_of(const SolveOptions& o) {
  int count = 0;
  APSP_CUDA_TRY(cudaGetDeviceCount(&count));
  std::vector<int> devs = o.devices;
  if (devs.empty())
    for (int d = 0; d < count; ++d) devs.push_back(d);
  for (int d : devs)
    if (d < 0 || d >= count)
      throw UsageError("--devices: no GPU " + std::to_string(d) + " (this machine has " + std::to_string(count) + ")");
  std::vector<int> sorted = devs;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UsageError("--devices: a GPU is listed twice");
  if (devs.empty()) throw BackendUnavailable("the multi-gpu backend found no GPU");
  return devs;
}

class MultiGpuBackend final : public BackendImpl {
 public:
  std::string name() const override { return "multi-gpu"; }
  bool supports(Dtype) const override { return true; }
  std::string rounds_used() const override { return rounds_; }
  int default_block(Dtype, std::int64_t) const override { return kTile; }
  int effective_block(Dtype, int) const override { return kTile; }
  int pad_multiple(Dtype, int) const override { return 1; }
  bool builds_matrix() const override { return true; }
  bool builds_matrix_from_dense() const override { return true; }
  /// Streamed next hops are loop-free (hop counts where zero-weight edges exist; see run()).
  bool streams_paths() const override { return true; }
  void check_fits(std::int64_t n, Dtype t, int block, bool paths) const override {
    if (block != kTile)
      throw UsageError("the multi-gpu backend uses tile size " + std::to_string(kTile) + " (got --block " +
                       std::to_string(block) + ")");
    if (paths && dtype_size(t) != 4)
      throw UsageError(std::string("the multi-gpu backend's --paths runs int32 and float32, not ") + dtype_name(t) +
                       "; the cuda and cpu backends give " + dtype_name(t) + " paths");
    int count = 0;
    APSP_CUDA_TRY(cudaGetDeviceCount(&count));
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t need = bytes_per_gpu(n, std::max(1, count), dtype_size(t), paths);
    if (need > free_b)
      throw ResourceError("V=" + std::to_string(n) + " needs " + gib(double(need)) + " per GPU on " +
                          std::to_string(count) + " GPUs; GPU 0 has " + gib(double(free_b)) + " free");
  }

  /// The cuda backend's ladder over the grid: int32 distances try int16x2 rounds first where the
  /// cuda backend would (cuda_int16_policy; no sampled-distance evidence here), kept when the band
  /// check over every GPU passes; an int64 result runs checked int32 rounds first where the
  /// weights allow, kept when their band check passes, else int64 rounds.
  void run(const Graph& g, Matrix& dist, Matrix* next, int, const SolveOptions& o, Timings& timings) override {
    const std::vector<int> devs = devices_of(o);
    const Graph::WeightRange range = g.validated_weight_range();
    const Rung rung{range.max_abs_weight, range.min_weight, false};
    switch (dist.dtype()) {
      case Dtype::Int32:
        run_typed<int, int>(g, dist, next, devs, o, timings, rung);
        return;
      case Dtype::Int64: {
        constexpr double cap = double(cuda::inf_value<int>());
        if (!rung_applicable(rung.max_w, rung.min_w, cap)) {
          run_typed<long, long>(g, dist, next, devs, o, timings, rung);
          rounds_ = "int64 (weights reach 2^30-1)";
          return;
        }
        if (run_typed<int, long>(g, dist, next, devs, o, timings, Rung{rung.max_w, rung.min_w, true})) return;
        const std::string why = rounds_;
        const Timings failed = timings;  // the dropped pass counts in the stages' times too
        run_typed<long, long>(g, dist, next, devs, o, timings, rung);
        timings.h2d += failed.h2d;
        timings.compute += failed.compute;
        rounds_ = "int64 (" + why + ")";
        return;
      }
      case Dtype::Float32:
        run_typed<float, float>(g, dist, next, devs, o, timings, rung);
        return;
      case Dtype::Float64:
        run_typed<double, double>(g, dist, next, devs, o, timings, rung);
        return;
    }
  }

 private:
  struct Rung {
    double max_w, min_w;
    bool checked;  ///< int32 rounds for an int64 result: kept only when the band check passes
  };
  std::string rounds_;

  /// Rounds in T, result handed out as R (R = T, or int64 from checked int32 rounds). False,
  /// having handed nothing out, when a checked rung failed its band check (rounds_ says why).
  template <class T, class R>
  bool run_typed(const Graph& g, Matrix& dist, Matrix* next, const std::vector<int>& devs, const SolveOptions& o,
                 Timings& timings, Rung rung) {
    const std::size_t need = bytes_per_gpu(g.num_vertices, int(devs.size()), sizeof(T), next != nullptr);
    for (int d : devs) {
      APSP_CUDA_TRY(cudaSetDevice(d));
      std::size_t free_b = 0, total_b = 0;
      APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
      if (need > free_b)
        throw ResourceError("V=" + std::to_string(g.num_vertices) + " needs " + gib(double(need)) + " on each of " +
                            std::to_string(devs.size()) + " GPUs; GPU " + std::to_string(d) + " has " +
                            gib(double(free_b)) + " free");
    }
    auto t0 = Clock::now();
    // As the cpu backend: strict-less next hops, whose rare zero-weight loops solve() repairs on
    // a whole matrix; streamed next hops cannot be repaired, so with zero-weight edges they
    // compare (distance, hop count) instead (valid walks; ties may differ from the cpu backend).
    const Mode mode = !next                                                       ? Mode::Distances
                      : !o.next_sink || cpu::positive_weights(g, dist.dtype()) ? Mode::NextHops
                                                                                : Mode::HopCounts;
    std::vector<Member> members;
    for (std::size_t q = 0; q < devs.size(); ++q) members.push_back({devs[q], int(q)});
    MultiGpuRounds<T> fw(Grid::for_run(int(devs.size())), members, g.num_vertices, mode);
    fw.connect_in_process();
    fw.build(g);
    timings.h2d = seconds_since(t0);
    t0 = Clock::now();
    fw.set_progress(o.progress);
    const char* asked = rung.checked ? " (checked; bound asked int64)" : "";
    std::string rounds = type_name<T>();
    bool kept16 = false;
    if constexpr (std::is_same_v<T, int>) {
      const int policy = cuda_int16_policy(g, rung.max_w, rung.min_w);
      if (policy > 0 && mode == Mode::Distances && fw.s16_fits()) {
        fw.begin_s16();
        run_rounds(fw, o.progress);
        kept16 = fw.end_s16(int(rung_band_low(rung.max_w, cuda::kInf16)));
        rounds = kept16 ? "int16x2" : "int16x2 -> int32";
      }
    }
    if (!kept16) {
      run_rounds(fw, o.progress);
      fw.synchronize();
      if constexpr (std::is_same_v<T, int>) {
        if (rung.checked && fw.int32_in_band(int(rung_band_low(rung.max_w, double(cuda::inf_value<int>()))))) {
          timings.compute = seconds_since(t0);
          rounds_ = "int32 rounds checked: a distance may reach 2^30-1";
          return false;
        }
      }
    }
    rounds_ = rounds + asked;
    timings.compute = seconds_since(t0);
    fw.report_profile();
    t0 = Clock::now();
    constexpr Dtype rt = DtypeOf<R>::value;
    fw.template gather<T, R>(false, o.dist_sink, o.dist_sink ? nullptr : dist.data<R>(), dist.stride(), rt);
    if (o.dist_sink) dist = Matrix{};
    if (next) {
      fw.template gather<int>(true, o.next_sink, o.next_sink ? nullptr : next->data<int>(), next->stride(),
                              Dtype::Int32);
      if (o.next_sink) *next = Matrix{};
    }
    timings.d2h = seconds_since(t0);
    return true;
  }

  template <class T> static const char* type_name() {
    return std::is_same_v<T, int>    ? "int32"
           : std::is_same_v<T, long> ? "int64"
           : std::is_same_v<T, float> ? "float32"
                                      : "float64";
  }
};

/// An mpi GPU rank: the round loop with this rank's GPU as its one member, and two pinned
/// buffers for the stripes it hands to the gather.
template <class T> class GpuRankOf final : public GpuRank {
 public:
  GpuRankOf(int device, const Grid& grid, int rank, i64 n, Mode mode, bool checked32 = false)
      : fw_(grid, {Member{device, rank}}, n, mode), mode_(mode), checked32_(checked32),
        cols_(Layout(grid, rank, n, kTile).local_cols()) {
    APSP_EXPECTS((!checked32 || std::is_same_v<T, int>), "checked rounds are int32");
  }
  bool dropped() const override { return dropped_; }
  void build(const Graph& g) override { fw_.build(g); }
  void connect(RankLinks& links) override { fw_.connect_ranks(links); }
  std::string run(const ProgressFn& progress, RankLinks& links, const Graph& g) override {
    fw_.set_progress(progress);
    std::string rounds = std::is_same_v<T, int> ? "int32" : std::is_same_v<T, long> ? "int64"
                         : std::is_same_v<T, float> ? "float32" : "float64";
    bool kept16 = false;
    if constexpr (std::is_same_v<T, int>) {
      // Every rank has the graph: the same decision everywhere; the memory check and the band
      // check are agreed over the ranks.
      const Graph::WeightRange range = g.validated_weight_range();
      if (mode_ == Mode::Distances && cuda_int16_policy(g, range.max_abs_weight, range.min_weight) > 0 &&
          !links.any(!fw_.s16_fits())) {
        fw_.begin_s16();
        run_rounds(fw_, progress);
        kept16 = fw_.end_s16(int(rung_band_low(range.max_abs_weight, cuda::kInf16)),
                             [&links](bool mine) { return links.any(mine); });
        rounds = kept16 ? "int16x2" : "int16x2 -> int32";
      }
    }
    if (!kept16) run_rounds(fw_, progress);
    fw_.synchronize();
    if constexpr (std::is_same_v<T, int>) {
      if (checked32_) {
        const double max_w = g.validated_weight_range().max_abs_weight;
        const int lo = int(rung_band_low(max_w, double(cuda::inf_value<int>())));
        dropped_ = links.any(!kept16 && fw_.int32_in_band(lo));
        if (dropped_) return "int32 rounds checked: a distance may reach 2^30-1";
        rounds += " (checked; bound asked int64)";
      }
    }
    fw_.report_profile();
    return rounds;
  }
  const void* rows_to_host(bool next_hops, i64 row0, i64 rows, int slot) override {
    PinnedArray<T>& stage = stage_[slot & 1];  // sizeof(T) >= 4: next hops fit too
    const i64 count = std::max<i64>(1, rows * cols_);
    if (stage.count < count) stage.resize(count);
    fw_.rows_to_host(next_hops, row0, rows, stage.p);
    if (!checked32_ || next_hops) return stage.p;
    // A kept checked int32 result, handed out as int64 (the unreachable value mapped).
    std::vector<long>& wide = wide_[slot & 1];
    wide.resize(std::size_t(count));
    for (i64 x = 0; x < rows * cols_; ++x)
      wide[std::size_t(x)] = stage.p[x] >= cuda::inf_value<T>() ? cuda::inf_value<long>() : long(stage.p[x]);
    return wide.data();
  }

 private:
  MultiGpuRounds<T> fw_;
  Mode mode_;
  bool checked32_ = false, dropped_ = false;
  std::vector<long> wide_[2];  // checked32: the int64 rows handed out
  i64 cols_;                   // local columns (the host rows' width)
  PinnedArray<T> stage_[2];  // distances (T) or int32 next hops (4-byte T only)
};

}  // namespace

std::unique_ptr<GpuRank> make_gpu_rank(int device, const Grid& grid, int rank, i64 n, Dtype t, Mode mode,
                                       bool checked32) {
  APSP_EXPECTS(rank >= 0 && rank < grid.P, "make_gpu_rank: rank outside the grid");
  APSP_EXPECTS(!checked32 || t == Dtype::Int64, "checked int32 rounds are for an int64 result");
  if (checked32) return std::make_unique<GpuRankOf<int>>(device, grid, rank, n, mode, true);
  if (t == Dtype::Int32) return std::make_unique<GpuRankOf<int>>(device, grid, rank, n, mode);
  if (t == Dtype::Float32) return std::make_unique<GpuRankOf<float>>(device, grid, rank, n, mode);
  APSP_EXPECTS(mode == Mode::Distances, "GPU ranks hold int64 / float64 distances only (no next hops)");
  if (t == Dtype::Int64) return std::make_unique<GpuRankOf<long>>(device, grid, rank, n, mode);
  return std::make_unique<GpuRankOf<double>>(device, grid, rank, n, mode);
}

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string gpu_unusable(int device) {
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return "GPU " + std::to_string(device) + ": " + cudaGetErrorString(e);
  }
  if (p.major < 9) return "GPU " + std::to_string(device) + " (" + p.name + ")" + cuda::kNeedsSm90;
  return "";
}

std::string gpu_bus_id(int device) {
  char id[64] = {};
  if (cudaDeviceGetPCIBusId(id, int(sizeof(id)), device) != cudaSuccess) {
    cudaGetLastError();
    return "device " + std::to_string(device);
  }
  return id;
}

std::size_t free_device_bytes(int device) {
  APSP_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

std::size_t bytes_per_gpu(i64 n, int workers, std::size_t elem, bool paths) {
  // The shape a run of `workers` would use (APSP_GRID when it fits them: an R x C grid's panels
  // are B x V / C and B x V / R, besides its V^2 / P elements of tiles).
  Grid g = Grid::for_workers(workers);
  try {
    g = Grid::for_run(workers);
  } catch (const UsageError&) {
  }
  return gpu_bytes_on(g, n, elem, paths);
}

}  // namespace multigpu

std::unique_ptr<BackendImpl> make_multigpu_backend() { return std::make_unique<multigpu::MultiGpuBackend>(); }

BackendInfo multigpu_backend_info() {
  BackendInfo info{"multi-gpu", true, false, ""};
  const cuda::DeviceProbe d = cuda::probe_devices();
  if (!d.error.empty()) {
    info.detail = d.error;
    return info;
  }
  const cudaDeviceProp& p = d.props;
  const int count = d.count;
  int version = 0;
  ncclGetVersion(&version);
  const multigpu::Grid grid = multigpu::Grid::for_workers(count);
  std::ostringstream os;
  os << count << " x " << p.name << ", NCCL " << version / 10000 << "." << version / 100 % 100 << "."
     << version % 100 << ", grid " << grid.Pr << " x " << grid.Pc;
  info.usable = d.capable();
  info.detail = os.str() + (d.capable() ? "" : cuda::kNeedsSm90);
  return info;
}

}  // namespace apsp::detail
