// python/src/matrix_convert.cpp — apsp::Matrix <-> NumPy without copies (a capsule owns the
// matrix), and the O(V^2) result passes SciPy conventions need (transpose, predecessors, float64
// with inf), run in place with the GIL released; read_matrix / write_matrix bindings.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "apsp/types.hpp"
#include "matrix_convert.hpp"
#include "numpy_view.hpp"

namespace apsp_python {

namespace {

using apsp_python::dtype_str;
using apsp_python::View;
using apsp_python::visit_numeric;

constexpr const char* kCapsuleName = "apsp.Matrix";

void free_matrix_capsule(PyObject* cap) {
  delete static_cast<apsp::Matrix*>(PyCapsule_GetPointer(cap, kCapsuleName));
}

py::dtype numpy_dtype(apsp::Dtype t) {
  switch (t) {
    case apsp::Dtype::Int32:
      return py::dtype::of<std::int32_t>();
    case apsp::Dtype::Int64:
      return py::dtype::of<std::int64_t>();
    case apsp::Dtype::Float32:
      return py::dtype::of<float>();
    case apsp::Dtype::Float64:
      break;
  }
  return py::dtype::of<double>();
}

/// Moves the rows of a padded matrix together (row i to offset i * cols), in place: the logical
/// block becomes C-contiguous at the start of the same allocation. Forward order is safe, as no
/// row moves past a row that has not moved yet.
void compact_rows(apsp::Matrix& m) {
  if (m.stride() == m.cols() || m.rows() <= 1) return;
  const auto es = std::int64_t(apsp::dtype_size(m.dtype()));
  char* base = static_cast<char*>(m.raw());
  const auto row_bytes = std::size_t(m.cols() * es);
  for (std::int64_t i = 1; i < m.rows(); ++i)
    std::memmove(base + i * m.cols() * es, base + i * m.stride() * es, row_bytes);
}

/// Hands `m` to NumPy without a copy: the array views its rows() x cols() block, made
}  // namespace

/// Hands `m` to NumPy without a copy: the array views its rows() x cols() block, made
/// C-contiguous in place first (compact_rows), and a capsule in the array's base owns the matrix.
py::array to_numpy(apsp::Matrix&& m) {
  if (m.stride() != m.cols()) {
    py::gil_scoped_release nogil;
    compact_rows(m);
  }
  auto* heap = new apsp::Matrix(std::move(m));
  PyObject* cap = PyCapsule_New(heap, kCapsuleName, free_matrix_capsule);
  if (!cap) {
    delete heap;
    throw py::error_already_set();
  }
  auto owner = py::reinterpret_steal<py::object>(cap);
  const auto es = py::ssize_t(apsp::dtype_size(heap->dtype()));
  return py::array(numpy_dtype(heap->dtype()),
                   {py::ssize_t(heap->rows()), py::ssize_t(heap->cols())},
                   {py::ssize_t(heap->cols()) * es, es}, heap->raw(), owner);
}

/// A Matrix viewing `a` in place when its rows are runs of native int32/int64/float32/float64
/// elements (C order, or any row stride that is a whole number of elements); nullopt otherwise.
std::optional<apsp::Matrix> matrix_view(const py::array& a) {
  if (a.ndim() != 2 || !a.dtype().attr("isnative").cast<bool>()) return std::nullopt;
  std::optional<apsp::Dtype> t;
  const char kind = a.dtype().kind();
  if (kind == 'i' && a.itemsize() == 4)
    t = apsp::Dtype::Int32;
  else if (kind == 'i' && a.itemsize() == 8)
    t = apsp::Dtype::Int64;
  else if (kind == 'f' && a.itemsize() == 4)
    t = apsp::Dtype::Float32;
  else if (kind == 'f' && a.itemsize() == 8)
    t = apsp::Dtype::Float64;
  const auto es = a.itemsize();
  if (!t || a.strides(1) != es || a.strides(0) < a.shape(1) * es || a.strides(0) % es != 0)
    return std::nullopt;
  return apsp::Matrix::view(a.data(), a.shape(0), a.shape(1), a.strides(0) / es, *t);
}

namespace {

// ---- result post-processing (in place where possible, GIL released) ----------------------------
// O(V^2) passes; below this side a parallel region costs more than it saves (a loaded machine
// can take milliseconds to schedule the team).
constexpr std::int64_t kParallelSide = 512;

struct MutView {
  char* data;
  std::int64_t n, row_stride, col_stride;
  template <class T>
  T& at(std::int64_t i, std::int64_t j) const {
    return *reinterpret_cast<T*>(data + i * row_stride + j * col_stride);
  }
};

MutView square_mut_view(py::array& a, const char* what) {
  if (a.ndim() != 2 || a.shape(0) != a.shape(1))
    throw py::value_error(std::string(what) + " must be a square matrix");
  if (!a.writeable()) throw py::value_error(std::string(what) + " is read-only");
  if (reinterpret_cast<std::uintptr_t>(a.data()) % std::size_t(a.itemsize()) != 0 ||
      a.strides(0) % a.itemsize() || a.strides(1) % a.itemsize())
    throw py::value_error(std::string(what) + " is not aligned");
  return {static_cast<char*>(a.mutable_data()), a.shape(0), a.strides(0), a.strides(1)};
}

template <class T>
void transpose_in_place(const MutView& v) {
  constexpr std::int64_t kB = 64;
  const std::int64_t n = v.n;
#pragma omp parallel for schedule(dynamic) if (n > kParallelSide)
  for (std::int64_t ib = 0; ib < n; ib += kB)
    for (std::int64_t jb = ib; jb < n; jb += kB)
      for (std::int64_t i = ib; i < std::min(ib + kB, n); ++i)
        for (std::int64_t j = std::max(jb, i + 1); j < std::min(jb + kB, n); ++j)
          std::swap(v.at<T>(i, j), v.at<T>(j, i));
}

void transpose_square(py::array a) {
  const MutView v = square_mut_view(a, "matrix");
  const auto size = a.itemsize();
  py::gil_scoped_release nogil;
  if (size == 4)
    transpose_in_place<std::int32_t>(v);
  else if (size == 8)
    transpose_in_place<std::int64_t>(v);
  else
    throw py::type_error("transpose: 4- or 8-byte elements expected");
}

/// SciPy's predecessor matrix from the next-hop matrix of the REVERSED graph, in place:
/// pred[i][j] = next_rev[j][i] (the vertex before j on a shortest i -> j path), -9999 for none
/// and on the diagonal.
void predecessors_from_reversed_next(py::array a) {
  if (!a.dtype().is(py::dtype::of<std::int32_t>()))
    throw py::type_error("next-hop matrix must be int32");
  const MutView v = square_mut_view(a, "next-hop matrix");
  py::gil_scoped_release nogil;
  transpose_in_place<std::int32_t>(v);
#pragma omp parallel for schedule(static) if (v.n > kParallelSide)
  for (std::int64_t i = 0; i < v.n; ++i)
    for (std::int64_t j = 0; j < v.n; ++j) {
      std::int32_t& p = v.at<std::int32_t>(i, j);
      if (p < 0 || i == j) p = -9999;
    }
}

/// A new float64 copy of a distance matrix: the integer "unreachable" sentinel becomes +inf.
py::array to_float64(const py::array& a) {
  const View v = view_of(a, 2, "matrix");
  apsp::Matrix out(v.rows, v.cols, apsp::Dtype::Float64);
  {
    py::gil_scoped_release nogil;
    auto convert = [&](auto tag) {
      using T = decltype(tag);
      constexpr double kInf = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) if (v.rows * v.cols > kParallelSide * kParallelSide)
      for (std::int64_t i = 0; i < v.rows; ++i) {
        double* o = out.row<double>(i);
        for (std::int64_t j = 0; j < v.cols; ++j) {
          const T x = v.at<T>(i, j);
          if constexpr (std::is_integral_v<T>)
            o[j] = x >= apsp::unreachable<T>() ? kInf : double(x);
          else
            o[j] = double(x);
        }
      }
    };
    if (v.kind == 'i' && v.itemsize == 4)
      convert(std::int32_t{});
    else if (v.kind == 'i' && v.itemsize == 8)
      convert(std::int64_t{});
    else if (v.kind == 'f' && v.itemsize == 4)
      convert(float{});
    else if (v.kind == 'f' && v.itemsize == 8)
      convert(double{});
    else
      throw py::type_error("to_float64: int32, int64, float32 or float64 matrix expected");
  }
  return to_numpy(std::move(out));
}

}  // namespace

