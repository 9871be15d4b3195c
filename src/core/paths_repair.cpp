// src/core/paths_repair.cpp — repair_next_hops(): makes every next-hop walk end (paths.hpp).
//
// A walk i -> next[i][j] -> ... that never reaches j goes round a cycle of the functional graph
// x -> next[x][j]. Every hop a backend returns is tight, d(x,j) = w(x,a) + d(a,j), so such a cycle
// weighs 0, and every arc (u,v) on it has w(u,v) + d(v,u) == 0. The repair:
//  1. Z = the vertices with an out-arc closing a zero-weight cycle (one pass over the arcs; empty
//     for most graphs, and then nothing else runs). A cycle of column j lies inside Z, so walking
//     the hops restricted to Z's rows finds every looping column and every cycle in it: O(|Z| V),
//     64 columns at a time from a packed copy of Z's rows.
//  2. The candidate arcs: those that can be a hop of a shortest path at all, w(u,a) == d(u,a)
//     (a tolerance for floats, below), each vertex's in CSR order; first only out of Z (the
//     searches below nearly always stay in Z), one pass over the arcs reading d(u,a) only where w
//     is at most the row's largest distance. A few per vertex on random graphs.
//  3. Per looping column, each cycle in increasing order of its smallest vertex, unless an earlier
//     step in the column already broke it: a breadth-first search from the cycle's vertices (taken
//     in increasing order) along candidate arcs that are tight for j, through vertices whose walk
//     loops, stops at the first arc (BFS order, each vertex's arcs in CSR order) into a vertex whose
//     walk ends; each vertex on the search path from the cycle to that arc is pointed along it.
//     The rest of the cycle, and every walk that ran into it, then ends too. So the work and the
//     entries changed follow the cycles (usually one entry per cycle), not the vertices caught in
//     them. Whether a walk ends is found lazily by walking it (remembered for the column: a walk
//     that ends never passes a re-pointed vertex, so it keeps ending). Columns are independent and
//     each is done by one thread: the result does not depend on the thread count. A search that
//     reaches a vertex outside Z stops its column, which is run again (from its first unbroken
//     cycle) once every vertex has its candidate list: the same result as with all lists at once.
//     Columns are taken 64 at a time, their next hops (and, with many cycles per column, their
//     distances) copied out contiguously so that the walks stay in cache.
// For exact types a tight way out always exists (a shortest path from the cycle to j consists of
// candidate arcs tight for j, and j's walk ends). Where none is found (distances that do not
// match the graph, float rounding beyond the tolerance) the column is done again afterwards, those
// cycles routed by least total slack over all out-arcs (Dijkstra; slack = w + d(a,j) - d(u,j)).
//
// Tolerance: an arc is tight for j when w(u,a) + d(a,j) - d(u,j) <= tol * max(1, |d(u,j)|), tol =
// 0 for integer types, 1e-5 for float32, 1e-12 for float64; weights as the matrix build rounds them.
// Float candidates are the arcs with w(u,a) - d(u,a) <= 4 * tol * max(1, R_u), R_u the largest
// finite |d(u,.)|: a bound on what can be tight for some j if the distances keep the triangle
// inequality to within 3 * tol * R_u.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"

namespace apsp {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

template <class T> constexpr double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0.0;
}

// A weight as build_matrix stores it (llround for integer types).
template <class T> T weight_as(double w) {
  if constexpr (std::is_integral_v<T>) {
    const T t = T(w);
    return double(t) == w ? t : T(std::llround(w));
  } else {
    return T(w);
  }
}

/// Calls f(t, u, v, w) for every arc u -> v of g (self loops skipped; both directions of an
/// undirected edge), in parallel, t = the calling thread's number (in 0..max_threads()-1).
template <class F> void for_each_arc_parallel(const Graph& g, F f) {
  const bool big = g.is_dense() ? g.num_vertices >= 256 : g.src.size() >= (std::size_t(1) << 16);
#pragma omp parallel if (big)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    detail::for_each_arc(g, [&](i32 u, i32 v, double w) { f(t, u, v, w); }, t, nt);
  }
}

int max_threads() { return std::max(1, omp_get_max_threads()); }

