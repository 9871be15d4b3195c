// src/order/symbolic.hpp — symbolic analysis of blocked Floyd-Warshall on a sparse graph.
//
// Tile-level boolean closure: F[I][J] says tile (I,J) can hold a finite distance. It starts as
// the diagonal tiles and the tiles holding an arc; round T updates tile (I,J) only when F[I][T]
// and F[T][J] (an all-unreachable operand leaves the target as it is), and then sets F[I][J].
// So round T's panels are the tiles (T,J) with F[T][J] and (I,T) with F[I][T], and its rest
// update is their product. Rows of F are bitsets: the whole analysis is O(R^3 / 64) for R tiles.
// Tiles may differ in width (multiples of 32 that follow the separator tree, ordering.hpp).
// Same idea as the symbolic factorisation of sparse Cholesky (Sao et al., PPoPP 2020).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::detail {

/// Which tiles each round of blocked FW touches: n (padded) vertices, R tiles a side, tile I
/// covering vertices [bounds[I], bounds[I+1]), none wider than B.
struct TilePlan {
  std::int64_t n = 0, B = 0, R = 0;
  std::vector<std::int64_t> bounds;
  /// Round T's active tile rows I != T (F[I][T]) and columns J != T (F[T][J]), increasing:
  /// rows of round T are rows[row_start[T] .. row_start[T+1]), columns alike.
  std::vector<std::int32_t> rows, cols;
  std::vector<std::int64_t> row_start, col_start;
  /// Element updates of the plan (pivot + panels + rest, summed over rounds) over the dense
  /// rounds' dense_n^3 (dense_n: the matrix size without any ordering).
  double work_fraction = 1.0;

  /// Round t's rows (columns) with t itself inserted, increasing: the tiles its panels and rest
  /// run over (the pivot row and column are written back by the rest update).
  std::vector<std::int32_t> rows_with_pivot(std::int64_t t) const;
  std::vector<std::int32_t> cols_with_pivot(std::int64_t t) const;
};

/// The 256-column word tiles (int16x2 rounds: word tile w holds tiles 2w and 2w + 1) that hold
/// the increasing tile columns `cols`, increasing.
std::vector<std::int32_t> word_tiles(const std::vector<std::int32_t>& cols);

/// The plan for the graph g (vertices in the order the rounds see them) on an n-vertex padded
/// matrix with tiles of B (the last tile may be narrower).
TilePlan symbolic_tiles(const Graph& g, std::int64_t n, std::int64_t B);
/// The same with the given tile bounds (0 = bounds[0] < ... < bounds[R] = n); the fraction is
/// over dense_n^3.
TilePlan symbolic_tiles(const Graph& g, std::vector<std::int64_t> bounds, std::int64_t dense_n);

/// The same count done the slow way (a dense boolean R x R matrix, triple loop): for tests.
double symbolic_fraction_reference(const Graph& g, std::int64_t n, std::int64_t B);

}  // namespace apsp::detail
