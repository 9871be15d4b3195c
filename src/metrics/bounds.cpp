// src/metrics/bounds.cpp — the bounds metrics engine: exact diameter, radius, center and
// periphery (of the out-eccentricities) from a few single-source searches.
//
// After a search from v (eccentricity e, distances d(v, w), and for a directed graph a search
// along reversed arcs giving d(w, v)), every vertex w has
// max(d(w, v), e - d(v, w)) <= ecc(w) <= d(w, v) + e (triangle inequality; undirected graphs
// have d(w, v) = d(v, w), one search). Vertices whose bounds cannot change an asked value any
// more leave the candidate set; the next source alternates between the candidate of largest upper
// bound and the one of smallest lower bound (ties: higher degree). Unweighted searches are
// direction-optimizing BFS (Beamer et al., SC 2012). References: Takes and Kosters, "Determining
// the diameter of small world networks", CIKM 2011 (BoundingDiameters); for directed graphs the
// forward and backward searches of Akiba, Iwata and Kawata, "An exact algorithm for diameters of
// large real directed graphs", SEA 2015.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/memory_limit.hpp"
#include "graph/csr.hpp"
#include "graph/dijkstra.hpp"
#include "metrics/engines.hpp"

namespace apsp::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Beamer's switch: bottom-up once the frontier's arcs exceed 1/kAlpha of the arcs still
/// unexplored, top-down again once the frontier holds fewer than 1/kBeta of the vertices.
constexpr std::int64_t kAlpha = 14, kBeta = 24;

/// A vertex that reaches every other one, if any does: the root of the last search when searches
/// from each vertex not yet reached in turn cover the graph. (Marked vertices are closed under
/// arcs after each search; if m reaches all and the search from root r reached m, r reaches
/// all, so its search marks every vertex left and no root follows.)
std::int32_t last_search_root(const std::vector<std::int64_t>& start,
                              const std::vector<std::int32_t>& adj) {
  const std::size_t n = start.size() - 1;
  std::vector<char> seen(n, 0);
  std::vector<std::int32_t> queue;
  std::int32_t last = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    last = std::int32_t(root);
    seen[root] = 1;
    queue.assign(1, last);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const auto u = std::size_t(queue[head]);
      for (std::int64_t e = start[u]; e < start[u + 1]; ++e) {
        const auto v = std::size_t(adj[std::size_t(e)]);
        if (!seen[v]) seen[v] = 1, queue.push_back(std::int32_t(v));
      }
    }
  }
  return last;
}

/// Distances from one source (forward) or to it (backward, along reversed arcs): BFS hops times
/// `scale`, or Dijkstra (scale 0).
class Searcher {
 public:
  Searcher(const Graph& g, std::int64_t scale) : scale_(scale), directed_(g.directed) {
    if (scale_ > 0) {
      BuildOptions o;
      o.memory_limit = host_memory_limit().bytes;
      out_ = build_csr<NoWeight>(g, o);
      if (directed_) in_ = reversed(out_);
      level_.resize(std::size_t(out_.n));
    } else {
      sg_ = make_search_graph(g);
      if (directed_) rsg_.arcs = reversed(sg_.arcs);
    }
    po_.threads = 1;
  }

  void from(std::int32_t s, bool backward, std::vector<double>& d) {
    if (scale_ == 0) {
      shortest_paths_from(backward ? rsg_ : sg_, {s}, po_, d.data(), nullptr, nullptr);
      return;
    }
    const Csr<NoWeight>& in = directed_ ? in_ : out_;  // undirected: the arcs both ways
    bfs(std::size_t(s), backward ? in : out_, backward ? out_ : in);
    for (std::size_t v = 0; v < d.size(); ++v)
      d[v] = level_[v] < 0 ? kInf : double(level_[v]) * double(scale_);
  }

  std::int64_t degree(std::size_t v) const {
    return scale_ > 0 ? out_.degree(std::int64_t(v)) : sg_.arcs.degree(std::int64_t(v));
  }

  /// A vertex that reaches every other one, if any does (last_search_root of the out-arcs).
  std::int32_t reaches_all_candidate() const {
    return scale_ > 0 ? last_search_root(out_.start, out_.to)
                      : last_search_root(sg_.arcs.start, sg_.arcs.to);
  }

