// src/core/solve.cpp — solve() as stages: validate, plan (core/solve_plan.hpp: Johnson, backend
// and dtype, engine and order, memory, sinks), prepare (the host matrices: a dense graph straight
// into the distance matrix, or allocated for a backend that builds its own), run (the checked
// int32 rung first where the plan says so, or the sparse direct engine), hand out (Johnson's
// restore, the next-hop repair, the sinks).
#include "apsp/solve.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "core/backend.hpp"
#include "core/distance_evidence.hpp"
#include "core/johnson.hpp"
#include "core/ladder.hpp"
#include "core/memory_limit.hpp"
#include "core/options_check.hpp"
#include "core/reference.hpp"
#include "core/solve_plan.hpp"
#include "sparse/engine.hpp"

namespace apsp {

namespace detail {
bool host_memory_fits(std::int64_t n_pad, double bytes_per_cell) {
  return double(n_pad) * double(n_pad) * bytes_per_cell <= double(host_memory_limit().bytes);
}
}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

using detail::SolveInput;
using detail::SolvePlan;

/// Validate: what the scan of the weights (SolveInput) does not check, the backend (available
/// here), then the early memory stage: nothing per vertex (Johnson, ordering) before the
/// backend has room for the result.
void validate(const SolveInput& x, const SolveOptions& options, SolvePlan& plan) {
  if (options.block < 0) throw UsageError("block size must be positive");
  detail::choose_backend(plan, options);
  detail::check_host_memory_early(x.input.num_vertices, options);
}

/// Hand out: Johnson's restore, the next-hop repair, and the sinks for a result that was not
/// streamed.
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

/// Run, the sparse direct engine (src/sparse): factors on the host's threads, rows on the cuda
/// backend's GPU or the host's threads; the result in the user's order, whole or streamed.
void run_supernodal(const SolvePlan& p, const SolveInput& x, const SolveOptions& o,
                    Result& result) {
  const Graph& g = *x.g;
  const Dtype t = p.dtype;
  detail::sparse::EngineOptions eo;
  eo.paths = o.paths;
  eo.threads = o.threads;
  eo.progress = o.progress;
  eo.stage = o.on_stage;
  const bool gpu = p.caps.sparse_rows == detail::Capabilities::SparseRows::Device;
  eo.rows_backend = gpu ? p.backend.get() : nullptr;
  eo.device = o.devices.empty() ? 0 : o.devices.front();
  if (p.streamed) eo.sink = x.h.empty() ? o.dist_sink : detail::restoring_sink(o.dist_sink, x.h);
  eo.keep_on_device = o.keep_on_device;
  const auto t0 = Clock::now();
  detail::sparse::EngineRun run = detail::sparse::solve_supernodal(g, t, eo, p.sn_plan);
  result.timings.order = run.order_s;
  result.timings.symbolic = run.symbolic_s;
  result.timings.h2d = run.h2d_s;
  result.timings.compute = run.factor_s + run.solve_s + run.paths_s;
  result.timings.d2h = run.d2h_s;
  result.timings.build = std::max(0.0, seconds_since(t0) - run.order_s - run.symbolic_s -
                                           run.h2d_s - result.timings.compute - run.d2h_s);
  result.dist = p.streamed || o.keep_on_device ? Matrix(0, 0, t) : std::move(run.dist);
  if (o.keep_on_device) {
    DeviceMatrix& d = result.device_dist;
    d.data = run.device_result.get();
    d.device = eo.device;
    d.rows = d.cols = d.stride = g.num_vertices;
    d.dtype = t;
    d.owner = std::move(run.device_result);
    d.download = std::move(run.download);
  }
  result.next = std::move(run.next);
  result.order = o.sparse_plan ? "sn (plan)" : p.sn_plan ? "sn (auto)" : "sn";
  result.work_fraction = run.work_fraction;
  result.rounds = dtype_name(t);
  result.backend = p.backend->name();
  char cost[224];
  std::snprintf(cost, sizeof cost,
                "; factor, uploads and rows predicted %.3g s, measured %.3g s (ordering %.3g s%s)",
                run.predicted_s, run.factor_s + run.h2d_s + run.solve_s, run.order_s,
                run.plan_cached ? ", reused: the same structure was solved before" : "");
  result.notes.push_back("sparse direct engine: " + std::to_string(run.supernodes) +
                         " supernodes, factor " + std::to_string(run.factor_s) + " s, rows " +
                         std::to_string(run.solve_s) + " s (" + run.detail + ")" + cost);
}

/// Run, the checked int32 rung where solve() holds the matrices (plan.host_rung: an int64 result
/// on the cpu backend): int32 rounds, kept when the band check proves them exact
/// (distance_evidence.hpp), then widened to int64 (or streamed as int32 stripes). False, with
/// result.rounds saying why, where the int64 rounds must run; `dropped` then holds a dropped
/// int32 pass's timings (its compute counts in the result's time too).
bool run_int32_rung(const SolvePlan& p, const SolveInput& x, Result& result,
                    Clock::time_point t_build, Timings& dropped) {
  const Graph& g = *x.g;
  const SolveOptions& o = p.run_options;
  const double max_w = x.g == &x.input ? x.range.max_abs_weight : g.max_abs_weight();
  const double min_w = x.g == &x.input ? x.range.min_weight : g.min_weight();
  const Memory memory = p.caps.host_memory;
  namespace note = detail::ladder_note;
  std::string why;
  if (!detail::int32_rung_applicable(max_w, min_w)) {
    why = note::kWeightsReachInt32;
  } else if (!detail::host_memory_fits(p.n_pad, 12 + (o.paths ? 4 : 0))) {
    why = note::kNoMemoryInt32;
  } else {
    const double lo = detail::int32_band_low(max_w);
    if (detail::sampled_distance_lower_bound(g, 8, lo) >= lo) {
      why = note::kEvidenceReachesInt32;
    } else {
      if (o.on_stage) o.on_stage("build");
      Matrix d32 = detail::build_matrix(g, Dtype::Int32, p.n_pad, p.n_pad, memory);
      Matrix next32 = o.paths ? detail::build_next(d32) : Matrix{};
      SolveOptions o32 = o;
      o32.dist_sink = nullptr;
      o32.next_sink = nullptr;
      result.timings.build = seconds_since(t_build) - p.order.order_s - p.order.symbolic_s;
      if (o.on_stage) o.on_stage("rounds");
      p.backend->run(g, d32, o.paths ? &next32 : nullptr, p.block, o32, result.timings);
      if (detail::int32_in_band(d32, int(lo))) {
        why = note::kInt32BandHit;
        dropped = result.timings;    // the int64 run adds its own
      } else if (o.int32_stripes) {  // exact int32 numbers straight to the sink, no int64 copy
        o.dist_sink(RowBlock{0, p.n, p.n, d32.stride(), Dtype::Int32, d32.raw()});
        result.dist = Matrix(0, 0, Dtype::Int64);
        result.rounds = std::string("int32") + note::kCheckedInt32;
        return true;
      } else {
        result.dist = detail::widen_to_int64(d32, memory);
        result.next = std::move(next32);
        result.rounds = std::string("int32") + note::kCheckedInt32;
        return true;
      }
    }
  }
  result.rounds = note::int64_because(why);
  return false;
}

/// Prepare: the host matrices run() gets. None (empty, carrying the dtype) where nothing comes
/// back here; allocated but unfilled for a backend that builds its own (the ordered graph's
/// vertices, padding included, where solve() unpermutes, else the user's); else built from the
/// graph (a dense graph straight into the distance matrix) with the next hops of its edges.
void prepare_matrices(const SolvePlan& p, const SolveInput& x, bool paths, Result& result) {
  const Dtype t = p.dtype;
  const Memory memory = p.caps.host_memory;
  if (p.no_matrices) {
    result.dist = Matrix(0, 0, t);
    if (paths) result.next = Matrix(0, 0, Dtype::Int32);
  } else if (p.caps.builds_matrix) {
    const std::int64_t m = p.solve_unpermutes ? x.g->num_vertices : p.n;
    result.dist = Matrix(m, m, p.n_result_pad, p.n_result_pad, t, memory);
    if (paths) result.next = Matrix(m, m, p.n_result_pad, p.n_result_pad, Dtype::Int32, memory);
  } else {
    result.dist = detail::build_matrix(*x.g, t, p.n_pad, p.n_pad, memory);
    if (paths) result.next = detail::build_next(result.dist);
  }
}

/// Prepare and run the rounds: the checked int32 rung first where the plan says so, else (or
/// when its band check fails) the matrices of the plan's dtype and one run().
void run_rounds(const SolvePlan& p, const SolveInput& x, const SolveOptions& options,
                Result& result, Clock::time_point t_build) {
  const double order_s = p.order.order_s + p.order.symbolic_s;  // not part of build
  Timings dropped;
  if (p.host_rung && run_int32_rung(p, x, result, t_build, dropped)) return;
  if (options.on_stage) options.on_stage("build");
  prepare_matrices(p, x, options.paths, result);
  result.timings.build = seconds_since(t_build) - order_s;
  if (options.on_stage) options.on_stage("rounds");
  p.backend->run(*x.g, result.dist, options.paths ? &result.next : nullptr, p.block, p.run_options,
                 result.timings);
  result.timings.compute += dropped.compute;
}

/// Hand out the rounds' result: what the rounds ran in, the user's order (where solve()
/// unpermutes), then Johnson's restore, the repair and the sinks.
void hand_out_rounds(const SolvePlan& p, const SolveInput& x, const SolveOptions& options,
                     Result& result) {
  const Dtype t = p.dtype;
  // A backend that streamed leaves empty matrices (Matrix{}, int32 by default): they still say
  // which type the distances are (Result::dtype(), --stats).
  if (result.dist.empty() && result.dist.dtype() != t) result.dist = Matrix(0, 0, t);
  if (result.rounds.empty()) result.rounds = p.backend->rounds_used();
  if (result.rounds.empty()) result.rounds = dtype_name(t);
  result.timings.order = p.order.order_s;
  result.timings.symbolic = p.order.symbolic_s;
  if (p.solve_unpermutes && !result.dist.empty()) {  // empty: an MPI rank other than 0
    if (options.on_stage) options.on_stage("unpermute");
    const auto t_unpermute = Clock::now();
    const Memory memory = p.caps.host_memory;
    const auto& perm = p.order.perm;
    result.dist = detail::unpermuted(result.dist, perm, false, p.n_user_pad, memory);
    result.next = detail::unpermuted(result.next, perm, true, p.n_user_pad, memory);
    result.timings.unpermute = seconds_since(t_unpermute);
  }
  hand_out_result(result, *x.in, x.h, options);
  result.backend = p.backend->name();
  result.block = p.backend->effective_block(t, p.block);
}

}  // namespace

