// src/core/limits.cpp — apsp/limits.hpp: the thread cap, and the host memory limit
// (core/memory_limit.cpp) for callers outside the library.
#include "apsp/limits.hpp"

#include <omp.h>

#include <algorithm>

#include "core/memory_limit.hpp"

namespace apsp {

int thread_cap() {
  const int cores = std::max(1, omp_get_num_procs());
  const int limit = std::max(1, omp_get_thread_limit());
  return std::min(limit, std::max(16, 4 * cores));
}

std::uint64_t host_memory_limit_bytes() { return detail::host_memory_limit().bytes; }

}  // namespace apsp
