// src/cuda/backend_info.hpp — a GPU backend's status line (`apsp info`, apsp.backends()) from one
// device probe: the probe's error where there is no device, else the backend's own description
// of the devices, usable when device 0 can run the code this build holds (sm_90a; gfx908/gfx90a).
// Shared by the cuda, hip and multi-gpu backends so that each writes only what it describes.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "apsp/solve.hpp"
#include "cuda/cuda_check.hpp"
#include "gpu/probe_message.hpp"

namespace apsp::cuda {
inline namespace APSP_GPU_VENDOR(nv, amd) {

  /// The probe's error as probe_failure_text words it (the count call is asked again: the probe
  /// keeps only its text).
  inline std::string probe_error_text(const DeviceProbe& d) {
    int count = 0;
    const gpuError_t e = gpuGetDeviceCount(&count);
    (void)gpuGetLastError();
    if (e == gpuSuccess && count > 0) return d.error;  // a device that failed afterwards
    const gpu::ProbeFailure f =
        e == gpuSuccess || e == gpuErrorNoDevice ? gpu::ProbeFailure::NoDevice
        : e == gpuErrorInsufficientDriver        ? gpu::ProbeFailure::InsufficientDriver
                                                 : gpu::ProbeFailure::Other;
    std::error_code ec;
    const bool driver = std::filesystem::exists(
        APSP_GPU_HIP ? "/sys/module/amdgpu" : "/proc/driver/nvidia/version", ec);
    return gpu::probe_failure_text(f, driver, APSP_GPU_HIP ? "AMD GPU" : "NVIDIA", kRuntimeName,
                                   gpuGetErrorString(e));
  }

  /// BackendInfo{name, built}: not usable, detail = the probe's error, when no device answers;
  /// else detail = describe(probe) (a std::string), with kNeedsArch appended when !capable().
  template <class Describe>
  BackendInfo probe_backend_info(const char* name, Describe&& describe) {
    BackendInfo info{name, true, false, ""};
    const DeviceProbe d = probe_devices();
    if (!d.error.empty()) {
      info.detail = probe_error_text(d);
      return info;
    }
    info.usable = d.capable();
    info.detail = describe(d) + (d.capable() ? "" : kNeedsArch);
    return info;
  }

}  // namespace )
}  // namespace apsp::cuda
