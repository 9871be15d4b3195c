// src/order/ordering.hpp — fill-reducing vertex orderings for sparse graphs, and the relabelling
// that goes with them (internal).
//
// nested_dissection() asks METIS for a nested-dissection order of the symmetrised graph:
// separators last, so that blocked Floyd-Warshall's early rounds only combine tiles inside small
// subdomains (Sao et al., PPoPP 2020). Tiles must not straddle two sibling subdomains (a tile
// holding the end of one and the start of the other joins them in the symbolic closure), so the
// dissection is done here, one METIS_ComputeVertexSeparator per tree node, and every second child
// starts at a multiple of 32 (isolated padding vertices fill the gap); tiles end there too.
// relabel() gives the graph the kernels see; unpermuted() the result in the user's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::detail {

/// The symmetric adjacency of g (arcs both ways) without self loops or repeats, in CSR, each
/// vertex's neighbours ascending.
void symmetric_adjacency(const Graph& g, std::vector<std::int32_t>& xadj,
                         std::vector<std::int32_t>& adj);

/// True when this build has METIS (libmetis-dev found at configure time).
bool metis_available();
/// Why nested dissection is unavailable ("" when it is available).
std::string metis_missing_reason();

/// A vertex order: old_of_new[i] is the user's vertex at position i (-1: a padding vertex, no
/// edges); new_of_old[v] the position of user vertex v. Positions may outnumber vertices.
struct Permutation {
  std::vector<std::int32_t> old_of_new, new_of_old;
  bool empty() const { return old_of_new.empty(); }
};

/// A nested-dissection order and the tile bounds that follow it (multiples of the layout's
/// alignment, tiles at most B wide, bounds.back() = number of positions, a multiple of it).
struct TiledOrder {
  Permutation perm;
  std::vector<std::int64_t> bounds;
};

/// How the dissection is laid out: every second child starts at a multiple of `align` (padding
/// fills the gap; tiles end there), and subgraphs of at most `leaf` vertices are not split.
/// The CPU kernels take tiles of any multiple of 32: {32, 256}. The GPU kernels take 128-wide
/// tiles only: {128, kGpuLeaf} (docs/sparse.md has the measurements behind both).
struct NdLayout {
  std::int64_t align = 32, leaf = 256;
};

/// Nested dissection of g's arcs made symmetric (direction and weights ignored, self loops and
/// repeats dropped), by METIS vertex separators with a fixed seed, laid out for tiles of at most
/// B (a multiple of layout.align). Throws UsageError when METIS is not built in.
TiledOrder nested_dissection(const Graph& g, std::int64_t B, NdLayout layout = {});

/// A nested-dissection order as a tree (the supernodes of the sparse direct engine, src/sparse):
/// node k holds the positions [first[k], first[k + 1]) of the order, each separator after the
/// subtrees it separates (so nodes are in post-order and children come before parents);
/// parent[k] = -1 for a root. No padding: old_of_new is a permutation of 0..V-1.
struct SeparatorTree {
  Permutation perm;
  std::vector<std::int64_t> first;
  std::vector<std::int32_t> parent;
  std::int64_t nodes() const { return std::int64_t(parent.size()); }
};

/// Nested dissection of g's symmetrised arcs by METIS vertex separators (as nested_dissection,
/// fixed seed), down to leaves of at most `leaf` vertices; vertices without arcs among them are
/// cut into sibling leaves of at most `leaf`. Throws UsageError when METIS is not built in.
SeparatorTree separator_tree(const Graph& g, std::int64_t leaf);

/// The edge-list graph g with vertex v renamed p.new_of_old[v] and p.old_of_new.size() vertices
/// (same edges, weights, flags).
Graph relabel(const Graph& g, const Permutation& p);

/// The user's V x V matrix (stride `stride` >= V) from m, computed on relabel(g, p):
/// out[u][v] = m[new(u)][new(v)]. With `vertex_values` (next hops) every entry >= 0 is renamed
/// back to the user's vertex as well.
Matrix unpermuted(const Matrix& m, const Permutation& p, bool vertex_values, std::int64_t stride,
                  Memory memory);

}  // namespace apsp::detail
