// python/src/matrix_convert.hpp — apsp::Matrix <-> NumPy (matrix_convert.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>

#include "apsp/matrix.hpp"

namespace apsp_python {

/// Hands `m` to NumPy without a copy: the array views its rows() x cols() block, made
/// C-contiguous in place first, and a capsule in the array's base owns the matrix.
pybind11::array to_numpy(apsp::Matrix&& m);
/// A Matrix viewing `a` in place when its rows are runs of native int32/int64/float32/float64
/// elements; nullopt otherwise.
std::optional<apsp::Matrix> matrix_view(const pybind11::array& a);
/// An apsp::Matrix copy of a 2-D int32/int64/float32/float64 array (for writers).
apsp::Matrix matrix_copy(const pybind11::array& a);
/// transpose_square, predecessors_from_reversed_next, to_float64, read_matrix, write_matrix.
void bind_matrix(pybind11::module_& m);

}  // namespace apsp_python
