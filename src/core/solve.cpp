// src/core/solve.cpp — solve(): validation, dtype choice, Johnson reweighting, backend dispatch;
// dense graphs straight into the distance matrix, or into an edge list where edges are needed.
#include "apsp/solve.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "core/backend.hpp"
#include "core/distance_evidence.hpp"
#include "core/float_bound.hpp"
#include "core/johnson.hpp"
#include "core/memory_limit.hpp"
#include "core/options_check.hpp"
#include "core/reference.hpp"
#include "order/choice.hpp"
#include "sparse/engine.hpp"

namespace apsp {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Largest finite distance magnitude a graph can produce: (V-1) * max|w|.
double distance_bound(std::int64_t n, double max_abs_weight) {
  return double(n - 1) * max_abs_weight;
}
double distance_bound(const Graph& g) { return distance_bound(g.num_vertices, g.max_abs_weight()); }
constexpr double kInt32Bound = double((std::int64_t{1} << 30) - 1);
constexpr double kInt64Bound = double((std::int64_t{1} << 62) - 1);

std::unique_ptr<detail::BackendImpl> make_backend(Backend b) {
  switch (b) {
    case Backend::Cpu:
      return detail::make_cpu_backend();
    case Backend::Cuda:
      return detail::make_cuda_backend();
    case Backend::MultiGpu:
      return detail::make_multigpu_backend();
    case Backend::Mpi:
      return detail::make_mpi_backend();
    case Backend::Hip:
      return detail::make_hip_backend();
    case Backend::Auto:
      break;
  }
  return nullptr;
}

BackendInfo info_of(Backend b) {
  switch (b) {
    case Backend::Cpu:
      return detail::cpu_backend_info();
    case Backend::Cuda:
      return detail::cuda_backend_info();
    case Backend::MultiGpu:
      return detail::multigpu_backend_info();
    case Backend::Mpi:
      return detail::mpi_backend_info();
    case Backend::Hip:
      return detail::hip_backend_info();
    case Backend::Auto:
      break;
  }
  return {};
}

/// The backend that will run: the one asked for, or for auto the CUDA backend when a GPU is
/// usable and supports the dtype, else the HIP backend likewise (an AMD GPU), else the CPU backend.
std::unique_ptr<detail::BackendImpl> pick_backend(const SolveOptions& o,
                                                  std::optional<Dtype> want) {
  if (o.backend != Backend::Auto) {
    const BackendInfo info = info_of(o.backend);
    if (!info.usable)
      throw BackendUnavailable(std::string("backend '") + backend_name(o.backend) +
                               "' is not available: " + info.detail);
    return make_backend(o.backend);
  }
  if (detail::cuda_backend_info().usable) {
    auto b = detail::make_cuda_backend();
    if (b && (!want || b->supports(*want))) return b;
  }
  if (detail::hip_backend_info().usable) {
    auto b = detail::make_hip_backend();
    if (b && (!want || b->supports(*want))) return b;
  }
  return detail::make_cpu_backend();
}

/// Johnson's d(u,v) = d'(u,v) - h(u) + h(v) on a stripe that a streaming backend hands out.
/// Copies the stripe (the backend's buffer is read-only) and passes the copy on.
RowSink restoring_sink(RowSink sink, const std::vector<double>& h) {
  return [sink = std::move(sink), &h](const RowBlock& b) {
    Matrix copy(b.rows, b.cols, b.dtype);
    visit_dtype(b.dtype, [&](auto tag) {
      using T = decltype(tag);
      const T inf = unreachable<T>();
      for (std::int64_t r = 0; r < b.rows; ++r) {
        const T* in = static_cast<const T*>(b.data) + r * b.stride;
        T* out = copy.row<T>(r);
        const std::int64_t u = b.row0 + r;
        for (std::int64_t v = 0; v < b.cols; ++v)
          if (in[v] >= inf || u == v)
            out[v] = in[v];
          else if constexpr (std::is_integral_v<T>)
            out[v] = T(std::int64_t(in[v]) - std::llround(h[u]) + std::llround(h[v]));
          else
            out[v] = T(double(in[v]) - h[u] + h[v]);
      }
    });
    sink(RowBlock{b.row0, b.rows, b.cols, b.cols, b.dtype, copy.raw()});
  };
}

/// choose_dtype for a graph whose distances are bounded by `bound` in magnitude.
Dtype choose_dtype_for(double bound, bool integer_weights, const SolveOptions& o) {
  if (o.dtype) {
    const Dtype t = *o.dtype;
    if (is_integer(t) && !integer_weights)
      throw UsageError(std::string("type ") + dtype_name(t) +
                       " cannot hold fractional weights; use float32 or float64");
    if (t == Dtype::Int32 && bound >= kInt32Bound) {
      std::ostringstream os;
      os.precision(17);
      os << "int32 cannot be exact for this graph: (V-1)*max|w| = " << bound
         << " reaches 2^30-1; use --type int64";
      throw UsageError(os.str());
    }
    if (t == Dtype::Int64 && bound >= kInt64Bound)
      throw UsageError("int64 cannot be exact for this graph: (V-1)*max|w| reaches 2^62-1");
    return t;
  }
  if (!integer_weights) return Dtype::Float64;
  if (bound < kInt32Bound) return Dtype::Int32;
  if (bound < kInt64Bound) return Dtype::Int64;
  if (!(bound < std::numeric_limits<double>::max())) {  // float64 would overflow too
    std::ostringstream os;
    os.precision(8);
    os << "weights too large for every type: (V-1)*max|w| ";
    if (std::isfinite(bound))
      os << "= " << bound << " reaches";
    else
      os << "overflows";
    os << " the largest finite float64 (and 2^62-1), so a path sum could overflow; scale the "
          "weights down";
    throw UsageError(os.str());
  }
  throw UsageError(
      "weights too large for exact integer distances: (V-1)*max|w| reaches 2^62-1; use --type "
      "float64");
}

/// The last stage of every solve: Johnson's restore, the next-hop repair, and the sinks for a
/// result that was not streamed.
void hand_out_result(Result& result, const Graph& in, const std::vector<double>& h,
                     const SolveOptions& options) {
  // Johnson's potentials exist only without negative cycles, so the kernels never see one.
  if (!h.empty() && !result.dist.empty()) detail::restore(result.dist, h);
  // Blocked FW can leave next-hop walks looping across zero-weight cycles (see paths.hpp);
  // repair those columns. Streamed next hops (next_sink without a matrix) cannot be repaired here.
  if (options.paths && !result.next.empty() && !result.dist.empty())
    repair_next_hops(in, result.dist, result.next);
  // Backends that did not stream leave the full matrices here: hand them to the sinks now.
  auto hand_out = [](const Matrix& m, const RowSink& sink) {
    if (!sink || m.empty()) return;
    sink(RowBlock{0, m.rows(), m.cols(), m.stride(), m.dtype(), m.raw()});
  };
  hand_out(result.dist, options.dist_sink);
  hand_out(result.next, options.next_sink);
}

/// --order sn: the sparse direct engine (src/sparse): factors on the host's threads, rows on the
/// cuda backend's GPU or the host's threads; the result in the user's order, whole or streamed.
void run_supernodal(const Graph& g, Dtype t, const SolveOptions& o, detail::BackendImpl& backend,
                    const std::vector<double>& h, Result& result,
                    const detail::sparse::TimedPlan* plan = nullptr) {
  const bool gpu = backend.name() == "cuda";
  if (!gpu && backend.name() != "cpu")
    throw UsageError("--order sn runs on the cpu and cuda backends (asked: " + backend.name() +
                     ")");
  const std::int64_t n = g.num_vertices;
  detail::sparse::EngineOptions eo;
  eo.paths = o.paths;
  eo.threads = o.threads;
  eo.progress = o.progress;
  eo.rows_backend = gpu ? &backend : nullptr;
  eo.device = o.devices.empty() ? 0 : o.devices.front();
  // Streamed straight from the device (restored on the way under Johnson) where no next hops
  // need the whole matrix; else the whole matrix comes back to this host.
  const bool streamed = gpu && o.dist_sink && !o.paths;
  if (streamed) eo.sink = h.empty() ? o.dist_sink : restoring_sink(o.dist_sink, h);
  if (!streamed) detail::check_host_memory(n, round_up(n, 32), t, o.paths);
  const auto t0 = Clock::now();
  detail::sparse::EngineRun run = detail::sparse::solve_supernodal(g, t, eo, plan);
  result.timings.order = run.order_s;
  result.timings.symbolic = run.symbolic_s;
  result.timings.h2d = run.h2d_s;
  result.timings.compute = run.factor_s + run.solve_s + run.paths_s;
  result.timings.d2h = run.d2h_s;
  result.timings.build = std::max(0.0, seconds_since(t0) - run.order_s - run.symbolic_s -
                                           run.h2d_s - result.timings.compute - run.d2h_s);
  result.dist = streamed ? Matrix(0, 0, t) : std::move(run.dist);
  result.next = std::move(run.next);
  result.order = o.sparse_plan ? "sn (plan)" : plan ? "sn (auto)" : "sn";
  result.work_fraction = run.work_fraction;
  result.rounds = dtype_name(t);
  result.backend = backend.name();
  result.notes.push_back("sparse direct engine: " + std::to_string(run.supernodes) +
                         " supernodes, factor " + std::to_string(run.factor_s) + " s, rows " +
                         std::to_string(run.solve_s) + " s (" + run.detail + ")");
}

/// --order auto: the sparse direct engine's plan for g when the engine may pay here (cpu and cuda
/// backends, a sparse edge list, the result fits), kept when its work is below
/// sparse::kAutoMaxFraction of the dense rounds'; else none, with why in `why`.
std::optional<detail::sparse::TimedPlan> auto_supernodal(const Graph& g, Dtype t,
                                                         const SolveOptions& o,
                                                         const detail::BackendImpl& backend,
                                                         std::string& why) {
  const bool gpu = backend.name() == "cuda";
  if (o.order != Order::Auto || o.sparse_plan || (!gpu && backend.name() != "cpu"))
    return std::nullopt;
  if (o.paths) return std::nullopt;  // auto keeps the rounds' next-hop rules (docs/paths.md)
  // The cpu backend from 4 tiles of 256 a side, cuda from 128 tiles of 128 (as nd's auto).
  why = detail::sparse::auto_candidate(g, gpu ? 128 * 128 : 4 * 256);
  if (!why.empty()) return std::nullopt;
  try {
    if (gpu) backend.check_fits(g.num_vertices, t, 128, false);
  } catch (const ResourceError&) {
    why = "the n x n result does not fit the GPU";
    return std::nullopt;
  }
  detail::sparse::TimedPlan p = detail::sparse::plan_supernodal(g);
  if (p.work_fraction() > detail::sparse::kAutoMaxFraction) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "sn would run %.2f%% of the dense work",
                  100 * p.work_fraction());
    why = buf;
    return std::nullopt;
  }
  return p;
}

}  // namespace

