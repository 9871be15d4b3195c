// python/src/metrics_bindings.hpp — registers apsp._core.metrics and MetricsReducer; see
// metrics_bindings.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace apsp_python {

void bind_metrics(pybind11::module_& m);

}  // namespace apsp_python
