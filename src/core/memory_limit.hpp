// src/core/memory_limit.hpp — how much more host memory this process may allocate: the least of
// physical RAM, MemAvailable (/proc/meminfo) and what is left below the memory limit of every
// cgroup the process is in (v2 memory.max - memory.current, v1 memory.limit_in_bytes -
// memory.usage_in_bytes; inactive page cache counts as free in both, since the kernel reclaims
// it first). APSP_HOST_MEMORY=BYTES overrides all of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "apsp/solve.hpp"

namespace apsp::detail {

/// Where memory_limit_from() looks (the real files by default; tests point it at a fake tree).
struct MemoryFiles {
  std::string meminfo = "/proc/meminfo";
  std::string self_cgroup = "/proc/self/cgroup";
  std::string cgroup_root =
      "/sys/fs/cgroup";  ///< the v2 mount, or the folder of the v1 "memory" mount
};

/// What limits the memory, and by how much.
struct MemoryLimit {
  std::uint64_t bytes = UINT64_MAX;  ///< UINT64_MAX: nothing known
  std::string source;  ///< "MemAvailable", "cgroup /a/b memory.max", "physical RAM", ...
};

/// The limit from the files alone (no environment); `physical` (bytes of RAM, 0: unknown) bounds
/// it.
MemoryLimit memory_limit_from(const MemoryFiles& files, std::uint64_t physical);

/// memory_limit_from() the real files and physical RAM: what the machine (and its cgroups) lets
/// this process have, whatever APSP_HOST_MEMORY says.
MemoryLimit machine_memory_limit();

/// APSP_HOST_MEMORY (a positive byte count) if set, else machine_memory_limit(). Throws UsageError
/// for an APSP_HOST_MEMORY that is not a positive byte count.
MemoryLimit host_memory_limit();

/// The plan's early memory stage, before solve()'s per-vertex work (Johnson's potentials,
/// ordering) and any V-sized allocation: throws ResourceError, as the later checks would, when
/// the narrowest result solve() could pick (int32, or the dtype asked) for V = n vertices cannot
/// fit where the backend that would run keeps it (BackendImpl::early_memory_problem: this host's
/// memory for a result that comes back whole; GPU 0 for cuda, or auto with a usable GPU; every
/// GPU used for multi-gpu; rank 0's host for mpi, agreed on by every rank, so collective there).
/// A backend that cannot run here (solve() says so) and an AMD GPU under auto: no check here.
void check_host_memory_early(std::int64_t n, const SolveOptions& o);

}  // namespace apsp::detail
