// python/src/graph_bindings.hpp — registers apsp._core.Graph and the functions that make or
// write one (graph_bindings.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace apsp_python {

void bind_graph(pybind11::module_& m);

}  // namespace apsp_python