namespace detail {
bool host_memory_fits(std::int64_t n_pad, double bytes_per_cell) {
  return double(n_pad) * double(n_pad) * bytes_per_cell <= double(host_memory_limit().bytes);
}

bool int32_in_band(const Matrix& d, int lo) {
  const std::int64_t n = d.rows();
  const std::int32_t cap = unreachable<std::int32_t>();
  bool found = false;
#pragma omp parallel for schedule(static) reduction(|| : found) if (n >= 256)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t* r = d.row<std::int32_t>(i);
    bool f = false;
    for (std::int64_t j = 0; j < n; ++j) f |= r[j] >= lo && r[j] < cap;
    found = found || f;
  }
  return found;
}

Matrix widen_to_int64(const Matrix& d, Memory memory) {
  const std::int64_t n = d.rows();
  Matrix w(n, n, d.stride(), d.stride(), Dtype::Int64, memory);
  const std::int32_t cap = unreachable<std::int32_t>();
#pragma omp parallel for schedule(static) if (n >= 256)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t* r = d.row<std::int32_t>(i);
    std::int64_t* o = w.row<std::int64_t>(i);
    for (std::int64_t j = 0; j < n; ++j)
      o[j] = r[j] >= cap ? unreachable<std::int64_t>() : std::int64_t(r[j]);
  }
  return w;
}
}  // namespace detail

