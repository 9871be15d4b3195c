// python/src/batch_bindings.hpp — registers apsp._core.batch (batch_bindings.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace apsp_python {

void bind_batch(pybind11::module_& m);

}  // namespace apsp_python
