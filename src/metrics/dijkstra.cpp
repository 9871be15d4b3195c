// src/metrics/dijkstra.cpp — shortest paths from a few sources: Dijkstra per source (OpenMP over
// sources), Johnson potentials for negative weights, a multi-source run for min_only.
//
// The graph's arcs go into one CSR (12 bytes per arc; a dense view is read in place, an
// undirected edge gives both arcs, self loops are dropped). A binary heap with lazy deletion;
// predecessors change only on a strict improvement, so the first vertex to reach a distance
// keeps it (as SciPy's Dijkstra). Negative weights: h from the core's SPFA (which names a
// negative cycle), arcs reweighted to w + h(u) - h(v) >= 0, distances restored as
// d'(s, v) - h(s) + h(v). References: Dijkstra 1959; Johnson, JACM 1977; GAPBS sssp.cc.
#include "metrics/dijkstra.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "apsp/errors.hpp"
#include "core/johnson.hpp"
#include "core/reference.hpp"
#include "core/memory_limit.hpp"

namespace apsp::detail {

namespace {

constexpr std::int32_t kNoVertex = -9999;  // SciPy's "no predecessor"
constexpr double kInf = std::numeric_limits<double>::infinity();

using Arcs = SearchGraph;

/// The CSR of g's arcs; with potentials h the weights are w + h(u) - h(v), rounding residue
/// below 0 clamped to 0.
void make_arcs(const apsp::Graph& g, const std::vector<double>& h, Arcs& a) {
  a.n = g.num_vertices;
  a.start.assign(std::size_t(a.n) + 1, 0);
  apsp::detail::for_each_arc(
      g, [&](std::int32_t u, std::int32_t, double) { ++a.start[std::size_t(u) + 1]; });
  for (std::int64_t v = 0; v < a.n; ++v) a.start[std::size_t(v) + 1] += a.start[std::size_t(v)];
  const auto arcs = std::size_t(a.start[std::size_t(a.n)]);
  const double bytes =
      double(arcs) * double(sizeof(std::int32_t) + sizeof(double)) + double(a.start.size()) * 8.0;
  const std::uint64_t have = host_memory_limit().bytes;
  if (bytes > double(have))
    throw apsp::ResourceError("the graph's " + std::to_string(arcs) + " arcs need " +
                              std::to_string(std::llround(bytes)) +
                              " bytes, more than this machine's " + std::to_string(have) +
                              " bytes of memory (set APSP_HOST_MEMORY to override)");
  a.to.resize(arcs);
  a.w.resize(arcs);
  std::vector<std::int64_t> pos(a.start.begin(), a.start.end() - 1);
  apsp::detail::for_each_arc(g, [&](std::int32_t u, std::int32_t v, double w) {
    const auto p = std::size_t(pos[std::size_t(u)]++);
    a.to[p] = v;
    a.w[p] = h.empty() ? w : std::max(0.0, w + h[std::size_t(u)] - h[std::size_t(v)]);
  });
}

struct HeapItem {
  double d;
  std::int32_t rank, v;
};
/// std::push_heap keeps the largest on top: "larger" = later in (distance, rank) order.
struct Later {
  bool operator()(const HeapItem& x, const HeapItem& y) const {
    return x.d > y.d || (x.d == y.d && x.rank > y.rank);
  }
};

struct Seed {
  std::int32_t v;
  double label;
  std::int32_t rank;
};

/// Per-thread buffers, reused from source to source.
struct Scratch {
  std::vector<HeapItem> heap;
  std::vector<std::int32_t> rank, source, order;
  std::vector<std::int32_t> pred;  // when the caller wants none but the limit cut needs them
  std::vector<char> on_path;       // the limit cut: on the path of a vertex within the limit

