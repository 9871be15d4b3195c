// src/io/weight_parse.cpp — the rare paths of weight parsing: reals that do not fit a double, and
// the messages every text reader gives for a weight it refuses (weight_parse.hpp).
#include "io/weight_parse.hpp"

#include <cerrno>
#include <cstdlib>

#include "io/text_common.hpp"

namespace apsp::io {

namespace detail {

WeightStatus parse_real_weight(std::string_view t, double& w) {
  const auto r = std::from_chars(t.data(), t.data() + t.size(), w, std::chars_format::general);
  if (r.ptr != t.data() + t.size() || t.empty()) return WeightStatus::NotANumber;
  if (r.ec == std::errc()) return std::isfinite(w) ? WeightStatus::Ok : WeightStatus::NotANumber;
  if (r.ec != std::errc::result_out_of_range) return WeightStatus::NotANumber;
  // Out of range: beyond the largest double, or so small that it rounds to 0 (a subnormal result
  // may be reported here too, and is kept).
  const std::string copy(t);
  errno = 0;
  const double v = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(v)) return WeightStatus::Overflow;
  if (v == 0) return WeightStatus::Underflow;
  w = v;
  return WeightStatus::Ok;
}

bool states_integer_other_than(std::string_view t, double w) {
  std::size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  std::string digits;  // the mantissa's digits, without the point
  std::int64_t point = -1;
  for (; i < t.size(); ++i) {
    if (t[i] >= '0' && t[i] <= '9')
      digits += t[i];
    else if (t[i] == '.' && point < 0)
      point = std::int64_t(digits.size());
    else
      break;
  }
  if (point < 0) point = std::int64_t(digits.size());
  std::int64_t exp = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::string_view e = t.substr(i + 1);
    if (!e.empty() && e[0] == '+') e.remove_prefix(1);
    const auto r = std::from_chars(e.data(), e.data() + e.size(), exp);
    if (r.ec != std::errc() || exp > 100000 || exp < -100000) return false;
  }
  // digits[0, units) are the integer part; a token whose digits stop above the ones place
  // (1e20) states a rounded real, and one with a non-zero fraction is not an integer.
  const std::int64_t units = point + exp;
  if (units <= 0 || std::int64_t(digits.size()) < units) return false;
  for (std::size_t k = std::size_t(units); k < digits.size(); ++k)
    if (digits[k] != '0') return false;
  std::string_view whole = std::string_view(digits).substr(0, std::size_t(units));
  while (!whole.empty() && whole[0] == '0') whole.remove_prefix(1);
  // A whole double below 2^1024 has at most 309 decimal digits.
  char exact[320];
  const auto r =
      std::to_chars(exact, exact + sizeof exact, std::fabs(w), std::chars_format::fixed, 0);
  return r.ec != std::errc() || whole != std::string_view(exact, std::size_t(r.ptr - exact));
}

}  // namespace detail

std::string weight_error(WeightStatus status, std::string_view token) {
  const std::string quoted = quote(token);  // '...', control and non-UTF-8 bytes as '?'
  const std::string shown = quoted.substr(1, quoted.size() - 2);
  const bool negative = !token.empty() && token[0] == '-';
  switch (status) {
    case WeightStatus::Ok:
      break;
    case WeightStatus::NotANumber:
      return "expected a finite number as the weight, got '" + shown + "'";
    case WeightStatus::NotAnInteger:
      return "expected an integer weight, got '" + shown + "'";
    case WeightStatus::BeyondExact:
      return "weight " + shown + " is beyond " + (negative ? "-" : "") +
             "2^53, which apsp holds exactly";
    case WeightStatus::Overflow:
      return "weight " + shown + " is beyond the largest float64 (" + (negative ? "-" : "") +
             "1.8e308)";
    case WeightStatus::Underflow:
      return "weight " + shown + " is too small for float64 (it would read as 0)";
  }
  return "bad weight '" + shown + "'";
}

}  // namespace apsp::io
