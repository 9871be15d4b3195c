// src/core/missing_parts.cpp — what a build without CUDA / NCCL / MPI / HIP links against instead:
// apsp_lib, and the Python package's libapsp_core.so for the parts it has no plugin of
// (APSP_PLUGIN_LOADER: there plugin/loader.cpp says why hip is missing).
#include "core/backend.hpp"
#include "core/pinned.hpp"

namespace apsp::detail {

#if !defined(APSP_WITH_CUDA) && !defined(APSP_WITH_HIP)
void* pinned_alloc(std::size_t) { return nullptr; }
void pinned_free(void*) {}
#endif

#if !defined(APSP_WITH_HIP) && !defined(APSP_PLUGIN_LOADER)
std::unique_ptr<BackendImpl> make_hip_backend() { return nullptr; }
const char* hip_last_rounds() { return ""; }
BackendInfo hip_backend_info() {
  return {"hip", false, false, "not built (configure with -DAPSP_WITH_HIP=ON and hipcc)"};
}
#endif

#ifndef APSP_WITH_CUDA
std::unique_ptr<BackendImpl> make_cuda_backend() { return nullptr; }
void cuda_warm_up(int) {}
const char* cuda_last_rounds() { return ""; }
BackendInfo cuda_backend_info() {
  return {"cuda", false, false, "not built (no CUDA compiler at configure time)"};
}
#endif

#ifndef APSP_WITH_NCCL
std::unique_ptr<BackendImpl> make_multigpu_backend() { return nullptr; }
BackendInfo multigpu_backend_info() {
  return {"multi-gpu", false, false, "not built (needs CUDA and NCCL)"};
}
#endif

#ifndef APSP_WITH_MPI
std::unique_ptr<BackendImpl> make_mpi_backend() { return nullptr; }
BackendInfo mpi_backend_info() {
  return {"mpi", false, false, "not built (no MPI at configure time)"};
}
#endif

}  // namespace apsp::detail
