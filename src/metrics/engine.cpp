// src/metrics/engine.cpp — compute_metrics(): plan (which engine, and why), then run it.
//
// The cost model compares predicted seconds: Floyd-Warshall does V^3 updates at the CPU's
// measured rate (and needs V^2 distances in memory); the bfs engine does, per batch of 64 W
// sources, about (arcs + V) W word operations per distinct level a vertex is reached at
// (bounded by the depth of one probe search and by 64 W); the dijkstra engine does V searches
// of E log V. An engine whose memory does not fit is never picked. Figures: docs/metrics.md.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/memory_limit.hpp"
#include "core/reference.hpp"
#include "metrics/engines.hpp"
#include "metrics/gpu_engine.hpp"

namespace apsp {

namespace {

// Rates of this project's 2-core CPU box (bench/results/metrics-engines-2026-11-29.md), per
// thread: Floyd-Warshall int32 updates, MS-BFS word-arc operations, Dijkstra heap arcs.
constexpr double kFwUpdatesPerSecond = 1.0e11;
constexpr double kBfsWordArcsPerSecond = 4.0e8;
constexpr double kDijkstraArcsPerSecond = 2.0e7;

struct Facts {
  std::int64_t n = 0, arcs = 0;
  bool integer = true, negative = false;
  std::int64_t scale = 0;  // every weight equals this positive integer; 0: not so
  double min_w = 0, max_w = 0;
};

Facts facts_of(const Graph& g) {
  Facts f;
  f.n = g.num_vertices;
  double first = -1;
  bool uniform = true;
  if (g.is_dense()) {
    const Graph::WeightRange r = g.validated_weight_range();
    f.integer = r.integer_weights;
    f.negative = r.min_weight < 0;
    f.min_w = r.min_weight;
    f.max_w = r.max_abs_weight;
    detail::for_each_arc(g, [&](std::int32_t, std::int32_t, double w) {
      ++f.arcs;
      if (first < 0) first = w;
      uniform = uniform && w == first;
    });
    if (g.dense.unweighted) first = 1, uniform = true;
  } else {
    // One pass for what Graph::validated_weight_range() checks and finds (ids in range, finite
    // weights; smallest weight, largest |w|) and the arcs for_each_arc would give, on this
    // thread: its parallel scan's second thread, spinning afterwards, took a tenth of a bounds
    // run's CPU time on the loaded 2-core box. Anything amiss: validate() throws naming it.
    const std::size_t E = g.src.size();
    if (g.dst.size() != E || g.weight.size() != E || f.n > kMaxVertices) g.validate();
    const auto n = std::uint32_t(f.n);
    bool bad = false;
    double mn = 0, mx = 0;
    std::int64_t edges = 0;
    for (std::size_t e = 0; e < E; ++e) {
      const std::int32_t u = g.src[e], v = g.dst[e];
      const double w = g.weight[e];
      bad = bad || std::uint32_t(u) >= n || std::uint32_t(v) >= n || !std::isfinite(w);
      mn = std::min(mn, w);
      mx = std::max(mx, std::fabs(w));
      if (u == v) continue;
      if (edges++ == 0) first = w;
      uniform = uniform && w == first;
    }
    if (bad) g.validate();
    f.integer = g.integer_weights;
    f.negative = mn < 0;
    f.min_w = mn;
    f.max_w = mx;
    f.arcs = g.directed ? edges : 2 * edges;
  }
  if (f.arcs == 0) first = 1;
  if (uniform && f.integer && first >= 1 && first < 9.0e15) f.scale = std::int64_t(first);
  return f;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 1e6 ? "%.3g s" : "%.2e s", s);
  return buf;
}

Dtype result_dtype(const Facts& f, const SolveOptions& o, const char* engine) {
  if (o.dtype == Dtype::Float32)
    throw UsageError(std::string("--engine ") + engine +
                     " computes exact float64 or integer distances: --type float32 is for "
                     "--engine fw");
  if (o.dtype && is_integer(*o.dtype) && !f.integer)
    throw UsageError(std::string("--type ") + dtype_name(*o.dtype) +
                     ": the weights are not all integers");
  if (o.dtype) return *o.dtype;
  if (!f.integer) return Dtype::Float64;
  const double bound = double(f.n - 1) * std::max(f.max_w, 1.0);
  return bound < double(unreachable<std::int32_t>()) ? Dtype::Int32 : Dtype::Int64;
}

struct Costs {
  double fw = 0, search = 0;
  bool fw_fits = true;
};

Costs costs(const Facts& f, const SolveOptions& o, std::int64_t levels) {
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const double n = double(f.n), a = double(f.arcs);
  Costs c;
  c.fw = n * n * n / (kFwUpdatesPerSecond * threads);
  c.fw_fits = n * n * 4.0 < double(detail::host_memory_limit().bytes);
  if (f.scale > 0) {
    const double words = levels <= 64 && n >= 1024 ? 4 : 1;  // as bfs_sums picks
    const double batches = std::ceil(n / (64 * words));
    const double per_vertex = std::min<double>(double(levels) + 1, 64 * words);
    c.search = batches * (a + n) * words * per_vertex / (kBfsWordArcsPerSecond * threads);
    if (levels > 4 && double(levels) * double(levels) > 16 * n)  // one BFS per source
      c.search = n * (a + n) / (kBfsWordArcsPerSecond * threads);
  } else {
    c.search = n * (a + n) * std::log2(n + 2) / (kDijkstraArcsPerSecond * threads);
  }
  return c;
}

bool can_bound(const Facts& f) { return f.integer && !f.negative; }

/// With `--backend auto`, the bfs engine leaves the host for a usable GPU from this many vertices;
/// on no backend for a graph deeper than this many levels (one probe search): the GPU's batches
/// run one launch per level for 1,024 sources, where the host searches source by source.
constexpr std::int64_t kGpuBfsMinVertices = 4096, kGpuBfsMaxLevels = 1024;

/// Whether the bfs engine runs on the GPU (src/cuda/metrics_msbfs.cu): every weight one integer
/// (scale > 0) and integer sums, the metrics' GPU engine built and a usable cuda GPU, and
/// `--backend cuda` asked, or auto on a graph of at least kGpuBfsMinVertices.
bool bfs_on_gpu(const SolveOptions& o, const Facts& f, std::int64_t levels) {
  if (f.scale <= 0 || (o.dtype && !is_integer(*o.dtype)) || levels > kGpuBfsMaxLevels) return false;
  if (o.backend != Backend::Cuda && o.backend != Backend::Auto) return false;
  if (o.backend == Backend::Auto && f.n < kGpuBfsMinVertices) return false;
  return detail::metrics_gpu_engine() && detail::cuda_backend_info().usable;
}

/// The bfs engine's sums on GPU 0: one search from every vertex along the in-arcs (per-target
/// sums; undirected: per source too), and for a directed graph one more along the out-arcs
/// (per-source sums: eccentricities, out counts and sums).
detail::MetricSums gpu_bfs_sums(const detail::HopGraph& h, const MetricsOptions& opt,
                                std::int64_t scale, Dtype t, const detail::SearchRun& run) {
  const detail::MetricsGpuEngine& e = *detail::metrics_gpu_engine();
  const std::int64_t passes = h.directed ? 2 : 1;
  auto progress = [&](std::int64_t pass) {
    return [&run, pass, passes, n = h.n](std::int64_t done, std::int64_t) {
      if (run.progress) run.progress(pass * n + done, passes * n);
    };
  };
  detail::MetricSums s;
  s.allocate(h.n, h.directed, opt, t);
  const detail::MsbfsSums in = e.target_sums(h.n, h.rstart(), h.radj(), 0, progress(0));
  const auto n = std::size_t(h.n);
  if (opt.histogram) s.hist = in.histogram;
  if (s.columns())
    for (std::size_t v = 0; v < n; ++v) {
      s.in_cnt[v] = in.reached[v];
      s.in_sum_i[v] = in.hop_sum[v];
      s.harm[v] = in.harmonic[v];
    }
  const detail::MsbfsSums out =
      h.directed ? e.target_sums(h.n, h.out_start, h.out_adj, 0, progress(1)) : in;
  for (std::size_t v = 0; v < n; ++v) {
    s.out_cnt[v] = out.reached[v];
    s.out_sum_i[v] = out.hop_sum[v];
    s.ecc[v] = static_cast<long double>(out.farthest[v]);
  }
  detail::apply_scale(s, scale);
  return s;
}

// The sparse engine's rates (sparse/metric_rows.cpp): min-plus updates of the plan's rows and
// factorization, and a fixed cost per distance (fill, sweeps' reads and writes, the sums' pass):
// H200 (bench/results/sparse-direct-engine-2026-11-29.md) and per host thread (2-core box).
constexpr double kSparseGpuUpdatesPerSecond = 2.0e12, kSparseGpuPairsPerSecond = 2.5e11;
constexpr double kSparseCpuUpdatesPerSecond = 1.0e9, kSparseCpuPairsPerSecond = 2.0e8;
/// Graphs below this many vertices never take the sparse engine by auto (its ordering is not
/// worth it there).
constexpr std::int64_t kSparseMinVertices = 1024;

/// The sparse engine's fit for g: why not ("" if it fits), where it runs, its plan and predicted
/// seconds.
struct SparseChoice {
  std::string unfit;
  bool gpu = false;
  Backend where = Backend::Cpu;  ///< cpu, cuda or multi-gpu (the rows split over the GPUs)
  std::shared_ptr<const SparsePlan> plan;
  double seconds = 0;
};

const char* where_text(const SparseChoice& c) {
  return c.where == Backend::MultiGpu ? " on the GPUs" : c.gpu ? " on the GPU" : "";
}

SparseChoice sparse_choice(const Graph& g, const SolveOptions& o, const MetricsOptions& w,
                           const Facts& f, Dtype t) {
  SparseChoice c;
  c.unfit = detail::sparse_metrics_unfit(g, w, f.negative);
  const double n = double(f.n);
  if (c.unfit.empty() && is_integer(t) && n * n * std::max(f.max_w, 1.0) >= 0x1p62)
    c.unfit = "its 64-bit sums could overflow";
  if (c.unfit.empty() && o.backend != Backend::Auto && o.backend != Backend::Cpu &&
      o.backend != Backend::Cuda && o.backend != Backend::MultiGpu)
    c.unfit = std::string("backend ") + backend_name(o.backend);
  if (!c.unfit.empty()) return c;
  c.gpu = o.backend == Backend::Cuda || o.backend == Backend::MultiGpu ||
          (o.backend == Backend::Auto && f.n >= kGpuBfsMinVertices &&
           detail::cuda_backend_info().usable);
  c.where = o.backend == Backend::MultiGpu ? Backend::MultiGpu
            : c.gpu                        ? Backend::Cuda
                                           : Backend::Cpu;
  if (o.on_stage) o.on_stage("order");
  try {
    c.plan = plan_sparse(g);
  } catch (const UsageError& e) {
    c.unfit = e.what();
  }
  if (o.on_stage) o.on_stage("");  // priced: the engine chosen next has stages of its own
  if (!c.unfit.empty()) return c;
  const SparsePlanInfo i = sparse_plan_info(*c.plan);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const double work = i.work_fraction * n * n * n;
  c.seconds = i.order_s + i.symbolic_s +
              (c.gpu ? work / kSparseGpuUpdatesPerSecond + n * n / kSparseGpuPairsPerSecond
                     : (work / kSparseCpuUpdatesPerSecond + n * n / kSparseCpuPairsPerSecond) /
                           threads);
  return c;
}

MetricsPlan plan_auto(const Graph& g, const SolveOptions& o, const MetricsOptions& w,
                      const Facts& f, SparseChoice* keep) {
  if (w.extremes_only && can_bound(f) && o.dtype != Dtype::Float32)
    return {MetricsEngine::Bounds,
            g.directed ? "bounds: only extremes asked (forward and backward searches)"
                       : "bounds: only extremes asked"};
  if (o.dtype == Dtype::Float32) return {MetricsEngine::Fw, "fw: float32 asked"};
  if (o.backend == Backend::Cuda && f.scale > 0 &&
      bfs_on_gpu(o, f, detail::probe_levels(detail::make_hop_graph(g))))
    return {MetricsEngine::Bfs, "bfs on the GPU: cuda asked, every weight equal"};
  std::int64_t probed = -1;  // the hop depth of one probe search, made once where needed
  auto depth = [&] {
    if (probed < 0) probed = detail::probe_levels(detail::make_hop_graph(g));
    return probed;
  };
  SparseChoice sp;
  sp.unfit = std::to_string(f.n) + " vertices";
  if (f.n >= kSparseMinVertices) {
    // Graphs with small separators (roads, meshes, grids) are deep: the probe finds far more
    // levels than an expander's (RMAT, random graphs) few times log2 V, whose plan alone (its
    // ordering and fill) could cost more than any engine.
    const double shallow = std::max(32.0, 2 * std::log2(double(f.n)));
    if (double(depth()) < shallow)
      sp.unfit = "hop depth " + std::to_string(probed) + ": no small separators";
    else
      sp = sparse_choice(g, o, w, f, result_dtype(f, o, "sparse"));
  }
  const std::string sparse_figures =
      sp.unfit.empty() ? std::string(", sparse ") + (sp.gpu ? "(GPU) " : "") + seconds(sp.seconds)
                       : "";
  auto take_sparse = [&](const std::string& why) {
    if (keep) *keep = sp;
    return MetricsPlan{MetricsEngine::Sparse, "sparse" + std::string(where_text(sp)) +
                                                  ": " + why};
  };
  if (o.backend != Backend::Auto && o.backend != Backend::Cpu) {
    if ((o.backend == Backend::Cuda || o.backend == Backend::MultiGpu) && sp.unfit.empty())
      return take_sparse(std::string(backend_name(o.backend)) +
                         " asked, the graph has small separators (predicted " +
                         seconds(sp.seconds) + ")");
    return {MetricsEngine::Fw, std::string("fw: backend ") + backend_name(o.backend) + " asked"};
  }
  const Costs c = costs(f, o, f.scale > 0 ? depth() : f.n);
  const MetricsEngine search = f.scale > 0 ? MetricsEngine::Bfs : MetricsEngine::Dijkstra;
  const std::string name = metrics_engine_name(search);
  const std::string figures = name + " predicted " + seconds(c.search) + ", fw " + seconds(c.fw) +
                              sparse_figures +
                              (c.fw_fits ? "" : " (fw's V^2 distances do not fit host memory)");
  const double fw = c.fw_fits ? c.fw : HUGE_VAL;
  if (sp.unfit.empty() && sp.seconds < std::min(fw, c.search)) return take_sparse(figures);
  if (!c.fw_fits || c.search < c.fw) return {search, name + ": " + figures};
  return {MetricsEngine::Fw, "fw: " + figures};
}

void check_forced(const MetricsOptions& w, const Facts& f) {
  switch (w.engine) {
    case MetricsEngine::Bfs:
      if (f.scale == 0)
        throw UsageError(
            "--engine bfs: needs every weight equal to one positive integer (use dijkstra)");
      break;
    case MetricsEngine::Bounds:
      if (!can_bound(f)) throw UsageError("--engine bounds: needs non-negative integer weights");
      if (!w.extremes_only)
        throw UsageError("--engine bounds: computes diameter, radius, center and periphery only");
      break;
    default:
      break;
  }
}

Metrics run_bounds(const Graph& g, const SolveOptions& o, const MetricsOptions& w, const Facts& f) {
  detail::SearchRun run{o.threads, o.progress, o.on_stage};
  // The full engine costs about V / 64 searches: beyond that the bounds are not worth it.
  const std::int64_t cap = std::max<std::int64_t>(64, f.n / 64);
  auto x = detail::bounded_extremes(g, f.scale, w.extremes, cap, run);
  Metrics m;
  if (x) {
    m.num_vertices = f.n;
    m.directed = g.directed;
    m.dtype = result_dtype(f, o, "bounds");
    m.extremes = std::move(*x);
    return m;
  }
  MetricsOptions full = w;
  full.closeness = full.harmonic = false;
  m = f.scale > 0 ? detail::finish_sums(detail::bfs_sums(detail::make_hop_graph(g), full, f.scale,
                                                         result_dtype(f, o, "bfs"), run))
                  : detail::dijkstra_metrics(g, full, result_dtype(f, o, "dijkstra"), run);
  m.engine = f.scale > 0 ? "bfs" : "dijkstra";
  m.plan = "bounds did not close within " + std::to_string(cap) + " searches: " + m.engine;
  return m;
}

}  // namespace

