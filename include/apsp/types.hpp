// apsp/types.hpp — element types, the unreachable sentinel of each, and dtype tags.
//
// Distances are stored as one of four element types. "Unreachable" is a finite sentinel for
// the integer types (so that INF + INF never overflows: 2 * INF fits in the type) and +inf for
// floats. int32 uses 2^30 - 1 = 1073741823, exactly the NTHU course format's value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace apsp {

/// Element type of a distance matrix.
enum class Dtype : std::uint8_t { Int32, Int64, Float32, Float64 };

/// Bytes per element of `t`.
std::size_t dtype_size(Dtype t);
/// "int32", "int64", "float32", "float64".
const char* dtype_name(Dtype t);
/// Parses the names above; throws apsp::UsageError on anything else.
Dtype parse_dtype(std::string_view name);
/// True for Int32 and Int64.
inline bool is_integer(Dtype t) { return t == Dtype::Int32 || t == Dtype::Int64; }

template <class T>
struct DtypeOf;
template <>
struct DtypeOf<std::int32_t> {
  static constexpr Dtype value = Dtype::Int32;
};
template <>
struct DtypeOf<std::int64_t> {
  static constexpr Dtype value = Dtype::Int64;
};
template <>
struct DtypeOf<float> {
  static constexpr Dtype value = Dtype::Float32;
};
template <>
struct DtypeOf<double> {
  static constexpr Dtype value = Dtype::Float64;
};

/// The "unreachable" value of T: 2^30-1 for int32, 2^62-1 for int64, +inf for floats.
template <class T>
constexpr T unreachable() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return (std::int32_t{1} << 30) - 1;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return (std::int64_t{1} << 62) - 1;
  else
    return std::numeric_limits<T>::infinity();
}

/// The NTHU output format's unreachable value.
inline constexpr std::int32_t kNthuInf = 1073741823;

/// Calls f(T{}) with T the C++ type of `t` (int32_t, int64_t, float, double).
template <class F>
decltype(auto) visit_dtype(Dtype t, F&& f) {
  switch (t) {
    case Dtype::Int32:
      return f(std::int32_t{});
    case Dtype::Int64:
      return f(std::int64_t{});
    case Dtype::Float32:
      return f(float{});
    case Dtype::Float64:
      break;
  }
  return f(double{});
}

}  // namespace apsp
