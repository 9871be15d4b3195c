// apsp/metrics.hpp — graph metrics from all-pairs distances without keeping the V x V matrix.
//
// MetricsReducer consumes the result stripes a solve hands to SolveOptions::dist_sink (RowBlock,
// any dtype) and keeps O(V) accumulators: per row (source) the out-eccentricity, reachable count
// and distance sum; per column (target) the incoming reachable count, distance sum and harmonic
// sum. From them: NetworkX's closeness_centrality (incoming distances, Wasserman-Faust scaling),
// harmonic_centrality, eccentricity, and the graph's diameter, radius, average shortest path
// length, Wiener index, center and periphery. Integer sums are exact (__int128 inside, long
// double out: exact below 2^64). compute_metrics() picks an engine (MetricsEngine): solve() with
// the reducer as its sink (fw, V^2 memory), or searches from every source in O(V + E + batch x V)
// memory (bfs: bit-parallel multi-source BFS; dijkstra), or eccentricity bounds (src/metrics/), or
// the sparse direct engine's rows reduced block by block (sparse: O(nnz(L) + block x V) memory).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/solve.hpp"
#include "apsp/types.hpp"

namespace apsp {

/// How compute_metrics() gets the distances (docs/metrics.md, "Engines").
enum class MetricsEngine : std::uint8_t {
  Auto,      ///< the cost model's pick (plan_metrics)
  Fw,        ///< solve() (blocked Floyd-Warshall, any backend) streaming into MetricsReducer
  Bfs,       ///< bit-parallel multi-source BFS (every weight 1, or every weight one integer c)
  Dijkstra,  ///< Dijkstra from every source on OpenMP threads (Johnson for negative weights)
  Bounds,    ///< eccentricity bounds: diameter, radius, center, periphery only
  /// The sparse direct engine's rows (supernodal factors, docs/sparse.md) reduced block by block
  /// where they are computed (GPU or host threads): O(nnz(L) + block x V) memory, never V x V;
  /// graphs with small separators (roads, meshes), non-negative weights.
  Sparse,
};
/// "auto", "fw", "bfs", "dijkstra", "bounds", "sparse"; parse throws UsageError naming the
/// choices.
const char* metrics_engine_name(MetricsEngine e);
MetricsEngine parse_metrics_engine(const std::string& name);

/// Which graph-wide extremes the bounds engine must decide (each one asked costs searches).
struct ExtremesWanted {
  bool diameter = true, radius = true, center = true, periphery = true;
};

struct MetricsOptions {
  /// Column-wise (incoming) accumulators: closeness needs in_count and in_sum, harmonic its own
  /// sum. Without either, only the row-wise pass runs (eccentricity and graph-wide values).
  bool closeness = true;
  bool harmonic = true;
  /// Wasserman-Faust scaling of closeness for graphs where not every vertex reaches u
  /// (NetworkX's wf_improved, its default).
  bool wf_improved = true;
  /// Pair counts per distance (Metrics::histogram); integer distances only.
  bool histogram = false;
  MetricsEngine engine = MetricsEngine::Auto;
  /// Only diameter, radius, center and periphery are wanted (those in `extremes`): Auto may
  /// pick Bounds, which leaves the extremes not wanted loose (center, periphery empty).
  bool extremes_only = false;
  ExtremesWanted extremes;
};

/// The exact graph-wide extremes the bounds engine found (no per-vertex values).
struct Extremes {
  bool connected = true;
  /// Not connected: a vertex that misses some other and how many others it reaches.
  std::int64_t missing_vertex = 0, missing_reach = 0;
  long double diameter = 0, radius = 0;  ///< inf when not connected
  std::vector<std::int64_t> center, periphery;
  std::int64_t searches = 0;  ///< single-source searches run
};

/// What a reduction found. Per-vertex vectors have num_vertices entries, indexed by vertex.
struct Metrics {
  std::int64_t num_vertices = 0;
  bool directed = true;
  Dtype dtype = Dtype::Int32;  ///< the distances' type
  std::string backend;         ///< the backend that solved ("cpu" for the search engines)
  std::string engine = "fw";   ///< fw, bfs, dijkstra, bounds or sparse
  std::string plan;            ///< why that engine (the cost model's figures)

