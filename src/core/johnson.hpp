// src/core/johnson.hpp — Johnson reweighting for graphs with negative weights (internal).
//
// potentials() runs Bellman-Ford (SPFA) from a virtual source joined to every vertex by a
// 0-weight edge; h(v) is the distance to v. Then w'(u,v) = w + h(u) - h(v) >= 0, the
// non-negative kernels solve the reweighted graph, and restore() maps d'(u,v) back to
// d(u,v) = d'(u,v) - h(u) + h(v). A negative cycle throws NegativeCycleError naming one.
#pragma once

#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::detail {

/// Potentials h (size V). Throws NegativeCycleError (with the cycle's vertices) if one exists;
/// an undirected graph with a negative edge is such a case (u -> v -> u).
std::vector<double> johnson_potentials(const Graph& g);
/// Copy of g with w'(u,v) = w + h(u) - h(v) (>= 0; tiny negative float residue clamped to 0).
Graph reweight(const Graph& g, const std::vector<double>& h);
/// dist(u,v) = dist'(u,v) - h(u) + h(v) on every reachable off-diagonal entry, in place.
void restore(Matrix& dist, const std::vector<double>& h);

}  // namespace apsp::detail
