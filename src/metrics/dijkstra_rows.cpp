// src/metrics/dijkstra_rows.cpp — the dijkstra metrics engine: the library Dijkstra
// (graph/dijkstra.hpp) from every source, a batch of sources at a time (OpenMP over the
// batch's sources), each batch's rows handed to a MetricsReducer as one stripe. Integer weights
// give int64 rows (exact below 2^53, where the double distances are exact), others float64.
// Memory: the arcs plus batch x V x 16 bytes.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "apsp/errors.hpp"
#include "core/memory_limit.hpp"
#include "graph/dijkstra.hpp"
#include "metrics/engines.hpp"

namespace apsp::detail {

namespace {

/// Sources per batch: a few per thread, within ~1/8 of the memory available and 256 MiB.
std::int64_t batch_size(std::int64_t n, int threads) {
  const double room = std::min(double(host_memory_limit().bytes) / 8, 256.0 * (1 << 20));
  const auto by_memory = std::int64_t(room / (16.0 * double(n)));
  return std::clamp<std::int64_t>(std::min<std::int64_t>(16 * threads, by_memory), 1, n);
}

}  // namespace

Metrics dijkstra_metrics(const Graph& g, const MetricsOptions& opt, Dtype dtype,
                         const SearchRun& run) {
  const std::int64_t n = g.num_vertices;
  const SearchGraph sg = make_search_graph(g);
  const int threads = run.threads > 0 ? run.threads : omp_get_max_threads();
  const std::int64_t batch = batch_size(n, threads);
  const bool integer = is_integer(dtype);
  std::vector<double> rows(std::size_t(batch * n));
  std::vector<std::int64_t> irows(integer ? std::size_t(batch * n) : 0);
  MetricsReducer reducer(n, g.directed, opt);
  PerSourceOptions po;
  po.threads = threads;
  std::vector<std::int32_t> sources;
  for (std::int64_t s0 = 0; s0 < n; s0 += batch) {
    const std::int64_t k = std::min(batch, n - s0);
    sources.resize(std::size_t(k));
    for (std::int64_t i = 0; i < k; ++i) sources[std::size_t(i)] = std::int32_t(s0 + i);
    shortest_paths_from(sg, sources, po, rows.data(), nullptr, nullptr);
    RowBlock b;
    b.row0 = s0;
    b.rows = k;
    b.cols = b.stride = n;
    if (integer) {
      constexpr std::int64_t inf = unreachable<std::int64_t>();
      for (std::size_t i = 0; i < std::size_t(k * n); ++i)
        irows[i] = std::isinf(rows[i]) ? inf : std::int64_t(std::llround(rows[i]));
      b.dtype = Dtype::Int64;
      b.data = irows.data();
    } else {
      b.dtype = Dtype::Float64;
      b.data = rows.data();
    }
    reducer.add(b);
    if (run.progress) run.progress(s0 + k, n);
  }
  Metrics m = reducer.finish();
  m.dtype = dtype;
  return m;
}

}  // namespace apsp::detail
