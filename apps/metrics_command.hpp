// apps/metrics_command.hpp — `apsp metrics`: graph metrics from a streamed solve (docs/metrics.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/solve.hpp"

namespace apsp_cli {

struct MetricsArgs {
  std::string in,
      out;  ///< out: "" = summary on stdout only; .csv per-vertex table; .json everything
  std::string backend = "auto", type, input_format = "auto", order = "auto";
  std::string metrics;          ///< comma-separated names; "" = all but histogram
  std::string engine = "auto";  ///< auto|fw|bfs|dijkstra|bounds (apsp::MetricsEngine)
  std::int64_t vertices = 0;
  int threads = 0;
  std::vector<int> devices;
  bool undirected = false, infinite = false;
};

/// Runs `apsp metrics`; returns the exit code. Throws apsp::Error on bad input or arguments.
int run_metrics(const MetricsArgs& a, apsp::ProgressFn progress);

}  // namespace apsp_cli
