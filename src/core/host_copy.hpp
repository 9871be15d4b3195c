// src/core/host_copy.hpp — copies into and out of pinned staging buffers on all cores, and the
// flag that tells background work to keep off the cores meanwhile (internal).
#pragma once
#include <cstddef>
#include <initializer_list>

namespace apsp::detail {

/// One memcpy: `bytes` from `src` to `dst` (the ranges must not overlap).
struct CopyJob {
  void* dst;
  const void* src;
  std::size_t bytes;
};

/// Runs every job, the jobs laid end to end and split into pieces of at least 256 KiB over the
/// OpenMP threads (one thread below 512 KiB in all). For staging copies that a single core
/// would make the bottleneck of a PCIe transfer.
void parallel_copy(std::initializer_list<CopyJob> jobs);

/// While one of these exists (any thread), host_busy() is true: a backend's host threads are
/// moving data the GPU waits for (the cuda build's staging copies, --paths's arc sort). Background
/// work of the same process (OutputFile::prefill) pauses meanwhile: on the H200 host a prefill on
/// 4-14 threads made the V=30000 edge upload (OpenMP copies) take 50-110 ms instead of 3.4 ms.
class HostBusy {
 public:
  HostBusy();
  ~HostBusy();
  HostBusy(const HostBusy&) = delete;
  HostBusy& operator=(const HostBusy&) = delete;
};
bool host_busy();

}  // namespace apsp::detail
