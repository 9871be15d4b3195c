// src/plugin/loader.cpp — libapsp_core.so's side of the backend plugins (see plugin_abi.hpp).
//
// The detail:: functions that apsp_lib gets from the cuda, multi-gpu and mpi objects are defined
// here for the parts this build has (core/missing_parts.cpp stands in for the others, here too):
// each loads its plugin from the directory libapsp_core.so lives in, once, on first use (dlopen,
// RTLD_NOW | RTLD_LOCAL; never unloaded), and calls through its table. A plugin that cannot be
// loaded (no libcudart / libnccl / libmpi on this machine, or the file is missing) leaves its
// backends "built" but not usable, with dlopen's reason as the detail: asking for one then throws
// BackendUnavailable naming it, and backend auto solves on the CPU.
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "batch/gpu_engine.hpp"
#include "core/pinned.hpp"
#include "metrics/gpu_engine.hpp"
#include "plugin/plugin_abi.hpp"

namespace apsp::detail {

namespace {

#if defined(APSP_WITH_CUDA) || defined(APSP_WITH_MPI)
/// The directory this library was loaded from ("" if unknown: then the loader's search path).
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

template <class Table>
struct Plugin {
  const Table* table = nullptr;
  std::string error;  ///< why table is null: "plugin libapsp_cuda.so could not be loaded: ..."
};

template <class Table>
Plugin<Table> load(const char* file, const char* entry) {
  Plugin<Table> p;
  const std::string path = own_directory() + file;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    p.error = std::string("its plugin ") + file +
              " could not be loaded: " + (e ? e : "unknown dlopen error");
    return p;
  }
  using Entry = const Table* (*)();
  auto fn = reinterpret_cast<Entry>(dlsym(handle, entry));
  const Table* t = fn ? fn() : nullptr;
  if (!t || t->abi != plugin::kAbi || t->size != sizeof(Table)) {
    p.error = std::string("its plugin ") + path + " is from another build of apsp (no matching " +
              entry + ")";
    return p;  // handle stays open: unloading a half-used library is not worth the risk
  }
  p.table = t;
  return p;
}
#endif

#ifdef APSP_WITH_CUDA
const Plugin<plugin::GpuTable>& gpu() {
  static const Plugin<plugin::GpuTable> p =
      load<plugin::GpuTable>("libapsp_cuda.so", "apsp_gpu_plugin");
  return p;
}
BackendInfo unloaded(const char* name, const std::string& why) {
  return {name, true, false, "built, but " + why};
}
#endif

#ifdef APSP_WITH_MPI
const Plugin<plugin::MpiTable>& mpi() {
  static const Plugin<plugin::MpiTable> p =
      load<plugin::MpiTable>("libapsp_mpi.so", "apsp_mpi_plugin");
  return p;
}
#endif

}  // namespace

#ifdef APSP_WITH_CUDA
std::unique_ptr<BackendImpl> make_cuda_backend() {
  return gpu().table ? gpu().table->make_cuda() : nullptr;
}
BackendInfo cuda_backend_info() {
  return gpu().table ? gpu().table->cuda_info() : unloaded("cuda", gpu().error);
}
void cuda_warm_up(int device) {
  if (gpu().table) gpu().table->warm_up(device);
}
const char* cuda_last_rounds() { return gpu().table ? gpu().table->last_rounds() : ""; }
void* pinned_alloc(std::size_t bytes) {
  return gpu().table ? gpu().table->pinned_alloc(bytes) : nullptr;
}
void pinned_free(void* p) {
  if (gpu().table) gpu().table->pinned_free(p);  // pinned memory exists only where the plugin is
}
const batch::GpuEngine* batch::gpu_engine() {
  return gpu().table ? gpu().table->batch_engine : nullptr;
}
const MetricsGpuEngine* metrics_gpu_engine() {
  return gpu().table ? gpu().table->metrics_engine : nullptr;
}
#endif

// The hip backend is not part of the Python module (it is built into apsp_lib only).
std::unique_ptr<BackendImpl> make_hip_backend() { return nullptr; }
const char* hip_last_rounds() { return ""; }
BackendInfo hip_backend_info() { return {"hip", false, false, "not built into the Python module"}; }

#ifdef APSP_WITH_NCCL
std::unique_ptr<BackendImpl> make_multigpu_backend() {
  return gpu().table && gpu().table->make_multigpu ? gpu().table->make_multigpu() : nullptr;
}
BackendInfo multigpu_backend_info() {
  if (!gpu().table) return unloaded("multi-gpu", gpu().error);
  if (!gpu().table->multigpu_info)
    return {"multi-gpu", false, false, "not built into libapsp_cuda.so"};
  return gpu().table->multigpu_info();
}
#endif

#ifdef APSP_WITH_MPI
std::unique_ptr<BackendImpl> make_mpi_backend() {
  return mpi().table ? mpi().table->make_mpi() : nullptr;
}
BackendInfo mpi_backend_info() {
  return mpi().table ? mpi().table->mpi_info()
                     : BackendInfo{"mpi", true, false, "built, but " + mpi().error};
}
#endif

}  // namespace apsp::detail
