// src/sparse/metric_rows.cpp — the metrics' sparse engine (metrics/engines.hpp): every row of the
// closure from the supernodal factors, each block of rows reduced to the metrics' sums where it
// was computed (the GPU's row blocks on the GPU, the host's on its threads), so no n x n matrix
// exists anywhere: memory O(nnz(L) + rows per block x V + V).
#include <cstdio>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "metrics/engines.hpp"
#include "sparse/engine.hpp"

namespace apsp::detail {

namespace {

/// RowSums to MetricSums (counts include the vertex itself in both).
MetricSums to_metric_sums(const sparse::RowSums& r, std::int64_t n, bool directed,
                          const MetricsOptions& opt, Dtype t) {
  MetricSums s;
  s.allocate(n, directed, opt, t);
  const bool integer = is_integer(t);
  for (std::size_t v = 0; v < std::size_t(n); ++v) {
    s.out_cnt[v] = r.out_cnt[v];
    s.ecc[v] = integer ? static_cast<long double>(r.out_max_i[v])
                       : static_cast<long double>(r.out_max_f[v]);
    if (integer)
      s.out_sum_i[v] = r.out_sum_i[v];
    else
      s.out_sum_f[v] = r.out_sum_f[v];
    if (!s.columns()) continue;
    // Undirected: d(u, v) = d(v, u), a source's sums are its sums as a target.
    s.in_cnt[v] = directed ? r.in_cnt[v] : r.out_cnt[v];
    s.harm[v] = directed ? r.in_harm[v] : r.out_harm[v];
    if (integer)
      s.in_sum_i[v] = directed ? r.in_sum_i[v] : r.out_sum_i[v];
    else
      s.in_sum_f[v] = directed ? r.in_sum_f[v] : r.out_sum_f[v];
  }
  return s;
}

}  // namespace

std::string sparse_metrics_unfit(const Graph& g, const MetricsOptions& opt, bool negative) {
  if (opt.histogram) return "no histogram (use bfs, dijkstra or fw)";
  if (negative) return "negative weights";
  const std::string why = sparse::auto_candidate(g, 1);
  return why.empty() ? "" : why;
}

MetricSums sparse_sums(const Graph& g, const MetricsOptions& opt, Dtype t, Backend where,
                       const std::vector<int>& devices, const SparsePlan* plan,
                       const SearchRun& run, std::string* detail) {
  const std::int64_t n = g.num_vertices;
  sparse::RowSums rs;
  rs.targets = g.directed && (opt.closeness || opt.harmonic);
  sparse::EngineOptions eo;
  eo.threads = run.threads;
  eo.progress = run.progress;
  eo.stage = run.stage;
  eo.sums = &rs;
  std::unique_ptr<BackendImpl> gpu;
  if (where == Backend::Cuda) {
    gpu = make_cuda_backend();
    if (!gpu || !cuda_backend_info().usable)
      throw BackendUnavailable("the sparse metrics engine on the GPU: no usable cuda GPU");
    eo.device = devices.empty() ? 0 : devices.front();
  } else if (where == Backend::MultiGpu) {
    gpu = make_multigpu_backend();
    if (!gpu || !multigpu_backend_info().usable)
      throw BackendUnavailable("the sparse metrics engine on several GPUs: " +
                               multigpu_backend_info().detail);
    eo.devices = devices;
  }
  eo.rows_backend = gpu.get();
  const sparse::EngineRun r = sparse::solve_supernodal(g, t, eo, plan ? &plan->timed : nullptr);
  if (detail) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "; order %.3f s, factor %.3f s, rows %.3f s", r.order_s,
                  r.factor_s, r.solve_s);
    *detail = r.detail + buf;
  }
  return to_metric_sums(rs, n, g.directed, opt, t);
}

}  // namespace apsp::detail
