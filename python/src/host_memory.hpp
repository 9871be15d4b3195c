// python/src/host_memory.hpp — how much memory the module's own checks may plan for: the
// solver's own figure (apsp/limits.hpp: APSP_HOST_MEMORY when set, else the least of
// physical RAM, MemAvailable and every cgroup level's room), so that the module's MemoryError
// messages and the solver's quote one figure for one machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "apsp/limits.hpp"

namespace apsp_python {

inline std::size_t host_memory_limit() {
  const std::uint64_t bytes = apsp::host_memory_limit_bytes();
  return bytes > SIZE_MAX ? SIZE_MAX : std::size_t(bytes);
}

}  // namespace apsp_python
