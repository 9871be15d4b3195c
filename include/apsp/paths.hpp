// apsp/paths.hpp — path helpers beyond solve.hpp's path()/path_from_next().
//
// A --paths solve gives next hops: next[i][j] = the vertex after i on a shortest i -> j path
// (-1 when j is unreachable from i or i == j). SciPy-style predecessors, pred[i][j] = the vertex
// before j on a shortest i -> j path (-9999 for none), are the next hops of the REVERSED graph
// read transposed: pred[i][j] = next_rev[j][i]. So: solve(reversed(g), {.paths = true}) and call
// predecessors_from_reversed_next(result.next). See docs/paths.md for the tie rule.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp {

/// SciPy's "no predecessor" value (scipy.sparse.csgraph uses -9999).
inline constexpr std::int32_t kNoPredecessor = -9999;

/// g with every edge turned around (u, v, w) -> (v, u, w). An undirected graph is its own reverse.
Graph reversed(const Graph& g);

/// V x V int32 predecessors (stride V) from the next-hop matrix of the reversed graph:
/// pred[i][j] = next_rev[j][i], and kNoPredecessor where that is -1 (unreachable, or i == j).
/// Throws UsageError if next_rev is not a square int32 matrix.
Matrix predecessors_from_reversed_next(const Matrix& next_rev);

/// Makes every next-hop walk end. Every hop a backend returns is tight (d(v,j) = w(v,a) + d(a,j)
/// for a = next[v][j]), but across a zero-weight cycle the hops toward some j can go round in a
/// circle (the edges rule does that in most columns of a graph with such a cycle; blocked FW's
/// update order rarely). For each cycle of each looping column this points the vertices of one
/// shortest route of tight arcs from the cycle to a vertex whose walk ends along that route
/// (usually one entry per cycle); every other entry stays. Cost: one pass over the edges to find
/// the vertices that can be on such a cycle (usually none: then it returns 0 at once), then about
/// their number times V, plus, only with loops, one pass over the edges and a little per cycle.
/// Deterministic (independent of the thread count); the rule is in docs/paths.md.
/// `g` is the graph `dist` was solved for (the original one, also under Johnson reweighting); an
/// edge list or a dense view. solve() calls it whenever paths are kept. Returns the number of
/// entries changed.
std::int64_t repair_next_hops(const Graph& g, const Matrix& dist, Matrix& next);

/// Vertices of the i -> j path read from a predecessor matrix (i first, j last; {i} for i == j;
/// empty when unreachable). Throws UsageError for ids out of range, Error if pred has a cycle.
std::vector<std::int64_t> path_from_predecessors(const Matrix& pred, std::int64_t i,
                                                 std::int64_t j);

/// Options of shortest_paths_from_sources().
struct SourcePathsOptions {
  /// Distances above `limit` are reported as +inf (and not explored further).
  double limit = std::numeric_limits<double>::infinity();
  /// One row for all sources: each vertex's distance from the nearest source.
  bool min_only = false;
  /// CPU threads; 0 = OpenMP's default.
  int threads = 0;
  /// Called now and then on the calling thread; returning true stops the work early (the
  /// caller then reports why, e.g. a pending KeyboardInterrupt).
  std::function<bool()> interrupted;
};

/// Shortest paths from a few sources only (0 <= s < V), without a V x V matrix: one Dijkstra per
/// source (OpenMP over sources; Johnson's potentials first when a weight is negative), the
/// library's one Dijkstra (SciPy's `indices=`, `apsp solve --sources`). Memory O(E + rows * V).
/// Without min_only: dist is sources.size() x V (row-major, float64, +inf unreachable) and pred,
/// when not null, the same shape of int32 predecessors (kNoPredecessor for none and at the
/// source). With min_only: dist, pred and source_of (each V entries; pred / source_of may be
/// null) give for every vertex its distance from the nearest source, its predecessor on that path
/// and that source (kNoPredecessor when unreachable). Returns false when `interrupted` stopped it
/// (outputs then partly written). Throws ResourceError when the arcs would not fit the host
/// memory limit, NegativeCycleError.
bool shortest_paths_from_sources(const Graph& g, const std::vector<std::int32_t>& sources,
                                 const SourcePathsOptions& o, double* dist, std::int32_t* pred,
                                 std::int32_t* source_of);

}  // namespace apsp
