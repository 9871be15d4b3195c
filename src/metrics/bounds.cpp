// src/metrics/bounds.cpp — the bounds metrics engine: exact diameter, radius, center and
// periphery of an undirected graph from a few single-source searches.
//
// After a search from v (eccentricity e, distances d), every vertex w has
// max(d(w), e - d(w)) <= ecc(w) <= e + d(w) (triangle inequality). Vertices whose bounds cannot
// change an asked value any more leave the candidate set; the next source alternates between
// the candidate of largest upper bound and the one of smallest lower bound (ties: higher
// degree). Reference: Takes and Kosters, "Determining the diameter of small world networks",
// CIKM 2011 (BoundingDiameters).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "metrics/dijkstra.hpp"
#include "metrics/engines.hpp"

namespace apsp::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Distances from one source: BFS hops times `scale`, or Dijkstra (scale 0).
class Searcher {
 public:
  Searcher(const Graph& g, std::int64_t scale) : scale_(scale) {
    if (scale_ > 0)
      hops_ = make_hop_graph(g);
    else
      sg_ = make_search_graph(g);
    po_.threads = 1;
  }
  void from(std::int32_t s, std::vector<double>& d) {
    if (scale_ == 0) {
      shortest_paths_from(sg_, {s}, po_, d.data(), nullptr, nullptr);
      return;
    }
    std::fill(d.begin(), d.end(), kInf);
    queue_.assign(1, s);
    d[std::size_t(s)] = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const auto u = std::size_t(queue_[head]);
      for (std::int64_t e = hops_.out_start[u]; e < hops_.out_start[u + 1]; ++e) {
        const auto v = std::size_t(hops_.out_adj[std::size_t(e)]);
        if (d[v] != kInf) continue;
        d[v] = d[u] + double(scale_);
        queue_.push_back(std::int32_t(v));
      }
    }
  }
  std::int64_t degree(std::size_t v) const {
    return scale_ > 0 ? hops_.out_start[v + 1] - hops_.out_start[v]
                      : sg_.start[v + 1] - sg_.start[v];
  }

 private:
  std::int64_t scale_;
  HopGraph hops_;
  SearchGraph sg_;
  PerSourceOptions po_;
  std::vector<std::int32_t> queue_;
};

struct Bounds {
  std::vector<double> lo, hi;
  std::vector<char> open;    // still a candidate
  double dl = 0, ru = kInf;  // largest lower bound, smallest upper bound

  bool exact(std::size_t w) const { return lo[w] == hi[w]; }
  /// w's bounds decide every asked value.
  bool decided(std::size_t w, const ExtremesWanted& want) const {
    if (exact(w)) return true;
    const bool d_ok = want.periphery ? hi[w] < dl : (!want.diameter || hi[w] <= dl);
    const bool r_ok = want.center ? lo[w] > ru : (!want.radius || lo[w] >= ru);
    return d_ok && r_ok;
  }
};

/// Takes and Kosters' alternation: the open vertex of largest upper bound, or the vertex not yet
/// searched of smallest lower bound (a central one: its search bounds every eccentricity from
/// above), open or not. Ties: higher degree. SIZE_MAX when nothing is open.
std::size_t next_source(const Bounds& b, const Searcher& search, bool by_upper) {
  std::size_t best = SIZE_MAX;
  for (std::size_t w = 0; w < b.lo.size(); ++w) {
    if (by_upper ? !b.open[w] : b.exact(w)) continue;
    if (best != SIZE_MAX) {
      const double a = by_upper ? b.hi[w] : -b.lo[w], c = by_upper ? b.hi[best] : -b.lo[best];
      if (a < c || (a == c && search.degree(w) <= search.degree(best))) continue;
    }
    best = w;
  }
  if (best == SIZE_MAX && !by_upper) return next_source(b, search, true);
  return best;
}

Extremes disconnected(std::int64_t n, const std::vector<double>& d) {
  Extremes x;
  x.connected = false;
  x.missing_vertex = 0;
  x.missing_reach = std::count_if(d.begin(), d.end(), [](double v) { return v < kInf; }) - 1;
  x.diameter = x.radius = std::numeric_limits<long double>::infinity();
  for (std::int64_t v = 0; v < n; ++v) x.center.push_back(v);
  x.periphery = x.center;
  x.searches = 1;
  return x;
}

}  // namespace

std::optional<Extremes> bounded_extremes(const Graph& g, std::int64_t scale,
                                         const ExtremesWanted& want, std::int64_t max_searches,
                                         const SearchRun& run) {
  const std::int64_t n = g.num_vertices;
  Searcher search(g, scale);
  std::vector<double> d(static_cast<std::size_t>(n));
  Bounds b;
  b.lo.assign(std::size_t(n), 0);
  b.hi.assign(std::size_t(n), kInf);
  b.open.assign(std::size_t(n), 1);
  std::int64_t open = n, searches = 0;
  std::size_t v = 0;  // vertex 0 first: a disconnected graph is then refused naming it
  while (open > 0) {
    if (searches == max_searches) return std::nullopt;
    search.from(std::int32_t(v), d);
    ++searches;
    if (run.progress) run.progress(n - open, n);
    const double e = *std::max_element(d.begin(), d.end());
    if (e == kInf) return disconnected(n, d);
    for (std::size_t w = 0; w < std::size_t(n); ++w) {
      b.lo[w] = std::max({b.lo[w], d[w], e - d[w]});
      b.hi[w] = std::min(b.hi[w], e + d[w]);
      b.dl = std::max(b.dl, b.lo[w]);
      b.ru = std::min(b.ru, b.hi[w]);
    }
    for (std::size_t w = 0; w < std::size_t(n); ++w)
      if (b.open[w] && b.decided(w, want)) {
        b.open[w] = 0;
        --open;
      }
    v = next_source(b, search, searches % 2 == 1);
  }
  Extremes x;
  x.diameter = b.dl;
  x.radius = b.ru;
  x.searches = searches;
  for (std::int64_t w = 0; w < n; ++w) {
    const auto k = std::size_t(w);
    if (!b.exact(k)) continue;
    if (want.center && b.lo[k] == b.ru) x.center.push_back(w);
    if (want.periphery && b.hi[k] == b.dl) x.periphery.push_back(w);
  }
  return x;
}

}  // namespace apsp::detail
