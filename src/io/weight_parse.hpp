// src/io/weight_parse.hpp — one rule for an edge weight written as text, shared by the DIMACS,
// Matrix Market and edge-list readers, so that a weight is refused (or kept) the same way in all.
//
// Graph weights are doubles (apsp/graph.hpp), exact for integers up to 2^53. A token written as
// an integer (optional sign, decimal digits) is parsed as an integer (never through double) and
// refused beyond +-2^53, and beyond int64 with the same message; a token written as a real is
// the nearest double and must be finite (no overflow to inf, no underflow of a non-zero to 0). A
// real that states an integer to its ones digit beyond 2^53 is refused when that integer is not
// the double it reads as (9007199254740993.0, 9.007199254740993e15 would round) and kept when it
// is (9.007199254740994e+15, as put_weight writes 2^53 + 2); one whose digits stop above the
// ones (1e20, 1.152921504606847e+18) is a real, read as the nearest double.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace apsp::io {

/// The largest |w| an integer weight may have: every integer up to it is exact as a double.
inline constexpr std::int64_t kMaxExactWeight = std::int64_t{1} << 53;

enum class WeightStatus : std::uint8_t {
  Ok,
  NotANumber,    ///< neither an integer nor a finite real (also inf, nan)
  NotAnInteger,  ///< a real where only integers are allowed
  BeyondExact,   ///< an integer token beyond +-2^53 (or beyond int64)
  Overflow,      ///< a real beyond the largest float64
  Underflow,     ///< a non-zero real that float64 would read as 0
};

namespace detail {
WeightStatus parse_real_weight(std::string_view t, double& w);
/// Whether a real token (no '+' sign) states an integer to its ones digit that is not exactly
/// `w`, the whole double it parsed to: reading it would round silently.
bool states_integer_other_than(std::string_view t, double w);
}  // namespace detail

/// Parses a weight token (`t` has no surrounding blanks). `integral` says whether the value is
/// an integer (a real token like 2.0 is). With `integers_only`, a real token is NotAnInteger.
inline WeightStatus parse_weight(std::string_view t, bool integers_only, double& w,
                                 bool& integral) {
  std::string_view s = t;
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    if (s.empty() || s[0] == '+' || s[0] == '-') return WeightStatus::NotANumber;
  }
  std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  bool digits = i < s.size();
  for (; i < s.size() && digits; ++i) digits = s[i] >= '0' && s[i] <= '9';
  if (digits) {
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || v > kMaxExactWeight || v < -kMaxExactWeight)
      return WeightStatus::BeyondExact;
    w = double(v);
    integral = true;
    return WeightStatus::Ok;
  }
  if (integers_only) return WeightStatus::NotAnInteger;
  const WeightStatus st = detail::parse_real_weight(s, w);
  integral = st == WeightStatus::Ok && w == std::floor(w);
  if (integral && std::fabs(w) >= double(kMaxExactWeight) &&
      detail::states_integer_other_than(s, w))
    return WeightStatus::BeyondExact;
  return st;
}

/// Writes w as text that parse_weight() reads back to the same double: an integer within +-2^53
/// as an integer token; a larger integral value in its shortest scientific form (an integer token
/// beyond 2^53 is refused on reading; the scientific form states either w itself, which is kept,
/// or fewer digits than the ones, a real); anything else in the shortest form that round-trips.
/// Returns the end of the text (needs at most 32 bytes).
inline char* put_weight(char* p, char* end, double w) {
  if (w == std::floor(w) && std::fabs(w) <= double(kMaxExactWeight))
    return std::to_chars(p, end, std::int64_t(w)).ptr;
  if (w == std::floor(w)) return std::to_chars(p, end, w, std::chars_format::scientific).ptr;
  return std::to_chars(p, end, w).ptr;
}

/// The one-line message for a weight token that did not parse (no file or line: the caller adds
/// them), e.g. "weight 9007199254740993 is beyond 2^53, which apsp holds exactly".
std::string weight_error(WeightStatus status, std::string_view token);

}  // namespace apsp::io
