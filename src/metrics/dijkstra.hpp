// src/metrics/dijkstra.hpp — shortest paths from a few sources, without a V x V matrix: the
// library's one Dijkstra, used by apsp.dijkstra / bellman_ford / johnson (shortest_path with
// indices=) and by the metrics engine (src/metrics/engine.cpp).
//
// One Dijkstra per source, sources spread over the OpenMP threads, memory O(E + rows * V).
// Negative weights go through Johnson's potentials (one Bellman-Ford/SPFA, src/core/johnson.cpp);
// a negative cycle throws apsp::NegativeCycleError naming it. `min_only` runs one multi-source
// Dijkstra instead: for each vertex the nearest source (ties: the source listed first).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::detail {

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

/// The out-arcs of a graph as CSR (12 bytes per arc), reweighted by Johnson's potentials `h`
/// when the graph has a negative weight (h empty otherwise). Built once, searched many times.
struct SearchGraph {
  std::int64_t n = 0;
  std::vector<std::int64_t> start;  // n + 1
  std::vector<std::int32_t> to;
  std::vector<double> w;
  std::vector<double> h;  // Johnson's potentials; empty without negative weights
};

/// Builds the SearchGraph of g (potentials first when a weight is negative). Throws
/// apsp::ResourceError when the arcs would not fit host_memory_limit(), NegativeCycleError.
SearchGraph make_search_graph(const Graph& g);

/// Solves from `sources` (0 <= s < V). Without min_only: dist is sources.size() x V (row-major,
/// float64, +inf unreachable) and pred, when not null, the same shape of int32 predecessors
/// (-9999 for none and at the source). With min_only: dist, pred and source_of (each V entries;
/// pred / source_of may be null) give for every vertex its distance from the nearest source, its
/// predecessor on that path and that source (-9999 when unreachable).
/// Returns false when `interrupted` stopped it (outputs then partly written).
bool shortest_paths_from(const SearchGraph& sg, const std::vector<std::int32_t>& sources,
                         const PerSourceOptions& o, double* dist, std::int32_t* pred,
                         std::int32_t* source_of);

/// make_search_graph(g), then shortest_paths_from() it.
bool per_source_shortest_paths(const Graph& g, const std::vector<std::int32_t>& sources,
                               const PerSourceOptions& o, double* dist, std::int32_t* pred,
                               std::int32_t* source_of);

}  // namespace apsp::detail
