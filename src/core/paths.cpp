// src/core/paths.cpp — walking next-hop and predecessor matrices; repairing next-hop loops;
// SciPy-style predecessors.
//
// Tie rule (every backend): next[i][j] starts as j for an edge i -> j (the minimum-weight one
// among duplicates) and -1 otherwise (always -1 on the diagonal and for unreachable pairs). A
// relaxation through k replaces d[i][j] only on STRICT improvement, d[i][k] + d[k][j] < d[i][j],
// and then sets next[i][j] = next[i][k]; an equal-length alternative never replaces what is there.
// Because every entry is the weight of a real walk whose first hop is next[i][j], and the final
// distances are exact, every hop is tight: d(i,j) = w(i,a) + d(a,j) for a = next[i][j]. With
// positive weights each hop lowers d(.,j), so every walk ends at j. With zero-weight cycles it need
// not: the blocked order can let a rest-tile update for (1,4) take a tied k = 2 whose panel path
// already went 2 -> 1, leaving next[1][4] = 2 and next[2][4] = 1 (docs/paths.md has the
// 6-vertex example). A backend may avoid that by comparing (distance, hops), at a price; else
// repair_next_hops(), which solve() runs whenever paths are kept, finds any target column that
// still loops (cheaply: see there) and re-points the caught vertices along tight edges. The walks
// below still guard against cycles and report them instead of looping.
#include "apsp/paths.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"

