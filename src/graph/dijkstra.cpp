// src/graph/dijkstra.cpp — the per-source solver (dijkstra.hpp): dijkstra_search per source
// (OpenMP over sources), Johnson potentials for negative weights, a multi-source run for min_only.
//
// Negative weights: h from the core's SPFA (which names a negative cycle), arcs reweighted to
// w + h(u) - h(v) >= 0 (rounding residue below 0 clamped to 0), distances restored as
// d'(s, v) - h(s) + h(v). References: Dijkstra 1959; Johnson, JACM 1977; GAPBS sssp.cc.
#include "graph/dijkstra.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "core/johnson.hpp"
#include "core/memory_limit.hpp"

namespace apsp::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Johnson's restore, d = d' + h(v) - offset (offset: h(s), or 0 for min_only labels that start
/// at -h(s)), then the limit on the exact distances: a vertex above it becomes unreachable. The
/// limit cuts distances, never paths: with negative weights a vertex within it may be reached
/// through one above it (0 -> 2 -> 1 of weights 3, -2, limit 1), which keeps its predecessor
/// (and source) so that the path reads back. `order` lists the reached vertices parents first;
/// `on_path` is scratch of n entries.
void restore_and_limit(const std::vector<double>& h, double offset, double limit,
                       const std::vector<std::int32_t>& order, double* d, std::int32_t* pred,
                       std::int32_t* source, std::int64_t n, std::vector<char>& on_path) {
  for (const std::int32_t v : order) {
    const auto x = std::size_t(v);
    d[x] = d[x] + h[x] - offset;
  }
  if (!(limit < kInf)) return;
  on_path.assign(std::size_t(n), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // children first
    const auto x = std::size_t(*it);
    if ((d[x] <= limit || on_path[x]) && pred[x] >= 0) on_path[std::size_t(pred[x])] = 1;
  }
  for (const std::int32_t v : order) {
    const auto x = std::size_t(v);
    if (d[x] <= limit) continue;
    d[x] = kInf;
    if (on_path[x]) continue;
    pred[x] = kNoPredecessor;
    if (source) source[x] = kNoPredecessor;
  }
}

/// The stop test of one solve: only the calling thread asks `interrupted` (it is the one that may
/// hold Python's attention), at most every 20 ms; the other threads just see `stopped`.
class StopTest {
 public:
  explicit StopTest(const std::function<bool()>& interrupted) : interrupted_(interrupted) {}
  bool operator()() {
    if (stopped_.load(std::memory_order_relaxed)) return true;
    if (!interrupted_ || std::this_thread::get_id() != caller_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_check_ < std::chrono::milliseconds(20)) return false;
    last_check_ = now;
    if (interrupted_()) stopped_ = true;
    return stopped_.load();
  }
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

 private:
  const std::function<bool()>& interrupted_;
  const std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
  std::chrono::steady_clock::time_point last_check_ = std::chrono::steady_clock::now();
};

/// min_only: one multi-source search, labels -h(s) under potentials (ties: the source listed
/// first).
bool nearest_source(const SearchGraph& sg, const std::vector<std::int32_t>& sources, double limit,
                    double* dist, std::int32_t* pred, std::int32_t* source_of, StopTest& stop) {
  const std::vector<double>& h = sg.h;
  const bool cut_after = !h.empty();  // pruning is exact only on the original weights
  std::vector<DijkstraSeed> seeds;
  seeds.reserve(sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::int32_t s = sources[k];
    seeds.push_back({s, h.empty() ? 0.0 : -h[std::size_t(s)], std::int32_t(k)});
  }
  DijkstraScratch sc;
  std::int32_t* p = sc.pred_or_own(pred, cut_after, sg.arcs.n);
  if (!dijkstra_search<true>(sg.arcs, seeds, cut_after ? kInf : limit, dist, p, sc, cut_after,
                             stop))
    return false;
  if (source_of) std::copy(sc.source.begin(), sc.source.end(), source_of);
  if (cut_after)
    restore_and_limit(h, 0.0, limit, sc.order, dist, p, source_of, sg.arcs.n, sc.on_path);
  return true;
}

/// One search per source, the sources shared out to `threads` OpenMP threads; the first
/// exception thrown is rethrown.
bool each_source(const SearchGraph& sg, const std::vector<std::int32_t>& sources, double limit,
                 int threads, double* dist, std::int32_t* pred, StopTest& stop) {
  const std::int64_t n = sg.arcs.n;
  const std::vector<double>& h = sg.h;
  const bool cut_after = !h.empty();  // pruning is exact only on the original weights
  const double prune = cut_after ? kInf : limit;
  const auto k = std::int64_t(sources.size());
  threads = int(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, k)));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    DijkstraScratch sc;
    std::vector<DijkstraSeed> seed(1);
    try {
      for (std::int64_t i = next++; i < k && !stop.stopped(); i = next++) {
        const std::int32_t s = sources[std::size_t(i)];
        double* d = dist + i * n;
        std::int32_t* p = sc.pred_or_own(pred ? pred + i * n : nullptr, cut_after, n);
        seed[0] = {s, 0.0, 0};
        if (!dijkstra_search<false>(sg.arcs, seed, prune, d, p, sc, cut_after, stop)) break;
        if (cut_after)
          restore_and_limit(h, h[std::size_t(s)], limit, sc.order, d, p, nullptr, n, sc.on_path);
        stop();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      stop.stop();
    }
  }
  if (error) std::rethrow_exception(error);
  return !stop.stopped();
}

}  // namespace

