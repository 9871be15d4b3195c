// src/cuda/kernels/distances.cuh — device code of the distance rounds: pivot closure and the
// min-plus GEMM ("tropical GEMM") that computes the panels and the rest update, for every dtype.
// Round t over a padded matrix, B = kTile = 128: closure_and_transpose closes P = D[t,t] (plain FW
// on 8x8 register tiles) and writes P*, P*^T and the pivot column transposed (csT); the Panels GEMM
// gives rowp = P* (x) D[t,:] and colT = P*^T (x) csT; the Rest GEMM updates every tile,
// D[I,J] = min(D[I,J], colT[:,I]^T (x) rowp[:,J]) (for I or J = t exactly the panel value, as P*
// is closed). GEMM: one 128x128 C tile per block, register tiles, cp.async k pipeline.
// Launch configuration (grid, block, shared memory): cuda/launch.cuh, nowhere else.
// References: Venkataraman, Sahni, Mukhopadhyaya, JEA 8 (2003); Volkov & Demmel (SC'08) for
// the register-tiled GEMM layout.
#pragma once

#include "gpu/intrinsics.cuh"

#include <cstdint>
#include <type_traits>

#include "core/sentinel.hpp"

// Everything here has internal linkage (an unnamed namespace): without -rdc every .cu file
// embeds its own copy of these kernel templates, and shared (merged) host stubs would let a launch
// or gpuFuncSetAttribute in one file reach another file's copy ("invalid argument" at launch).
namespace apsp::cuda {
namespace {

using i64 = std::int64_t;

inline constexpr int kTile = 128;  // FW block size B and the edge of one C tile
inline constexpr int kBK = 16;     // k per pipeline stage
inline constexpr int kStages = 4;  // shared-memory stages (kStages-1 chunks in flight)
inline constexpr int kGemmThreads = 256;
inline constexpr int kClosureThreads = 256;
/// Shared-memory stages of the GEMM pipeline: 4 for 4-byte elements (64 KiB, two blocks per SM),
/// 3 for 8-byte ones (96 KiB, one block per SM: 64 accumulators of 8 bytes need ~200 registers).
/// AMD (64 KiB LDS per workgroup): 2 stages for 8-byte elements (64 KiB).
template <class T>
__host__ __device__ constexpr int gemm_stages() {
  return sizeof(T) == 4 ? kStages : (APSP_GPU_HIP ? 2 : 3);
}
template <class T>
__host__ __device__ constexpr int gemm_min_blocks() {
  return sizeof(T) == 4 ? 2 : 1;
}
/// Rows of C per thread: 8 (an 8x8 register tile, 256 threads per 128x128 tile), or 4 for
/// float64 (4x8, 512 threads): its min is DSETP + selects behind a DADD, and with 8x8 tiles (250
/// registers, 8 warps per SM) the chains stalled at a third of the measured ceiling.
template <class T>
__host__ __device__ constexpr int gemm_rows() {
  return std::is_same_v<T, double> ? 4 : 8;
}
template <class T>
__host__ __device__ constexpr int gemm_threads() {
  return 16 * kTile / gemm_rows<T>();
}
template <class T>
constexpr std::size_t gemm_smem_bytes() {
  return std::size_t(2) * gemm_stages<T>() * kBK * kTile * sizeof(T);
}
/// Closure shared memory: row / column buffers ((2, B) each) then the (B, B + kClosurePad)
/// transpose tile, padded against bank conflicts. AMD's 64 KiB LDS holds neither layout (66.5
/// KiB), so there the tile is unpadded and overlays the buffers (a barrier separates the uses).
inline constexpr bool kClosureOverlay = APSP_GPU_HIP;
inline constexpr int kClosurePad = kClosureOverlay ? 0 : 1;
template <class T>
constexpr std::size_t closure_smem_bytes() {
  return std::size_t(kTile) * (kTile + kClosurePad + (kClosureOverlay ? 0 : 4)) * sizeof(T);
}
inline constexpr std::size_t kGemmSmemBytes = gemm_smem_bytes<int>();  // 64 KiB (4-byte types)
inline constexpr std::size_t kClosureSmemBytes =
    closure_smem_bytes<int>();  // 66.5 KiB (4-byte types)

/// The unreachable value of T (int, long, float, double): core/sentinel.hpp's sentinel<T>(), the
/// one definition host and device code share; this name stays for the kernels that still use it.
template <class T>
__host__ __device__ constexpr T inf_value() {
  return detail::sentinel<T>();
}

template <class T>
struct Vec4Of;
template <>
struct Vec4Of<int> {
  using type = int4;
};
template <>
struct Vec4Of<float> {
  using type = float4;
};
template <>
struct Vec4Of<unsigned> {
  using type = uint4;
};
template <class T>
using Vec4 = typename Vec4Of<T>::type;
/// 16 bytes of 8-byte elements (int64 = long here, as std::int64_t on Linux).
template <class T>
struct Vec2Of;
template <>
struct Vec2Of<long> {
  using type = longlong2;
};
template <>
struct Vec2Of<double> {
  using type = double2;
};
template <class T>
using Vec2 = typename Vec2Of<T>::type;

/// Four consecutive elements between memory and a register array (v = &arr[0], a constant
/// offset): one 16-byte access for 4-byte types, two for 8-byte ones. p is 4-element aligned.
template <class T>
__device__ __forceinline__ void load4(T* v, const T* p) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<Vec4<T>*>(v) = *reinterpret_cast<const Vec4<T>*>(p);
  else {
    reinterpret_cast<Vec2<T>*>(v)[0] = reinterpret_cast<const Vec2<T>*>(p)[0];
    reinterpret_cast<Vec2<T>*>(v)[1] = reinterpret_cast<const Vec2<T>*>(p)[1];
  }
}
template <class T>
__device__ __forceinline__ void store4(T* p, const T* v) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<Vec4<T>*>(p) = *reinterpret_cast<const Vec4<T>*>(v);
  else {
    reinterpret_cast<Vec2<T>*>(p)[0] = reinterpret_cast<const Vec2<T>*>(v)[0];
    reinterpret_cast<Vec2<T>*>(p)[1] = reinterpret_cast<const Vec2<T>*>(v)[1];
  }
}
/// N consecutive elements (N * sizeof(T) a multiple of 16 bytes) between memory and registers.
template <int N, class T>
__device__ __forceinline__ void load_n(T* v, const T* p) {
  if constexpr (N == 4)
    load4(v, p);
  else {
    static_assert(N == 2 && sizeof(T) == 8, "load_n: 2 x 8 bytes or 4 elements");
    *reinterpret_cast<Vec2<T>*>(v) = *reinterpret_cast<const Vec2<T>*>(p);
  }
}
/// The same through L2 only (__ldcg / __stcg): the GEMM's C tiles are read and written once.
template <class T>
__device__ __forceinline__ void load4_cg(T* v, const T* p) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<Vec4<T>*>(v) = gpu::ldcg(reinterpret_cast<const Vec4<T>*>(p));
  else {
    reinterpret_cast<Vec2<T>*>(v)[0] = gpu::ldcg(reinterpret_cast<const Vec2<T>*>(p));
    reinterpret_cast<Vec2<T>*>(v)[1] = gpu::ldcg(reinterpret_cast<const Vec2<T>*>(p) + 1);
  }
}
template <class T>
__device__ __forceinline__ void store4_cg(T* p, const T* v) {
  if constexpr (sizeof(T) == 4)
    gpu::stcg(reinterpret_cast<Vec4<T>*>(p), *reinterpret_cast<const Vec4<T>*>(v));
  else {
    gpu::stcg(reinterpret_cast<Vec2<T>*>(p), reinterpret_cast<const Vec2<T>*>(v)[0]);
    gpu::stcg(reinterpret_cast<Vec2<T>*>(p) + 1, reinterpret_cast<const Vec2<T>*>(v)[1]);
  }
}