void warm_up(Backend backend, const std::vector<int>& devices) {
  if (backend == Backend::Auto || backend == Backend::Cuda)
    detail::cuda_warm_up(devices.empty() ? 0 : devices[0]);
}

std::vector<BackendInfo> backends() {
  return {detail::cpu_backend_info(), detail::cuda_backend_info(), detail::multigpu_backend_info(),
          detail::mpi_backend_info(), detail::hip_backend_info()};
}

Result solve(const Graph& input, const SolveOptions& requested) {
  const SolveOptions options = detail::checked_options(requested);  // numbers, threads clamped
  Result result;
  const auto t_build = Clock::now();
  SolveInput x(input);  // one scan of the weights (a dense graph's too)
  SolvePlan plan;
  validate(x, options, plan);
  detail::decide(plan, x, options, result);
  result.plan = detail::describe(plan, x, options);
  if (plan.engine == detail::EnginePlan::Supernodal) {
    run_supernodal(plan, x, options, result);
    if (!result.dist.empty()) hand_out_result(result, *x.in, x.h, options);
    return result;
  }
  run_rounds(plan, x, options, result, t_build);
  hand_out_rounds(plan, x, options, result);
  return result;
}

std::vector<PlanItem> explain(const Graph& input, const SolveOptions& requested) {
  const SolveOptions options = detail::checked_options(requested);
  Result scratch;
  SolveInput x(input);
  SolvePlan plan;
  validate(x, options, plan);
  detail::decide(plan, x, options, scratch);
  std::vector<PlanItem> items = detail::describe(plan, x, options);
  for (const std::string& note : scratch.notes) items.push_back({"note", note});
  return items;
}

}  // namespace apsp