Dtype choose_dtype(const Graph& g, const SolveOptions& o) {
  if (g.is_dense()) {  // one scan; the Graph's flag may not come from one (graph.hpp)
    const Graph::WeightRange r = g.validated_weight_range();
    return choose_dtype_for(distance_bound(g.num_vertices, r.max_abs_weight), r.integer_weights, o);
  }
  return choose_dtype_for(distance_bound(g), g.integer_weights, o);
}

void warm_up(Backend backend, const std::vector<int>& devices) {
  if (backend == Backend::Auto || backend == Backend::Cuda)
    detail::cuda_warm_up(devices.empty() ? 0 : devices[0]);
}

std::vector<BackendInfo> backends() {
  return {detail::cpu_backend_info(), detail::cuda_backend_info(), detail::multigpu_backend_info(),
          detail::mpi_backend_info(), detail::hip_backend_info()};
}

Result solve(const Graph& input, const SolveOptions& requested) {
  const SolveOptions options =
      detail::checked_options(requested);  // numbers validated, threads clamped
  Result result;
  const auto t_build = Clock::now();
  const Graph::WeightRange range = input.validated_weight_range();  // one scan for a dense graph
  if (options.block < 0) throw UsageError("block size must be positive");
  // Nothing per vertex (Johnson, ordering) before the host has room for the result.
  detail::check_host_memory_early(input.num_vertices, options);

  // A dense graph (a view of the caller's V x V matrix) goes straight into the distance matrix
  // when the kernels see the graph as it is: solve() builds that matrix from it (backends without
  // builds_matrix(): the CPU backend), or the backend does (builds_matrix_from_dense(): cuda,
  // multi-gpu). Paths read its arcs in place too (detail::for_each_arc: the next hops of cpu and
  // cuda, positive_weights, repair_next_hops). Its entries are copied into an edge list once,
  // here, only where edges are needed: Johnson reweighting (negative weights, a new graph anyway)
  // and a backend that builds its matrix from edges only (mpi). `in` is the input from then on.
  Graph copied;
  const Graph* in = &input;
  auto to_edges = [&](const std::string& why) {
    if (!in->is_dense()) return;
    copied = input.edges_from_dense();
    copied.integer_weights = range.integer_weights;  // the scan's answer (graph.hpp)
    in = &copied;
    result.notes.push_back("dense input copied into an edge list (16 bytes per edge): " + why);
  };

  // Johnson: with a negative weight, solve the reweighted (non-negative) graph and map back.
  std::vector<double> h;
  Graph reweighted;
  if (range.min_weight < 0) {
    to_edges("negative weights (Johnson's potentials)");
    h = detail::johnson_potentials(*in);  // names a negative cycle if there is one
    // Float rounds run on the weights as given: Floyd-Warshall is right with negative arcs and
    // no negative cycle, and +inf absorbs them, so no potential's rounding reaches a distance
    // (0.001 stays 0.001). Integer sentinels would not absorb them, and the float next-hop
    // pass prunes arcs by non-negative distances: those keep Johnson's reweighting.
    const bool floats = !range.integer_weights || (options.dtype && !is_integer(*options.dtype));
    if (floats && !options.paths) {
      h.clear();
      result.notes.push_back(
          "negative weights, no negative cycle: float rounds on the weights "
          "as given");
    } else {
      reweighted = detail::reweight(*in, h);
    }
  }
  const Graph* g = h.empty() ? in : &reweighted;
  // Integer weights: for the input as given, the scan's answer (a dense Graph's flag may not come
  // from a scan); reweighted graphs carry their own.
  auto integer_weights = [&](const Graph* x) {
    return x == &input ? range.integer_weights : x->integer_weights;
  };

  // dtype: decided on the graph the kernels see. No backend changes it: one that cannot run it
  // refuses (auto falls back to the cpu backend, which runs every type).
  auto backend = pick_backend(options, options.dtype);
  SolveOptions o = options;
  const double input_bound = distance_bound(input.num_vertices, range.max_abs_weight);
  Dtype t = choose_dtype_for(h.empty() ? input_bound : distance_bound(*g), integer_weights(g), o);
  if (!h.empty() && t == Dtype::Int32 && input_bound >= kInt32Bound) {
    // Under Johnson the kernels see d' (bounded by the reweighted graph, checked above) but the
    // restored d = d' - h(u) + h(v) is bounded by the original graph: it must fit int32 too.
    if (o.dtype)
      throw UsageError(
          "int32 cannot be exact for this graph: the restored distances can reach (V-1)*max|w| = " +
          std::to_string(std::llround(input_bound)) + " >= 2^30-1; use --type int64");
    t = Dtype::Int64;
  }
  // Floats: a path sum that could overflow to inf would read as unreachable (float_bound.hpp).
  detail::check_float_weights_fit(input.num_vertices, range.max_abs_weight, t);
  if (!h.empty()) detail::check_float_weights_fit(*g, t);
  if (!backend->supports(t)) {
    if (options.backend == Backend::Auto)
      backend = detail::make_cpu_backend();
    else
      throw UsageError(std::string("backend '") + backend->name() + "' does not support " +
                       dtype_name(t) +
                       (options.dtype ? "" : " (needed for exact distances on this graph)") +
                       "; the cpu and cuda backends run every type");
  }
  if (!options.dtype && t == Dtype::Int64)
    result.notes.push_back("distances computed in int64: (V-1)*max|w| reaches 2^30-1");
  std::string no_sn;
  std::optional<detail::sparse::TimedPlan> sn_plan =
      auto_supernodal(*g, t, options, *backend, no_sn);
  if (options.sparse_plan && options.order != Order::Auto && options.order != Order::Supernodal)
    throw UsageError(std::string("a sparse plan runs the sparse direct engine (order sn), not "
                                 "order ") +
                     order_name(options.order));
  const detail::sparse::TimedPlan* given = options.sparse_plan ? &options.sparse_plan->timed
                                           : sn_plan           ? &*sn_plan
                                                               : nullptr;
  if (options.order == Order::Supernodal || given) {
    run_supernodal(*g, t, options, *backend, h, result, given);
    if (!result.dist.empty()) hand_out_result(result, *in, h, options);
    return result;
  }
  if (!no_sn.empty() && no_sn.rfind("sn would", 0) == 0) result.notes.push_back("auto: " + no_sn);

  const std::int64_t n = g->num_vertices;
  const int block = options.block ? options.block : backend->default_block(t, n);
  const std::int64_t n_user_pad = round_up(n, std::max(1, backend->pad_multiple(t, block)));
  // Sparse rounds (docs/sparse.md): the vertex order the rounds run in and the tiles each round
  // can touch. The ordered graph may have padding vertices (n_pad >= n_user_pad); the result is
  // put back in the user's order below.
  // A result too large for this host is refused before any ordering work (which is O(V + E)),
  // where solve() unpermutes whole matrices: only where the matrices come back (rank 0 of mpi),
  // agreed on by every MPI rank. auto then keeps the dense rounds (which mpi can stream).
  Order asked_order = options.order;
  std::string no_memory;
  if (backend->skips_tiles() && !backend->unpermutes() && asked_order != Order::None) {
    std::string problem;
    if (backend->receives_result()) {
      try {
        // The ordered result and its copy in the user's order (the ordered one is padded more:
        // checked again below once the order is known).
        detail::check_host_memory(n, n_user_pad, t, options.paths, n_user_pad);
      } catch (const ResourceError& e) {
        problem = e.what();
      }
    }
    try {
      backend->agree_on(problem);
    } catch (const ResourceError&) {
      if (asked_order == Order::NestedDissection) throw;
      asked_order = Order::None;
      no_memory = "none (auto: no host memory to unpermute the ordered result)";
    }
  }
  if (options.order == Order::NestedDissection && g->is_dense()) {
    to_edges("--order nd");
    g = in;
  }
  // Tiles of any multiple of 32 up to the block (cpu), or all of the order tile's width (the
  // GPU's 128, also mpi's: every tile bound aligned to it; the dense rounds' work is then that of
  // round_up(n, 128)).
  const std::int64_t tile = backend->order_tile(t, block);
  const bool uniform = backend->uniform_tiles();
  const detail::NdLayout layout =
      uniform ? detail::NdLayout{tile, detail::kGpuLeaf} : detail::NdLayout{};
  const std::int64_t auto_min_tiles = backend->auto_min_tiles() > 0 ? backend->auto_min_tiles()
                                      : uniform                     ? detail::kAutoMinTilesGpu
                                                                    : detail::kAutoMinTiles;
  detail::OrderChoice order = detail::choose_order(
      *g, asked_order, backend->skips_tiles(), backend->name(),
      uniform ? round_up(n_user_pad, tile) : n_user_pad,
      uniform ? tile : std::min<std::int64_t>(tile, n_user_pad), layout, auto_min_tiles);
  if (!no_memory.empty()) order.label = no_memory;
  if (options.order == Order::Auto && order.plan && order.plan->n > n_user_pad) {
    // Padding makes the ordered matrix larger: where only the dense one fits (the GPU's memory),
    // auto keeps the dense rounds.
    try {
      // With the plan set: a backend that hands an ordered result out itself counts what that
      // takes too (multi-gpu's stripe buffers on the GPUs).
      backend->set_tile_plan(order.plan);
      backend->check_fits(order.plan->n, t, block, options.paths);
    } catch (const ResourceError&) {
      const double order_s = order.order_s, symbolic_s = order.symbolic_s;
      order = detail::OrderChoice{};
      order.label = "none (auto: the ordered matrix does not fit)";
      order.order_s = order_s;
      order.symbolic_s = symbolic_s;
    }
  }
  if (!order.perm.empty()) g = &order.graph;
  if (backend->skips_tiles()) backend->set_tile_plan(order.plan);
  // The backend puts the result back in the user's order (the cuda backend: on the GPU, stripe
  // by stripe), or solve() does, below, on whole matrices.
  const bool backend_unpermutes = !order.perm.empty() && backend->unpermutes();
  if (backend->unpermutes())
    backend->set_permutation(
        order.perm.empty() ? nullptr : std::make_shared<const detail::Permutation>(order.perm));
  result.order = order.label;
  result.work_fraction = order.work_fraction;
  const double order_s = order.order_s + order.symbolic_s;  // not part of build
  // The rounds' matrix size, and the result's (the user's, where the backend unpermutes).
  const std::int64_t n_pad = order.perm.empty() ? n_user_pad : order.plan->n;
  const std::int64_t n_result_pad = backend_unpermutes ? n_user_pad : n_pad;
  // A backend that builds its own matrix and streams distances (and, with paths, next hops that
  // need no repair) to the sinks never needs the host matrices; nor does an MPI rank other than
  // 0. They get empty matrices that only carry the dtype, and V is not limited by this host's
  // memory. Otherwise (paths on a backend that does not stream them) the whole matrices come
  // back for the next-hop repair.
  // An ordered result that solve() unpermutes (the cpu backend's) is never streamed: it comes
  // back whole and is handed out below.
  const bool solve_unpermutes = !order.perm.empty() && !backend_unpermutes;
  const bool streamed = !solve_unpermutes && backend->builds_matrix() && options.dist_sink &&
                        (!options.paths || (options.next_sink && backend->streams_paths()));
  const bool no_matrices = streamed || (backend->builds_matrix() && !backend->receives_result());
  std::string problem;  // agreed on by every MPI rank before anyone throws (agree_on)
  if (!no_matrices) {
    try {
      detail::check_host_memory(n, n_result_pad, t, options.paths,
                                solve_unpermutes ? n_user_pad : 0);
    } catch (const ResourceError& e) {
      problem = e.what();
    }
  }
  backend->agree_on(problem);
  backend->check_fits(order.perm.empty() ? n : n_pad, t, block, options.paths);
  if (g->is_dense()) {
    if (backend->builds_matrix() && !backend->builds_matrix_from_dense())
      to_edges("the " + backend->name() + " backend builds its matrix from edges");
    g = in;
  }

  if (solve_unpermutes) {  // the sinks get the unpermuted matrices below (hand_out)
    o.dist_sink = nullptr;
    o.next_sink = nullptr;
  }
  // Next hops kept whole (no next_sink) are repaired below against the whole distances: those
  // come back whole too, and reach the sink after the repair (hand_out).
  if (options.paths && !options.next_sink) o.dist_sink = nullptr;
  if (!h.empty() && o.dist_sink) o.dist_sink = restoring_sink(o.dist_sink, h);
  // int32 stripes only where the rounds' matrix is the result as is: not under Johnson (restored
  // distances), with paths, or in a sparse order that solve() unpermutes below (the cuda
  // backend's stripes leave in the user's order).
  if (!h.empty() || options.paths || !o.dist_sink || (!order.perm.empty() && !backend_unpermutes))
    o.int32_stripes = false;
  // The checked int32 rung where solve() holds the matrices (the cpu backend): int32 rounds,
  // kept when the band check proves them exact (distance_evidence.hpp), then widened to int64.
  // The cuda backend runs its own ladder (int16x2 -> int32 -> int64) on the device.
  bool ran = false;
  Timings dropped;  // a dropped int32 pass: its compute counts in the result's time too
  if (t == Dtype::Int64 && !no_matrices && !backend->builds_matrix()) {
    const double max_w = g == &input ? range.max_abs_weight : g->max_abs_weight();
    const double min_w = g == &input ? range.min_weight : g->min_weight();
    constexpr double cap = double(unreachable<std::int32_t>());
    std::string why;
    if (!detail::rung_applicable(max_w, min_w, cap)) {
      why = "weights reach 2^30-1";
    } else if (!detail::host_memory_fits(n_pad, 12 + (options.paths ? 4 : 0))) {
      why = "no memory for int32 rounds beside the int64 result";
    } else {
      const double lo = detail::rung_band_low(max_w, cap);
      if (detail::sampled_distance_lower_bound(*g, 8, lo) >= lo) {
        why = "a sampled distance reaches 2^30-1 - max w";
      } else {
        Matrix d32 = detail::build_matrix(*g, Dtype::Int32, n_pad, n_pad, backend->host_memory());
        Matrix next32 = options.paths ? detail::build_next(d32) : Matrix{};
        SolveOptions o32 = o;
        o32.dist_sink = nullptr;
        o32.next_sink = nullptr;
        result.timings.build = seconds_since(t_build) - order_s;
        backend->run(*g, d32, options.paths ? &next32 : nullptr, block, o32, result.timings);
        if (detail::int32_in_band(d32, int(lo))) {
          why = "int32 rounds checked: a distance may reach 2^30-1";
          dropped = result.timings;    // the int64 run below adds its own
        } else if (o.int32_stripes) {  // exact int32 numbers straight to the sink, no int64 copy
          o.dist_sink(RowBlock{0, n, n, d32.stride(), Dtype::Int32, d32.raw()});
          result.dist = Matrix(0, 0, Dtype::Int64);
          result.rounds = "int32 (checked; bound asked int64)";
          ran = true;
        } else {
          result.dist = detail::widen_to_int64(d32, backend->host_memory());
          result.next = std::move(next32);
          result.rounds = "int32 (checked; bound asked int64)";
          ran = true;
        }
      }
    }
    if (!ran) result.rounds = "int64 (" + why + ")";
  }
  if (!ran) {
    if (no_matrices) {
      result.dist = Matrix(0, 0, t);
      if (options.paths) result.next = Matrix(0, 0, Dtype::Int32);
    } else if (backend->builds_matrix()) {
      // The ordered graph's vertices (padding included) where solve() unpermutes, else the user's.
      const std::int64_t m = solve_unpermutes ? g->num_vertices : n;
      result.dist = Matrix(m, m, n_result_pad, n_result_pad, t, backend->host_memory());
      if (options.paths)
        result.next =
            Matrix(m, m, n_result_pad, n_result_pad, Dtype::Int32, backend->host_memory());
    } else {
      result.dist = detail::build_matrix(*g, t, n_pad, n_pad, backend->host_memory());
      if (options.paths) result.next = detail::build_next(result.dist);
    }
    result.timings.build = seconds_since(t_build) - order_s;
    backend->run(*g, result.dist, options.paths ? &result.next : nullptr, block, o, result.timings);
    result.timings.compute += dropped.compute;
  }
  // A backend that streamed leaves empty matrices (Matrix{}, int32 by default): they still say
  // which type the distances are (Result::dtype(), --stats).
  if (result.dist.empty() && result.dist.dtype() != t) result.dist = Matrix(0, 0, t);
  if (result.rounds.empty()) result.rounds = backend->rounds_used();
  if (result.rounds.empty()) result.rounds = dtype_name(t);

  result.timings.order = order.order_s;
  result.timings.symbolic = order.symbolic_s;
  if (solve_unpermutes && !result.dist.empty()) {  // empty: an MPI rank other than 0
    const auto t_unpermute = Clock::now();
    result.dist =
        detail::unpermuted(result.dist, order.perm, false, n_user_pad, backend->host_memory());
    result.next =
        detail::unpermuted(result.next, order.perm, true, n_user_pad, backend->host_memory());
    result.timings.unpermute = seconds_since(t_unpermute);
  }
  hand_out_result(result, *in, h, options);
  result.backend = backend->name();
  result.block = backend->effective_block(t, block);
  return result;
}

}  // namespace apsp
