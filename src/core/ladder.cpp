// src/core/ladder.cpp — the type ladder's host side (core/ladder.hpp): the result dtype from the
// distance bound, the int16x2 rung's policy, the checked int32 rung's band check and widening.
#include "core/ladder.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/config.hpp"

namespace apsp::detail {

// One sentinel per dtype: the public apsp::unreachable<T>() (apsp/types.hpp) and the shared one
// (core/sentinel.hpp, host and device) are the same values.
static_assert(sentinel<std::int32_t>() == unreachable<std::int32_t>());
static_assert(sentinel<std::int64_t>() == unreachable<std::int64_t>());
static_assert(sentinel<float>() == unreachable<float>());
static_assert(sentinel<double>() == unreachable<double>());
static_assert(sentinel<std::int32_t>() == kNthuInf);
static_assert(2 * std::int64_t(sentinel<std::int32_t>()) <=
              std::numeric_limits<std::int32_t>::max());
static_assert(2 * int(sentinel<std::int16_t>()) <= std::numeric_limits<std::int16_t>::max());
static_assert(sentinel<std::int64_t>() <= std::numeric_limits<std::int64_t>::max() / 2);

Dtype choose_dtype_for(double bound, bool integer_weights, const SolveOptions& o,
                       std::string* why) {
  std::ostringstream w;
  w.precision(17);
  w << "(V-1)*max|w| = " << bound;
  if (o.dtype) {
    const Dtype t = *o.dtype;
    if (is_integer(t) && !integer_weights)
      throw UsageError(std::string("type ") + dtype_name(t) +
                       " cannot hold fractional weights; use float32 or float64");
    if (t == Dtype::Int32 && bound >= kInt32Cap)
      throw UsageError("int32 cannot be exact for this graph: " + w.str() +
                       " reaches 2^30-1; use --type int64");
    if (t == Dtype::Int64 && bound >= kInt64Cap)
      throw UsageError("int64 cannot be exact for this graph: (V-1)*max|w| reaches 2^62-1");
    if (why) *why = "asked";
    return t;
  }
  if (!integer_weights) {
    if (why) *why = "fractional weights";
    return Dtype::Float64;
  }
  if (bound < kInt32Cap) {
    if (why) *why = w.str() + " < 2^30-1";
    return Dtype::Int32;
  }
  if (bound < kInt64Cap) {
    if (why) *why = w.str() + " reaches 2^30-1";
    return Dtype::Int64;
  }
  if (!(bound < std::numeric_limits<double>::max())) {  // float64 would overflow too
    std::ostringstream os;
    os.precision(8);
    os << "weights too large for every type: (V-1)*max|w| ";
    if (std::isfinite(bound))
      os << "= " << bound << " reaches";
    else
      os << "overflows";
    os << " the largest finite float64 (and 2^62-1), so a path sum could overflow; scale the "
          "weights down";
    throw UsageError(os.str());
  }
  throw UsageError(
      "weights too large for exact integer distances: (V-1)*max|w| reaches 2^62-1; use --type "
      "float64");
}

Int16Try int16_try(std::int64_t num_vertices, double max_w, double min_w) {
  if (!int16x2_rung_applicable(max_w, min_w)) return Int16Try::No;
  if (const auto on = config::get_switch(config::Knob::CudaInt16))
    return *on ? Int16Try::Forced : Int16Try::No;
  return num_vertices >= 6144 ? Int16Try::IfNoEvidence : Int16Try::No;
}

bool int32_in_band(const Matrix& d, int lo) {
  const std::int64_t n = d.rows();
  constexpr std::int32_t cap = sentinel<std::int32_t>();
  bool found = false;
#pragma omp parallel for schedule(static) reduction(|| : found) if (n >= 256)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t* r = d.row<std::int32_t>(i);
    bool f = false;
    for (std::int64_t j = 0; j < n; ++j) f |= in_band(r[j], lo, cap);
    found = found || f;
  }
  return found;
}

Matrix widen_to_int64(const Matrix& d, Memory memory) {
  const std::int64_t n = d.rows();
  Matrix w(n, n, d.stride(), d.stride(), Dtype::Int64, memory);
#pragma omp parallel for schedule(static) if (n >= 256)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t* r = d.row<std::int32_t>(i);
    std::int64_t* o = w.row<std::int64_t>(i);
    for (std::int64_t j = 0; j < n; ++j) o[j] = widen_value<std::int64_t>(r[j]);
  }
  return w;
}

}  // namespace apsp::detail
