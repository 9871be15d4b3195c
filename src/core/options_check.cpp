// src/core/options_check.cpp — checked_options(): the numbers in SolveOptions validated, threads
// clamped (OpenMP aborts or overflows its stack when asked for tens of thousands of threads).
#include "core/options_check.hpp"

#include <algorithm>
#include <string>

#include "apsp/errors.hpp"

namespace apsp::detail {

SolveOptions checked_options(const SolveOptions& o) {
  if (o.threads < 0)
    throw UsageError("threads = " + std::to_string(o.threads) +
                     ": expected a positive thread count (0: all)");
  if (o.block < 0 || o.block > kMaxBlock)
    throw UsageError("block = " + std::to_string(o.block) + ": expected a tile size of 1 to " +
                     std::to_string(kMaxBlock) + " (0: the backend's default)");
  for (const int d : o.devices)
    if (d < 0) throw UsageError("device " + std::to_string(d) + ": expected a GPU ordinal >= 0");
  SolveOptions c = o;
  c.threads = std::min(o.threads, thread_cap());
  return c;
}

}  // namespace apsp::detail
