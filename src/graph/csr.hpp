// src/graph/csr.hpp — the host graph layer's one graph type: a graph's arcs by tail (CSR), its
// one builder and its reverse. Every host search (the reference, Johnson's potentials, the
// distance evidence, the library Dijkstra, the metrics, path repair) and the GPU next-hop upload
// walk it.
//
// The builder is a counting sort over detail::for_each_arc (core/reference.hpp): self loops
// dropped, an undirected edge both ways, a dense view read in place; within a tail the arcs keep
// the walk's order (the input order). Weights are stored as the caller's type W (NoWeight: none).
// Reference: GAPBS src/graph.h (CSRGraph) and src/builder.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "core/reference.hpp"

namespace apsp::detail {

/// The weight type of a Csr without weights (BFS): no weight array is kept.
struct NoWeight {};

/// Arcs by tail: u's arcs are [start[u], start[u + 1]), arc e goes to to[e] with weight w[e].
template <class W>
struct Csr {
  std::int64_t n = 0;
  std::vector<std::int64_t> start;  // n + 1 (empty for a build that was cancelled)
  std::vector<std::int32_t> to;
  std::vector<W> w;                // empty for NoWeight
  std::vector<std::int64_t> edge;  // BuildOptions::edge_index: the arc's input edge

  std::int64_t arcs() const { return start.empty() ? 0 : start.back(); }
  std::int64_t degree(std::int64_t u) const {
    return start[std::size_t(u) + 1] - start[std::size_t(u)];
  }
};

/// How build_csr builds a Csr.
struct BuildOptions {
  /// Fill Csr::edge with each arc's input edge (for_each_indexed_arc's e).
  bool edge_index = false;
  /// Throw ResourceError when the arcs would need more bytes than this (0: no check).
  std::uint64_t memory_limit = 0;
  /// The arcs are walked in `parts` slices of the input; `cancel`, polled before each slice,
  /// stops the build (an empty Csr, start empty) once it is true.
  int parts = 1;
  const std::atomic<bool>* cancel = nullptr;
};

/// The default weight of an arc: weight_as<W> (integers exact, llround only for a fraction).
template <class W>
struct AsWeight {
  W operator()(std::int32_t, std::int32_t, double w) const {
    if constexpr (std::is_same_v<W, NoWeight>)
      return {};
    else
      return weight_as<W>(w);
  }
};

/// Throws ResourceError when `bytes` for `arcs` arcs exceed `limit` (0: no limit).
void check_arc_memory(std::int64_t arcs, double bytes, std::uint64_t limit);

/// Calls f(u, v, w, e) for the arcs of part `part` of `parts` in for_each_arc's order, e = the
/// index of the input edge (-1 for the entries of a dense view, which has no edge list).
template <class F>
void for_each_indexed_arc(const Graph& g, F&& f, int part, int parts) {
  if (g.is_dense()) {
    for_each_arc(
        g, [&](std::int32_t u, std::int32_t v, double w) { f(u, v, w, std::int64_t(-1)); }, part,
        parts);
    return;
  }
  const auto E = std::int64_t(g.src.size());
  for (std::int64_t e = E * part / parts; e < E * (part + 1) / parts; ++e) {
    const std::int32_t u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
    if (u == v) continue;
    f(u, v, g.weight[std::size_t(e)], e);
    if (!g.directed) f(v, u, g.weight[std::size_t(e)], e);
  }
}

/// The arcs of g as Csr<W>; weigh(u, v, w) gives each arc's stored weight.
template <class W, class Weigh = AsWeight<W>>
Csr<W> build_csr(const Graph& g, const BuildOptions& o = {}, Weigh weigh = {}) {
  constexpr bool kWeighted = !std::is_same_v<W, NoWeight>;
  Csr<W> c;
  c.n = g.num_vertices;
  auto walk = [&](auto&& f) {  // false when cancelled
    for (int part = 0; part < o.parts; ++part) {
      if (o.cancel && o.cancel->load(std::memory_order_relaxed)) return false;
      for_each_indexed_arc(g, f, part, o.parts);
    }
    return true;
  };
  c.start.assign(std::size_t(c.n) + 1, 0);
  if (!walk([&](std::int32_t u, std::int32_t, double, std::int64_t) {
        ++c.start[std::size_t(u) + 1];
      }))
    return {};
  for (std::int64_t v = 0; v < c.n; ++v) c.start[std::size_t(v) + 1] += c.start[std::size_t(v)];
  const std::int64_t arcs = c.arcs();
  const double per_arc = double(sizeof(std::int32_t) + (kWeighted ? sizeof(W) : 0) +
                                (o.edge_index ? sizeof(std::int64_t) : 0));
  check_arc_memory(arcs, double(arcs) * per_arc + double(c.start.size()) * 8.0, o.memory_limit);
  c.to.resize(std::size_t(arcs));
  if constexpr (kWeighted) c.w.resize(std::size_t(arcs));
  if (o.edge_index) c.edge.resize(std::size_t(arcs));
  std::vector<std::int64_t> pos(c.start.begin(), c.start.end() - 1);
  const bool ok = walk([&](std::int32_t u, std::int32_t v, double w, std::int64_t e) {
    const auto p = std::size_t(pos[std::size_t(u)]++);
    c.to[p] = v;
    if constexpr (kWeighted) c.w[p] = weigh(u, v, w);
    if (o.edge_index) c.edge[p] = e;
  });
  return ok ? c : Csr<W>{};
}

/// The arcs of c reversed (v -> u for every u -> v, with its weight and edge): in-arcs by head,
/// each head's arcs in the order of their tails.
template <class W>
Csr<W> reversed(const Csr<W>& c) {
  Csr<W> r;
  r.n = c.n;
  const auto n = std::size_t(c.n);
  r.start.assign(n + 1, 0);
  for (const std::int32_t v : c.to) ++r.start[std::size_t(v) + 1];
  for (std::size_t v = 0; v < n; ++v) r.start[v + 1] += r.start[v];
  r.to.resize(c.to.size());
  r.w.resize(c.w.size());
  r.edge.resize(c.edge.size());
  std::vector<std::int64_t> pos(r.start.begin(), r.start.end() - 1);
  for (std::size_t u = 0; u < n; ++u)
    for (std::int64_t e = c.start[u]; e < c.start[u + 1]; ++e) {
      const auto at = std::size_t(pos[std::size_t(c.to[std::size_t(e)])]++);
      r.to[at] = std::int32_t(u);
      if (!c.w.empty()) r.w[at] = c.w[std::size_t(e)];
      if (!c.edge.empty()) r.edge[at] = c.edge[std::size_t(e)];
    }
  return r;
}

}  // namespace apsp::detail
