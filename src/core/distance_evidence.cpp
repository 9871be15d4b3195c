// src/core/distance_evidence.cpp — Dijkstra from a few sampled sources over the graph's out-arcs
// (graph/csr.hpp, graph/dijkstra.hpp; Dial's buckets for small integer bounds): a lower bound on
// the largest shortest-path distance (distance_evidence.hpp).
#include "core/distance_evidence.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "graph/csr.hpp"
#include "graph/dijkstra.hpp"

namespace apsp::detail {

namespace {

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

/// The library Dijkstra (graph/dijkstra.hpp) from s: the largest final distance, or the first
/// final one >= stop_at; 0 once `cancel` is seen.
double dijkstra_max(const Csr<double>& c, std::int64_t s, double stop_at,
                    const std::atomic<bool>* cancel) {
  std::vector<double> d(std::size_t(c.n));
  DijkstraScratch scratch;
  double best = 0;
  const bool done = dijkstra_search<false>(
      c, {{std::int32_t(s), 0.0, 0}}, std::numeric_limits<double>::infinity(), d.data(), nullptr,
      scratch, false, [&] { return cancelled(cancel); },
      [&](std::int32_t, double du) {
        best = du;  // settled in increasing order
        return du < stop_at;
      });
  return done ? best : 0;
}

/// Dial's bucket queue for integer weights: distances below `limit` kept exactly in buckets;
/// a vertex first reached at >= limit is parked. When the buckets run dry, a parked vertex's final
/// distance is >= limit (every shorter path would have gone through a bucket), so that is returned.
double dial_max(const Csr<double>& c, std::int64_t n, std::int64_t s, std::int64_t limit,
                const std::atomic<bool>* cancel) {
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> d(std::size_t(n), kInf);
  std::vector<std::vector<std::int32_t>> bucket(static_cast<std::size_t>(limit));
  d[std::size_t(s)] = 0;
  bucket[0].push_back(std::int32_t(s));
  std::int64_t best = 0;
  bool parked = false;
  for (std::int64_t b = 0; b < limit; ++b) {
    if ((b & 255) == 0 && cancelled(cancel)) return 0;
    for (std::size_t q = 0; q < bucket[std::size_t(b)].size(); ++q) {
      if ((q & 255) == 255 && cancelled(cancel)) return 0;
      const std::int32_t u = bucket[std::size_t(b)][q];
      if (d[std::size_t(u)] != b) continue;  // a stale entry
      best = b;
      for (std::int64_t a = c.start[std::size_t(u)]; a < c.start[std::size_t(u) + 1]; ++a) {
        const std::int32_t v = c.to[std::size_t(a)];
        const std::int64_t nd = b + std::int64_t(c.w[std::size_t(a)]);
        if (nd >= d[std::size_t(v)]) continue;
        d[std::size_t(v)] = nd;
        if (nd < limit)
          bucket[std::size_t(nd)].push_back(v);
        else
          parked = true;
      }
    }
    std::vector<std::int32_t>().swap(bucket[std::size_t(b)]);
  }
  if (parked)
    for (std::int64_t v = 0; v < n; ++v)
      if (d[std::size_t(v)] != kInf && d[std::size_t(v)] >= limit) return double(limit);
  return double(best);
}

}  // namespace

double sampled_distance_lower_bound(const Graph& g, int sources, double stop_at,
                                    const std::atomic<bool>* cancel) {
  const std::int64_t n = g.num_vertices;
  if (n <= 1 || sources <= 0 || g.is_dense() || g.src.empty()) return 0;
  if (*std::min_element(g.weight.begin(), g.weight.end()) < 0) return 0;
  // Out-arcs walked in 64 slices, so that a cancel is seen within one (an empty Csr then).
  BuildOptions o;
  o.parts = 64;
  o.cancel = cancel;
  const Csr<double> c = build_csr<double>(g, o);
  if (cancelled(cancel)) return 0;
  const int k = int(std::min<std::int64_t>(sources, n));
  const bool buckets =
      g.integer_weights && stop_at <= double(std::int64_t(1) << 17) && stop_at >= 1;
  std::vector<double> found(std::size_t(k), 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::min(k, omp_get_max_threads()))
  for (int q = 0; q < k; ++q) {
    const std::int64_t s = std::int64_t(q) * n / k;
    found[std::size_t(q)] = buckets ? dial_max(c, n, s, std::int64_t(std::ceil(stop_at)), cancel)
                                    : dijkstra_max(c, s, stop_at, cancel);
  }
  return cancelled(cancel) ? 0 : *std::max_element(found.begin(), found.end());
}

bool evidence_skips_rung(const Graph& g, double band, double rate) {
  const double arcs = g.is_dense() ? 0.0 : double(g.src.size()) * (g.directed ? 1 : 2);
  return evidence_pays(arcs, double(g.num_vertices), rate) &&
         sampled_distance_lower_bound(g, 8, band) >= band;
}

}  // namespace apsp::detail