/// min(c, a + b): one VIADDMNMX for int32 on sm_90.
__device__ __forceinline__ int relax(int a, int b, int c) { return gpu::viaddmin_s32(a, b, c); }
__device__ __forceinline__ float relax(float a, float b, float c) { return fminf(c, a + b); }
/// Wide types: a + b never overflows (int64 values <= 2^62-1; float64 inf + x = inf).
__device__ __forceinline__ long relax(long a, long b, long c) { return min(c, a + b); }
/// float64 as compare + select (DSETP + two FSEL): fmin compiled to DSETP.MIN plus about four
/// IMAD.MOV per update. No NaN reaches the kernels (inputs are validated; weights are >= 0, so
/// inf + x never meets -inf), where the two forms agree.
__device__ __forceinline__ double relax(double a, double b, double c) {
  const double s = a + b;
  return s < c ? s : c;
}
__device__ __forceinline__ double relax_fmin(double a, double b, double c) {
  return fmin(c, a + b);
}
/// Two int16 distances per word (int16x2 mode): both halves at once, one VIADDMNMX.S16x2.
__device__ __forceinline__ unsigned relax(unsigned a, unsigned b, unsigned c) {
  return gpu::viaddmin_s16x2(a, b, c);
}

/// int16x2 mode: "unreachable or >= 2^14-1". Sums of two stay <= 32766, so signed 16-bit adds
/// never wrap, and min(c, a + b) <= c keeps every value <= kInf16.
inline constexpr int kInf16 = detail::sentinel<std::int16_t>();  // 2^14-1
__host__ __device__ constexpr unsigned replicate16(int x) {
  return (unsigned(x) & 0xffffu) * 0x10001u;
}

