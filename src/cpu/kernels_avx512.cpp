// src/cpu/kernels_avx512.cpp — the CPU kernels for AVX-512 (F + VL), compiled with -mavx512f
// -mavx512vl (see sources.cmake) and only called when the CPU reports both.
//
// 32-bit types: 16 lanes, 8 x 32 micro-tile (16 accumulators of 32 registers); next hops 6 x 32,
// next hops with hop counts 4 x 32. 64-bit types: 8 lanes, 8 x 16 micro-tile; next hops (8 int32
// in a ymm) 6 x 16, with hop counts 4 x 16.
// GCC 12's avx512fintrin.h builds the set1/blend helpers from a deliberately undefined vector
// and then warns about it at every inlined use (GCC bug 105593); nothing here reads it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#define APSP_CPU_ISA_NS avx512
#include "cpu/kernels_impl.hpp"

namespace apsp::detail::cpu::avx512 {
namespace {

struct OpsI32 {
  using T = std::int32_t;
  using V = __m512i;
  using M = __mmask16;
  using N = __m512i;
  static constexpr int L = 16, kMR = 8, kNV = 2, kMRP = 6, kNVP = 2, kMRH = 4;
  static V load(const T* p) { return _mm512_loadu_si512(p); }
  static void store(T* p, V v) { _mm512_storeu_si512(p, v); }
  static V bcast(T x) { return _mm512_set1_epi32(x); }
  static V add(V a, V b) { return _mm512_add_epi32(a, b); }
  static V min(V a, V b) { return _mm512_min_epi32(a, b); }
  static M lt(V a, V b) { return _mm512_cmplt_epi32_mask(a, b); }
  static V select(M m, V t, V f) { return _mm512_mask_blend_epi32(m, f, t); }
  static N nload(const i32* p) { return _mm512_loadu_si512(p); }
  static void nstore(i32* p, N v) { _mm512_storeu_si512(p, v); }
  static N nbcast(i32 x) { return _mm512_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm512_mask_blend_epi32(m, f, t); }
  static M eq(V a, V b) { return _mm512_cmpeq_epi32_mask(a, b); }
  static N nadd(N a, N b) { return _mm512_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm512_cmplt_epi32_mask(a, b); }
  static M mand(M a, M b) { return M(a & b); }
  static M mor(M a, M b) { return M(a | b); }
};

struct OpsF32 {
  using T = float;
  using V = __m512;
  using M = __mmask16;
  using N = __m512i;
  static constexpr int L = 16, kMR = 8, kNV = 2, kMRP = 6, kNVP = 2, kMRH = 4;
  static V load(const T* p) { return _mm512_loadu_ps(p); }
  static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  static V bcast(T x) { return _mm512_set1_ps(x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  static M lt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static V select(M m, V t, V f) { return _mm512_mask_blend_ps(m, f, t); }
  static N nload(const i32* p) { return _mm512_loadu_si512(p); }
  static void nstore(i32* p, N v) { _mm512_storeu_si512(p, v); }
  static N nbcast(i32 x) { return _mm512_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm512_mask_blend_epi32(m, f, t); }
  static M eq(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static N nadd(N a, N b) { return _mm512_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm512_cmplt_epi32_mask(a, b); }
  static M mand(M a, M b) { return M(a & b); }
  static M mor(M a, M b) { return M(a | b); }
};

struct OpsI64 {
  using T = std::int64_t;
  using V = __m512i;
  using M = __mmask8;
  using N = __m256i;
  static constexpr int L = 8, kMR = 8, kNV = 2, kMRP = 6, kNVP = 2, kMRH = 4;
  static V load(const T* p) { return _mm512_loadu_si512(p); }
  static void store(T* p, V v) { _mm512_storeu_si512(p, v); }
  static V bcast(T x) { return _mm512_set1_epi64(x); }
  static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  static V min(V a, V b) { return _mm512_min_epi64(a, b); }
  static M lt(V a, V b) { return _mm512_cmplt_epi64_mask(a, b); }
  static V select(M m, V t, V f) { return _mm512_mask_blend_epi64(m, f, t); }
  static N nload(const i32* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void nstore(i32* p, N v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static N nbcast(i32 x) { return _mm256_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm256_mask_blend_epi32(m, f, t); }
  static M eq(V a, V b) { return _mm512_cmpeq_epi64_mask(a, b); }
  static N nadd(N a, N b) { return _mm256_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm256_cmplt_epi32_mask(a, b); }
  static M mand(M a, M b) { return M(a & b); }
  static M mor(M a, M b) { return M(a | b); }
};

struct OpsF64 {
  using T = double;
  using V = __m512d;
  using M = __mmask8;
  using N = __m256i;
  static constexpr int L = 8, kMR = 8, kNV = 2, kMRP = 6, kNVP = 2, kMRH = 4;
  static V load(const T* p) { return _mm512_loadu_pd(p); }
  static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  static V bcast(T x) { return _mm512_set1_pd(x); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V min(V a, V b) { return _mm512_min_pd(a, b); }
  static M lt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static V select(M m, V t, V f) { return _mm512_mask_blend_pd(m, f, t); }
  static N nload(const i32* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void nstore(i32* p, N v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static N nbcast(i32 x) { return _mm256_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm256_mask_blend_epi32(m, f, t); }
  static M eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  static N nadd(N a, N b) { return _mm256_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm256_cmplt_epi32_mask(a, b); }
  static M mand(M a, M b) { return M(a & b); }
  static M mor(M a, M b) { return M(a | b); }
};

}  // namespace
}  // namespace apsp::detail::cpu::avx512

namespace apsp::detail::cpu {
KernelSet<std::int32_t> avx512_kernels(std::int32_t) {
  return avx512::Kernels<avx512::OpsI32>::table(Isa::Avx512);
}
KernelSet<std::int64_t> avx512_kernels(std::int64_t) {
  return avx512::Kernels<avx512::OpsI64>::table(Isa::Avx512);
}
KernelSet<float> avx512_kernels(float) {
  return avx512::Kernels<avx512::OpsF32>::table(Isa::Avx512);
}
KernelSet<double> avx512_kernels(double) {
  return avx512::Kernels<avx512::OpsF64>::table(Isa::Avx512);
}
}  // namespace apsp::detail::cpu