  /// Largest distance from v; +inf where some vertex is unreachable from v (NetworkX refuses).
  std::vector<long double> eccentricity;
  /// Vertices other than v that v reaches / that reach v.
  std::vector<std::int64_t> reachable_out, reachable_in;
  /// Sum of the finite distances from v / to v (exact for integer types below 2^64).
  std::vector<long double> out_sum, in_sum;
  /// NetworkX closeness_centrality(G, distance=...) and harmonic_centrality(G, distance=...);
  /// empty unless MetricsOptions asked for them.
  std::vector<double> closeness, harmonic;
  /// Sum of every finite distance (ordered pairs).
  long double total_sum = 0;
  /// histogram[d]: pairs u != v at distance d (unordered pairs for an undirected graph, ordered
  /// for a directed one; unreachable pairs not counted). Empty unless asked.
  std::vector<std::int64_t> histogram;
  /// Set by the bounds engine: graph-wide extremes only, the per-vertex vectors are empty and
  /// average_shortest_path_length / wiener_index throw UsageError (not computed).
  std::optional<Extremes> extremes;

  /// Every vertex reaches every other one (for an undirected graph: connected).
  bool strongly_connected() const;
  /// Max / min eccentricity. Not strongly connected: throws UsageError ("graph is not strongly
  /// connected", as NetworkX) unless infinite_ok, then inf for the diameter and the smallest
  /// eccentricity (inf unless some vertex reaches all) for the radius.
  double diameter(bool infinite_ok = false) const;
  double radius(bool infinite_ok = false) const;
  /// Mean distance over ordered pairs u != v (0 for one vertex); same refusal, inf when allowed.
  double average_shortest_path_length(bool infinite_ok = false) const;
  /// Sum of distances over unordered pairs (undirected) or ordered pairs (directed); inf when
  /// not strongly connected (as NetworkX's wiener_index, which does not raise).
  long double wiener_index() const;
  /// Vertices whose eccentricity equals the radius / the diameter; same refusal.
  std::vector<std::int64_t> center(bool infinite_ok = false) const;
  std::vector<std::int64_t> periphery(bool infinite_ok = false) const;
  /// The distance within which a fraction q of the connected pairs lie, linearly interpolated
  /// between the histogram's distances (Leskovec et al. 2005); 0 without pairs. Needs histogram.
  double effective_diameter(double q = 0.9) const;
};

/// Streaming reduction: construct, hand it every stripe of one solve (in the RowSink order),
/// then finish(). Stripes of any dtype; unreachable = unreachable<T>() of their dtype. Columns
/// are split over OpenMP threads, rows too for the row-wise pass. Holds O(V) memory.
class MetricsReducer {
 public:
  MetricsReducer(std::int64_t num_vertices, bool directed, const MetricsOptions& options = {});
  ~MetricsReducer();
  MetricsReducer(MetricsReducer&&) noexcept;
  MetricsReducer& operator=(MetricsReducer&&) noexcept;

  /// Adds rows [b.row0, b.row0 + b.rows). Throws UsageError on a stripe that does not continue
  /// the previous one, has cols != num_vertices, or changes dtype.
  void add(const RowBlock& b);
  /// The sink to put in SolveOptions::dist_sink (refers to *this).
  RowSink sink();
  /// The metrics; throws UsageError unless every row was added. The reducer is spent afterwards.
  Metrics finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The engine compute_metrics() would run and why (figures of the cost model).
struct MetricsPlan {
  MetricsEngine engine = MetricsEngine::Fw;
  std::string why;
};
/// Picks the engine for `which.engine` (Auto: the cost model, docs/metrics.md); a forced engine
/// that cannot run on g (bfs on unequal weights, bounds on fractional ones, ...) is a
/// UsageError naming why.
MetricsPlan plan_metrics(const Graph& g, const SolveOptions& options, const MetricsOptions& which);

/// Computes the metrics with the engine plan_metrics() picks. fw: solve(g, options) with a
/// MetricsReducer as its dist_sink (a dist_sink already in options is called too, first);
/// nothing V x V is kept beyond what the backend itself holds. sparse: the supernodal rows on a
/// usable GPU (`--backend cuda`, or auto from 4096 vertices) or the host's threads. bfs /
/// dijkstra / bounds: CPU searches (options.threads, options.progress: sources done of total; an exception thrown by
/// progress stops the work and is rethrown). Throws what solve() throws.
Metrics compute_metrics(const Graph& g, const SolveOptions& options,
                        const MetricsOptions& which = {});

}  // namespace apsp
