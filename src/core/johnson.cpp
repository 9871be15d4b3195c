// src/core/johnson.cpp — Johnson reweighting: potentials by SPFA, reweight, restore.
//
// Potentials h(v) <= 0 by queue-based Bellman-Ford (SPFA) from a virtual source; a negative cycle
// is found as a cycle of the parent graph, looked for once every V relaxations. Integer weights
// run in int64 (exact, potentials beyond 2^53 refused); fractional ones in double with a relative
// tolerance of 1e-12 * max|w|. Exactness and detection: docs/paths.md ("Negative weights").
// References: Johnson, "Efficient algorithms for shortest paths in sparse networks", JACM 1977;
// Cherkassky & Goldberg, "Negative-cycle detection algorithms", Math. Programming 1999.
#include "core/johnson.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <sstream>
#include <string>

#include "apsp/errors.hpp"
#include "graph/csr.hpp"

namespace apsp::detail {

namespace {

constexpr double kExactDouble = 9007199254740992.0;  // 2^53

std::string format_weight(double w, bool integer) {
  std::ostringstream os;
  if (integer)
    os << std::int64_t(std::llround(w));
  else {
    os.precision(12);
    os << w;
  }
  return os.str();
}

/// Throws NegativeCycleError for `cycle` (vertices in order; back() -> front() closes it).
[[noreturn]] void throw_cycle(std::vector<std::int64_t> cycle, double weight, bool integer) {
  // Start at the smallest vertex so the message does not depend on where the search entered.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::ostringstream os;
  os << "negative cycle: ";
  const std::size_t L = cycle.size();
  constexpr std::size_t kShowHead = 32, kShowTail = 8;
  if (L <= kShowHead + kShowTail) {
    for (std::size_t k = 0; k < L; ++k) os << cycle[k] << " -> ";
  } else {
    for (std::size_t k = 0; k < kShowHead; ++k) os << cycle[k] << " -> ";
    os << "... -> ";
    for (std::size_t k = L - kShowTail; k < L; ++k) os << cycle[k] << " -> ";
  }
  os << cycle.front() << " (";
  if (L > kShowHead + kShowTail) os << L << " vertices, ";
  os << "weight " << format_weight(weight, integer) << ")";
  throw NegativeCycleError(os.str(), std::move(cycle));
}

/// A cycle in the parent graph (parent[v] = -1 for the virtual source), as vertices in path
/// order, or empty. O(V): colours each vertex by the walk that first reached it.
std::vector<std::int64_t> parent_cycle(const std::vector<std::int32_t>& parent) {
  const std::size_t n = parent.size();
  std::vector<std::int32_t> walk_of(n, -1);
  for (std::size_t s = 0; s < n; ++s) {
    if (walk_of[s] >= 0) continue;
    std::int64_t v = std::int64_t(s);
    while (v >= 0 && walk_of[std::size_t(v)] < 0) {
      walk_of[std::size_t(v)] = std::int32_t(s);
      v = parent[std::size_t(v)];
    }
    if (v >= 0 && walk_of[std::size_t(v)] == std::int32_t(s)) {
      // v is on a cycle: follow parents around it, then reverse into edge order.
      std::vector<std::int64_t> cyc{v};
      for (std::int64_t x = parent[std::size_t(v)]; x != v; x = parent[std::size_t(x)])
        cyc.push_back(x);
      std::reverse(cyc.begin(), cyc.end());
      return cyc;
    }
  }
  return {};
}

/// SPFA in number type W (int64 for integer weights, double otherwise). Returns h as W.
template <class W>
std::vector<W> spfa(const Graph& g, W tolerance) {
  // Out-arcs with the weights in W and each arc's edge, so the cycle's weights can be reported
  // (self loops, dropped, never relax anything: a negative one was named before).
  BuildOptions with_edges;
  with_edges.edge_index = true;
  const Csr<W> c = build_csr<W>(g, with_edges);
  const std::int64_t n = g.num_vertices;
  std::vector<W> d(std::size_t(n), W(0));
  std::vector<std::int32_t> parent(std::size_t(n), -1);
  std::vector<std::int64_t> parent_edge(std::size_t(n), -1);
  std::vector<char> queued(std::size_t(n), 1);
  std::deque<std::int32_t> queue;
  for (std::int64_t v = 0; v < n; ++v) queue.push_back(std::int32_t(v));
  std::int64_t since_check = 0;

  auto check_cycle = [&]() {
    std::vector<std::int64_t> cyc = parent_cycle(parent);
    if (cyc.empty()) return;
    long double w = 0;
    for (std::size_t k = 0; k < cyc.size(); ++k) {
      const std::int64_t v = cyc[(k + 1) % cyc.size()];
      w += static_cast<long double>(g.weight[std::size_t(parent_edge[std::size_t(v)])]);
    }
    throw_cycle(std::move(cyc), double(w), g.integer_weights);
  };

  while (!queue.empty()) {
    const std::int32_t u = queue.front();
    queue.pop_front();
    queued[std::size_t(u)] = 0;
    const W du = d[std::size_t(u)];
    for (std::int64_t a = c.start[std::size_t(u)]; a < c.start[std::size_t(u) + 1]; ++a) {
      const std::int32_t v = c.to[std::size_t(a)];
      const W cand = du + c.w[std::size_t(a)];
      if (cand < d[std::size_t(v)] - tolerance) {
        d[std::size_t(v)] = cand;
        parent[std::size_t(v)] = u;
        parent_edge[std::size_t(v)] = c.edge[std::size_t(a)];
        if (!queued[std::size_t(v)]) {
          queued[std::size_t(v)] = 1;
          queue.push_back(v);
        }
        if (++since_check >= n) {
          since_check = 0;
          check_cycle();
        }
      }
    }
  }
  return d;
}

}  // namespace

std::vector<double> johnson_potentials(const Graph& g) {
  const std::int64_t n = g.num_vertices;
  const std::size_t E = g.num_edges();
  // Cycles of one or two vertices the SPFA would also find, named directly: a negative self
  // loop, and (undirected) any negative edge u - v, which is the cycle u -> v -> u.
  for (std::size_t e = 0; e < E; ++e) {
    const double w = g.weight[e];
    if (w >= 0) continue;
    if (g.src[e] == g.dst[e]) throw_cycle({g.src[e]}, w, g.integer_weights);
    if (!g.directed) throw_cycle({g.src[e], g.dst[e]}, 2 * w, g.integer_weights);
  }

  std::vector<double> h(static_cast<std::size_t>(n));
  const double max_w = g.max_abs_weight();
  if (g.integer_weights && double(std::max<std::int64_t>(n - 1, 1)) * max_w < kExactDouble) {
    // |h(v)| <= (V-1) * max|w| < 2^53: exact in int64 and in double.
    const std::vector<std::int64_t> hi = spfa<std::int64_t>(g, 0);
    for (std::size_t v = 0; v < hi.size(); ++v) h[v] = double(hi[v]);
    return h;
  }
  const std::vector<double> hd = spfa<double>(g, g.integer_weights ? 0.0 : 1e-12 * max_w);
  if (g.integer_weights)
    for (double x : hd)
      if (std::fabs(x) >= kExactDouble)
        throw UsageError(
            "negative weights too large for exact Johnson reweighting: a potential reaches 2^53");
  return hd;
}

Graph reweight(const Graph& g, const std::vector<double>& h) {
  APSP_EXPECTS(std::int64_t(h.size()) == g.num_vertices, "one potential per vertex");
  Graph r;
  r.num_vertices = g.num_vertices;
  r.directed = true;  // w' differs by direction, so an undirected edge becomes two arcs
  const std::size_t E = g.num_edges();
  r.reserve(g.directed ? E : 2 * E);
  const bool exact = g.integer_weights;
  auto add = [&](std::int32_t u, std::int32_t v, double w) {
    double w2;
    if (exact) {
      const std::int64_t x =
          std::llround(w) + std::llround(h[std::size_t(u)]) - std::llround(h[std::size_t(v)]);
      APSP_EXPECTS(x >= 0, "reweighted edge is negative: the potentials are not feasible");
      if (double(x) >= kExactDouble)
        throw UsageError(
            "negative weights too large for exact Johnson reweighting: a reweighted edge reaches "
            "2^53");
      w2 = double(x);
    } else {
      w2 = std::max(0.0, w + h[std::size_t(u)] - h[std::size_t(v)]);
    }
    r.add_edge(u, v, w2);
  };
  for (std::size_t e = 0; e < E; ++e) {
    const std::int32_t u = g.src[e], v = g.dst[e];
    add(u, v, g.weight[e]);
    if (!g.directed && u != v) add(v, u, g.weight[e]);
  }
  return r;
}

namespace {

template <class T>
void restore_typed(Matrix& dist, const std::vector<double>& h) {
  const std::int64_t n = dist.rows();
  const T inf = unreachable<T>();
  bool overflow = false;
#pragma omp parallel for schedule(static) reduction(|| : overflow) if (n >= 512)
  for (std::int64_t i = 0; i < n; ++i) {
    T* row = dist.row<T>(i);
    const double hi = h[std::size_t(i)];
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j || !(row[j] < inf)) continue;
      if constexpr (std::is_integral_v<T>) {
        const std::int64_t x =
            std::int64_t(row[j]) - std::llround(hi) + std::llround(h[std::size_t(j)]);
        if (x >= std::int64_t(inf) || x <= -std::int64_t(inf))
          overflow = true;
        else
          row[j] = T(x);
      } else {
        row[j] = T(double(row[j]) - hi + h[std::size_t(j)]);
      }
    }
  }
  if (overflow)
    throw UsageError(std::string("a distance restored after Johnson reweighting does not fit ") +
                     dtype_name(dist.dtype()) + "; use --type int64");
}

}  // namespace

void restore(Matrix& dist, const std::vector<double>& h) {
  APSP_EXPECTS(std::int64_t(h.size()) >= dist.rows(), "one potential per vertex");
  visit_dtype(dist.dtype(), [&](auto tag) { restore_typed<decltype(tag)>(dist, h); });
}

}  // namespace apsp::detail
