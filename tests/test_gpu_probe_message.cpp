// tests/test_gpu_probe_message.cpp — the status line of a GPU backend whose probe found no device
// (src/gpu/probe_message.hpp; issue 33, defect 3): a machine without the NVIDIA driver said "CUDA
// driver version is insufficient for CUDA runtime version". Plain C++: runs without a GPU.
#include <gtest/gtest.h>

#include "gpu/probe_message.hpp"

namespace apsp::gpu {
namespace {

constexpr const char* kInsufficient =
    "CUDA driver version is insufficient for CUDA runtime version";

TEST(GpuProbeMessage, NoDriverIsNamedAsSuch) {
  EXPECT_EQ(
      probe_failure_text(ProbeFailure::InsufficientDriver, false, "NVIDIA", "CUDA", kInsufficient),
      "no NVIDIA driver or GPU found");
  EXPECT_EQ(probe_failure_text(ProbeFailure::NoDevice, true, "NVIDIA", "CUDA", "no CUDA-capable"),
            "no NVIDIA driver or GPU found");
}

TEST(GpuProbeMessage, AnOldDriverIsToldToUpdate) {
  EXPECT_EQ(
      probe_failure_text(ProbeFailure::InsufficientDriver, true, "NVIDIA", "CUDA", kInsufficient),
      std::string("the NVIDIA driver is older than this build's CUDA runtime: update the "
                  "driver (") +
          kInsufficient + ")");
}

TEST(GpuProbeMessage, OtherErrorsKeepTheRuntimeWords) {
  EXPECT_EQ(probe_failure_text(ProbeFailure::Other, true, "AMD GPU", "HIP", "hipErrorUnknown"),
            "no usable HIP device: hipErrorUnknown");
}

}  // namespace
}  // namespace apsp::gpu
