// src/core/host_copy.hpp — copies into and out of pinned staging buffers on all cores (internal).
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

}  // namespace apsp::detail
