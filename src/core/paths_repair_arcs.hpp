// src/core/paths_repair_arcs.hpp — the arcs repair_next_hops() reads: the vertices on zero-weight
// cycles (Z) and, per vertex, the out-arcs that can be a hop of a shortest path, as the one Csr
// (graph/csr.hpp) in its builder's order.
// Internal to paths_repair.cpp; the algorithm is described in docs/paths.md ("How
// repair_next_hops works").
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "core/reference.hpp"
#include "graph/csr.hpp"

namespace apsp::detail::repair {

using i32 = std::int32_t;
using i64 = std::int64_t;

template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0.0;
}

/// Calls f(t, u, v, w) for every arc u -> v of g (self loops skipped; both directions of an
/// undirected edge), in parallel, t = the calling thread's number (in 0..max_threads()-1).
template <class F>
inline void for_each_arc_parallel(const Graph& g, F f) {
  const bool big = g.is_dense() ? g.num_vertices >= 256 : g.src.size() >= (std::size_t(1) << 16);
#pragma omp parallel if (big)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    detail::for_each_arc(
        g, [&](i32 u, i32 v, double w) { f(t, u, v, w); }, t, nt);
  }
}

inline int max_threads() { return std::max(1, omp_get_max_threads()); }

/// Vertices with an out-arc (u,v) that closes a zero-weight cycle, w(u,v) + d(v,u) == 0 (within
/// the tolerance for floats, erring on the side of inclusion); sorted. d(v,u), a cache miss for
/// edges in random order, is read only for arcs that can close one (w <= 0 when no weight is
/// negative) out of vertices not yet known to be in Z. An edge list is read weights first (its
/// src/dst only for those arcs), and a negative weight met on the way means a second pass.
template <class T>
std::vector<i32> zero_cycle_vertices(const Graph& g, const Matrix& dist) {
  const T inf = unreachable<T>();
  const double tol = tolerance<T>();
  const std::size_t n = std::size_t(g.num_vertices);
  std::vector<std::vector<char>> in_z(static_cast<std::size_t>(max_threads()));
  auto check = [&](int t, i32 u, i32 v, double w, double limit) {
    std::vector<char>& mine = in_z[std::size_t(t)];
    if (mine.empty()) mine.assign(n, 0);
    if (mine[std::size_t(u)]) return;
    const T back = dist.at<T>(v, u);
    if (back < inf && w + double(back) <= limit) mine[std::size_t(u)] = 1;
  };
  auto arc = [&](int t, i32 u, i32 v, double w0, bool nonnegative) {
    const double w = double(weight_as<T>(w0)), limit = tol * std::max(1.0, std::fabs(w));
    if (nonnegative && w > limit) return;  // then w + d(v,u) >= w > limit
    check(t, u, v, w, limit);
  };
  if (g.is_dense()) {
    const bool nonnegative = g.min_weight() >= 0;
    for_each_arc_parallel(g,
                          [&](int t, i32 u, i32 v, double w0) { arc(t, u, v, w0, nonnegative); });
  } else {
    const i64 E = i64(g.src.size());
    bool negative = false;
#pragma omp parallel reduction(|| : negative) if (E >= (1 << 16))
    {
      const int t = omp_get_thread_num();
#pragma omp for schedule(static)
      for (i64 e = 0; e < E; ++e) {
        const double w0 = g.weight[std::size_t(e)];
        negative = negative || w0 < 0;
        if (w0 > 1.0) continue;  // weight_as(w0) > its tolerance: closes nothing while w >= 0
        const i32 u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
        if (u == v) continue;
        arc(t, u, v, w0, true);
        if (!g.directed) arc(t, v, u, w0, true);
      }
    }
    if (negative)
      for_each_arc_parallel(g, [&](int t, i32 u, i32 v, double w0) { arc(t, u, v, w0, false); });
  }
  std::vector<i32> z;
  for (std::size_t u = 0; u < n; ++u)
    for (const auto& mine : in_z)
      if (!mine.empty() && mine[u]) {
        z.push_back(i32(u));
        break;
      }
  return z;
}