namespace apsp {

namespace {

void check_square_int32(const Matrix& m, const char* what) {
  if (m.empty() || m.dtype() != Dtype::Int32)
    throw UsageError(std::string("no ") + what + " matrix (solve with paths enabled)");
  if (m.rows() != m.cols())
    throw UsageError(std::string(what) + " matrix is not square (" + std::to_string(m.rows()) + " x " +
                     std::to_string(m.cols()) + ")");
}

void check_ids(std::int64_t n, std::int64_t i, std::int64_t j) {
  if (i < 0 || i >= n || j < 0 || j >= n)
    throw UsageError("vertex out of range: " + std::to_string(i) + " -> " + std::to_string(j) + " (V = " +
                     std::to_string(n) + ")");
}

}  // namespace

std::vector<std::int64_t> path_from_next(const Matrix& next, std::int64_t i, std::int64_t j) {
  check_square_int32(next, "next-hop");
  const std::int64_t n = next.rows();
  check_ids(n, i, j);
  std::vector<std::int64_t> p{i};
  if (i == j) return p;
  std::int64_t v = i;
  while (v != j) {
    const std::int32_t nx = next.at<std::int32_t>(v, j);
    if (nx < 0) {
      if (v == i) return {};  // unreachable
      throw Error("next-hop matrix is inconsistent: the path " + std::to_string(i) + " -> " + std::to_string(j) +
                  " stops at " + std::to_string(v));
    }
    if (nx >= n || std::int64_t(p.size()) >= n)
      throw Error("next-hop matrix is inconsistent: the path " + std::to_string(i) + " -> " + std::to_string(j) +
                  (nx >= n ? " leaves the vertex range" : " has a cycle"));
    v = nx;
    p.push_back(v);
  }
  return p;
}

std::vector<std::int64_t> path(const Result& r, std::int64_t i, std::int64_t j) { return path_from_next(r.next, i, j); }

Graph reversed(const Graph& g) {
  Graph r = g;
  if (g.directed) std::swap(r.src, r.dst);
  return r;
}

Matrix predecessors_from_reversed_next(const Matrix& next_rev) {
  check_square_int32(next_rev, "next-hop");
  const std::int64_t n = next_rev.rows();
  Matrix pred(n, n, Dtype::Int32);
  // Blocked transpose: both matrices are walked in 64 x 64 tiles so neither strides through memory.
  constexpr std::int64_t kTile = 64;
#pragma omp parallel for collapse(2) schedule(static) if (n >= 512)
  for (std::int64_t I = 0; I < n; I += kTile)
    for (std::int64_t J = 0; J < n; J += kTile)
      for (std::int64_t i = I; i < std::min(n, I + kTile); ++i) {
        std::int32_t* out = pred.row<std::int32_t>(i);
        for (std::int64_t j = J; j < std::min(n, J + kTile); ++j) {
          const std::int32_t v = next_rev.at<std::int32_t>(j, i);
          out[j] = v < 0 ? kNoPredecessor : v;
        }
      }
  return pred;
}

namespace {

enum : std::uint8_t { kUnknown = 0, kOnWalk = 1, kEnds = 2, kLoops = 3 };

/// Classifies the walks of a functional graph on nodes 0..m-1 (succ(x) = the next node, or -1
/// where the walk stops): state[x] = kEnds when x's walk stops, kLoops when it runs into a cycle.
/// Returns whether any walk loops.
template <class Succ>
bool classify_walks(std::int64_t m, Succ succ, std::vector<std::uint8_t>& state, std::vector<std::int64_t>& walk) {
  state.assign(std::size_t(m), kUnknown);
  bool loops = false;
  for (std::int64_t s = 0; s < m; ++s) {
    if (state[std::size_t(s)] != kUnknown) continue;
    walk.clear();
    std::int64_t v = s;
    std::uint8_t verdict = kEnds;
    while (true) {
      state[std::size_t(v)] = kOnWalk;
      walk.push_back(v);
      const std::int64_t a = succ(v);
      if (a < 0) break;
      const std::uint8_t sa = state[std::size_t(a)];
      if (sa == kUnknown) {
        v = a;
        continue;
      }
      verdict = sa == kEnds ? kEnds : kLoops;  // kOnWalk: we closed a cycle
      break;
    }
    for (std::int64_t x : walk) state[std::size_t(x)] = verdict;
    loops |= verdict == kLoops;
  }
  return loops;
}

/// classify_walks over all vertices for target j of the next-hop matrix.
bool classify_column(const Matrix& next, std::int64_t j, std::vector<std::uint8_t>& state,
                     std::vector<std::int64_t>& walk) {
  const std::int64_t n = next.rows();
  return classify_walks(
      n,
      [&](std::int64_t v) -> std::int64_t {
        const std::int32_t a = next.at<std::int32_t>(v, j);
        return v == j || a < 0 || a >= n ? -1 : a;  // stops at j, at -1, or out of range
      },
      state, walk);
}

/// Out-edges of g in CSR form (both directions when undirected; self loops dropped).
struct OutEdges {
  std::vector<std::int64_t> start;
  std::vector<std::int32_t> to;
  std::vector<double> w;
  explicit OutEdges(const Graph& g) {
    const std::int64_t n = g.num_vertices;
    start.assign(std::size_t(n) + 1, 0);
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      if (g.src[e] == g.dst[e]) continue;
      ++start[std::size_t(g.src[e]) + 1];
      if (!g.directed) ++start[std::size_t(g.dst[e]) + 1];
    }
    for (std::int64_t v = 0; v < n; ++v) start[std::size_t(v) + 1] += start[std::size_t(v)];
    to.resize(std::size_t(start[std::size_t(n)]));
    w.resize(to.size());
    std::vector<std::int64_t> pos(start.begin(), start.end() - 1);
    auto put = [&](std::int32_t u, std::int32_t v, double wt) {
      const std::int64_t p = pos[std::size_t(u)]++;
      to[std::size_t(p)] = v;
      w[std::size_t(p)] = wt;
    };
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      if (g.src[e] == g.dst[e]) continue;
      put(g.src[e], g.dst[e], g.weight[e]);
      if (!g.directed) put(g.dst[e], g.src[e], g.weight[e]);
    }
  }
};