/// An apsp::Matrix copy of a 2-D int32/int64/float32/float64 array (for writers).
apsp::Matrix matrix_copy(const py::array& a) {
  const View v = view_of(a, 2, "matrix");
  std::optional<apsp::Dtype> t;
  if (v.kind == 'i' && v.itemsize == 4)
    t = apsp::Dtype::Int32;
  else if (v.kind == 'i' && v.itemsize == 8)
    t = apsp::Dtype::Int64;
  else if (v.kind == 'f' && v.itemsize == 4)
    t = apsp::Dtype::Float32;
  else if (v.kind == 'f' && v.itemsize == 8)
    t = apsp::Dtype::Float64;
  else
    throw py::type_error("matrix must be int32, int64, float32 or float64, got " + dtype_str(a));
  apsp::Matrix m(v.rows, v.cols, *t);
  py::gil_scoped_release nogil;
  const auto es = std::int64_t(apsp::dtype_size(*t));
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j)
      std::memcpy(static_cast<char*>(m.raw()) + (i * m.stride() + j) * es,
                  v.data + i * v.row_stride + j * v.col_stride, std::size_t(es));
  return m;
}

void bind_matrix(py::module_& m) {
  m.def("transpose_square", &transpose_square, py::arg("matrix"));
  m.def("predecessors_from_reversed_next", &predecessors_from_reversed_next, py::arg("next_rev"));
  m.def("to_float64", &to_float64, py::arg("matrix"));
  m.def(
      "write_matrix",
      [](const std::string& path, const py::array& a, const std::string& format) {
        const apsp::OutputFormat f = apsp::parse_output_format(format);
        if (const std::optional<apsp::Matrix> view = matrix_view(a)) {
          py::gil_scoped_release nogil;
          apsp::write_matrix(path, *view, f);
          return;
        }
        const apsp::Matrix copy = matrix_copy(a);
        py::gil_scoped_release nogil;
        apsp::write_matrix(path, copy, f);
      },
      py::arg("path"), py::arg("matrix"), py::arg("format"));
  m.def(
      "output_format_for",
      [](const std::string& path) -> std::string {
        switch (apsp::output_format_for(path)) {
          case apsp::OutputFormat::Npy:
            return "npy";
          case apsp::OutputFormat::Text:
            return "text";
          default:
            return "nthu";
        }
      },
      py::arg("path"),
      "The format the CLI writes a result named `path` in: nthu, npy or text (ValueError for an "
      "extension it refuses).");
  m.def(
      "read_matrix",
      [](const std::string& path, const std::string& format) {
        const apsp::OutputFormat f = apsp::parse_output_format(format);
        apsp::Matrix mat;
        {
          py::gil_scoped_release nogil;
          mat = apsp::read_matrix(path, f);
        }
        return to_numpy(std::move(mat));
      },
      py::arg("path"), py::arg("format"));
}

}  // namespace apsp_python
