// python/src/dijkstra.hpp — shortest paths from a few sources, without a V x V matrix: what
// apsp.dijkstra / bellman_ford / johnson (and shortest_path with indices=) run. The solver is the
// library's (src/metrics/dijkstra.hpp), shared with the metrics engine; this header names it in
// the module's namespace.
#pragma once

#include "metrics/dijkstra.hpp"

namespace apsp_python {

using apsp::detail::per_source_shortest_paths;
using apsp::detail::PerSourceOptions;

}  // namespace apsp_python