// ---- per-round arguments ------------------------------------------------------------------------

/// Element type T: int, float, or unsigned (int16x2 words: two int16 distances, the lower half
/// the even column). In int16x2 mode d and rowp hold words (ld = ldp = n_pad / 2), colT holds
/// each value replicated into both halves (ldc = n_pad), and csT / pS stay int32.
template <class T>
struct RoundArgs {
  T* d;             // (n_pad, ld) distances
  std::int64_t ld;  // n_pad (n_pad / 2 words)
  T* rowp;          // (B, ldp): the pivot row panel after step 2
  std::int64_t ldp;
  T* colT;           // (B, ldc): the pivot column panel after step 2, transposed
  T* csT;            // (B, ldc): the pivot column before step 2, transposed
  std::int64_t ldc;  // n_pad
  T* pS;             // (B, B): P*
  T* pT;             // (B, B): P*^T
  int t;             // round
};

// ---- step 1: pivot closure (block 0) and pivot-column transpose (blocks 1..R) ------------------

/// Element [q] of an 8-vector held in registers, q known only at run time, without indexing
/// the register array (which would move it to local memory).
template <class T>
__device__ __forceinline__ T pick8(const T (&v)[8], int q) {
  T x = v[0];
#pragma unroll
  for (int p = 1; p < 8; ++p) x = q == p ? v[p] : x;
  return x;
}

