// python/src/numpy_view.hpp — typed, strided views of NumPy data, taken with the GIL and read
// without it (any strides, any alignment), shared by the module's converters and scans.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

namespace apsp_python {

namespace py = pybind11;

struct View {
  const char* data = nullptr;
  std::int64_t rows = 0, cols = 1;
  std::int64_t row_stride = 0, col_stride = 0;  // bytes
  char kind = 'f';
  int itemsize = 8;

  template <class T>
  T at(std::int64_t i, std::int64_t j = 0) const {
    T v;
    std::memcpy(&v, data + i * row_stride + j * col_stride, sizeof v);  // arrays may be unaligned
    return v;
  }
};

inline std::string dtype_str(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

inline View view_of(const py::array& a, int ndim, const std::string& what) {
  if (a.ndim() != ndim)
    throw py::value_error(what + " must be " + std::to_string(ndim) + "-dimensional, got shape " +
                          py::str(a.attr("shape")).cast<std::string>());
  if (!a.dtype().attr("isnative").cast<bool>())
    throw py::type_error(what + " has non-native byte order (" + dtype_str(a) + ")");
  View v;
  v.data = static_cast<const char*>(a.data());
  v.rows = a.shape(0);
  v.row_stride = a.strides(0);
  if (ndim == 2) {
    v.cols = a.shape(1);
    v.col_stride = a.strides(1);
  }
  v.kind = a.dtype().kind();
  v.itemsize = int(a.itemsize());
  return v;
}

/// Calls f(T{}) with T the C++ type of a numeric view; TypeError for anything else.
template <class F>
void visit_numeric(const View& v, const std::string& what, bool allow_float, F&& f) {
  switch (v.kind) {
    case 'b':
      return f(bool{});
    case 'i':
      switch (v.itemsize) {
        case 1:
          return f(std::int8_t{});
        case 2:
          return f(std::int16_t{});
        case 4:
          return f(std::int32_t{});
        case 8:
          return f(std::int64_t{});
      }
      break;
    case 'u':
      switch (v.itemsize) {
        case 1:
          return f(std::uint8_t{});
        case 2:
          return f(std::uint16_t{});
        case 4:
          return f(std::uint32_t{});
        case 8:
          return f(std::uint64_t{});
      }
      break;
    case 'f':
      if (!allow_float) break;
      if (v.itemsize == 4) return f(float{});
      if (v.itemsize == 8) return f(double{});
      break;
  }
  throw py::type_error(what + ": unsupported element type (expected " +
                       (allow_float ? std::string("integers or floats") : std::string("integers")) +
                       ")");
}

template <class T>
std::string num_str(T v) {
  std::ostringstream os;
  os.precision(17);
  if constexpr (std::is_same_v<T, bool>)
    os << (v ? "True" : "False");
  else if constexpr (sizeof(T) == 1)
    os << int(v);
  else
    os << v;
  return os.str();
}

}  // namespace apsp_python
