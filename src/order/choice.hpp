// src/order/choice.hpp — solve()'s decision on the vertex order of the rounds (docs/sparse.md).
//
// none keeps the dense rounds. nd orders the graph by METIS nested dissection and runs the
// symbolic tile analysis on it; auto keeps that only where the symbolic count of updates is
// below kAutoMaxFraction of the dense rounds' (ordering, analysis and unpermuting the result cost
// far less than the work saved there), and skips both for graphs that cannot qualify: small V,
// many arcs per vertex (random graphs have no small separators), dense views, other backends.
#pragma once

#include <memory>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/solve.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail {

/// auto takes nd when the plan's updates are below this fraction of the dense rounds'.
inline constexpr double kAutoMaxFraction = 0.5;
/// auto does not try nd with fewer tiles a side than this (a few rounds: nothing to save).
inline constexpr std::int64_t kAutoMinTiles = 4;
/// The same on the GPU (tiles of 128: V > 16256). Below, the dense GPU rounds take no longer
/// than ordering the graph on the host, so auto keeps them (docs/sparse.md).
inline constexpr std::int64_t kAutoMinTilesGpu = 128;
/// The GPU's leaf size: subgraphs up to this many vertices are not dissected (with 128-aligned
/// tiles; docs/sparse.md has the measurements).
inline constexpr std::int64_t kGpuLeaf = 512;
/// auto does not try nd with more arcs per vertex than this.
inline constexpr double kAutoMaxArcsPerVertex = 32;

struct OrderChoice {
  Permutation perm;                      ///< empty: the user's order
  Graph graph;                           ///< with perm: the graph relabelled to it
  std::shared_ptr<const TilePlan> plan;  ///< null: dense rounds
  std::string label = "none";            ///< Result::order
  double work_fraction = 1, order_s = 0, symbolic_s = 0;
};

/// The order for graph g (an edge list, or a dense view which only none / auto take) under
/// `asked`, for tiles of at most B (a multiple of 32); n_pad: the dense rounds' matrix size (the
/// plan's may be larger: padding vertices align the tiles). `backend_skips`: the backend runs
/// plans. `layout`: the dissection's alignment and leaf size (ordering.hpp); auto keeps none below
/// `auto_min_tiles` tiles a side.
/// Throws UsageError for nd where it cannot run (no METIS, a backend without tile skipping).
OrderChoice choose_order(const Graph& g, Order asked, bool backend_skips,
                         const std::string& backend, std::int64_t n_pad, std::int64_t B,
                         NdLayout layout = {}, std::int64_t auto_min_tiles = kAutoMinTiles);

}  // namespace apsp::detail
