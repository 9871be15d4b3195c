// src/core/reference.hpp — plain, obviously-correct solvers for tests and --verify (internal).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::detail {

// ---- reading a dense adjacency (Graph::dense) ---------------------------------------------------
/// Entry (i, j) of `a` as S, the C++ type of a.kind (memcpy: NumPy data need not be aligned).
template <class S> S dense_entry(const DenseAdjacency& a, std::int64_t i, std::int64_t j) {
  S x;
  std::memcpy(&x, static_cast<const char*>(a.data) + i * a.row_stride + j * a.col_stride, sizeof x);
  return x;
}
/// Whether an entry is an edge: not 0 and not +inf (NaN and -inf, which validate() refuses, are
/// not edges either).
template <class S> bool dense_is_edge(S x) {
  if constexpr (std::is_floating_point_v<S>)
    return x != S(0) && x < std::numeric_limits<S>::infinity() && x > -std::numeric_limits<S>::infinity();
  else return x != S(0);
}
/// w == floor(w) for a finite w, without a libm call (floor is one where SSE4.1 is not assumed):
/// from 2^52 on every double is an integer, below it the round trip through int64 is exact.
inline bool is_integral_value(double w) { return !(std::fabs(w) < 0x1p52) || double(std::int64_t(w)) == w; }
/// The weight an edge entry stands for, as the edge list would hold it.
template <class S> double dense_weight(const DenseAdjacency& a, S x) { return a.unweighted ? 1.0 : double(x); }

/// n x n (stride n) matrix of `t` with 0 diagonal, unreachable elsewhere, min weight per edge.
/// Self loops with w >= 0 are ignored; a negative self loop is kept (FW then sees it).
/// A dense graph is read straight from its matrix (no edge list), in parallel.
Matrix build_matrix(const Graph& g, Dtype t, std::int64_t stride, std::int64_t alloc_rows,
                    Memory memory = Memory::Host);
/// next[i][j] = j for every edge i -> j (i != j) that is the minimum in `dist`, -1 otherwise.
Matrix build_next(const Matrix& dist);

/// Triple-loop Floyd-Warshall in place on dist (any dtype), with optional next-hop.
void reference_floyd_warshall(Matrix& dist, Matrix* next = nullptr);
/// Dijkstra from `source` (non-negative weights). Distances as double, +inf = unreachable.
std::vector<double> reference_dijkstra(const Graph& g, std::int64_t source);
/// Bellman-Ford from `source`; returns false if a negative cycle is reachable from it.
bool reference_bellman_ford(const Graph& g, std::int64_t source, std::vector<double>& dist);

/// Compares solver output to the reference (full FW for V <= full_limit, else Dijkstra /
/// Bellman-Ford from `samples` seeded sources). Returns "" on agreement, else a short report.
std::string verify(const Graph& g, const Matrix& dist, std::int64_t full_limit = 2048, int samples = 16,
                   std::uint64_t seed = 1);

}  // namespace apsp::detail