/// Re-points the vertices of column j whose walk loops; `state` is classify_column's output.
template <class T>
std::int64_t repair_column(const OutEdges& out, const Matrix& dist, Matrix& next, std::int64_t j,
                           std::vector<std::uint8_t>& state, double rel_tol) {
  const std::int64_t n = dist.rows();
  const T inf = unreachable<T>();
  auto d = [&](std::int64_t v) { return double(dist.at<T>(v, j)); };
  std::vector<std::int64_t> caught;
  for (std::int64_t v = 0; v < n; ++v)
    if (state[std::size_t(v)] == kLoops && dist.at<T>(v, j) < inf) caught.push_back(v);
  std::int64_t changed = 0;
  // Passes: a caught vertex takes its tightest edge into a vertex whose walk ends. Each pass frees
  // the caught vertices next to free ones; if none is exactly tight (float rounding), the least
  // slack one over all caught vertices goes, so every pass frees at least one.
  while (!caught.empty()) {
    std::vector<std::int64_t> still;
    std::int64_t best_v = -1, best_a = -1;
    double best_slack = INFINITY;
    for (std::int64_t v : caught) {
      const double dv = d(v);
      std::int64_t pick = -1;
      double pick_slack = INFINITY;
      for (std::int64_t e = out.start[std::size_t(v)]; e < out.start[std::size_t(v) + 1]; ++e) {
        const std::int32_t a = out.to[std::size_t(e)];
        if (state[std::size_t(a)] != kEnds || !(dist.at<T>(a, j) < inf)) continue;
        const double slack = out.w[std::size_t(e)] + (a == j ? 0.0 : d(a)) - dv;
        if (slack < pick_slack) pick_slack = slack, pick = a;
      }
      if (pick >= 0 && pick_slack <= rel_tol * std::max(1.0, std::fabs(dv))) {
        next.at<std::int32_t>(v, j) = std::int32_t(pick);
        state[std::size_t(v)] = kEnds;
        ++changed;
        continue;
      }
      if (pick >= 0 && pick_slack < best_slack) best_slack = pick_slack, best_v = v, best_a = pick;
      still.push_back(v);
    }
    if (still.size() == caught.size()) {
      if (best_v < 0) break;  // no way out at all: leave them (the walk then reports the cycle)
      next.at<std::int32_t>(best_v, j) = std::int32_t(best_a);
      state[std::size_t(best_v)] = kEnds;
      ++changed;
      still.erase(std::find(still.begin(), still.end(), best_v));
    }
    caught.swap(still);
  }
  return changed;
}

/// Vertices with an out-edge (u,v) that closes a zero-weight cycle, w(u,v) + d(v,u) == 0 (a
/// relative tolerance for floats, erring on the side of inclusion); sorted.
std::vector<std::int32_t> zero_cycle_vertices(const Graph& g, const Matrix& dist) {
  return visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T inf = unreachable<T>();
    const double tol = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0.0;
    const bool nonnegative = g.min_weight() >= 0;
    const std::int64_t E = std::int64_t(g.num_edges());
    auto closes = [&](std::int64_t u, std::int64_t v, double w) {
      if (u == v || (nonnegative && w > 0)) return false;  // then w + d(v,u) > 0
      const T back = dist.at<T>(v, u);
      if (!(back < inf)) return false;
      return w + double(back) <= tol * std::max(1.0, std::fabs(w));
    };
    std::vector<std::int32_t> z;
#pragma omp parallel if (E >= (1 << 16))
    {
      std::vector<std::int32_t> mine;
#pragma omp for schedule(static) nowait
      for (std::int64_t e = 0; e < E; ++e) {
        const std::int32_t u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
        const double w = g.weight[std::size_t(e)];
        if (closes(u, v, w)) mine.push_back(u);
        if (!g.directed && closes(v, u, w)) mine.push_back(v);
      }
#pragma omp critical
      z.insert(z.end(), mine.begin(), mine.end());
    }
    std::sort(z.begin(), z.end());
    z.erase(std::unique(z.begin(), z.end()), z.end());
    return z;
  });
}

}  // namespace

