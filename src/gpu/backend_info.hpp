// src/gpu/backend_info.hpp — a GPU backend's status line (`apsp info`, apsp.backends()) from one
// device probe: the probe's error where there is no device, else the backend's own description
// of the devices, usable when device 0 can run the code this build holds (sm_90a; gfx908/gfx90a).
// Shared by the cuda, hip and multi-gpu backends so that each writes only what it describes.
#pragma once

#include <string>

#include "apsp/solve.hpp"
#include "cuda/cuda_check.hpp"

namespace apsp::cuda {
inline namespace APSP_GPU_VENDOR(nv, amd) {

  /// BackendInfo{name, built}: not usable, detail = the probe's error, when no device answers;
  /// else detail = describe(probe) (a std::string), with kNeedsArch appended when !capable().
  template <class Describe>
  BackendInfo probe_backend_info(const char* name, Describe&& describe) {
    BackendInfo info{name, true, false, ""};
    const DeviceProbe d = probe_devices();
    if (!d.error.empty()) {
      info.detail = d.error;
      return info;
    }
    info.usable = d.capable();
    info.detail = describe(d) + (d.capable() ? "" : kNeedsArch);
    return info;
  }

}  // namespace )
}  // namespace apsp::cuda