 private:
  /// Levels from s along `out` arcs; a bottom-up step looks for a parent along `in` arcs.
  void bfs(std::size_t s, const Csr<NoWeight>& out, const Csr<NoWeight>& in) {
    const std::int64_t n = out.n;
    std::fill(level_.begin(), level_.end(), -1);
    level_[s] = 0;
    cur_.assign(1, std::int32_t(s));
    std::int64_t unexplored = std::int64_t(in.to.size()) - in.degree(std::int64_t(s));
    bool bottom_up = false;
    for (std::int32_t level = 0; !cur_.empty(); ++level) {
      std::int64_t frontier_arcs = 0;
      for (std::int32_t u : cur_) frontier_arcs += out.degree(u);
      if (!bottom_up && frontier_arcs > unexplored / kAlpha)
        bottom_up = true;
      else if (bottom_up && std::int64_t(cur_.size()) < n / kBeta)
        bottom_up = false;
      next_.clear();
      if (bottom_up) {
        for (std::size_t v = 0; v < std::size_t(n); ++v) {
          if (level_[v] >= 0) continue;
          for (std::int64_t e = in.start[v]; e < in.start[v + 1]; ++e)
            if (level_[std::size_t(in.to[std::size_t(e)])] == level) {
              level_[v] = level + 1;
              next_.push_back(std::int32_t(v));
              break;
            }
        }
      } else {
        for (std::int32_t u : cur_)
          for (std::int64_t e = out.start[std::size_t(u)]; e < out.start[std::size_t(u) + 1]; ++e) {
            const auto v = std::size_t(out.to[std::size_t(e)]);
            if (level_[v] >= 0) continue;
            level_[v] = level + 1;
            next_.push_back(std::int32_t(v));
          }
      }
      for (std::int32_t v : next_) unexplored -= in.degree(v);
      cur_.swap(next_);
    }
  }

  std::int64_t scale_;
  bool directed_;
  Csr<NoWeight> out_, in_;  // scale > 0: the arcs, and (directed) reversed
  SearchGraph sg_, rsg_;
  PerSourceOptions po_;
  std::vector<std::int32_t> level_, cur_, next_;
};

struct Bounds {
  std::vector<double> lo, hi;
  std::vector<char> open;    // still a candidate
  double dl = 0, ru = kInf;  // largest lower bound, smallest upper bound
  // Directed, diameter alone: upper bounds of the in-eccentricities too (the diameter is also the
  // largest in-eccentricity, so either side's candidates running out decides it).
  std::vector<double> hi_in;
  std::vector<char> open_in;

