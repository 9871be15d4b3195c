// src/core/options_check.hpp — the numeric SolveOptions checked before a solve starts: a bad
// thread count, tile size or device ordinal is a UsageError (Python: ValueError), never a crash
// inside OpenMP or an allocation size that overflowed. The thread count is clamped to what the
// OpenMP runtime will create (omp_get_thread_limit) and to a few threads per core.
#pragma once

#include "apsp/limits.hpp"
#include "apsp/solve.hpp"

namespace apsp::detail {

// The bounds themselves are public (apsp/limits.hpp: kMaxBlock, kMaxThreadsOption, thread_cap).
using apsp::kMaxBlock;
using apsp::kMaxThreadsOption;
using apsp::thread_cap;

/// `o` with threads clamped to thread_cap(); throws UsageError for threads < 0, block outside
/// 0..kMaxBlock (0 = the backend's default) or a negative device ordinal.
SolveOptions checked_options(const SolveOptions& o);

}  // namespace apsp::detail
