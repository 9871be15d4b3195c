// src/core/host_buffer.cpp — 2 MB-aligned host buffers with huge pages, and the one buffer
// faulted in ahead of time (host_buffer.hpp).
#include "core/host_buffer.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <utility>

#include "core/backend.hpp"
#include "core/trace.hpp"

namespace apsp::detail {

namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

std::size_t round_to(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

void* huge_alloc(std::size_t bytes) {
  const std::size_t n = round_to(bytes, kHuge);
  void* p = std::aligned_alloc(kHuge, n);
  if (p) ::madvise(p, n, MADV_HUGEPAGE);  // a hint: without THP the pages are 4 KB, as before
  return p;
}

/// The reserved buffer: filled in by one thread; host_alloc takes it once that is done.
struct Slot {
  std::mutex m;
  void* p = nullptr;
  std::size_t bytes = 0;
  std::thread* filler = nullptr;  // the reservation's thread, while it may still be filling
  const void* owner = nullptr;    // the reservation that started the fill
};
Slot g_slot;

void* take_reserved(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(g_slot.m);
  if (!g_slot.filler && !g_slot.p) return nullptr;
  if (g_slot.filler) {
    if (g_slot.filler->joinable()) g_slot.filler->join();
    g_slot.filler = nullptr;
  }
  if (!g_slot.p || bytes > g_slot.bytes || 2 * bytes <= g_slot.bytes) return nullptr;
  trace("host buffer taken by a matrix");
  return std::exchange(g_slot.p, nullptr);
}

}  // namespace

void* host_alloc(std::size_t bytes) {
  if (bytes >= kHuge) {
    if (void* p = take_reserved(bytes)) return p;
    return huge_alloc(bytes);
  }
  return std::aligned_alloc(64, round_to(bytes, 64));
}

void HostBufferReservation::start(std::size_t bytes, bool unless_gpu, std::function<bool()> worth) {
  if (bytes < kHuge) return;
  std::lock_guard<std::mutex> lock(g_slot.m);
  if (g_slot.filler || g_slot.p) return;  // one at a time
  filler_ = std::thread([this, bytes, unless_gpu, worth = std::move(worth)] {
    if (unless_gpu && cuda_backend_info().usable) return;
    if ((worth && !worth()) || stop_.load()) return;
    void* p = huge_alloc(bytes);
    if (!p) return;
    volatile char* c = static_cast<char*>(p);
    for (std::size_t k = 0; k < bytes; k += 4096) {
      if (k % kHuge == 0 && stop_.load(std::memory_order_relaxed)) {
        std::free(p);  // the read failed: nobody will take it
        return;
      }
      c[k] = 0;  // a write fault per page
    }
    g_slot.p = p;  // read by take_reserved only after joining this thread
    g_slot.bytes = bytes;
    trace("host buffer faulted in");
  });
  g_slot.filler = &filler_;
  g_slot.owner = this;
  owner_ = true;
}

HostBufferReservation::~HostBufferReservation() {
  if (!owner_) return;  // another reservation held the slot: nothing here is ours
  stop_.store(true);
  std::lock_guard<std::mutex> lock(g_slot.m);
  if (filler_.joinable()) filler_.join();
  if (g_slot.owner != this) return;  // taken, and the slot started again by another since
  g_slot.filler = nullptr;
  g_slot.owner = nullptr;
  std::free(std::exchange(g_slot.p, nullptr));  // not taken by a matrix: not needed any more
  g_slot.bytes = 0;
}

}  // namespace apsp::detail
