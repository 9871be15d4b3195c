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
template <class S>
S dense_entry(const DenseAdjacency& a, std::int64_t i, std::int64_t j) {
  S x;
  std::memcpy(&x, static_cast<const char*>(a.data) + i * a.row_stride + j * a.col_stride, sizeof x);
  return x;
}
/// Whether an entry is an edge: not 0 and not +inf (NaN and -inf, which validate() refuses, are
/// not edges either).
template <class S>
bool dense_is_edge(S x) {
  if constexpr (std::is_floating_point_v<S>)
    return x != S(0) && x < std::numeric_limits<S>::infinity() &&
           x > -std::numeric_limits<S>::infinity();
  else
    return x != S(0);
}
/// w == floor(w) for a finite w, without a libm call (floor is one where SSE4.1 is not assumed):
/// from 2^52 on every double is an integer, below it the round trip through int64 is exact.
inline bool is_integral_value(double w) {
  return !(std::fabs(w) < 0x1p52) || double(std::int64_t(w)) == w;
}
/// The weight an edge entry stands for, as the edge list would hold it.
template <class S>
double dense_weight(const DenseAdjacency& a, S x) {
  return a.unweighted ? 1.0 : double(x);
}

/// A weight as build_matrix stores it, for the arc walks of the next-hop passes (llround for
/// integer types; integer weights, the only kind integer types take, convert exactly, without the
/// library call).
template <class T>
T weight_as(double w) {
  if constexpr (std::is_integral_v<T>) {
    const T t = T(w);
    return double(t) == w ? t : T(std::llround(w));
  } else {
    return T(w);
  }
}

/// Calls f(u, v, w) for every arc of g in part `part` of `parts` (an edge list: edge-index
/// ranges; a dense view: row ranges), in input order: the parts concatenated in order give the
/// edge list's order, or for a dense view row-major order, the order edges_from_dense lists its
/// edges in. Self loops are skipped; an undirected edge gives u -> v, then v -> u. So code that
/// walks arcs reads a dense view in place and sees exactly what its edge-list copy would give.
template <class F>
void for_each_arc(const Graph& g, F&& f, int part = 0, int parts = 1) {
  if (!g.is_dense()) {
    const std::int64_t E = std::int64_t(g.src.size()), e0 = E * part / parts,
                       e1 = E * (part + 1) / parts;
    for (std::int64_t e = e0; e < e1; ++e) {
      const std::int32_t u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
      if (u == v) continue;
      const double w = g.weight[std::size_t(e)];
      f(u, v, w);
      if (!g.directed) f(v, u, w);
    }
    return;
  }
  const std::int64_t n = g.num_vertices, r0 = n * part / parts, r1 = n * (part + 1) / parts;
  visit_dtype(g.dense.kind, [&](auto tag) {
    using S = decltype(tag);
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const S x = dense_entry<S>(g.dense, i, j);
        if (!dense_is_edge(x)) continue;
        const double w = dense_weight(g.dense, x);
        f(std::int32_t(i), std::int32_t(j), w);
        if (!g.directed) f(std::int32_t(j), std::int32_t(i), w);
      }
  });
}

/// Local -> global index of a tiled (block-cyclic) layout: x -> ((x / tile) * step + first) * tile
/// + x % tile. The default is the identity (one tile, step 1).
struct TileMap {
  std::int64_t tile = std::int64_t(1) << 62, step = 1, first = 0;
  std::int64_t operator()(std::int64_t x) const {
    return ((x / tile) * step + first) * tile + x % tile;
  }
};

/// The distance matrix a dense graph starts from, as T, for `rows` x `cols` local entries:
/// out[r * ld + c] is global entry (row_map(row0 + r), col_map(c)). Entry (i, j) with i, j < V is
/// `inf` lowered by the view's entry (i, j) when it is an edge and, undirected, by entry (j, i)
/// (the edge list's "both directions, lightest wins"), weights converted to T and capped at `inf`
/// (integers exactly; what cannot be exact only where choose_dtype refuses it); the diagonal is 0
/// unless the self loop's weight is negative (a negative cycle). Global indices >= V are padding:
/// 0 on the diagonal, `inf` elsewhere. 64 x 64 tiles in parallel (OpenMP, static shares: rows a
/// multiple of 64 divide evenly), so a transposed view or the (j, i) reads of an undirected one
/// stay in cache. The CPU backend's build_matrix fills its
/// whole padded matrix with it; the GPU backends convert stripes of rows into pinned buffers for
/// upload (int16_t: the int16x2 mode's halves, inf = its cap). T: int16_t, int32_t, int64_t,
/// float, double.
template <class T>
void fill_dense_rows(const Graph& g, T inf, std::int64_t row0, std::int64_t rows,
                     const TileMap& row_map, std::int64_t cols, const TileMap& col_map, T* out,
                     std::int64_t ld);

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

/// Whether g (an edge list) has a cycle of zero-weight arcs: the only place where tight next hops
/// (d(i,j) = w(i,v) + d(v,j) for v = next[i][j], with exact sums) can loop. An undirected
/// zero-weight edge is one (u -> v -> u); self loops are not. Kahn's algorithm on the zero-weight
/// arcs, O(E). A dense view has no zero-weight edge (0 is "no edge" there): false.
bool may_have_zero_weight_cycle(const Graph& g);

/// Compares solver output to the reference (full FW for V <= full_limit, else Dijkstra /
/// Bellman-Ford from `samples` seeded sources). Returns "" on agreement, else a short report.
std::string verify(const Graph& g, const Matrix& dist, std::int64_t full_limit = 2048,
                   int samples = 16, std::uint64_t seed = 1);

}  // namespace apsp::detail
