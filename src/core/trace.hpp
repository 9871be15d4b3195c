// src/core/trace.hpp — APSP_TRACE=1: one timestamped line per stage on stderr.
//
// `--stats` sums stages; this shows when each begins and ends on one clock, threads included
// (the CUDA context is created on a thread while the input is read), so the gaps a whole-process
// time hides become visible:
//   APSP_TRACE=1 apsp IN OUT     ->  apsp trace    12.3 ms  read done
// The clock starts when the library is loaded (before main). Off (read once) otherwise.
#pragma once

namespace apsp::detail {

/// Prints "apsp trace: <ms since load> ms  <what>" to stderr when APSP_TRACE is on.
void trace(const char* what);
/// Whether APSP_TRACE is on (cached on first use; a bad value reads as off here).
bool tracing();

}  // namespace apsp::detail