const char* metrics_engine_name(MetricsEngine e) {
  switch (e) {
    case MetricsEngine::Auto:
      return "auto";
    case MetricsEngine::Fw:
      return "fw";
    case MetricsEngine::Bfs:
      return "bfs";
    case MetricsEngine::Dijkstra:
      return "dijkstra";
    case MetricsEngine::Bounds:
      return "bounds";
    case MetricsEngine::Sparse:
      return "sparse";
  }
  return "?";
}

MetricsEngine parse_metrics_engine(const std::string& name) {
  for (MetricsEngine e : {MetricsEngine::Auto, MetricsEngine::Fw, MetricsEngine::Bfs,
                          MetricsEngine::Dijkstra, MetricsEngine::Bounds, MetricsEngine::Sparse})
    if (name == metrics_engine_name(e)) return e;
  throw UsageError("unknown metrics engine '" + name +
                   "' (expected auto, fw, bfs, dijkstra, bounds or sparse)");
}

/// Before anything per vertex (the hop graph, the level probe): the least any engine holds, the
/// per-vertex sums and one word of search state a thread (about 64 bytes each a vertex), must fit.
void check_least_memory(std::int64_t n, const SolveOptions& o) {
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const double need = double(n) * 64.0 * double(1 + threads);
  const detail::MemoryLimit have = detail::host_memory_limit();
  if (need <= double(have.bytes)) return;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "V = %lld needs %.0f bytes (%.1f GiB) for the metrics' per-vertex state with %d "
                "threads (the smallest engine's), more than the %llu bytes available (%s; set "
                "APSP_HOST_MEMORY to override)",
                static_cast<long long>(n), need, need / double(1 << 30), threads,
                static_cast<unsigned long long>(have.bytes), have.source.c_str());
  throw ResourceError(buf);
}

