// python/src/device_array.cpp — apsp._core.DeviceArray (device_array.hpp). The DLPack structs
// below are the C ABI the DLPack specification fixes (dlpack.h v0.8, the unversioned
// DLManagedTensor that torch, CuPy and JAX all accept), written out here from the spec.
#include "device_array.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>

namespace py = pybind11;

namespace apsp_python {

namespace {

// ---- DLPack's ABI (https://dmlc.github.io/dlpack/latest/c_api.html) ----
struct DLDevice {
  std::int32_t device_type;  // kDLCUDA = 2
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // kDLInt = 0, kDLFloat = 2
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr std::int32_t kDLCUDA = 2;

/// What a DLManagedTensor owns: the shape, the strides and a reference to the device memory.
struct Export {
  DLManagedTensor t{};
  std::int64_t shape[2] = {0, 0}, strides[2] = {0, 1};
  std::shared_ptr<void> owner;
};

void delete_export(DLManagedTensor* t) { delete static_cast<Export*>(t->manager_ctx); }

/// A capsule nobody consumed frees its tensor (a consumer renames it "used_dltensor" and calls
/// the deleter itself).
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (t && t->deleter) t->deleter(t);
}

DLDataType dl_type(apsp::Dtype t) {
  switch (t) {
    case apsp::Dtype::Int32:
      return {0, 32, 1};
    case apsp::Dtype::Int64:
      return {0, 64, 1};
    case apsp::Dtype::Float32:
      return {2, 32, 1};
    default:
      return {2, 64, 1};
  }
}

const char* typestr(apsp::Dtype t) {
  switch (t) {
    case apsp::Dtype::Int32:
      return "<i4";
    case apsp::Dtype::Int64:
      return "<i8";
    case apsp::Dtype::Float32:
      return "<f4";
    default:
      return "<f8";
  }
}

struct DeviceArray {
  apsp::DeviceMatrix m;

  py::tuple shape() const { return py::make_tuple(m.rows, m.cols); }

  py::capsule dlpack() const {
    auto* e = new Export;
    e->owner = m.owner;
    e->shape[0] = m.rows;
    e->shape[1] = m.cols;
    e->strides[0] = m.stride;
    e->strides[1] = 1;
    DLTensor& d = e->t.dl_tensor;
    d.data = m.data;
    d.device = {kDLCUDA, m.device};
    d.ndim = 2;
    d.dtype = dl_type(m.dtype);
    d.shape = e->shape;
    d.strides = e->strides;
    d.byte_offset = 0;
    e->t.manager_ctx = e;
    e->t.deleter = delete_export;
    PyObject* c = PyCapsule_New(&e->t, "dltensor", capsule_destructor);
    if (!c) {
      delete e;
      throw py::error_already_set();
    }
    return py::reinterpret_steal<py::capsule>(c);
  }

  py::dict cuda_array_interface() const {
    py::dict d;
    d["shape"] = shape();
    d["typestr"] = typestr(m.dtype);
    d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(m.data), false);
    d["version"] = 3;
    const auto size = std::int64_t(apsp::dtype_size(m.dtype));
    d["strides"] = py::make_tuple(m.stride * size, size);
    d["stream"] = py::none();  // the solve synchronised before returning: no stream to wait on
    return d;
  }

  py::array numpy() const {
    py::array out(py::dtype(typestr(m.dtype)), std::vector<py::ssize_t>{m.rows, m.stride});
    if (m.rows > 0) {
      py::gil_scoped_release nogil;
      m.download(out.mutable_data());
    }
    if (m.stride == m.cols) return out;
    return out[py::make_tuple(py::slice(0, m.rows, 1), py::slice(0, m.cols, 1))]
        .cast<py::array>();
  }
};

}  // namespace

void bind_device_array(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray",
                          "Distances in a GPU's memory (solve(..., device_result=True)): hand them "
                          "to torch.from_dlpack / cupy.from_dlpack / cupy.asarray without a copy, "
                          "or .numpy() to download them.")
      .def_property_readonly("shape", &DeviceArray::shape)
      .def_property_readonly("dtype",
                             [](const DeviceArray& a) { return py::dtype(typestr(a.m.dtype)); })
      .def_property_readonly("device", [](const DeviceArray& a) { return a.m.device; })
      .def_property_readonly("ndim", [](const DeviceArray&) { return 2; })
      .def("__dlpack__", [](const DeviceArray& a, py::args, py::kwargs) { return a.dlpack(); },
           "A DLPack capsule over the distances (no copy; the data is ready: stream ignored).")
      .def("__dlpack_device__",
           [](const DeviceArray& a) { return py::make_tuple(kDLCUDA, a.m.device); })
      .def_property_readonly("__cuda_array_interface__", &DeviceArray::cuda_array_interface)
      .def("numpy", &DeviceArray::numpy, "The distances copied to a NumPy array.")
      .def("__repr__", [](const DeviceArray& a) {
        return "DeviceArray(shape=(" + std::to_string(a.m.rows) + ", " +
               std::to_string(a.m.cols) + "), dtype=" + apsp::dtype_name(a.m.dtype) +
               ", device=cuda:" + std::to_string(a.m.device) + ")";
      });
}

py::object device_array(apsp::DeviceMatrix d) { return py::cast(DeviceArray{std::move(d)}); }

}  // namespace apsp_python