/// Vertices with an out-arc (u,v) that closes a zero-weight cycle, w(u,v) + d(v,u) == 0 (within
/// the tolerance for floats, erring on the side of inclusion); sorted. d(v,u), a cache miss for
/// edges in random order, is read only for arcs that can close one (w <= 0 when no weight is
/// negative) out of vertices not yet known to be in Z. An edge list is read weights first (its
/// src/dst only for those arcs), and a negative weight met on the way means a second pass.
template <class T> std::vector<i32> zero_cycle_vertices(const Graph& g, const Matrix& dist) {
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
    for_each_arc_parallel(g, [&](int t, i32 u, i32 v, double w0) { arc(t, u, v, w0, nonnegative); });
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

template <class T> struct Arc {
  i32 to;
  T w;
};

/// Out-arcs per vertex in CSR order: each vertex's arcs in the order of the input edges (an
/// undirected edge u - v gives u -> v and v -> u at the edge's position; for a dense view the
/// position of entry (u,v) is u * V + v). Lists exist for the vertices with has_list set.
template <class T> struct ArcLists {
  std::vector<i64> start;
  std::vector<Arc<T>> arcs;
  std::vector<char> has_list;
  const Arc<T>* begin(i64 u) const { return arcs.data() + start[std::size_t(u)]; }
  const Arc<T>* end(i64 u) const { return arcs.data() + start[std::size_t(u) + 1]; }
};

/// The arcs u -> v of weight w (as T) with wanted[u] (all when `wanted` is empty) that pass
/// cheap(u, w) and then keep(u, v, w). If keep reads d(u,v), pass the distances as `prefetch`:
/// edge lists then read it ahead for the arcs that pass `cheap`.
template <class T, class Cheap, class Keep>
ArcLists<T> arc_lists(const Graph& g, const std::vector<char>& wanted, Cheap cheap, Keep keep,
                      const Matrix* prefetch = nullptr) {
  const i64 n = g.num_vertices;
  ArcLists<T> L;
  L.start.assign(std::size_t(n) + 1, 0);
  L.has_list = wanted.empty() ? std::vector<char>(static_cast<std::size_t>(n), 1) : wanted;
  auto take = [&](i32 u, i32 v, T w) { return L.has_list[std::size_t(u)] && cheap(u, w) && keep(u, v, w); };
  if (g.is_dense()) {
    // Per row, in CSR order: for an undirected view, entries (v,u) with v < u come first (their
    // edges precede row u), then row u, then (v,u) with v > u.
    std::vector<std::vector<Arc<T>>> rows(static_cast<std::size_t>(n));
    visit_dtype(g.dense.kind, [&](auto tag) {
      using S = decltype(tag);
#pragma omp parallel for schedule(dynamic, 16) if (n >= 256)
      for (i64 u = 0; u < n; ++u) {
        if (!L.has_list[std::size_t(u)]) continue;
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
    for (i64 u = 0; u < n; ++u) L.start[std::size_t(u) + 1] = L.start[std::size_t(u)] + i64(rows[std::size_t(u)].size());
    L.arcs.resize(std::size_t(L.start[std::size_t(n)]));
    for (i64 u = 0; u < n; ++u) std::copy(rows[std::size_t(u)].begin(), rows[std::size_t(u)].end(), L.arcs.begin() + L.start[std::size_t(u)]);
    return L;
  }
  // Edge list: each thread keeps the arcs of a contiguous range of edges; the ranges in thread
  // order are the input order, so a stable counting sort by tail gives CSR order.
  struct Tagged {
    i32 u;
    Arc<T> a;
  };
  std::vector<std::vector<Tagged>> part(static_cast<std::size_t>(max_threads()));
  const i64 E = i64(g.src.size());
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
        if (L.has_list[std::size_t(fu)] && cheap(fu, fw)) __builtin_prefetch(prefetch->row<T>(fu) + fv);
        if (!g.directed && L.has_list[std::size_t(fv)] && cheap(fv, fw)) __builtin_prefetch(prefetch->row<T>(fv) + fu);
      }
      const i32 u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
      if (u == v) continue;
      const T w = weight_as<T>(g.weight[std::size_t(e)]);
      if (take(u, v, w)) out.push_back({u, {v, w}});
      if (!g.directed && take(v, u, w)) out.push_back({v, {u, w}});
    }
  }
  for (const auto& p : part)
    for (const Tagged& x : p) ++L.start[std::size_t(x.u) + 1];
  for (i64 u = 0; u < n; ++u) L.start[std::size_t(u) + 1] += L.start[std::size_t(u)];
  L.arcs.resize(std::size_t(L.start[std::size_t(n)]));
  std::vector<i64> cursor(L.start.begin(), L.start.end() - 1);
  for (const auto& p : part)
    for (const Tagged& x : p) L.arcs[std::size_t(cursor[std::size_t(x.u)]++)] = x.a;
  return L;
}

/// Every out-arc (the least-slack fallback).
template <class T> ArcLists<T> all_arcs(const Graph& g) {
  return arc_lists<T>(g, {}, [](i32, T) { return true; }, [](i32, i32, T) { return true; });
}

/// The candidate arcs (see the file comment) out of the vertices with wanted[u]. An arc can only
/// pass if w <= the largest finite d(u,.) (plus the float slack), which is checked first, so that
/// d(u,v) is read for few arcs.
template <class T> ArcLists<T> candidate_arcs(const Graph& g, const Matrix& dist, const std::vector<char>& wanted) {
  const T inf = unreachable<T>();
  const i64 n = g.num_vertices;
  std::vector<double> bound(static_cast<std::size_t>(n), -INFINITY), slack(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(dynamic, 64) if (n >= 256)
  for (i64 u = 0; u < n; ++u) {
    if (!wanted[std::size_t(u)]) continue;
    double top = -INFINITY, mag = 0;
    const T* row = dist.row<T>(u);
    for (i64 v = 0; v < n; ++v)
      if (v != u && row[v] < inf) top = std::max(top, double(row[v])), mag = std::max(mag, std::fabs(double(row[v])));
    slack[std::size_t(u)] = 4 * tolerance<T>() * std::max(1.0, mag);
    bound[std::size_t(u)] = top + slack[std::size_t(u)];
  }
  auto cheap = [&](i32 u, T w) { return double(w) <= bound[std::size_t(u)]; };
  if constexpr (std::is_integral_v<T>) {
    return arc_lists<T>(g, wanted, cheap, [&](i32 u, i32 v, T w) {
      const T d = dist.at<T>(u, v);
      return d < inf && w <= d;
    }, &dist);
  } else {
    return arc_lists<T>(g, wanted, cheap, [&](i32 u, i32 v, T w) {
      const T d = dist.at<T>(u, v);
      return d < inf && double(w) - double(d) <= slack[std::size_t(u)];
    }, &dist);
  }
}

/// A looping column: its target and one vertex of each of its cycles (the smallest), ascending.
struct LoopColumn {
  i64 j;
  std::vector<i32> cycles;
};

/// The cycles of the functional graph on nodes 0..m-1 (hop[x] = the next node, or -1 where the
/// walk stops): appends the smallest id(x) of each to `cycles`, ascending. Each walk marks its
/// nodes with its start; meeting its own mark closes a cycle. O(m).
template <class Id>
void find_cycles(i64 m, const i32* hop, Id id, std::vector<i32>& mark, std::vector<i32>& cycles) {
  mark.assign(std::size_t(m), -1);
  for (i64 s = 0; s < m; ++s) {
    if (mark[std::size_t(s)] >= 0) continue;
    i64 x = s;
    while (x >= 0 && mark[std::size_t(x)] < 0) {
      mark[std::size_t(x)] = i32(s);
      x = hop[x];
    }
    if (x < 0 || mark[std::size_t(x)] != s) continue;  // stopped, or ran into an earlier walk
    i32 low = id(x);
    for (i64 y = hop[x]; y != x; y = hop[y]) low = std::min(low, id(y));
    cycles.push_back(low);
  }
  std::sort(cycles.begin(), cycles.end());
}

/// Columns per block when copying columns out: 256 bytes of each int32 row (measured faster than
/// 1 KiB, whose copy scatters into 256 columns at once).
i64 block_cols(i64) { return 64; }

/// Stride of a column copied out of a block: n rounded up to 16 elements, plus 16, so that the
/// 64 columns a row is scattered into do not all fall into the same cache sets.
i64 copy_stride(i64 n) { return (n + 15) / 16 * 16 + 16; }

/// Step 1: the looping columns and their cycles, from Z's rows of `next`, 64 columns at a time:
/// each column's hops among Z copied out contiguously (as indices into Z, -1 where the walk stops
/// or leaves Z), so the walks run in L1.
std::vector<LoopColumn> loop_columns(const Matrix& next, const std::vector<i32>& z) {
  const i64 n = next.rows(), m = i64(z.size());
  std::vector<i32> zidx(static_cast<std::size_t>(n), -1);
  for (i64 k = 0; k < m; ++k) zidx[std::size_t(z[std::size_t(k)])] = i32(k);
  const i64 cols = block_cols(m), blocks = (n + cols - 1) / cols;
  std::vector<std::vector<LoopColumn>> per_block(static_cast<std::size_t>(blocks));
#pragma omp parallel if (n * m >= (1 << 16))
  {
    const i64 ld = copy_stride(m);
    std::vector<i32> packed(static_cast<std::size_t>(ld * cols));  // (column, k)
    std::vector<i32> mark, cycles;
#pragma omp for schedule(dynamic)
    for (i64 b = 0; b < blocks; ++b) {
      const i64 j0 = b * cols, w = std::min(cols, n - j0);
      for (i64 k = 0; k < m; ++k) {
        const i32* row = next.row<i32>(z[std::size_t(k)]) + j0;
        for (i64 c = 0; c < w; ++c) {
          const i32 a = row[c];
          packed[std::size_t(c * ld + k)] = a < 0 || a >= n || a == j0 + c ? -1 : zidx[std::size_t(a)];
        }
      }
      for (i64 c = 0; c < w; ++c) {
        cycles.clear();
        find_cycles(m, packed.data() + c * ld, [&](i64 k) { return z[std::size_t(k)]; }, mark, cycles);
        if (!cycles.empty()) per_block[std::size_t(b)].push_back({j0 + c, cycles});
      }
    }
  }
  std::vector<LoopColumn> out;
  for (auto& v : per_block)
    for (auto& c : v) out.push_back(std::move(c));
  return out;
}

/// One column of `next` and of the distances: entry v at next[v * next_step] and
/// dist[v * dist_step] (a column of the matrices themselves, or a packed copy); changed hops are
/// also written to write_through[v * write_step] when that is set (the matrix, under a copy).
template <class T> struct ColumnView {
  i32* next;
  i64 next_step;
  const T* dist;
  i64 dist_step;
  i32* write_through = nullptr;
  i64 write_step = 0;
};

/// Step 3 for one column at a time; one per thread (scratch of a few V-sized arrays, stamped so
/// that nothing is cleared per column).
template <class T> class ColumnRepair {
 public:
  ColumnRepair(i64 n, const ArcLists<T>& candidates)
      : cand_(&candidates), n_(n), ends_(std::size_t(n_), 0), loops_(std::size_t(n_), 0),
        on_walk_(std::size_t(n_), 0), seen_(std::size_t(n_), 0), parent_(std::size_t(n_), -1) {}

  enum Status { kDone, kStuck, kNeedsLists };
  /// Breaks the cycles of column j (one vertex of each in `cycles`, ascending; a cycle already
  /// broken is skipped, so a column can be run again). `all_arcs`: null for the tight search over
  /// candidate arcs; else the least-slack search over these arcs. Adds the entries changed to
  /// `changed`. kStuck: some cycle had no way out in that search (the others were done);
  /// kNeedsLists: the search reached a vertex without a candidate list, and the column stopped
  /// there (run it again with more lists).
  Status run(i64 j, const ColumnView<T>& view, const std::vector<i32>& cycles, const ArcLists<T>* all_arcs,
             i64& changed) {
    j_ = j;
    v_ = view;
    bump(column_, {&ends_});
    Status status = kDone;
    for (const i32 r : cycles) {
      bump(search_, {&loops_, &seen_});
      if (ends(r)) continue;  // broken by an earlier route in this column
      if (!(d(r) < unreachable<T>())) continue;  // j unreachable: no route to take
      // The cycle through r (r's walk loops and r was on a cycle; only routes to walks that end
      // change hops, so it is still that cycle).
      std::vector<i32>& cyc = queue_;
      cyc.clear();
      for (i64 x = r;;) {
        cyc.push_back(i32(x));
        x = hop(x);
        if (x == r || x < 0 || i64(cyc.size()) > n_) break;
      }
      std::sort(cyc.begin(), cyc.end());
      missing_list_ = false;
      const bool found = all_arcs ? least_slack_route(*all_arcs) : tight_route();
      if (missing_list_) return kNeedsLists;
      if (!found) {
        status = kStuck;
        continue;
      }
      // Point each vertex of the search path at the next one: exit_ first, back to the cycle.
      for (i64 to = exit_to_, x = exit_from_; x >= 0; to = x, x = parent_[std::size_t(x)]) {
        i32& h = v_.next[x * v_.next_step];
        if (h != i32(to)) {
          h = i32(to), ++changed;
          if (v_.write_through) v_.write_through[x * v_.write_step] = i32(to);
        }
        ends_[std::size_t(x)] = column_;
      }
    }
    return status;
  }

 private:
  // Stamps: a new value for `counter`; on wrap-around the arrays stamped with it are cleared.
  static void bump(std::uint32_t& counter, std::initializer_list<std::vector<std::uint32_t>*> arrays) {
    if (++counter != 0) return;
    for (auto* a : arrays) std::fill(a->begin(), a->end(), 0u);
    counter = 1;
  }
  T d(i64 v) const { return v == j_ ? T(0) : v_.dist[v * v_.dist_step]; }
  i64 hop(i64 v) const {
    const i32 a = v_.next[v * v_.next_step];
    return v == j_ || a < 0 || a >= n_ ? -1 : a;
  }
  // w + d(a,j) - d(u,j) for d(u,j) = du finite; +inf when a cannot reach j.
  double slack(T w, i64 a, T du) const {
    const T da = d(a);
    if (!(da < unreachable<T>())) return INFINITY;
    if constexpr (std::is_integral_v<T>) return double(w) - double(i64(du) - i64(da));  // no overflow
    else return double(w) + double(da) - double(du);
  }
  bool tight(T w, i64 a, T du) const {
    if constexpr (std::is_integral_v<T>) {
      const T da = d(a);
      return da < unreachable<T>() && i64(w) <= i64(du) - i64(da);  // exact: both finite
    } else {
      return slack(w, a, du) <= tolerance<T>() * std::max(1.0, std::fabs(double(du)));
    }
  }

  // Whether v's walk ends (at j, or at a -1 / out-of-range hop); remembered: ends for the column,
  // loops for the current search (a route changes which walks loop, never which ones end).
  bool ends(i64 v) {
    walk_.clear();
    bump(walk_id_, {&on_walk_});
    bool verdict = true;
    for (i64 x = v;;) {
      if (ends_[std::size_t(x)] == column_) break;
      if (loops_[std::size_t(x)] == search_ || on_walk_[std::size_t(x)] == walk_id_) {
        verdict = false;
        break;
      }
      on_walk_[std::size_t(x)] = walk_id_;
      walk_.push_back(i32(x));
      x = hop(x);
      if (x < 0) break;
    }
    for (const i32 x : walk_) (verdict ? ends_ : loops_)[std::size_t(x)] = verdict ? column_ : search_;
    return verdict;
  }

  // Breadth-first from the cycle (queue_, ascending) over candidate arcs tight for j.
  bool tight_route() {
    for (const i32 c : queue_) seen_[std::size_t(c)] = search_, parent_[std::size_t(c)] = -1;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const i32 u = queue_[head];
      if (!cand_->has_list[std::size_t(u)]) {
        missing_list_ = true;
        return false;
      }
      const T du = d(u);
      for (const Arc<T>* a = cand_->begin(u); a != cand_->end(u); ++a) {
        if (seen_[std::size_t(a->to)] == search_ || !tight(a->w, a->to, du)) continue;
        if (ends(a->to)) {
          exit_from_ = u, exit_to_ = a->to;
          return true;
        }
        seen_[std::size_t(a->to)] = search_;
        parent_[std::size_t(a->to)] = u;
        queue_.push_back(a->to);
      }
    }
    return false;
  }

  // Dijkstra from the cycle (queue_) over all arcs through looping vertices, the cost of an arc
  // its slack (negative slack counts 0); the first vertex reached whose walk ends closes the route.
  bool least_slack_route(const ArcLists<T>& arcs) {
    using Item = std::tuple<double, i64, i32>;  // cost, order pushed, vertex
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
    cost_.assign(std::size_t(n_), INFINITY);
    i64 order = 0;
    for (const i32 c : queue_) {
      cost_[std::size_t(c)] = 0, parent_[std::size_t(c)] = -1;
      pq.push({0.0, order++, c});
    }
    std::vector<char> done(std::size_t(n_), 0);
    while (!pq.empty()) {
      const auto [c, o, u] = pq.top();
      pq.pop();
      if (done[std::size_t(u)] || c > cost_[std::size_t(u)]) continue;
      done[std::size_t(u)] = 1;
      if (parent_[std::size_t(u)] >= 0 && ends(u)) {
        exit_from_ = parent_[std::size_t(u)], exit_to_ = u;
        return true;
      }
      const T du = d(u);
      if (!(du < unreachable<T>())) continue;
      for (const Arc<T>* a = arcs.begin(u); a != arcs.end(u); ++a) {
        const double s = slack(a->w, a->to, du);
        if (!(s < INFINITY)) continue;
        const double nc = c + std::max(0.0, s);
        if (nc < cost_[std::size_t(a->to)]) {
          cost_[std::size_t(a->to)] = nc, parent_[std::size_t(a->to)] = u;
          pq.push({nc, order++, a->to});
        }
      }
    }
    return false;
  }

  const ArcLists<T>* cand_;
  i64 n_, j_ = 0;
  ColumnView<T> v_{};
  std::uint32_t column_ = 0, search_ = 0, walk_id_ = 0;
  std::vector<std::uint32_t> ends_, loops_, on_walk_, seen_;
  std::vector<i32> parent_, queue_, walk_;
  std::vector<double> cost_;
  i64 exit_from_ = -1, exit_to_ = -1;
  bool missing_list_ = false;
};

/// Runs the columns bad[k], k in `which` (ascending), and returns their status. Columns are
/// taken in blocks of 64: a block with many of them has its next hops copied out column by
/// column, so that the walks read L1/L2, not one cache line (and page) per vertex; the few hops
/// changed go to both. In parallel over blocks when `parallel`.
template <class T>
std::vector<typename ColumnRepair<T>::Status> run_columns(const Matrix& dist, Matrix& next,
                                                          const std::vector<LoopColumn>& bad,
                                                          const std::vector<std::size_t>& which,
                                                          const ArcLists<T>& cand, const ArcLists<T>* all,
                                                          bool parallel, i64& changed) {
  const i64 n = next.rows(), ld = copy_stride(n), cols = block_cols(n);
  const std::size_t copy_from = std::size_t(cols / 8);
  std::vector<std::size_t> group{0};
  for (std::size_t k = 1; k <= which.size(); ++k)
    if (k == which.size() || bad[which[k]].j / cols != bad[which[group.back()]].j / cols)
      group.push_back(k);
  const i64 groups = i64(group.size()) - 1;
  std::vector<typename ColumnRepair<T>::Status> status(which.size(), ColumnRepair<T>::kDone);
  i64 sum = 0;
#pragma omp parallel reduction(+ : sum) if (parallel && which.size() >= 8)
  {
    ColumnRepair<T> col(n, cand);
    std::vector<i32> pn;
    std::vector<T> pd;
#pragma omp for schedule(dynamic)
    for (i64 gi = 0; gi < groups; ++gi) {
      const std::size_t k0 = group[std::size_t(gi)], k1 = group[std::size_t(gi) + 1];
      const i64 j0 = bad[which[k0]].j / cols * cols, w = std::min(cols, n - j0);
      const bool copy = k1 - k0 >= copy_from;
      // The distances too where the columns have many cycles each (a search reads a few
      // distances per arc it tries; copying costs a pass over the block).
      i64 cycles = 0;
      for (std::size_t k = k0; k < k1; ++k) cycles += i64(bad[which[k]].cycles.size());
      const bool copy_dist = copy && cycles >= i64(k1 - k0) * std::max<i64>(2, n / 2048);
      if (copy) {
        pn.resize(std::size_t(w * ld));
        for (i64 v = 0; v < n; ++v) {
          const i32* rn = next.row<i32>(v) + j0;
          for (i64 c = 0; c < w; ++c) pn[std::size_t(c * ld + v)] = rn[c];
        }
      }
      if (copy_dist) {
        pd.resize(std::size_t(w * ld));
        for (i64 v = 0; v < n; ++v) {
          const T* rd = dist.row<T>(v) + j0;
          for (i64 c = 0; c < w; ++c) pd[std::size_t(c * ld + v)] = rd[c];
        }
      }
      for (std::size_t k = k0; k < k1; ++k) {
        const LoopColumn& b = bad[which[k]];
        ColumnView<T> view{next.row<i32>(0) + b.j, next.stride(), dist.row<T>(0) + b.j, dist.stride()};
        if (copy) view = {pn.data() + (b.j - j0) * ld, 1, view.dist, view.dist_step, view.next, view.next_step};
        if (copy_dist) view.dist = pd.data() + (b.j - j0) * ld, view.dist_step = 1;
        status[k] = col.run(b.j, view, b.cycles, all, sum);
      }
    }
  }
  changed += sum;
  return status;
}

template <class T>
i64 repair_columns(const Graph& g, const Matrix& dist, Matrix& next, const std::vector<i32>& z,
                   const std::vector<LoopColumn>& bad) {
  using Repair = ColumnRepair<T>;
  const i64 n = next.rows();
  // Candidate lists for Z first: a search passes through vertices whose walk loops, nearly always
  // vertices of Z (on a zero-weight route back into the cycle). A column whose search reaches
  // another vertex is run again with lists for every vertex; that gives the same result as
  // running it with those lists in the first place (its cycles broken so far are skipped).
  std::vector<char> wanted(static_cast<std::size_t>(n), 0);
  for (const i32 u : z) wanted[std::size_t(u)] = 1;
  ArcLists<T> cand = candidate_arcs<T>(g, dist, wanted);
  if (detail::tracing()) {
    char line[160];
    std::snprintf(line, sizeof line, "repair: %lld candidate arcs", static_cast<long long>(cand.arcs.size()));
    detail::trace(line);
  }
  i64 changed = 0;
  std::vector<std::size_t> which(bad.size());
  for (std::size_t k = 0; k < bad.size(); ++k) which[k] = k;
  std::vector<typename Repair::Status> status = run_columns<T>(dist, next, bad, which, cand, nullptr, true, changed);
  auto those = [&](typename Repair::Status s) {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < which.size(); ++k)
      if (status[k] == s) out.push_back(which[k]);
    return out;
  };
  std::vector<std::size_t> stuck = those(Repair::kStuck);
  if (const std::vector<std::size_t> more = those(Repair::kNeedsLists); !more.empty()) {
    std::fill(wanted.begin(), wanted.end(), 1);
    cand = candidate_arcs<T>(g, dist, wanted);
    which = more;
    status = run_columns<T>(dist, next, bad, which, cand, nullptr, true, changed);
    const std::vector<std::size_t> also = those(Repair::kStuck);
    stuck.insert(stuck.end(), also.begin(), also.end());
    std::sort(stuck.begin(), stuck.end());
    detail::trace("repair: candidate lists for every vertex were needed");
  }
  // Cycles the tight search could not route: by least slack over all arcs (the routes taken so
  // far stay; the cycles they broke are skipped).
  if (!stuck.empty()) {
    const ArcLists<T> all = all_arcs<T>(g);
    run_columns<T>(dist, next, bad, stuck, cand, &all, false, changed);
    detail::trace("repair: some cycles routed by least slack");
  }
  return changed;
}

}  // namespace

