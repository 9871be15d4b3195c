// src/plugin/gpu_entry.cpp — libapsp_cuda.so's entry: the cuda (and multi-gpu) backend's table.
#include "batch/gpu_engine.hpp"
#include "core/pinned.hpp"
#include "metrics/gpu_engine.hpp"
#include "plugin/plugin_abi.hpp"

extern "C" __attribute__((visibility("default"))) const apsp::detail::plugin::GpuTable*
apsp_gpu_plugin() {
  using namespace apsp::detail;
  static const plugin::GpuTable table{
      plugin::kAbi,           sizeof(plugin::GpuTable), &make_cuda_backend, &cuda_backend_info,
      &cuda_warm_up,          &cuda_last_rounds,        &pinned_alloc,      &pinned_free,
#ifdef APSP_WITH_NCCL
      &make_multigpu_backend, &multigpu_backend_info,
#else
      nullptr,
      nullptr,
#endif
      batch::gpu_engine(),    metrics_gpu_engine(),
  };
  return &table;
}