  bool exact(std::size_t w) const { return lo[w] == hi[w]; }
  /// The bounds after a search from v of eccentricity e (d: from v, to_v: to v); returns how
  /// many candidates it decided.
  std::int64_t tighten(double e, const std::vector<double>& d, const std::vector<double>& to_v,
                       const ExtremesWanted& want) {
    for (std::size_t w = 0; w < lo.size(); ++w) {
      lo[w] = std::max({lo[w], to_v[w], e - d[w]});
      hi[w] = std::min(hi[w], e + to_v[w]);
      dl = std::max(dl, lo[w]);
      ru = std::min(ru, hi[w]);
    }
    std::int64_t decided_now = 0;
    for (std::size_t w = 0; w < lo.size(); ++w)
      if (open[w] && decided(w, want)) {
        open[w] = 0;
        ++decided_now;
      }
    return decided_now;
  }
  /// Directed, diameter alone: ecc_in(w) <= d(v, w) + ecc_in(v); how many in-candidates left.
  std::int64_t tighten_in(const std::vector<double>& d, const std::vector<double>& back) {
    const double e_in = *std::max_element(back.begin(), back.end());
    std::int64_t decided_now = 0;
    for (std::size_t w = 0; w < hi_in.size(); ++w) {
      hi_in[w] = std::min(hi_in[w], d[w] + e_in);
      if (open_in[w] && hi_in[w] <= dl) {
        open_in[w] = 0;
        ++decided_now;
      }
    }
    return decided_now;
  }
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
std::size_t next_source(const Bounds& b, const Searcher& search, bool by_upper,
                        bool in_side = false) {
  if (in_side && by_upper) {  // the in-candidate of largest upper bound
    std::size_t best = SIZE_MAX;
    for (std::size_t w = 0; w < b.hi_in.size(); ++w)
      if (b.open_in[w] && (best == SIZE_MAX || b.hi_in[w] > b.hi_in[best])) best = w;
    return best;
  }
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

/// Vertices other than the source that distances d reach.
std::int64_t reached(const std::vector<double>& d) {
  return std::count_if(d.begin(), d.end(), [](double y) { return y < kInf; }) - 1;
}

/// Not (strongly) connected: vertex `v`, which reaches `reach` others, misses some other. With
/// `all_infinite` (undirected, or directed where no vertex reaches all) every eccentricity is
/// infinite: radius too, and every vertex is in the center and the periphery. Otherwise only the
/// diameter (infinite) is decided here.
Extremes disconnected(std::int64_t n, bool all_infinite, std::int64_t v, std::int64_t reach,
                      std::int64_t searches) {
  Extremes x;
  x.connected = false;
  x.missing_vertex = v;
  x.missing_reach = reach;
  x.diameter = x.radius = std::numeric_limits<long double>::infinity();
  if (all_infinite) {
    for (std::int64_t w = 0; w < n; ++w) x.center.push_back(w);
    x.periphery = x.center;
  }
  x.searches = searches;
  return x;
}

/// What the closed bounds say: diameter, radius, and the exact vertices at either.
Extremes extremes_of(const Bounds& b, const ExtremesWanted& want, std::int64_t missing,
                     std::int64_t missing_reach, std::int64_t searches) {
  Extremes x;
  x.connected = missing < 0;
  x.missing_vertex = std::max<std::int64_t>(missing, 0);
  x.missing_reach = missing_reach;
  x.diameter = b.dl;
  x.radius = b.ru;
  x.searches = searches;
  for (std::size_t k = 0; k < b.lo.size(); ++k) {
    if (!b.exact(k)) continue;
    if (want.center && b.lo[k] == b.ru) x.center.push_back(std::int64_t(k));
    if (want.periphery && b.hi[k] == b.dl) x.periphery.push_back(std::int64_t(k));
  }
  return x;
}

}  // namespace

std::optional<Extremes> bounded_extremes(const Graph& g, std::int64_t scale,
                                         const ExtremesWanted& want, std::int64_t max_searches,
                                         const SearchRun& run) {
  const std::int64_t n = g.num_vertices;
  const bool directed = g.directed;
  Searcher search(g, scale);
  std::vector<double> d(static_cast<std::size_t>(n)), back;
  if (directed) back.resize(std::size_t(n));
  const std::vector<double>& to_v = directed ? back : d;  // d(w, v)
  Bounds b;
  b.lo.assign(std::size_t(n), 0);
  b.hi.assign(std::size_t(n), kInf);
  b.open.assign(std::size_t(n), 1);
  std::int64_t open = n, searches = 0, steps = 0;
  const bool in_side = directed && want.diameter && !want.radius && !want.center && !want.periphery;
  std::int64_t open_in = in_side ? n : 0;
  if (in_side) {
    b.hi_in.assign(std::size_t(n), kInf);
    b.open_in.assign(std::size_t(n), 1);
  }
  // Not strongly connected: a vertex that misses some other (the lowest such, as the full
  // engine names it) and how many it reaches.
  std::int64_t missing = -1, missing_reach = 0;
  std::size_t v = 0;  // vertex 0 first: a disconnected graph is then refused naming it
  const bool beyond_diameter = want.radius || want.center || want.periphery;
  while (open > 0 && (!in_side || open_in > 0)) {
    if (searches >= max_searches) return std::nullopt;
    search.from(std::int32_t(v), false, d);
    ++searches;
    double e = *std::max_element(d.begin(), d.end());
    if (e == kInf) {  // only the first source can miss: later ones are open, so they reach all
      missing = std::int64_t(v), missing_reach = reached(d);
      if (!directed || !beyond_diameter)
        return disconnected(n, !directed, missing, missing_reach, searches);
      // Directed: the radius and center are those of the vertices that reach all others, if
      // any: they are the vertices that reach the one candidate (and it reaches all).
      v = std::size_t(search.reaches_all_candidate());
      search.from(std::int32_t(v), false, d);
      ++searches;
      e = *std::max_element(d.begin(), d.end());
      if (e == kInf)  // nobody reaches all: every eccentricity is infinite
        return disconnected(n, true, missing, missing_reach, searches);
    }
    if (directed) {
      search.from(std::int32_t(v), true, back);
      ++searches;
      const auto miss = std::find(back.begin(), back.end(), kInf);
      if (miss != back.end() && missing < 0) {  // some vertex does not reach v: name the first
        const std::int32_t u = std::int32_t(miss - back.begin());
        std::vector<double> from_u(static_cast<std::size_t>(n));
        search.from(u, false, from_u);
        ++searches;
        missing = u, missing_reach = reached(from_u);
        if (!beyond_diameter) return disconnected(n, false, missing, missing_reach, searches);
      }
      // Vertices that do not reach v (v reaches all) miss some vertex: their bounds below
      // become inf, exact, and they leave the candidates; they are the periphery.
    }
    if (run.progress) run.progress(n - open, n);
    open -= b.tighten(e, d, to_v, want);
    if (in_side) open_in -= b.tighten_in(d, back);
    v = next_source(b, search, ++steps % 2 == 1, in_side && open_in < open);
    if (v == SIZE_MAX) break;
  }
  return extremes_of(b, want, missing, missing_reach, searches);
}

}  // namespace apsp::detail
