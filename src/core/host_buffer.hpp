// src/core/host_buffer.hpp — host memory for large matrices: 2 MB-aligned, transparent huge
// pages asked for (madvise MADV_HUGEPAGE), and one buffer that can be faulted in ahead of time
// on a thread of its own (while the input is read) and handed to the next Matrix that fits it.
// First touch of a fresh page is a kernel zero-fill: with 2 MB pages there are 512x fewer faults.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>

namespace apsp::detail {

/// Memory for `bytes` (64-byte aligned; 2 MB-aligned with huge pages asked for from 2 MB up),
/// the reserved buffer when it fits (same size class: bytes <= size < 2 * bytes); free with
/// std::free. nullptr when out of memory.
void* host_alloc(std::size_t bytes);

/// Faults in a buffer of `bytes` on a thread while it lives; the next host_alloc that fits takes
/// it (waiting for the thread). The destructor frees it if nobody did.
class HostBufferReservation {
 public:
  HostBufferReservation() = default;
  ~HostBufferReservation();
  HostBufferReservation(const HostBufferReservation&) = delete;
  HostBufferReservation& operator=(const HostBufferReservation&) = delete;
  /// Starts the thread. unless_gpu: it first asks whether the cuda backend is usable and then
  /// does nothing (an `auto` solve on a GPU builds no host matrix). worth: asked on the thread
  /// before anything is allocated (the input's sizes are consistent, the memory rule accepts the
  /// matrix); false: nothing is allocated. The destructor stops a fill that is under way.
  void start(std::size_t bytes, bool unless_gpu, std::function<bool()> worth = nullptr);

 private:
  std::thread filler_;
  std::atomic<bool> stop_{false};  // set by the destructor: the fill ends at its next page
  bool owner_ = false;             // this reservation started the process-wide slot's fill
};

}  // namespace apsp::detail