/// FW over a 128x128 tile held as the GEMM's 8x8-per-thread register layout (tx = tid % 16,
/// ty = tid / 16, rows ty*4+{0..3} and 64+ty*4+{0..3}, columns likewise with tx). At step k the
/// owners of row k and column k publish them to shared memory (rowbuf, colbuf: (2, B),
/// double-buffered, so one barrier per step) and every thread relaxes its 64 cells.
template <class T>
__device__ __forceinline__ void close_in_registers(T (&c)[8][8], T* rowbuf, T* colbuf, int tx,
                                                   int ty) {
  for (int k = 0; k < kTile; ++k) {
    T* rb = rowbuf + (k & 1) * kTile;
    T* cb = colbuf + (k & 1) * kTile;
    const int owner = (k & 63) >> 2, q = (k >= 64 ? 4 : 0) + (k & 3);
    if (ty == owner) {  // row k: this thread holds columns tx*4.. and 64+tx*4..
      T v[8];
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) {
        T col[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) col[i] = c[i][jj];
        v[jj] = pick8(col, q);
      }
      store4(rb + tx * 4, &v[0]);
      store4(rb + 64 + tx * 4, &v[4]);
    }
    if (tx == owner) {  // column k: this thread holds rows ty*4.. and 64+ty*4..
      T v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = pick8(c[i], q);
      store4(cb + ty * 4, &v[0]);
      store4(cb + 64 + ty * 4, &v[4]);
    }
    __syncthreads();  // buffers (k & 1) are full; buffers (k+1) & 1 were last read before this
    T a[8], b[8];
    load4(&a[0], cb + ty * 4);
    load4(&a[4], cb + 64 + ty * 4);
    load4(&b[0], rb + tx * 4);
    load4(&b[4], rb + 64 + tx * 4);
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) c[i][jj] = relax(a[i], b[jj], c[i][jj]);
  }
}

/// Block 0: P* = closure of D[t,t] with the 8x8-per-thread register layout of the GEMM; at step k
/// the owners of row k and column k publish them to shared memory (double-buffered, so one
/// barrier per step) and every thread relaxes its 64 cells. Writes P* to D[t,t], pS, and P*^T to
/// pT and to tile t of csT. Blocks 1..R: csT tile X = D[X,t]^T through shared memory.
/// The body of closure_and_transpose for one block: block 0 the pivot, block 1 + X the transpose
/// of tile X of the pivot column.
template <class T>
__device__ __forceinline__ void closure_block(const RoundArgs<T>& r, unsigned block) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* rowbuf = reinterpret_cast<T*>(smem_raw);  // (2, B): row k
  T* colbuf = rowbuf + 2 * kTile;              // (2, B): column k
  T(*s)
  [kTile + kClosurePad] = reinterpret_cast<T(*)[kTile + kClosurePad]>(
      kClosureOverlay ? rowbuf : colbuf + 2 * kTile);  // (B, B + pad)
  const int tid = threadIdx.x;
  const std::int64_t t0 = std::int64_t(r.t) * kTile;
  if (block == 0) {
    const int tx = tid % 16, ty = tid / 16;
    const T* gP = r.d + t0 * r.ld + t0;
    T c[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
      load4(&c[i][0], gP + row * r.ld + tx * 4);
      load4(&c[i][4], gP + row * r.ld + 64 + tx * 4);
    }
    close_in_registers(c, rowbuf, colbuf, tx, ty);
    if constexpr (kClosureOverlay) __syncthreads();  // s overlays the buffers just read
    T* gPw = r.d + t0 * r.ld + t0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
      store4(gPw + row * r.ld + tx * 4, &c[i][0]);
      store4(gPw + row * r.ld + 64 + tx * 4, &c[i][4]);
      store4(r.pS + row * kTile + tx * 4, &c[i][0]);
      store4(r.pS + row * kTile + 64 + tx * 4, &c[i][4]);
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) s[row][(jj < 4 ? 0 : 64) + tx * 4 + (jj & 3)] = c[i][jj];
    }
    __syncthreads();
    const int j = tid % kTile, i0 = tid / kTile;
#pragma unroll 8
    for (int q = 0; q < kTile / 2; ++q) {
      const int i = i0 + 2 * q;
      r.pT[i * kTile + j] = s[j][i];        // P*^T
      r.csT[i * r.ldc + t0 + j] = s[j][i];  // the transposed pivot column, tile t: P*^T
    }
    return;
  }
  const int X = int(block) - 1;
  if (X == r.t) return;  // block 0 writes that tile from the closed pivot
  const std::int64_t x0 = std::int64_t(X) * kTile;
  const T* g = r.d + x0 * r.ld + t0;
  const int j = tid % kTile, i0 = tid / kTile;
