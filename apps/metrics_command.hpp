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
  std::string engine = "auto";  ///< auto|fw|bfs|dijkstra|bounds|sparse (apsp::MetricsEngine)
  std::int64_t vertices = 0;
  int threads = 0;
  std::vector<int> devices;
  bool undirected = false, infinite = false;
  bool labels = false;    ///< edge lists: every vertex token a name (else names when not integers)
  bool quiet = false;     ///< no progress line
  bool progress = false;  ///< the stages also where stderr is no terminal
};

/// Runs `apsp metrics`; returns the exit code. Throws apsp::Error on bad input or arguments.
/// Progress (unless a.quiet; apps/commands.hpp Progress): the stages read, metrics, write with
/// their times and, while the metrics run, `apsp: metrics 12288/65536 ( 19%), 3.10 s, about
/// 13 s left` on stderr (what is counted: docs/metrics.md). A graph read with names (Graph::labels)
/// has its vertices named in the output.
int run_metrics(const MetricsArgs& a);

}  // namespace apsp_cli
