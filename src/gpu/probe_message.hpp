// src/gpu/probe_message.hpp — what a GPU backend's status line says when no device answers. The
// runtimes word a missing driver as a version problem (CUDA: "CUDA driver version is
// insufficient for CUDA runtime version"), which sends a user on a machine without a GPU looking
// for a driver update; this names the machine's actual state. Plain C++ (tested without a GPU).
#pragma once

#include <string>

namespace apsp::gpu {

/// How the device count call failed.
enum class ProbeFailure { NoDevice, InsufficientDriver, Other };

/// The status line for a failed probe: "no NVIDIA driver or GPU found" where no device answers or
/// the driver is missing (`driver_loaded`: the kernel driver is present), "... driver is older
/// than this build's CUDA runtime: ..." for an installed driver that is too old, else
/// `runtime_text` (the runtime's own error string) after "no usable <runtime> device: ".
inline std::string probe_failure_text(ProbeFailure f, bool driver_loaded, const std::string& vendor,
                                      const std::string& runtime, const std::string& runtime_text) {
  if (f == ProbeFailure::NoDevice || (f == ProbeFailure::InsufficientDriver && !driver_loaded))
    return "no " + vendor + " driver or GPU found";
  if (f == ProbeFailure::InsufficientDriver)
    return "the " + vendor + " driver is older than this build's " + runtime +
           " runtime: update the driver (" + runtime_text + ")";
  return "no usable " + runtime + " device: " + runtime_text;
}

}  // namespace apsp::gpu
