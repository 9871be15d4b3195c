// python/src/host_memory.hpp — how much memory the module's own checks may plan for.
//
// APSP_HOST_MEMORY (bytes) when set, as the solver reads it (a bad value is a ValueError);
// otherwise the smaller of physical RAM and the process's cgroup memory limit (v2 memory.max,
// v1 memory.limit_in_bytes), so a container's limit refuses a too-large problem up front instead
// of an OOM kill.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config.hpp"

namespace apsp_python {

inline std::size_t cgroup_limit_bytes() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    std::string s;
    if (!(f >> s) || s == "max") continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (end && *end == '\0' && v > 0) return std::size_t(v);
  }
  return SIZE_MAX;
}

inline std::size_t host_memory_limit() {
  if (const auto bytes = apsp::config::get_int(apsp::config::Knob::HostMemory))
    return std::size_t(*bytes);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::size_t phys =
      pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : SIZE_MAX;
  const std::size_t cg = cgroup_limit_bytes();
  return cg < phys ? cg : phys;
}

}  // namespace apsp_python
