// src/core/solve_plan.cpp — decide(): solve()'s plan, stage by stage (Johnson, backend and dtype,
// engine, order, memory, sinks), from the backend's Capabilities and the options, and Johnson's
// restoring sink. The dtype rule (DESIGN.md "Exactness") is core/ladder.cpp's choose_dtype_for;
// the engine stage is solve_plan_engine.cpp, describe() solve_explain.cpp.
#include "core/solve_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apsp/errors.hpp"
#include "core/float_bound.hpp"
#include "core/johnson.hpp"
#include "core/ladder.hpp"
#include "core/memory_limit.hpp"

namespace apsp {

namespace {

/// Largest finite distance magnitude a graph can produce: (V-1) * max|w|.
double distance_bound(std::int64_t n, double max_abs_weight) {
  return double(n - 1) * max_abs_weight;
}
double distance_bound(const Graph& g) { return distance_bound(g.num_vertices, g.max_abs_weight()); }

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
std::unique_ptr<detail::BackendImpl> pick_backend(const SolveOptions& o, std::string& why) {
  if (o.backend != Backend::Auto) {
    const BackendInfo info = info_of(o.backend);
    if (!info.usable)
      throw BackendUnavailable(std::string("backend '") + backend_name(o.backend) +
                               "' is not available: " + info.detail);
    return make_backend(o.backend);
  }
  const std::optional<Dtype> want = o.dtype;
  if (detail::cuda_backend_info().usable) {
    auto b = detail::make_cuda_backend();
    why = "auto: a usable NVIDIA GPU";
    if (b && (!want || b->capabilities().supports(*want))) return b;
  }
  if (detail::hip_backend_info().usable) {
    auto b = detail::make_hip_backend();
    why = "auto: a usable AMD GPU";
    if (b && (!want || b->capabilities().supports(*want))) return b;
  }
  why = why.empty() || !want ? "auto: no usable GPU"
                             : "auto: no GPU backend runs " + std::string(dtype_name(*want));
  return detail::make_cpu_backend();
}

}  // namespace

Dtype choose_dtype(const Graph& g, const SolveOptions& o) {
  if (g.is_dense()) {  // one scan; the Graph's flag may not come from one (graph.hpp)
    const Graph::WeightRange r = g.validated_weight_range();
    return detail::choose_dtype_for(distance_bound(g.num_vertices, r.max_abs_weight),
                                    r.integer_weights, o);
  }
  return detail::choose_dtype_for(distance_bound(g), g.integer_weights, o);
}

namespace detail {

void choose_backend(SolvePlan& p, const SolveOptions& options) {
  p.backend = pick_backend(options, p.backend_why);
}

void SolveInput::to_edges(const std::string& why, std::vector<std::string>& notes) {
  if (!in->is_dense()) return;
  copied = input.edges_from_dense();
  copied.integer_weights = range.integer_weights;  // the scan's answer (graph.hpp)
  in = &copied;
  copied_why = why;
  notes.push_back("dense input copied into an edge list (16 bytes per edge): " + why);
}

bool SolveInput::integer_weights(const Graph* x) const {
  return x == &input ? range.integer_weights : x->integer_weights;
}

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

namespace {

/// Johnson: with a negative weight, the kernels see the reweighted (non-negative) graph and the
/// result is mapped back; float rounds without paths run on the weights as given.
void plan_johnson(SolvePlan& p, SolveInput& x, const SolveOptions& options, Result& result) {
  if (x.range.min_weight < 0) {
    if (options.on_stage) options.on_stage("reweight");
    x.to_edges("negative weights (Johnson's potentials)", result.notes);
    x.h = johnson_potentials(*x.in);  // names a negative cycle if there is one
    // Float rounds run on the weights as given: Floyd-Warshall is right with negative arcs and
    // no negative cycle, and +inf absorbs them, so no potential's rounding reaches a distance
    // (0.001 stays 0.001). Integer sentinels would not absorb them, and the float next-hop
    // pass prunes arcs by non-negative distances: those keep Johnson's reweighting.
    const bool floats = !x.range.integer_weights || (options.dtype && !is_integer(*options.dtype));
    if (floats && !options.paths) {
      x.h.clear();
      p.johnson = JohnsonPlan::FloatsAsGiven;
      result.notes.push_back(
          "negative weights, no negative cycle: float rounds on the weights "
          "as given");
    } else {
      x.reweighted = reweight(*x.in, x.h);
      p.johnson = JohnsonPlan::Reweight;
    }
  }
  x.g = x.h.empty() ? x.in : &x.reweighted;
}

/// The dtype, decided on the graph the kernels see, and the backend. No backend changes the
/// type: one that cannot run it refuses (auto falls back to the cpu backend, which runs every
/// type).
void plan_dtype(SolvePlan& p, const SolveInput& x, const SolveOptions& options, Result& result) {
  const double input_bound = distance_bound(x.input.num_vertices, x.range.max_abs_weight);
  Dtype t = choose_dtype_for(x.h.empty() ? input_bound : distance_bound(*x.g),
                             x.integer_weights(x.g), options, &p.dtype_why);
  if (!x.h.empty() && t == Dtype::Int32 && input_bound >= kInt32Cap) {
    // Under Johnson the kernels see d' (bounded by the reweighted graph, checked above) but the
    // restored d = d' - h(u) + h(v) is bounded by the original graph: it must fit int32 too.
    if (options.dtype)
      throw UsageError(
          "int32 cannot be exact for this graph: the restored distances can reach (V-1)*max|w| = " +
          std::to_string(std::llround(input_bound)) + " >= 2^30-1; use --type int64");
    t = Dtype::Int64;
    p.dtype_why = "the restored distances can reach 2^30-1 (Johnson)";
  }
  // Floats: a path sum that could overflow to inf would read as unreachable (float_bound.hpp).
  check_float_weights_fit(x.input.num_vertices, x.range.max_abs_weight, t);
  if (!x.h.empty()) check_float_weights_fit(*x.g, t);
  if (!p.backend->capabilities().supports(t)) {
    if (options.backend != Backend::Auto)
      throw UsageError(std::string("backend '") + p.backend->name() + "' does not support " +
                       dtype_name(t) +
                       (options.dtype ? "" : " (needed for exact distances on this graph)") +
                       "; the cpu and cuda backends run every type");
    p.backend = make_cpu_backend();
    p.backend_why = std::string("auto: the GPU backend does not run ") + dtype_name(t);
  }
  p.caps = p.backend->capabilities();
  p.dtype = t;
  if (!options.dtype && t == Dtype::Int64)
    result.notes.push_back("distances computed in int64: (V-1)*max|w| reaches 2^30-1");
}

/// A result too large for this host is refused before any ordering work (which is O(V + E))
/// where solve() unpermutes whole matrices: only where the matrices come back (rank 0 of mpi),
/// agreed on by every MPI rank. auto then keeps the dense rounds. Returns the order to ask for,
/// with `label` set where memory changed it.
Order order_memory(const SolvePlan& p, const SolveOptions& options, std::string& label) {
  Order asked = options.order;
  if (!p.caps.skips_tiles || p.caps.unpermutes || asked == Order::None) return asked;
  std::string problem;
  if (p.caps.receives_result) {
    try {
      // The ordered result and its copy in the user's order (the ordered one is padded more:
      // checked again below once the order is known).
      check_host_memory(p.n, p.n_user_pad, p.dtype, options.paths, p.n_user_pad);
    } catch (const ResourceError& e) {
      problem = e.what();
    }
  }
  try {
    p.backend->agree_on(problem);
  } catch (const ResourceError&) {
    if (asked == Order::NestedDissection) throw;
    asked = Order::None;
    label = "none (auto: no host memory to unpermute the ordered result)";
  }
  return asked;
}

/// Whether choose_order() may order g (its cheap checks; the stage callback's "order" is then
/// called before it): nd asked, or auto with tiles to skip, METIS, an edge list and enough tiles.
bool order_may_run(const Graph& g, Order asked, const Capabilities& c, std::int64_t n_pad,
                   std::int64_t B, std::int64_t min_tiles) {
  if (asked == Order::NestedDissection) return true;
  if (asked != Order::Auto || !c.skips_tiles || g.is_dense() || !metis_available()) return false;
  const double arcs = double(g.src.size()) * (g.directed ? 1 : 2);
  return B > 0 && (n_pad + B - 1) / B >= min_tiles &&
         arcs <= kAutoMaxArcsPerVertex * double(g.num_vertices);
}

/// The order of the rounds (docs/sparse.md): the vertex order they run in and the tiles each
/// round can touch. The ordered graph may have padding vertices (n_pad >= n_user_pad); the
/// result is put back in the user's order by the backend or by solve().
void plan_order(SolvePlan& p, SolveInput& x, const SolveOptions& options, Result& result) {
  const Dtype t = p.dtype;
  p.n = x.g->num_vertices;
  p.block = options.block ? options.block : p.backend->default_block(t, p.n);
  const int pad = p.caps.pad_multiple > 0 ? p.caps.pad_multiple : p.block;
  p.n_user_pad = round_up(p.n, std::max(1, pad));
  std::string no_memory;
  const Order asked = order_memory(p, options, no_memory);
  if (options.order == Order::NestedDissection && x.g->is_dense()) {
    x.to_edges("--order nd", result.notes);
    x.g = x.in;
  }
  // Tiles of any multiple of 32 up to the block (cpu), or all of the order tile's width (the
  // GPU's 128, also mpi's: every tile bound aligned to it; the dense rounds' work is then that of
  // round_up(n, 128)).
  const std::int64_t tile =
      p.caps.order_tile > 0 ? p.caps.order_tile : p.backend->effective_block(t, p.block);
  const bool uniform = p.caps.uniform_tiles;
  const NdLayout layout = uniform ? NdLayout{tile, kGpuLeaf} : NdLayout{};
  const std::int64_t min_tiles = p.caps.auto_min_tiles > 0 ? p.caps.auto_min_tiles
                                 : uniform                 ? kAutoMinTilesGpu
                                                           : kAutoMinTiles;
  const std::int64_t order_pad = uniform ? round_up(p.n_user_pad, tile) : p.n_user_pad;
  const std::int64_t order_tile = uniform ? tile : std::min<std::int64_t>(tile, p.n_user_pad);
  if (options.on_stage && order_may_run(*x.g, asked, p.caps, order_pad, order_tile, min_tiles))
    options.on_stage("order");
  p.order = choose_order(*x.g, asked, p.caps.skips_tiles, p.backend->name(), order_pad, order_tile,
                         layout, min_tiles);
  if (!no_memory.empty()) p.order.label = no_memory;
  if (options.order == Order::Auto && p.order.plan && p.order.plan->n > p.n_user_pad) {
    // Padding makes the ordered matrix larger: where only the dense one fits (the GPU's memory),
    // auto keeps the dense rounds.
    try {
      // With the plan set: a backend that hands an ordered result out itself counts what that
      // takes too (multi-gpu's stripe buffers on the GPUs).
      p.backend->set_tile_plan(p.order.plan);
      p.backend->check_fits(p.order.plan->n, t, p.block, options.paths);
    } catch (const ResourceError&) {
      const double order_s = p.order.order_s, symbolic_s = p.order.symbolic_s;
      p.order = OrderChoice{};
      p.order.label = "none (auto: the ordered matrix does not fit)";
      p.order.order_s = order_s;
      p.order.symbolic_s = symbolic_s;
    }
  }
  if (!p.order.perm.empty()) x.g = &p.order.graph;
  if (p.caps.skips_tiles) p.backend->set_tile_plan(p.order.plan);
  p.backend_unpermutes = !p.order.perm.empty() && p.caps.unpermutes;
  if (p.caps.unpermutes)
    p.backend->set_permutation(
        p.order.perm.empty() ? nullptr : std::make_shared<const Permutation>(p.order.perm));
  result.order = p.order.label;
  result.work_fraction = p.order.work_fraction;
  p.n_pad = p.order.perm.empty() ? p.n_user_pad : p.order.plan->n;
  p.n_result_pad = p.backend_unpermutes ? p.n_user_pad : p.n_pad;
  p.solve_unpermutes = !p.order.perm.empty() && !p.backend_unpermutes;
}

/// Memory: a backend that builds its own matrix and streams distances (and, with paths, next
/// hops that need no repair) to the sinks never needs the host matrices; nor does an MPI rank
/// other than 0. They get empty matrices that only carry the dtype, and V is not limited by this
/// host's memory. Otherwise (paths on a backend that does not stream them) the whole matrices
/// come back for the next-hop repair. An ordered result that solve() unpermutes (the cpu
/// backend's) is never streamed: it comes back whole and is handed out at the end.
void plan_memory(SolvePlan& p, SolveInput& x, const SolveOptions& options, Result& result) {
  const Capabilities& c = p.caps;
  p.streamed = !p.solve_unpermutes && c.builds_matrix && options.dist_sink &&
               (!options.paths || (options.next_sink && c.streams_paths));
  p.no_matrices = p.streamed || (c.builds_matrix && !c.receives_result);
  std::string problem;  // agreed on by every MPI rank before anyone throws (agree_on)
  if (!p.no_matrices) {
    const std::int64_t copy_pad = p.solve_unpermutes ? p.n_user_pad : 0;
    const double cells =
        double(p.n_result_pad) * double(p.n_result_pad) + double(copy_pad) * double(copy_pad);
    const double bytes = cells * double(dtype_size(p.dtype) + (options.paths ? 4 : 0));
    p.memory = "host: " + std::to_string(std::llround(bytes)) + " bytes for the whole " +
               dtype_name(p.dtype) + " result" + (options.paths ? " and next hops" : "") +
               (copy_pad ? " (ordered, and in the user's order)" : "") + ", within " +
               host_memory_limit().source;
    try {
      check_host_memory(p.n, p.n_result_pad, p.dtype, options.paths, copy_pad);
    } catch (const ResourceError& e) {
      problem = e.what();
    }
  } else {
    p.memory = p.streamed ? "host: no whole matrix (the backend streams the result to the sinks)"
                          : "host: no whole matrix (this process receives no result)";
  }
  p.backend->agree_on(problem);
  p.backend->check_fits(p.order.perm.empty() ? p.n : p.n_pad, p.dtype, p.block, options.paths);
  if (c.builds_matrix) p.memory += "; device: checked by the " + p.backend->name() + " backend";
  if (x.g->is_dense()) {
    if (c.builds_matrix && !c.builds_matrix_from_dense)
      x.to_edges("the " + p.backend->name() + " backend builds its matrix from edges",
                 result.notes);
    x.g = x.in;
  }
}

/// The sinks run() gets, and the checked int32 rung on the host.
void plan_sinks(SolvePlan& p, const SolveInput& x, const SolveOptions& options) {
  SolveOptions& o = p.run_options;
  o = options;
  if (p.solve_unpermutes) {  // the sinks get the unpermuted matrices at the end (hand-out)
    o.dist_sink = nullptr;
    o.next_sink = nullptr;
  }
  // Next hops kept whole (no next_sink) are repaired at the end against the whole distances:
  // those come back whole too, and reach the sink after the repair (hand-out).
  if (options.paths && !options.next_sink) o.dist_sink = nullptr;
  if (!x.h.empty() && o.dist_sink) o.dist_sink = restoring_sink(o.dist_sink, x.h);
  // int32 stripes only where the rounds' matrix is the result as is: not under Johnson (restored
  // distances), with paths, or in a sparse order that solve() unpermutes (the cuda backend's
  // stripes leave in the user's order).
  if (!x.h.empty() || options.paths || !o.dist_sink || p.solve_unpermutes) o.int32_stripes = false;
  // The checked int32 rung where solve() holds the matrices (the cpu backend): int32 rounds,
  // kept when the band check proves them exact (core/ladder.hpp), then widened to int64.
  // The GPU backends run their own ladder (int16x2 -> int32 -> int64) on the device.
  p.host_rung = p.dtype == Dtype::Int64 && !p.no_matrices && !p.caps.builds_matrix;
}

}  // namespace

void decide(SolvePlan& p, SolveInput& x, const SolveOptions& options, Result& result) {
  if (options.keep_on_device) check_keep_on_device(p, x, options);  // before Johnson's work
  plan_johnson(p, x, options, result);
  plan_dtype(p, x, options, result);
  plan_engine(p, x, options, result);
  if (p.engine == EnginePlan::Supernodal) return plan_supernodal_memory(p, x, options);
  plan_order(p, x, options, result);
  plan_memory(p, x, options, result);
  plan_sinks(p, x, options);
}

}  // namespace detail
}  // namespace apsp