std::int64_t repair_next_hops(const Graph& g, const Matrix& dist, Matrix& next) {
  if (next.empty() || next.dtype() != Dtype::Int32 || next.rows() != next.cols())
    throw UsageError("repair_next_hops: no square int32 next-hop matrix");
  const i64 n = next.rows();
  if (dist.rows() != n || dist.cols() != n || g.num_vertices != n)
    throw UsageError("repair_next_hops: graph, distances and next hops disagree on V");
  return visit_dtype(dist.dtype(), [&](auto tag) -> i64 {
    using T = decltype(tag);
    detail::trace("repair: starts");
    const std::vector<i32> z = zero_cycle_vertices<T>(g, dist);
    const std::vector<LoopColumn> bad = z.empty() ? std::vector<LoopColumn>{} : loop_columns(next, z);
    i64 cycles = 0;
    for (const LoopColumn& c : bad) cycles += i64(c.cycles.size());
    if (detail::tracing()) {
      char line[160];
      std::snprintf(line, sizeof line, "repair: %lld vertices on zero-weight cycles; %lld columns loop, %lld cycles",
                    static_cast<long long>(z.size()), static_cast<long long>(bad.size()),
                    static_cast<long long>(cycles));
      detail::trace(line);
    }
    const i64 changed = bad.empty() ? 0 : repair_columns<T>(g, dist, next, z, bad);
    if (detail::tracing()) {
      char line[160];
      std::snprintf(line, sizeof line, "repair: done, %lld entries re-pointed", static_cast<long long>(changed));
      detail::trace(line);
    }
    return changed;
  });
}

}  // namespace apsp