/// A dense view's kept arcs per tail, each tail's in the order the one builder (graph/csr.hpp)
/// gives them: the position of entry (u,v) is u * V + v, and an undirected entry gives u -> v and
/// v -> u at its position.
template <class T>
using TailArcs = std::vector<std::vector<std::pair<i32, T>>>;

/// Gathers the kept arcs per tail into a Csr (start, to, w), tails in order.
template <class T>
Csr<T> csr_of(i64 n, const TailArcs<T>& rows) {
  Csr<T> c;
  c.n = n;
  c.start.assign(std::size_t(n) + 1, 0);
  for (i64 u = 0; u < n; ++u)
    c.start[std::size_t(u) + 1] = c.start[std::size_t(u)] + i64(rows[std::size_t(u)].size());
  c.to.resize(std::size_t(c.arcs()));
  c.w.resize(c.to.size());
  for (i64 u = 0; u < n; ++u) {
    auto at = std::size_t(c.start[std::size_t(u)]);
    for (const auto& [v, w] : rows[std::size_t(u)]) c.to[at] = v, c.w[at++] = w;
  }
  return c;
}

/// arc_lists for a dense view: each wanted row in parallel, in CSR order (for an undirected
/// view, entries (v,u) with v < u come first (their edges precede row u), then row u, then
/// (v,u) with v > u).
template <class T, class Take>
Csr<T> dense_arc_lists(const Graph& g, const std::vector<char>& wanted, Take take) {
  const i64 n = g.num_vertices;
  TailArcs<T> rows(static_cast<std::size_t>(n));
  visit_dtype(g.dense.kind, [&](auto tag) {
    using S = decltype(tag);
#pragma omp parallel for schedule(dynamic, 16) if (n >= 256)
    for (i64 u = 0; u < n; ++u) {
      if (!wanted[std::size_t(u)]) continue;
      auto& out = rows[std::size_t(u)];
      auto entry = [&](i64 r, i64 c, i64 v) {
        const S x = detail::dense_entry<S>(g.dense, r, c);
        if (v == u || !detail::dense_is_edge(x)) return;
        const T w = weight_as<T>(detail::dense_weight(g.dense, x));
        if (take(i32(u), i32(v), w)) out.push_back({i32(v), w});
      };
      if (!g.directed)
        for (i64 v = 0; v < u; ++v) entry(v, u, v);
      for (i64 v = 0; v < n; ++v) entry(u, v, v);
      if (!g.directed)
        for (i64 v = u + 1; v < n; ++v) entry(v, u, v);
    }
  });
  return csr_of<T>(n, rows);
}