namespace {

MetricsPlan plan_with(const Graph& g, const SolveOptions& o, const MetricsOptions& w,
                      const Facts& f, SparseChoice* keep = nullptr) {
  if (w.engine == MetricsEngine::Auto) return plan_auto(g, o, w, f, keep);
  check_forced(w, f);
  if (w.engine == MetricsEngine::Sparse) {
    SparseChoice sp = sparse_choice(g, o, w, f, result_dtype(f, o, "sparse"));
    if (!sp.unfit.empty()) throw UsageError("--engine sparse: " + sp.unfit);
    if (keep) *keep = sp;
    return {w.engine, std::string("sparse") + where_text(sp) + ": asked"};
  }
  return {w.engine, std::string(metrics_engine_name(w.engine)) + ": asked"};
}

/// The sparse engine's run: sums where the rows are computed, then the metrics.
Metrics run_sparse(const Graph& g, const SolveOptions& o, const MetricsOptions& w, const Facts& f,
                   const MetricsPlan& plan, const SparseChoice& sp) {
  const detail::SearchRun run{o.threads, o.progress, o.on_stage};
  std::string detail;
  const Dtype t = result_dtype(f, o, "sparse");
  Metrics m = detail::finish_sums(
      detail::sparse_sums(g, w, t, sp.where, o.devices, sp.plan.get(), run, &detail));
  m.engine = "sparse";
  m.backend = backend_name(sp.where);
  m.plan = plan.why + " (" + detail + ")";
  return m;
}

Facts checked_facts(const Graph& g, const SolveOptions& o, const MetricsOptions& w) {
  if (g.num_vertices < 1) throw UsageError("metrics: the graph has no vertices");
  if (w.engine != MetricsEngine::Fw) check_least_memory(g.num_vertices, o);
  return facts_of(g);
}

}  // namespace

