// src/cpu/kernels_avx2.cpp — the CPU kernels for AVX2 (16 ymm registers), compiled with -mavx2
// (see sources.cmake) and only called when the CPU reports it.
//
// 32-bit types: 8 lanes, 6 x 16 micro-tile (12 accumulators); next hops 3 x 16; with hop counts
// 2 x 16.
// 64-bit types: 4 lanes, 6 x 8 micro-tile; AVX2 has no 64-bit integer min, so it is a compare
// and a blend. Next hops of 64-bit lanes are 4 int32 in an xmm, masks narrowed by a permute.
#include <immintrin.h>

#define APSP_CPU_ISA_NS avx2
#include "cpu/kernels_impl.hpp"

namespace apsp::detail::cpu::avx2 {
namespace {

inline __m128i narrow_mask(__m256i m64) {
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(m64, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

struct OpsI32 {
  using T = std::int32_t;
  using V = __m256i;
  using M = __m256i;
  using N = __m256i;
  static constexpr int L = 8, kMR = 6, kNV = 2, kMRP = 3, kNVP = 2, kMRH = 2;
  static V load(const T* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(T* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static V bcast(T x) { return _mm256_set1_epi32(x); }
  static V add(V a, V b) { return _mm256_add_epi32(a, b); }
  static V min(V a, V b) { return _mm256_min_epi32(a, b); }
  static M lt(V a, V b) { return _mm256_cmpgt_epi32(b, a); }
  static V select(M m, V t, V f) { return _mm256_blendv_epi8(f, t, m); }
  static N nload(const i32* p) { return load(p); }
  static void nstore(i32* p, N v) { store(p, v); }
  static N nbcast(i32 x) { return _mm256_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm256_blendv_epi8(f, t, m); }
  static M eq(V a, V b) { return _mm256_cmpeq_epi32(a, b); }
  static N nadd(N a, N b) { return _mm256_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm256_cmpgt_epi32(b, a); }
  static M mand(M a, M b) { return _mm256_and_si256(a, b); }
  static M mor(M a, M b) { return _mm256_or_si256(a, b); }
};

struct OpsF32 {
  using T = float;
  using V = __m256;
  using M = __m256;
  using N = __m256i;
  static constexpr int L = 8, kMR = 6, kNV = 2, kMRP = 3, kNVP = 2, kMRH = 2;
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static V bcast(T x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static M lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V select(M m, V t, V f) { return _mm256_blendv_ps(f, t, m); }
  static N nload(const i32* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void nstore(i32* p, N v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static N nbcast(i32 x) { return _mm256_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm256_blendv_epi8(f, t, _mm256_castps_si256(m)); }
  static M eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static N nadd(N a, N b) { return _mm256_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, a)); }
  static M mand(M a, M b) { return _mm256_and_ps(a, b); }
  static M mor(M a, M b) { return _mm256_or_ps(a, b); }
};

struct OpsI64 {
  using T = std::int64_t;
  using V = __m256i;
  using M = __m256i;
  using N = __m128i;
  static constexpr int L = 4, kMR = 6, kNV = 2, kMRP = 3, kNVP = 2, kMRH = 2;
  static V load(const T* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(T* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static V bcast(T x) { return _mm256_set1_epi64x(x); }
  static V add(V a, V b) { return _mm256_add_epi64(a, b); }
  static V min(V a, V b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }
  static M lt(V a, V b) { return _mm256_cmpgt_epi64(b, a); }
  static V select(M m, V t, V f) { return _mm256_blendv_epi8(f, t, m); }
  static N nload(const i32* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void nstore(i32* p, N v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static N nbcast(i32 x) { return _mm_set1_epi32(x); }
  static N nselect(M m, N t, N f) { return _mm_blendv_epi8(f, t, narrow_mask(m)); }
  static M eq(V a, V b) { return _mm256_cmpeq_epi64(a, b); }
  static N nadd(N a, N b) { return _mm_add_epi32(a, b); }
  static M nlt(N a, N b) { return _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(b, a)); }
  static M mand(M a, M b) { return _mm256_and_si256(a, b); }
  static M mor(M a, M b) { return _mm256_or_si256(a, b); }
};

struct OpsF64 {
  using T = double;
  using V = __m256d;
  using M = __m256d;
  using N = __m128i;
  static constexpr int L = 4, kMR = 6, kNV = 2, kMRP = 3, kNVP = 2, kMRH = 2;
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static V bcast(T x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static M lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static V select(M m, V t, V f) { return _mm256_blendv_pd(f, t, m); }
  static N nload(const i32* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void nstore(i32* p, N v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static N nbcast(i32 x) { return _mm_set1_epi32(x); }
  static N nselect(M m, N t, N f) {
    return _mm_blendv_epi8(f, t, narrow_mask(_mm256_castpd_si256(m)));
  }
  static M eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static N nadd(N a, N b) { return _mm_add_epi32(a, b); }
  static M nlt(N a, N b) {
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(b, a)));
  }
  static M mand(M a, M b) { return _mm256_and_pd(a, b); }
  static M mor(M a, M b) { return _mm256_or_pd(a, b); }
};

}  // namespace
}  // namespace apsp::detail::cpu::avx2

namespace apsp::detail::cpu {
KernelSet<std::int32_t> avx2_kernels(std::int32_t) {
  return avx2::Kernels<avx2::OpsI32>::table(Isa::Avx2);
}
KernelSet<std::int64_t> avx2_kernels(std::int64_t) {
  return avx2::Kernels<avx2::OpsI64>::table(Isa::Avx2);
}
KernelSet<float> avx2_kernels(float) { return avx2::Kernels<avx2::OpsF32>::table(Isa::Avx2); }
KernelSet<double> avx2_kernels(double) { return avx2::Kernels<avx2::OpsF64>::table(Isa::Avx2); }
}  // namespace apsp::detail::cpu
