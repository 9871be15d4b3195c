// src/core/trace.cpp — see trace.hpp.
#include "core/trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "apsp/errors.hpp"
#include "core/config.hpp"

namespace apsp::detail {

namespace {
// Set during static initialisation, i.e. as the program (or the Python module) loads.
const std::chrono::steady_clock::time_point g_loaded = std::chrono::steady_clock::now();
}  // namespace

bool tracing() {
  static const bool on = [] {
    try {
      return config::get_bool(config::Knob::Trace);
    } catch (const UsageError&) {  // off: the CLI reports the bad value up front (check_all)
      return false;
    }
  }();
  return on;
}

void trace(const char* what) {
  if (!tracing()) return;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_loaded)
          .count();
  std::fprintf(stderr, "apsp trace: %9.2f ms  %s\n", ms, what);
}

}  // namespace apsp::detail