std::int64_t repair_next_hops(const Graph& g, const Matrix& dist, Matrix& next) {
  check_square_int32(next, "next-hop");
  const std::int64_t n = next.rows();
  if (dist.rows() != n || dist.cols() != n || g.num_vertices != n)
    throw UsageError("repair_next_hops: graph, distances and next hops disagree on V");

  // A looping walk is a cycle of tight hops, so a zero-weight cycle, and every edge (u,v) on one
  // has w(u,v) + d(v,u) == 0. So only vertices Z with such an out-edge can be on a loop, and a
  // loop toward j shows up as a cycle of the hops restricted to Z. Usually Z is empty or tiny.
  const std::vector<std::int32_t> z = zero_cycle_vertices(g, dist);
  if (z.empty()) return 0;
  const std::int64_t m = std::int64_t(z.size());
  std::vector<std::int32_t> zidx(std::size_t(n), -1);
  for (std::int64_t k = 0; k < m; ++k) zidx[std::size_t(z[std::size_t(k)])] = std::int32_t(k);

  // Pass 1: the target columns with a loop, 16 columns at a time from a packed copy of Z's rows
  // (each row contributes one 64-byte line) so the walks stay in cache.
  constexpr std::int64_t kCols = 16;
  const std::int64_t blocks = (n + kCols - 1) / kCols;
  std::vector<std::vector<std::int64_t>> bad_per_block(static_cast<std::size_t>(blocks));
#pragma omp parallel if (n >= 512)
  {
    std::vector<std::int32_t> packed(std::size_t(m * kCols));
    std::vector<std::uint8_t> state;
    std::vector<std::int64_t> walk;
#pragma omp for schedule(dynamic)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t j0 = b * kCols, w = std::min(kCols, n - j0);
      for (std::int64_t k = 0; k < m; ++k) {
        const std::int32_t* row = next.row<std::int32_t>(z[std::size_t(k)]) + j0;
        std::copy(row, row + w, packed.data() + k * kCols);
      }
      for (std::int64_t c = 0; c < w; ++c) {
        const std::int64_t j = j0 + c;
        auto succ = [&](std::int64_t k) -> std::int64_t {
          const std::int32_t a = packed[std::size_t(k * kCols + c)];
          return a < 0 || a >= n || a == j ? -1 : zidx[std::size_t(a)];  // -1: stops, or leaves Z
        };
        if (classify_walks(m, succ, state, walk)) bad_per_block[std::size_t(b)].push_back(j);
      }
    }
  }
  std::vector<std::int64_t> bad;
  for (const auto& v : bad_per_block) bad.insert(bad.end(), v.begin(), v.end());
  if (bad.empty()) return 0;

  // Pass 2: only for those columns, re-point the caught vertices along tight edges.
  const OutEdges out(g);
  const double rel_tol = dist.dtype() == Dtype::Float32 ? 1e-5 : dist.dtype() == Dtype::Float64 ? 1e-12 : 0.0;
  std::int64_t changed = 0;
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
#pragma omp parallel reduction(+ : changed) if (n >= 512)
    {
      std::vector<std::uint8_t> state;
      std::vector<std::int64_t> walk;
#pragma omp for schedule(dynamic)
      for (std::size_t k = 0; k < bad.size(); ++k) {
        const std::int64_t j = bad[k];
        classify_column(next, j, state, walk);
        changed += repair_column<T>(out, dist, next, j, state, rel_tol);
      }
    }
  });
  return changed;
}

std::vector<std::int64_t> path_from_predecessors(const Matrix& pred, std::int64_t i, std::int64_t j) {
  check_square_int32(pred, "predecessor");
  const std::int64_t n = pred.rows();
  check_ids(n, i, j);
  if (i == j) return {i};
  std::vector<std::int64_t> p{j};
  std::int64_t v = j;
  while (v != i) {
    const std::int32_t pv = pred.at<std::int32_t>(i, v);
    if (pv < 0) {
      if (v == j) return {};  // unreachable
      throw Error("predecessor matrix is inconsistent: the path " + std::to_string(i) + " -> " + std::to_string(j) +
                  " stops at " + std::to_string(v));
    }
    if (pv >= n || std::int64_t(p.size()) >= n)
      throw Error("predecessor matrix is inconsistent: the path " + std::to_string(i) + " -> " + std::to_string(j) +
                  (pv >= n ? " leaves the vertex range" : " has a cycle"));
    v = pv;
    p.push_back(v);
  }
  std::reverse(p.begin(), p.end());
  return p;
}

}  // namespace apsp
