// src/gpu/intrinsics.cuh — the few device operations that differ between NVIDIA and AMD, behind
// one name each: the int32 and packed int16x2 min-add (sm_90 DPX VIADDMNMX; AMD: add then min,
// packed 16-bit on gfx9), the cp.async global -> shared copy pipeline (AMD: a plain 16-byte load
// and LDS store, the pipeline's barriers then order it), L2-only loads/stores, warp width and
// launch bounds. The CUDA branch of each is the intrinsic or asm the kernels used before, inlined.
// Reference: CUDA Math API (__viaddmin_*), PTX ISA (cp.async), AMD CDNA ISA (v_pk_add/min_i16).
#pragma once

#include "gpu/runtime.hpp"

namespace apsp::gpu {

/// Threads that run in lock step: a warp (32) on NVIDIA, a wavefront (64) on CDNA.
inline constexpr int kWarpSize = APSP_GPU_HIP ? 64 : 32;
/// Shared memory (LDS) one block may use: 64 KiB on MI100 / MI200; 227 KiB on H100 / H200.
inline constexpr int kMaxSharedPerBlock = APSP_GPU_HIP ? 65536 : 232448;

/// min(a + b, c) for int32 (the sum wraps, as VIADDMNMX's).
__device__ __forceinline__ int viaddmin_s32(int a, int b, int c) {
#if APSP_GPU_HIP
  const int s = int(unsigned(a) + unsigned(b));
  return s < c ? s : c;
#else
  return __viaddmin_s32(a, b, c);
#endif
}

/// Per 16-bit half: min(a + b, c), signed halves, sums wrap (VIADDMNMX.S16x2 on sm_90).
__device__ __forceinline__ unsigned viaddmin_s16x2(unsigned a, unsigned b, unsigned c) {
#if APSP_GPU_HIP
  using S16x2 = short __attribute__((ext_vector_type(2)));  // v_pk_add_u16 + v_pk_min_i16
  const S16x2 s = __builtin_bit_cast(S16x2, a) + __builtin_bit_cast(S16x2, b);
  const S16x2 m = __builtin_elementwise_min(s, __builtin_bit_cast(S16x2, c));
  return __builtin_bit_cast(unsigned, m);
#else
  return __viaddmin_s16x2(a, b, c);
#endif
}

/// Atomic signed 64-bit minimum (HIP 5.2 has no atomicMin(long long*): the clang builtin).
__device__ __forceinline__ void atomic_min_s64(long long* p, long long v) {
#if APSP_GPU_HIP
  __hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
  atomicMin(p, v);
#endif
}

/// 16 bytes global -> shared, asynchronous on sm_80+ (cp.async.cg: through L2 only). Completion:
/// cp_async_commit() closes a group, cp_async_wait<N>() waits until at most N groups are pending;
/// a barrier must follow before other threads read the copy. On AMD the copy is done on return.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
#if APSP_GPU_HIP
  *static_cast<int4*>(smem) = *static_cast<const int4*>(gmem);
#else
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if !APSP_GPU_HIP
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if !APSP_GPU_HIP
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/// A load / store cached in L2 only (data read or written once); a plain access on AMD.
template <class V>
__device__ __forceinline__ V ldcg(const V* p) {
#if APSP_GPU_HIP
  return *p;
#else
  return __ldcg(p);
#endif
}
template <class V>
__device__ __forceinline__ void stcg(V* p, V v) {
#if APSP_GPU_HIP
  *p = v;
#else
  __stcg(p, v);
#endif
}

}  // namespace apsp::gpu

/// __launch_bounds__(max threads, min blocks per SM). HIP's second argument means something else
/// (minimum waves per execution unit), so AMD gets the thread bound alone.
#if APSP_GPU_HIP
#define APSP_LAUNCH_BOUNDS(threads, min_blocks) __launch_bounds__(threads)
#else
#define APSP_LAUNCH_BOUNDS(threads, min_blocks) __launch_bounds__(threads, min_blocks)
#endif
