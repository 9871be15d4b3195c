// python/src/csgraph_bindings.hpp — registers the csgraph helpers of apsp._core (dense_scan,
// per_source, host_memory_limit, max_threads); see csgraph_bindings.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace apsp_python {

void bind_csgraph(pybind11::module_& m);

}  // namespace apsp_python