#pragma unroll 8
  for (int q = 0; q < kTile / 2; ++q) s[i0 + 2 * q][j] = g[(i0 + 2 * q) * r.ld + j];
  __syncthreads();
#pragma unroll 8
  for (int q = 0; q < kTile / 2; ++q) {
    const int k = i0 + 2 * q;
    r.csT[k * r.ldc + x0 + j] = s[j][k];
  }
}

template <class T>
__global__ void __launch_bounds__(kClosureThreads) closure_and_transpose(RoundArgs<T> r) {
  closure_block(r, blockIdx.x);
}

// ---- steps 2 and 3: the min-plus GEMM ----------------------------------------------------------

/// Panels: grid (R, 2), y = 0 the row panel, y = 1 the column panel. Rest: grid (tiles, R).
/// RowPanel: the row panel alone (int16x2 words). ColPanelRep: the column panel alone in int32,
/// each result stored replicated into both halves of a word (the A operand of int16x2 mode).
enum class GemmMode { Panels, Rest, RowPanel, ColPanelRep };

using gpu::cp_async_16;
using gpu::cp_async_commit;
using gpu::cp_async_wait;

/// One 128x128 tile: C_out = min(C_in, A (x) B) with A given k-major (As[k][m] = A[m][k]) and B
/// k-major (Bs[k][n]), K = kTile. Panels: grid (R, 2), y = 0 row panel, y = 1 column panel.
/// Rest: grid (R, R), x = J, y = I.
/// The body of minplus_gemm_128x128 for the C tile (bx, by) of its grid.
template <class T, GemmMode M>
__device__ __forceinline__ void gemm_tile(const RoundArgs<T>& r, unsigned bx, unsigned by) {
  constexpr int kSt = gemm_stages<T>();
  constexpr int TM = gemm_rows<T>(), kHalf = TM / 2, kThreads = gemm_threads<T>();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sA = reinterpret_cast<T*>(smem_raw);  // (kSt, kBK, B)
  T* sB = sA + kSt * kBK * kTile;          // (kSt, kBK, B)

  const T* gA;
  const T* gB;
  const T* gC;
  T* gD;
  std::int64_t lda, ldb, ldc, ldd;
  const std::int64_t t0 = std::int64_t(r.t) * kTile;
  if constexpr (M == GemmMode::Rest) {
    const std::int64_t I0 = std::int64_t(by) * kTile, J0 = std::int64_t(bx) * kTile;
    gA = r.colT + I0;
    lda = r.ldc;
    gB = r.rowp + J0;
    ldb = r.ldp;
    gD = r.d + I0 * r.ld + J0;
    gC = gD;
    ldc = ldd = r.ld;
  } else {
    const std::int64_t X0 = std::int64_t(bx) * kTile;
    const bool row = M == GemmMode::RowPanel || (M == GemmMode::Panels && by == 0);
    if (row) {  // rowp[:,J] = P* (x) D[t,J]: As = P*^T
      gA = r.pT;
      lda = kTile;
      gB = r.d + t0 * r.ld + X0;
      ldb = r.ld;
      gC = gB;
      ldc = r.ld;
      gD = r.rowp + X0;
      ldd = r.ldp;
    } else {  // colT[:,I] = P*^T (x) D[I,t]^T: As = P*, Bs = csT
      gA = r.pS;
      lda = kTile;
      gB = r.csT + X0;
      ldb = r.ldc;
      gC = gB;
      ldc = r.ldc;
      gD = r.colT + X0;
      ldd = r.ldc;
    }
  }

  const int tid = threadIdx.x;
  // Loader: a stage is kBK rows of 128 elements of A and of B, 16 bytes per copy.
  auto load_stage = [&](int stage, int kc) {
    constexpr int kPer = 16 / int(sizeof(T));               // elements per 16-byte copy
    constexpr int kCopies = kBK * kTile / kPer / kThreads;  // per operand per thread
#pragma unroll
    for (int q = 0; q < kCopies; ++q) {
      const int idx = tid + q * kThreads;
      const int row = idx / (kTile / kPer), col = (idx % (kTile / kPer)) * kPer;
      const std::int64_t k = std::int64_t(kc) * kBK + row;
      cp_async_16(sA + (stage * kBK + row) * kTile + col, gA + k * lda + col);
      cp_async_16(sB + (stage * kBK + row) * kTile + col, gB + k * ldb + col);
    }
  };
  constexpr int kChunks = kTile / kBK;
#pragma unroll
  for (int s = 0; s < kSt - 1; ++s) {
    load_stage(s, s);
    cp_async_commit();
  }

  // Thread (tx, ty) holds rows ty*kHalf + {0..kHalf-1} and 64 + the same, columns tx*4 + {0..3}
  // and 64 + the same: a TM x 8 register tile.
  const int tx = tid % 16, ty = tid / 16;
  T c[TM][8];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = (i < kHalf ? 0 : 64) + ty * kHalf + (i % kHalf);
    load4_cg(&c[i][0], gC + row * ldc + tx * 4);
    load4_cg(&c[i][4], gC + row * ldc + 64 + tx * 4);
  }