  std::int32_t* pred_or_own(std::int32_t* p, bool need, std::int64_t n) {
    if (p || !need) return p;
    pred.resize(std::size_t(n));
    return pred.data();
  }
};

/// Dijkstra from `seeds` over non-negative arcs into d (n entries); pred (n, may be null) gets
/// predecessors. Multi: several seeds, ties between equal distances go to the lower rank, and
/// s.source[v] names the seed v was reached from. Arcs that would give a distance above `prune`
/// are not followed. With `order`, the vertices in the order they were settled (parents first).
/// Returns false when stop() asked to stop.
template <bool Multi, class Stop>
bool dijkstra(const Arcs& a, const std::vector<Seed>& seeds, double prune, double* d,
              std::int32_t* pred, Scratch& s, bool keep_order, Stop&& stop) {
  const std::int64_t n = a.n;
  std::fill(d, d + n, kInf);
  if (pred) std::fill(pred, pred + n, kNoVertex);
  if constexpr (Multi) {
    s.rank.assign(std::size_t(n), INT_MAX);
    s.source.assign(std::size_t(n), kNoVertex);
  }
  s.order.clear();
  s.heap.clear();
  for (const Seed& x : seeds) {
    const auto v = std::size_t(x.v);
    if constexpr (Multi) {
      if (x.label > d[v] || (x.label == d[v] && x.rank >= s.rank[v])) continue;
      s.rank[v] = x.rank;
      s.source[v] = x.v;
    }
    d[v] = x.label;
    s.heap.push_back({x.label, x.rank, x.v});
    std::push_heap(s.heap.begin(), s.heap.end(), Later{});
  }
  std::int64_t pops = 0;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), Later{});
    const HeapItem top = s.heap.back();
    s.heap.pop_back();
    const auto u = std::size_t(top.v);
    if (top.d != d[u]) continue;  // stale entry
    if constexpr (Multi)
      if (top.rank != s.rank[u]) continue;
    if (keep_order) s.order.push_back(top.v);
    if ((++pops & 4095) == 0 && stop()) return false;
    for (std::int64_t e = a.start[u]; e < a.start[u + 1]; ++e) {
      const double nd = top.d + a.w[std::size_t(e)];
      if (nd > prune) continue;
      const auto v = std::size_t(a.to[std::size_t(e)]);
      bool better = nd < d[v];
      if constexpr (Multi) better = better || (nd == d[v] && top.rank < s.rank[v]);
      if (!better) continue;
      d[v] = nd;
      if (pred) pred[v] = top.v;
      if constexpr (Multi) {
        s.rank[v] = top.rank;
        s.source[v] = s.source[u];
      }
      s.heap.push_back({nd, top.rank, a.to[std::size_t(e)]});
      std::push_heap(s.heap.begin(), s.heap.end(), Later{});
    }
  }
  return true;
}

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
    pred[x] = kNoVertex;
    if (source) source[x] = kNoVertex;
  }
}

bool has_negative_weight(const apsp::Graph& g) { return g.min_weight() < 0; }

}  // namespace

SearchGraph make_search_graph(const apsp::Graph& g) {
  SearchGraph sg;
  // Johnson: potentials from the edge list (a dense view is copied into one only here).
  if (has_negative_weight(g)) {
    if (g.is_dense()) {
      apsp::Graph edges = g.edges_from_dense();
      edges.integer_weights = std::all_of(edges.weight.begin(), edges.weight.end(),
                                          [](double w) { return w == std::floor(w); });
      sg.h = apsp::detail::johnson_potentials(edges);
    } else {
      sg.h = apsp::detail::johnson_potentials(g);
    }
  }
  make_arcs(g, sg.h, sg);
  return sg;
}

bool per_source_shortest_paths(const apsp::Graph& g, const std::vector<std::int32_t>& sources,
                               const PerSourceOptions& o, double* dist, std::int32_t* pred,
                               std::int32_t* source_of) {
  const SearchGraph sg = make_search_graph(g);
  return shortest_paths_from(sg, sources, o, dist, pred, source_of);
}

bool shortest_paths_from(const SearchGraph& arcs, const std::vector<std::int32_t>& sources,
                         const PerSourceOptions& o, double* dist, std::int32_t* pred,
                         std::int32_t* source_of) {
  const std::int64_t n = arcs.n;
  const std::vector<double>& h = arcs.h;
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> stopped{false};
  auto last_check = std::chrono::steady_clock::now();
  // Only the calling thread asks (it is the one that may hold Python's attention); the others
  // just see `stopped`.
  auto stop = [&]() {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (!o.interrupted || std::this_thread::get_id() != caller) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_check < std::chrono::milliseconds(20)) return false;
    last_check = now;
    if (o.interrupted()) stopped = true;
    return stopped.load();
  };
  if (stop()) return false;
  // Pruning by the limit is exact only on the original weights; reweighted, cut afterwards.
  const double prune = h.empty() ? o.limit : kInf;
  const bool cut_after = !h.empty();

  if (o.min_only) {
    std::vector<Seed> seeds;
    seeds.reserve(sources.size());
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const std::int32_t s = sources[k];
      seeds.push_back({s, h.empty() ? 0.0 : -h[std::size_t(s)], std::int32_t(k)});
    }
    Scratch sc;
    std::int32_t* p = sc.pred_or_own(pred, cut_after, n);
    if (!dijkstra<true>(arcs, seeds, prune, dist, p, sc, cut_after, stop)) return false;
    if (source_of) std::copy(sc.source.begin(), sc.source.end(), source_of);
    if (cut_after) restore_and_limit(h, 0.0, o.limit, sc.order, dist, p, source_of, n, sc.on_path);
    return true;
  }

  const auto k = std::int64_t(sources.size());
  int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  threads = int(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, k)));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    Scratch sc;
    std::vector<Seed> seed(1);
    try {
      for (std::int64_t i = next++; i < k && !stopped.load(std::memory_order_relaxed); i = next++) {
        const std::int32_t s = sources[std::size_t(i)];
        double* d = dist + i * n;
        std::int32_t* p = sc.pred_or_own(pred ? pred + i * n : nullptr, cut_after, n);
        seed[0] = {s, 0.0, 0};
        if (!dijkstra<false>(arcs, seed, prune, d, p, sc, cut_after, stop)) break;
        if (cut_after)
          restore_and_limit(h, h[std::size_t(s)], o.limit, sc.order, d, p, nullptr, n, sc.on_path);
        stop();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      stopped = true;
    }
  }
  if (error) std::rethrow_exception(error);
  return !stopped.load();
}

}  // namespace apsp::detail