SearchGraph make_search_graph(const Graph& g) {
  SearchGraph sg;
  // Johnson: potentials from the edge list (a dense view is copied into one only here).
  if (g.min_weight() < 0) {
    if (g.is_dense()) {
      Graph edges = g.edges_from_dense();
      edges.integer_weights = std::all_of(edges.weight.begin(), edges.weight.end(),
                                          [](double w) { return w == std::floor(w); });
      sg.h = johnson_potentials(edges);
    } else {
      sg.h = johnson_potentials(g);
    }
  }
  BuildOptions o;
  o.memory_limit = host_memory_limit().bytes;
  const std::vector<double>& h = sg.h;
  if (h.empty()) {
    sg.arcs = build_csr<double>(g, o, [](std::int32_t, std::int32_t, double w) { return w; });
  } else {
    sg.arcs = build_csr<double>(g, o, [&](std::int32_t u, std::int32_t v, double w) {
      return std::max(0.0, w + h[std::size_t(u)] - h[std::size_t(v)]);
    });
  }
  return sg;
}

bool per_source_shortest_paths(const Graph& g, const std::vector<std::int32_t>& sources,
                               const PerSourceOptions& o, double* dist, std::int32_t* pred,
                               std::int32_t* source_of) {
  const SearchGraph sg = make_search_graph(g);
  return shortest_paths_from(sg, sources, o, dist, pred, source_of);
}

bool shortest_paths_from(const SearchGraph& sg, const std::vector<std::int32_t>& sources,
                         const PerSourceOptions& o, double* dist, std::int32_t* pred,
                         std::int32_t* source_of) {
  StopTest stop(o.interrupted);
  if (stop()) return false;
  if (o.min_only) return nearest_source(sg, sources, o.limit, dist, pred, source_of, stop);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  return each_source(sg, sources, o.limit, threads, dist, pred, stop);
}

}  // namespace apsp::detail

namespace apsp {

bool shortest_paths_from_sources(const Graph& g, const std::vector<std::int32_t>& sources,
                                 const SourcePathsOptions& o, double* dist, std::int32_t* pred,
                                 std::int32_t* source_of) {
  return detail::per_source_shortest_paths(g, sources, o, dist, pred, source_of);
}

}  // namespace apsp
