// apsp/limits.hpp — the bounds a solve's options are checked against, and what this machine
// lets a solve have: the largest tile size and thread count accepted (SolveOptions::block,
// ::threads; the CLI's --block, --threads), the threads a solve actually starts, and the host
// memory the solver plans for. A caller that checks its own arguments (the CLI, the Python
// module) checks them against these, so that its messages and the solver's agree.
#pragma once

#include <cstdint>

namespace apsp {

/// Largest tile size accepted (SolveOptions::block, --block).
inline constexpr int kMaxBlock = 16384;
/// Largest thread count accepted before clamping (SolveOptions::threads, --threads; larger is a
/// usage error).
inline constexpr int kMaxThreadsOption = 4096;

/// Threads a solve may actually start: min(omp_get_thread_limit(), max(16, 4 x cores)); a larger
/// SolveOptions::threads is clamped to it.
int thread_cap();

/// Bytes of host memory the solver plans for: APSP_HOST_MEMORY when set, else the least of
/// physical RAM, MemAvailable and every cgroup level's room (UINT64_MAX: nothing known). Throws
/// UsageError for an APSP_HOST_MEMORY that is not a positive byte count.
std::uint64_t host_memory_limit_bytes();

}  // namespace apsp
