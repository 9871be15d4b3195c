// python/src/device_array.hpp — apsp._core.DeviceArray: distances left in a GPU's memory
// (apsp::DeviceMatrix, SolveOptions::keep_on_device) handed to Python without a copy, through
// DLPack (`__dlpack__`, `__dlpack_device__`: torch.from_dlpack, cupy.from_dlpack, jax) and the
// CUDA array interface (`__cuda_array_interface__`: cupy.asarray, numba); `numpy()` downloads.
#pragma once

#include <pybind11/pybind11.h>

#include "apsp/solve.hpp"

namespace apsp_python {

/// Registers the DeviceArray type in module m.
void bind_device_array(pybind11::module_& m);

/// A DeviceArray over d (keeps d's memory alive while Python holds it or a consumer's tensor).
pybind11::object device_array(apsp::DeviceMatrix d);

}  // namespace apsp_python