/// The arcs u -> v of weight w (as T) with wanted[u] that pass cheap(u, w) and then keep(u, v, w),
/// as a Csr in the one builder's order (only the wanted tails have arcs). One pass over the arcs,
/// in parallel: keep may read d(u,v), a cache miss for edges in random order; pass the distances
/// as `prefetch` and edge lists read it ahead for the arcs that pass `cheap`.
template <class T, class Cheap, class Keep>
Csr<T> arc_lists(const Graph& g, const std::vector<char>& wanted, Cheap cheap, Keep keep,
                 const Matrix* prefetch = nullptr) {
  auto take = [&](i32 u, i32 v, T w) {
    return wanted[std::size_t(u)] && cheap(u, w) && keep(u, v, w);
  };
  if (g.is_dense()) return dense_arc_lists<T>(g, wanted, take);
  // Edge list: each thread keeps the arcs of a contiguous range of edges; the ranges in thread
  // order are the input order, so a stable counting sort by tail gives CSR order.
  struct Tagged {
    i32 u, v;
    T w;
  };
  std::vector<std::vector<Tagged>> part(static_cast<std::size_t>(max_threads()));
  const i64 E = i64(g.src.size()), n = g.num_vertices;
  constexpr i64 kLookAhead = 32;  // d(u,v) is a cache miss for edges in random order
#pragma omp parallel if (E >= (1 << 16))
  {
    const i64 t = omp_get_thread_num(), nt = omp_get_num_threads(), e1 = E * (t + 1) / nt;
    auto& out = part[std::size_t(t)];
    for (i64 e = E * t / nt; e < e1; ++e) {
      if (prefetch && e + kLookAhead < e1) {
        const std::size_t f = std::size_t(e + kLookAhead);
        const i32 fu = g.src[f], fv = g.dst[f];
        const T fw = weight_as<T>(g.weight[f]);
        if (wanted[std::size_t(fu)] && cheap(fu, fw)) __builtin_prefetch(prefetch->row<T>(fu) + fv);
        if (!g.directed && wanted[std::size_t(fv)] && cheap(fv, fw))
          __builtin_prefetch(prefetch->row<T>(fv) + fu);
      }
      const i32 u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
      if (u == v) continue;
      const T w = weight_as<T>(g.weight[std::size_t(e)]);
      if (take(u, v, w)) out.push_back({u, v, w});
      if (!g.directed && take(v, u, w)) out.push_back({v, u, w});
    }
  }
  Csr<T> c;
  c.n = n;
  c.start.assign(std::size_t(n) + 1, 0);
  for (const auto& p : part)
    for (const Tagged& x : p) ++c.start[std::size_t(x.u) + 1];
  for (i64 u = 0; u < n; ++u) c.start[std::size_t(u) + 1] += c.start[std::size_t(u)];
  c.to.resize(std::size_t(c.arcs()));
  c.w.resize(c.to.size());
  std::vector<i64> cursor(c.start.begin(), c.start.end() - 1);
  for (const auto& p : part)
    for (const Tagged& x : p) {
      const auto at = std::size_t(cursor[std::size_t(x.u)]++);
      c.to[at] = x.v, c.w[at] = x.w;
    }
  return c;
}

/// Every out-arc (the least-slack fallback): the one builder's Csr, in the same order.
template <class T>
Csr<T> all_arcs(const Graph& g) {
  return build_csr<T>(g);
}

/// The candidate arcs (see the file comment) out of the vertices with wanted[u]. An arc can only
/// pass if w <= the largest finite d(u,.) (plus the float slack), which is checked first, so that
/// d(u,v) is read for few arcs.
template <class T>
Csr<T> candidate_arcs(const Graph& g, const Matrix& dist, const std::vector<char>& wanted) {
  const T inf = unreachable<T>();
  const i64 n = g.num_vertices;
  std::vector<double> bound(static_cast<std::size_t>(n), -INFINITY),
      slack(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(dynamic, 64) if (n >= 256)
  for (i64 u = 0; u < n; ++u) {
    if (!wanted[std::size_t(u)]) continue;
    double top = -INFINITY, mag = 0;
    const T* row = dist.row<T>(u);
    for (i64 v = 0; v < n; ++v)
      if (v != u && row[v] < inf)
        top = std::max(top, double(row[v])), mag = std::max(mag, std::fabs(double(row[v])));
    slack[std::size_t(u)] = 4 * tolerance<T>() * std::max(1.0, mag);
    bound[std::size_t(u)] = top + slack[std::size_t(u)];
  }
  auto cheap = [&](i32 u, T w) { return double(w) <= bound[std::size_t(u)]; };
  if constexpr (std::is_integral_v<T>) {
    return arc_lists<T>(
        g, wanted, cheap,
        [&](i32 u, i32 v, T w) {
          const T d = dist.at<T>(u, v);
          return d < inf && w <= d;
        },
        &dist);
  } else {
    return arc_lists<T>(
        g, wanted, cheap,
        [&](i32 u, i32 v, T w) {
          const T d = dist.at<T>(u, v);
          return d < inf && double(w) - double(d) <= slack[std::size_t(u)];
        },
        &dist);
  }
}

}  // namespace apsp::detail::repair
