// src/core/host_copy.cpp — see host_copy.hpp.
#include "core/host_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace apsp::detail {

namespace {
std::atomic<int> g_busy{0};
}  // namespace

HostBusy::HostBusy() { g_busy.fetch_add(1, std::memory_order_relaxed); }
HostBusy::~HostBusy() { g_busy.fetch_sub(1, std::memory_order_relaxed); }
bool host_busy() { return g_busy.load(std::memory_order_relaxed) > 0; }

void parallel_copy(std::initializer_list<CopyJob> jobs) {
  constexpr std::size_t kPiece = std::size_t(256) << 10;
  const std::vector<CopyJob> list(jobs);
  std::size_t total = 0;
  for (const CopyJob& j : list) total += j.bytes;
  const int pieces = int(std::clamp<std::size_t>(total / kPiece, 1, 64));
#pragma omp parallel for schedule(static) if (pieces > 1)
  for (int p = 0; p < pieces; ++p) {
    // Piece p: bytes [total*p/pieces, total*(p+1)/pieces) of the jobs laid end to end.
    const std::size_t a = total * std::size_t(p) / std::size_t(pieces);
    const std::size_t b = total * std::size_t(p + 1) / std::size_t(pieces);
    std::size_t base = 0;
    for (const CopyJob& j : list) {
      const std::size_t lo = std::max(a, base), hi = std::min(b, base + j.bytes);
      if (lo < hi)
        std::memcpy(static_cast<char*>(j.dst) + (lo - base),
                    static_cast<const char*>(j.src) + (lo - base), hi - lo);
      base += j.bytes;
    }
  }
}

}  // namespace apsp::detail
