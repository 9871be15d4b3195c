// python/src/dijkstra.hpp — shortest paths from a few sources, without a V x V matrix.
//
// What apsp.dijkstra / bellman_ford / johnson (and shortest_path with indices=) run: one Dijkstra
// per source, sources spread over the OpenMP threads, memory O(E + rows * V). Negative weights go
// through Johnson's potentials (one Bellman-Ford/SPFA, the core's src/core/johnson.cpp); a
// negative cycle throws apsp::NegativeCycleError naming it. `min_only` runs one multi-source
// Dijkstra instead: for each vertex the nearest source (ties: the source listed first).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp_python {

struct PerSourceOptions {
  /// Distances above `limit` are reported as +inf (and not explored further).
  double limit = std::numeric_limits<double>::infinity();
  bool min_only = false;
  /// CPU threads; 0 = OpenMP's default.
  int threads = 0;
  /// Called now and then on the calling thread; returning true stops the work early (the
  /// caller then reports why, e.g. a pending KeyboardInterrupt).
  std::function<bool()> interrupted;
};

/// Solves from `sources` (0 <= s < V). Without min_only: dist is sources.size() x V (row-major,
/// float64, +inf unreachable) and pred, when not null, the same shape of int32 predecessors
/// (-9999 for none and at the source). With min_only: dist, pred and source_of (each V entries;
/// pred / source_of may be null) give for every vertex its distance from the nearest source, its
/// predecessor on that path and that source (-9999 when unreachable).
/// Returns false when `interrupted` stopped it (outputs then partly written). Throws
/// apsp::ResourceError when the arc arrays (12 bytes per arc) would not fit host_memory_limit().
bool per_source_shortest_paths(const apsp::Graph& g, const std::vector<std::int32_t>& sources,
                               const PerSourceOptions& o, double* dist, std::int32_t* pred,
                               std::int32_t* source_of);

}  // namespace apsp_python
