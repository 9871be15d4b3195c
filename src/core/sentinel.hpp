// src/core/sentinel.hpp — the per-dtype arithmetic that host and device code share: the one
// "unreachable" value of each element type (int16 for the int16x2 rung's halves, int32, int64,
// float, double), the relax rule c = min(c, a + b) and its guards, the band test of a capped
// rung and the widening of a narrow rung's value. Usable from .cpp (the host compiler sees plain
// constexpr functions) and from .cu / .cuh (nvcc, hipcc: __host__ __device__).
//
// apsp::unreachable<T>() (apsp/types.hpp, the public name) holds the same values for the four
// result types; core/ladder.cpp pins both together at compile time, tests/test_ladder_rules.cpp
// pins the values. cuda::inf_value<T>() (cuda/kernels/distances.cuh) is a thin alias of
// sentinel<T>().
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define APSP_HOST_DEVICE __host__ __device__
#else
#define APSP_HOST_DEVICE
#endif

namespace apsp::detail {

/// The "unreachable" value of T. Integers: a finite value with 2 * sentinel inside T, so that
/// sentinel + sentinel never overflows in the relax rule: 2^14-1 for int16 (the int16x2 rung's
/// cap, kInf16), 2^30-1 for int32 (the NTHU format's value), 2^62-1 for int64. Floats: +inf.
template <class T>
APSP_HOST_DEVICE constexpr T sentinel() {
  if constexpr (std::is_same_v<T, std::int16_t>)
    return std::int16_t((1 << 14) - 1);
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return (std::int32_t{1} << 30) - 1;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return (std::int64_t{1} << 62) - 1;
  else if constexpr (std::is_same_v<T, float>)
    return __builtin_huge_valf();
  else {
    static_assert(std::is_same_v<T, double>, "sentinel<T>: int16, int32, int64, float, double");
    return __builtin_huge_val();
  }
}

/// Whether v is a distance (below the sentinel). False for NaN too (never a distance here).
template <class T>
APSP_HOST_DEVICE constexpr bool reachable(T v) {
  return v < sentinel<T>();
}

/// The relax rule of every dtype: min(c, a + b), the sum when strictly smaller (ties keep c).
/// Unguarded: for a, b in [0, sentinel] the sum stays inside T (int: 2 * sentinel fits; float:
/// inf + x = inf) and is >= sentinel whenever a or b is, so an unreachable operand never lowers
/// c below the sentinel. The device's hand-tuned forms (cuda/kernels/distances.cuh relax(): DPX
/// VIADDMNMX, fminf) compute the same values on these inputs.
template <class T>
APSP_HOST_DEVICE constexpr T relax(T a, T b, T c) {
  const T s = T(a + b);
  return s < c ? s : c;
}

/// The relax rule where a or b may be negative (Johnson's potentials, a negative weight): an
/// unreachable operand is skipped instead of summed, as sentinel + (negative) would look finite.
template <class T>
APSP_HOST_DEVICE constexpr T relax_guarded(T a, T b, T c) {
  return reachable(a) && reachable(b) ? relax(a, b, c) : c;
}

/// The band check of a rung capped at `cap`: v lies in [lo, cap), lo = cap - max weight
/// (core/ladder.hpp has the proof: a rung is kept only when no cell lies there).
template <class T>
APSP_HOST_DEVICE constexpr bool in_band(T v, T lo, T cap) {
  return v >= lo && v < cap;
}

/// A capped rung's value as the wider type To: From's sentinel (or anything above it, the cap)
/// becomes To's sentinel, every other value is exact and kept.
template <class To, class From>
APSP_HOST_DEVICE constexpr To widen_value(From v) {
  return v >= sentinel<From>() ? sentinel<To>() : To(v);
}

}  // namespace apsp::detail
