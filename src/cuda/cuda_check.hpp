// src/cuda/cuda_check.hpp — error macros for CUDA runtime calls and kernel launches (internal).
//
// APSP_CUDA_TRY(call) throws apsp::Error("CUDA error: ... at FILE:LINE") when a runtime call fails;
// an out-of-memory error becomes apsp::ResourceError. APSP_CUDA_CHECK_LAUNCH() follows every launch
// in its launcher; with -DAPSP_CUDA_DEBUG_SYNC=ON it also synchronizes the device so an
// asynchronous fault is reported at the launch that caused it (CUB's CUB_DEBUG_SYNC).
#pragma once

#include "gpu/runtime.hpp"

#include <string>

#include "apsp/errors.hpp"

// One inline namespace per vendor: a binary with both the cuda and the hip backend holds both
// versions of these inline functions (DeviceProbe differs), which must not be merged.
namespace apsp::cuda {
inline namespace APSP_GPU_VENDOR(nv, amd) {

  /// "CUDA" or "HIP", for messages.
  inline constexpr const char* kRuntimeName = APSP_GPU_HIP ? "HIP" : "CUDA";

  [[noreturn]] inline void throw_cuda_error(gpuError_t e, const char* what, const char* file,
                                            int line) {
    std::string msg = std::string(kRuntimeName) + " error: " + gpuGetErrorString(e) + " (" + what +
                      " at " + file + ":" + std::to_string(line) + ")";
    if (e == gpuErrorMemoryAllocation) throw ResourceError(msg);
    throw Error(msg);
  }

  /// What the backends' info lines need: how many devices, device 0's properties, and whether it
  /// can run our code (sm_90a; on AMD gfx908 or gfx90a). `error` is set (and the rest meaningless)
  /// when there is no usable device.
  struct DeviceProbe {
    int count = 0;
    gpuDeviceProp props{};
    std::string error;
    bool capable() const {
#if APSP_GPU_HIP
      const std::string arch = props.gcnArchName;
      return error.empty() && (arch.rfind("gfx908", 0) == 0 || arch.rfind("gfx90a", 0) == 0);
#else
      return error.empty() && props.major >= 9;
#endif
    }
  };

  inline DeviceProbe probe_devices() {
    DeviceProbe d;
    const gpuError_t e = gpuGetDeviceCount(&d.count);
    if (e != gpuSuccess || d.count == 0) {
      (void)gpuGetLastError();
      d.error = e != gpuSuccess
                    ? std::string("no usable ") + kRuntimeName + " device: " + gpuGetErrorString(e)
                    : std::string("no ") + kRuntimeName + " device";
    } else if (gpuGetDeviceProperties(&d.props, 0) != gpuSuccess) {
      (void)gpuGetLastError();
      d.error = std::string("cannot read the properties of ") + kRuntimeName + " device 0";
    }
    return d;
  }

  /// Appended to a device description when !capable().
  inline constexpr const char* kNeedsArch =
      APSP_GPU_HIP ? ": needs gfx908 (MI100) or gfx90a (MI200) (built for those)"
                   : ": needs compute capability 9.0 or newer (built for sm_90a)";
  inline constexpr const char* kNeedsSm90 = kNeedsArch;

#ifdef APSP_CUDA_DEBUG_SYNC
  inline constexpr bool kDebugSync = true;
#else
  inline constexpr bool kDebugSync = false;
#endif

}  // namespace )
}  // namespace apsp::cuda

#define APSP_CUDA_TRY(call)                                                      \
  do {                                                                           \
    const gpuError_t apsp_cuda_err_ = (call);                                    \
    if (apsp_cuda_err_ != gpuSuccess)                                            \
      ::apsp::cuda::throw_cuda_error(apsp_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

// Not while a stream is being captured into a graph: synchronizing would break the capture.
#define APSP_CUDA_CHECK_LAUNCH(stream)                                                          \
  do {                                                                                          \
    APSP_CUDA_TRY(gpuPeekAtLastError());                                                        \
    if constexpr (::apsp::cuda::kDebugSync) {                                                   \
      gpuStreamCaptureStatus apsp_cap_ = gpuStreamCaptureStatusNone;                            \
      APSP_CUDA_TRY(gpuStreamIsCapturing((stream), &apsp_cap_));                                \
      if (apsp_cap_ == gpuStreamCaptureStatusNone) APSP_CUDA_TRY(gpuStreamSynchronize(stream)); \
    }                                                                                           \
  } while (0)
