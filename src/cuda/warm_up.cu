// src/cuda/warm_up.cu — create the CUDA context ahead of the solve.
//
// Without persistence mode, the first CUDA call of a process spends ~0.2 s in driver and context
// start-up (measured on H200, bench/results/2026-11-21-cuda-h200*.md) — longer than the whole
// V=5000 solve. The CLI calls this on a thread while it reads the input, so the two overlap.
#include "gpu/runtime.hpp"

#include "core/backend.hpp"
#include "core/trace.hpp"

namespace apsp::detail {

void cuda_warm_up(int device) {
  int count = 0;
  trace("warm-up: cuInit starts");
  if (gpuGetDeviceCount(&count) != gpuSuccess || count <= device || device < 0) {
    (void)gpuGetLastError();
    return;
  }
  trace("warm-up: driver initialised (gpuGetDeviceCount)");
  if (gpuSetDevice(device) != gpuSuccess || gpuFree(nullptr) != gpuSuccess) (void)gpuGetLastError();
  trace("warm-up: context created");
}

}  // namespace apsp::detail