#pragma unroll 1
  for (int kc = 0; kc < kChunks; ++kc) {
    cp_async_wait<kSt - 2>();
    __syncthreads();  // chunk kc visible to all; every thread is done with chunk kc-1's stage
    if (kc + kSt - 1 < kChunks) load_stage((kc + kSt - 1) % kSt, kc + kSt - 1);
    cp_async_commit();
    const T* As = sA + (kc % kSt) * kBK * kTile;
    const T* Bs = sB + (kc % kSt) * kBK * kTile;
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      T a[TM], b[8];
      load_n<kHalf>(&a[0], As + k * kTile + ty * kHalf);
      load_n<kHalf>(&a[kHalf], As + k * kTile + 64 + ty * kHalf);
      load4(&b[0], Bs + k * kTile + tx * 4);
      load4(&b[4], Bs + k * kTile + 64 + tx * 4);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < 8; ++jj) c[i][jj] = relax(a[i], b[jj], c[i][jj]);
    }
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = (i < kHalf ? 0 : 64) + ty * kHalf + (i % kHalf);
    if constexpr (M == GemmMode::ColPanelRep) {
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) c[i][jj] = T(replicate16(int(c[i][jj])));
    }
    store4_cg(gD + row * ldd + tx * 4, &c[i][0]);
    store4_cg(gD + row * ldd + 64 + tx * 4, &c[i][4]);
  }
}

template <class T, GemmMode M>
__global__ void APSP_LAUNCH_BOUNDS(gemm_threads<T>(), gemm_min_blocks<T>())
    minplus_gemm_128x128(RoundArgs<T> r) {
  gemm_tile<T, M>(r, blockIdx.x, blockIdx.y);
}

/// out[k][r] = d[r][k] for r < rows, k < kTile: the pivot column strip, k-major, as the Panels
/// GEMM reads it. 32 x 32 tiles through shared memory; grid (kTile / 32, rows / 32).
template <class T>
__global__ void transpose_strip(const T* __restrict__ d, i64 ld, T* __restrict__ out, i64 ldo) {
  __shared__ T s[32][33];
  const i64 r0 = i64(blockIdx.y) * 32, k0 = i64(blockIdx.x) * 32;
  for (int y = threadIdx.y; y < 32; y += blockDim.y)
    s[y][threadIdx.x] = d[(r0 + y) * ld + k0 + threadIdx.x];
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y)
    out[(k0 + y) * ldo + r0 + threadIdx.x] = s[threadIdx.x][y];
}

}  // namespace
}  // namespace apsp::cuda
