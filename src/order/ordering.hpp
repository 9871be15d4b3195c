// src/order/ordering.hpp — fill-reducing vertex orderings for sparse graphs, and the relabelling
// that goes with them (internal).
//
// nested_dissection() asks METIS (METIS_NodeND, Karypis & Kumar 1998) for a nested-dissection
// order of the symmetrised graph: separators last, so that blocked Floyd-Warshall's early rounds
// only combine tiles inside small subdomains (Sao et al., PPoPP 2020). relabel() gives the graph
// the kernels see; unpermute() puts a result computed in that order back into the user's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::detail {

/// True when this build has METIS (libmetis-dev found at configure time).
bool metis_available();
/// Why nested dissection is unavailable ("" when it is available).
std::string metis_missing_reason();

/// A vertex order: old_of_new[i] is the user's vertex at position i; new_of_old its inverse.
struct Permutation {
  std::vector<std::int32_t> old_of_new, new_of_old;
  bool empty() const { return old_of_new.empty(); }
};

/// METIS_NodeND on g's arcs made symmetric (direction and weights ignored, self loops and
/// repeats dropped), with a fixed seed. Throws UsageError when METIS is not built in.
Permutation nested_dissection(const Graph& g);

/// The edge-list graph g with vertex v renamed p.new_of_old[v] (same edges, weights, flags).
Graph relabel(const Graph& g, const Permutation& p);

/// In place: a matrix m computed on relabel(g, p) (rows and columns 0..n-1 in the new order,
/// padding beyond n left alone) becomes the one on g: m'[u][v] = m[new(u)][new(v)]. With
/// `vertex_values` (next hops) every entry >= 0 is renamed back as well.
void unpermute(Matrix& m, const Permutation& p, bool vertex_values);

}  // namespace apsp::detail