MetricsPlan plan_metrics(const Graph& g, const SolveOptions& o, const MetricsOptions& w) {
  return plan_with(g, o, w, checked_facts(g, o, w));
}

Metrics compute_metrics(const Graph& g, const SolveOptions& o, const MetricsOptions& w) {
  const Facts f = checked_facts(g, o, w);
  SparseChoice sparse;
  const MetricsPlan plan = plan_with(g, o, w, f, &sparse);
  if (plan.engine == MetricsEngine::Sparse) return run_sparse(g, o, w, f, plan, sparse);
  if (plan.engine == MetricsEngine::Fw) {
    Metrics m = detail::fw_metrics(g, o, w);
    m.plan = plan.why;
    return m;
  }
  const detail::SearchRun run{o.threads, o.progress, o.on_stage};
  Metrics m;
  if (plan.engine == MetricsEngine::Bounds) {
    m = run_bounds(g, o, w, f);
    if (m.extremes) m.engine = "bounds", m.plan = plan.why;
  } else if (plan.engine == MetricsEngine::Bfs) {
    const Dtype t = result_dtype(f, o, "bfs");
    const detail::HopGraph h = detail::make_hop_graph(g);
    if (bfs_on_gpu(o, f, detail::probe_levels(h))) {
      m = detail::finish_sums(gpu_bfs_sums(h, w, f.scale, t, run));
      m.backend = "cuda";
    } else {
      m = detail::finish_sums(detail::bfs_sums(h, w, f.scale, t, run));
    }
    m.engine = "bfs";
  } else {
    m = detail::dijkstra_metrics(g, w, result_dtype(f, o, "dijkstra"), run);
    m.engine = "dijkstra";
  }
  if (m.backend.empty()) m.backend = "cpu";
  if (m.plan.empty()) m.plan = plan.why;
  return m;
}

}  // namespace apsp
