// src/graph/dijkstra.hpp — the library's one Dijkstra over the one graph type (graph/csr.hpp).
//
// dijkstra_search() is the search itself: from one or several seeds over non-negative arcs, a
// binary heap with lazy deletion, an optional prune (distance limit), a stop test (Ctrl-C,
// cancel) every 4096 settled vertices and an optional hook on each settled vertex. The reference,
// the distance evidence and the per-source solver below all run it. shortest_paths_from() is
// that solver: one search per source (OpenMP over sources), Johnson's potentials for negative
// weights, a multi-source run for min_only; apsp.dijkstra / bellman_ford / johnson (shortest_path
// with indices=), `apsp sources` and the metrics engines use it. Memory O(E + rows * V).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/paths.hpp"
#include "graph/csr.hpp"

namespace apsp::detail {

/// Where a search starts: vertex v at distance `label`; between seeds that reach a vertex at
/// equal distances the lower rank wins (multi-source searches).
struct DijkstraSeed {
  std::int32_t v;
  double label;
  std::int32_t rank;
};

/// Per-thread buffers of dijkstra_search, reused from search to search.
struct DijkstraScratch {
  struct Item {
    double d;
    std::int32_t rank, v;
  };
  std::vector<Item> heap;
  std::vector<std::int32_t> rank, source, order;
  std::vector<std::int32_t> pred;  // when the caller wants none but the limit cut needs them
  std::vector<char> on_path;       // the limit cut: on the path of a vertex within the limit

  std::int32_t* pred_or_own(std::int32_t* p, bool need, std::int64_t n) {
    if (p || !need) return p;
    pred.resize(std::size_t(n));
    return pred.data();
  }
};

/// The settle hook that never ends a search early.
struct SettleAll {
  bool operator()(std::int32_t, double) const { return true; }
};

/// Dijkstra from `seeds` over a's non-negative arcs into d (n entries, +inf unreached); pred (n,
/// may be null) gets predecessors (kNoPredecessor for none), changed only on a strict improvement
/// so the first vertex to reach a distance keeps it (as SciPy's Dijkstra). Multi: several seeds,
/// ties between equal distances go to the lower rank, and s.source[v] names the seed v was
/// reached from. Arcs that would give a distance above `prune` are not followed. keep_order: the
/// vertices in s.order in the order they were settled (parents first). settle(v, d) is called
/// as v is settled at d; false ends the search there. Returns false when stop() (asked every 4096
/// settled vertices) asked to stop.
template <bool Multi, class Stop, class Settle = SettleAll>
bool dijkstra_search(const Csr<double>& a, const std::vector<DijkstraSeed>& seeds, double prune,
                     double* d, std::int32_t* pred, DijkstraScratch& s, bool keep_order,
                     Stop&& stop, Settle&& settle = {}) {
  using Item = DijkstraScratch::Item;
  // std::push_heap keeps the largest on top: "larger" = later in (distance, rank) order.
  auto later = [](const Item& x, const Item& y) {
    return x.d > y.d || (x.d == y.d && x.rank > y.rank);
  };
  const std::int64_t n = a.n;
  std::fill(d, d + n, std::numeric_limits<double>::infinity());
  if (pred) std::fill(pred, pred + n, kNoPredecessor);
  if constexpr (Multi) {
    s.rank.assign(std::size_t(n), INT_MAX);
    s.source.assign(std::size_t(n), kNoPredecessor);
  }
  s.order.clear();
  s.heap.clear();
  for (const DijkstraSeed& x : seeds) {
    const auto v = std::size_t(x.v);
    if constexpr (Multi) {
      if (x.label > d[v] || (x.label == d[v] && x.rank >= s.rank[v])) continue;
      s.rank[v] = x.rank;
      s.source[v] = x.v;
    }
    d[v] = x.label;
    s.heap.push_back({x.label, x.rank, x.v});
    std::push_heap(s.heap.begin(), s.heap.end(), later);
  }
  std::int64_t pops = 0;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const Item top = s.heap.back();
    s.heap.pop_back();
    const auto u = std::size_t(top.v);
    if (top.d != d[u]) continue;  // stale entry
    if constexpr (Multi)
      if (top.rank != s.rank[u]) continue;
    if (!settle(top.v, top.d)) return true;
    if (keep_order) s.order.push_back(top.v);
    if ((++pops & 4095) == 0 && stop()) return false;
    for (std::int64_t e = a.start[u]; e < a.start[u + 1]; ++e) {
      const double nd = top.d + a.w[std::size_t(e)];
      if (nd > prune) continue;
      const auto v = std::size_t(a.to[std::size_t(e)]);
      bool better = nd < d[v];
      if constexpr (Multi) better = better || (nd == d[v] && top.rank < s.rank[v]);
      if (!better) continue;
      d[v] = nd;
      if (pred) pred[v] = top.v;
      if constexpr (Multi) {
        s.rank[v] = top.rank;
        s.source[v] = s.source[u];
      }
      s.heap.push_back({nd, top.rank, a.to[std::size_t(e)]});
      std::push_heap(s.heap.begin(), s.heap.end(), later);
    }
  }
  return true;
}

// ---- the per-source solver --------------------------------------------------------------------

/// The per-source solver's options (public: apsp/paths.hpp).
using PerSourceOptions = SourcePathsOptions;

/// A graph's out-arcs (12 bytes per arc), reweighted by Johnson's potentials `h` when the graph
/// has a negative weight (h empty otherwise). Built once, searched many times.
struct SearchGraph {
  Csr<double> arcs;
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

/// make_search_graph(g), then shortest_paths_from() it (public as
/// apsp::shortest_paths_from_sources, apsp/paths.hpp).
bool per_source_shortest_paths(const Graph& g, const std::vector<std::int32_t>& sources,
                               const PerSourceOptions& o, double* dist, std::int32_t* pred,
                               std::int32_t* source_of);

}  // namespace apsp::detail
