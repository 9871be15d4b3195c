// src/plugin/plugin_abi.hpp — the tables a backend plugin hands to the core (internal).
//
// The Python package splits apsp into libapsp_core.so (core, io, cpu backend: needs no CUDA, NCCL
// or MPI library) and plugins loaded with dlopen on first use: libapsp_cuda.so (cuda + multi-gpu
// backends; libcudart, libnccl) and libapsp_mpi.so (mpi backend; libmpi). Each plugin exports one
// extern "C" function returning its table. Plugins and core are built together by the same
// compiler, so the table holds C++ function pointers; kAbi and the table's size catch a plugin
// from another build. src/plugin/loader.cpp defines the detail:: functions of core/backend.hpp
// and core/pinned.hpp in libapsp_core.so by calling through these tables; the static library
// apsp_lib (CLI, tests) links the backends directly and has no plugins.
#pragma once

#include <cstddef>
#include <memory>

#include "apsp/solve.hpp"
#include "batch/gpu_engine.hpp"
#include "core/backend.hpp"
#include "metrics/gpu_engine.hpp"

namespace apsp::detail::plugin {

// 3: the batch engine's GPU side; 4: the metrics' (metrics_engine); 5: BackendImpl::capabilities()
inline constexpr int kAbi = 5;

/// libapsp_cuda.so: the cuda backend and, when NCCL was found, the multi-gpu backend.
struct GpuTable {
  int abi;
  std::size_t size;  ///< sizeof(GpuTable) in the plugin
  std::unique_ptr<BackendImpl> (*make_cuda)();
  BackendInfo (*cuda_info)();
  void (*warm_up)(int device);
  const char* (*last_rounds)();
  void* (*pinned_alloc)(std::size_t);
  void (*pinned_free)(void*);
  std::unique_ptr<BackendImpl> (*make_multigpu)();  ///< null without NCCL
  BackendInfo (*multigpu_info)();                   ///< null without NCCL
  const batch::GpuEngine* batch_engine;             ///< src/cuda/batch_small.cu
  const MetricsGpuEngine* metrics_engine;           ///< src/cuda/metrics_msbfs.cu
};

/// libapsp_mpi.so: the mpi backend.
struct MpiTable {
  int abi;
  std::size_t size;  ///< sizeof(MpiTable) in the plugin
  std::unique_ptr<BackendImpl> (*make_mpi)();
  BackendInfo (*mpi_info)();
};

}  // namespace apsp::detail::plugin

extern "C" {
/// Entry points (dlsym names "apsp_gpu_plugin" and "apsp_mpi_plugin").
const apsp::detail::plugin::GpuTable* apsp_gpu_plugin();
const apsp::detail::plugin::MpiTable* apsp_mpi_plugin();
}
