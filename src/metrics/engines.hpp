// src/metrics/engines.hpp — the metrics engines behind compute_metrics() (src/metrics/engine.cpp
// picks one): fw (solve() into MetricsReducer, src/core/metrics.cpp), bfs (bit-parallel
// multi-source BFS, msbfs.cpp), dijkstra (the library Dijkstra's rows into MetricsReducer,
// dijkstra_rows.cpp), bounds (eccentricity bounds, bounds.cpp) and sparse (the supernodal rows'
// sums, src/sparse/metric_rows.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/metrics.hpp"
#include "apsp/solve.hpp"
#include "metrics/sums.hpp"

namespace apsp::detail {

/// Out-arcs (and, for a directed graph, in-arcs) without weights, as CSR. Undirected: in = out.
struct HopGraph {
  std::int64_t n = 0;
  bool directed = true;
  std::vector<std::int64_t> out_start, in_start;  // n + 1
  std::vector<std::int32_t> out_adj, in_adj;
  std::int64_t arcs() const { return std::int64_t(out_adj.size()); }
  const std::vector<std::int64_t>& rstart() const { return directed ? in_start : out_start; }
  const std::vector<std::int32_t>& radj() const { return directed ? in_adj : out_adj; }
};

/// The arcs of g (self loops dropped; an undirected edge both ways). Throws ResourceError when
/// they would not fit host memory.
HopGraph make_hop_graph(const Graph& g);

/// The graph's depth, one O(V + E) probe: the largest BFS level of a double sweep in its largest
/// (weakly) connected component, from the vertex of highest degree there.
std::int64_t probe_levels(const HopGraph& h);

/// What the per-source engines share: threads (0 = OpenMP's default) and progress (sources done
/// of n, called on the calling thread; what it throws stops the run and is rethrown).
struct SearchRun {
  int threads = 0;
  ProgressFn progress;
  StageFn stage;  ///< the sparse engine's stages (SolveOptions::on_stage)
};

/// Every weight equals `scale` (a positive integer): the sums of the bfs engine, hop counts
/// times scale. Memory O(V + E + threads x 32 x V) bytes.
MetricSums bfs_sums(const HopGraph& hg, const MetricsOptions& opt, std::int64_t scale, Dtype dtype,
                    const SearchRun& run);

/// Hop sums to distances of weight `scale` each (msbfs.cpp).
void apply_scale(MetricSums& s, std::int64_t scale);

/// Dijkstra from every source in batches, each batch's rows into a MetricsReducer (integer
/// weights as int64 rows, exact; others float64).
Metrics dijkstra_metrics(const Graph& g, const MetricsOptions& opt, Dtype dtype,
                         const SearchRun& run);

/// Why the sparse engine (src/sparse/metric_rows.cpp) cannot run on g with `opt`, "" if it can.
std::string sparse_metrics_unfit(const Graph& g, const MetricsOptions& opt, bool negative);

/// The sparse direct engine's rows reduced to sums block by block (src/sparse/metric_rows.cpp):
/// `where` Cpu (the host's threads), Cuda (GPU `devices[0]`, or 0) or MultiGpu (the rows split
/// over `devices`, empty: every GPU); `plan` (may be null) from plan_sparse(g). Non-negative
/// weights exact in `dtype`; integer sums below 2^63 (the caller checks). `detail` (may be
/// null): where the rows ran and the stages' seconds.
MetricSums sparse_sums(const Graph& g, const MetricsOptions& opt, Dtype dtype, Backend where,
                       const std::vector<int>& devices, const SparsePlan* plan,
                       const SearchRun& run, std::string* detail);

/// solve() with a MetricsReducer as its sink (src/core/metrics.cpp).
Metrics fw_metrics(const Graph& g, const SolveOptions& options, const MetricsOptions& which);

/// Exact diameter, radius, center and periphery of a graph with non-negative integer weights by
/// eccentricity bounds (Takes and Kosters 2011; directed: forward and backward searches). scale >
/// 0: every weight is scale (BFS searches); 0: Dijkstra searches. Values not wanted may be loose
/// (center and periphery empty). Not strongly connected (Extremes::connected false, naming the
/// lowest vertex that misses some other): the values the full engines give with infinite_ok,
/// the diameter inf, the periphery the vertices that miss some other, the radius and center those
/// of the vertices that reach all others (directed; inf and every vertex when none does, and
/// always for an undirected graph). nullopt when the bounds did not close within
/// `max_searches` searches (the caller then runs a full engine).
std::optional<Extremes> bounded_extremes(const Graph& g, std::int64_t scale,
                                         const ExtremesWanted& want, std::int64_t max_searches,
                                         const SearchRun& run);

}  // namespace apsp::detail
