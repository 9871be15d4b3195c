// src/mpi/round_tiles.hpp — which of a worker's tiles one round of blocked Floyd-Warshall touches
// on the 2D block-cyclic layout (dist/block_cyclic.hpp), dense or after a TilePlan (sparse rounds,
// order/symbolic.hpp). Used by the mpi backend's CPU ranks (cpu_ranks.cpp); header only, no MPI.
//
// Round t's panels are tile row t over the round's columns and tile column t over its rows; its
// rest update is rows x columns. Dense: every tile but t. With a plan: the plan's lists for round t
// (rows[row_start[t] .. row_start[t+1]), cols alike; t itself never listed), which need uniform
// tiles, as the layout has. A worker keeps the listed tiles it owns, as local tile indices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "dist/block_cyclic.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail::dist {

/// Round t's tiles on one worker.
struct RoundTiles {
  /// Local tile rows / columns (ascending) that take part: the pivot column panel and the rest
  /// run over `rows`, the pivot row panel and the rest over `cols`.
  std::vector<i64> rows, cols;
  /// The round has a rest update somewhere on the grid (some row and some column are listed):
  /// only then are the panels broadcast. `any_rows` / `any_cols`: some row / column is listed on
  /// some worker (only then does the column / row panel need the closed pivot).
  bool any_rows = false, any_cols = false;
  bool rest() const { return any_rows && any_cols; }
};

/// Round t's tiles of the worker of `L` (plan: null for the dense rounds; else R and B as L's).
inline RoundTiles round_tiles(const Layout& L, const TilePlan* plan, i64 t) {
  RoundTiles out;
  if (!plan) {
    out.any_rows = out.any_cols = L.R > 1;
    for (i64 li = 0; li < L.lr; ++li)
      if (L.global_row(li) != t) out.rows.push_back(li);
    for (i64 lj = 0; lj < L.lc; ++lj)
      if (L.global_col(lj) != t) out.cols.push_back(lj);
    return out;
  }
  const auto T = std::size_t(t);
  out.any_rows = plan->row_start[T + 1] > plan->row_start[T];
  out.any_cols = plan->col_start[T + 1] > plan->col_start[T];
  for (i64 x = plan->row_start[T]; x < plan->row_start[T + 1]; ++x)
    if (const i64 I = plan->rows[std::size_t(x)]; L.owns_row(I)) out.rows.push_back(L.local_row(I));
  for (i64 x = plan->col_start[T]; x < plan->col_start[T + 1]; ++x)
    if (const i64 J = plan->cols[std::size_t(x)]; L.owns_col(J)) out.cols.push_back(L.local_col(J));
  return out;
}

inline bool holds(const std::vector<i64>& tiles, i64 x) {
  return x >= 0 && std::binary_search(tiles.begin(), tiles.end(), x);
}

/// The ascending local tiles `tiles` minus `skip` (-1: none) as runs of consecutive tiles.
inline std::vector<TileRange> runs_without(const std::vector<i64>& tiles, i64 skip = -1) {
  std::vector<TileRange> out;
  for (const i64 x : tiles) {
    if (x == skip) continue;
    if (!out.empty() && out.back().end == x)
      ++out.back().end;
    else
      out.push_back({x, x + 1});
  }
  return out;
}

/// [first, last + 1) of ascending local tiles ({0, 0} when there are none).
inline std::pair<i64, i64> span_of(const std::vector<i64>& tiles) {
  return tiles.empty() ? std::pair<i64, i64>{0, 0} : std::pair{tiles.front(), tiles.back() + 1};
}

}  // namespace apsp::detail::dist
