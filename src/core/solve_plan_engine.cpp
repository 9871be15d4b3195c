// src/core/solve_plan_engine.cpp — decide()'s engine stage (core/solve_plan.hpp): the sparse
// direct engine (asked, a plan given, or auto's cost model: sparse::predicted_seconds against the
// dense rounds'), or the rounds; keep_on_device's conditions; the engine's host memory.
#include <omp.h>

#include <cstdio>
#include <string>

#include "apsp/errors.hpp"
#include "core/memory_limit.hpp"
#include "core/solve_plan.hpp"
#include "sparse/engine.hpp"

namespace apsp::detail {

namespace {

/// --order auto: the sparse direct engine's plan for g when the engine may pay here (its rows
/// on the host or this backend's device, a sparse edge list, the result fits), kept when its
/// predicted seconds (sparse::predicted_seconds: factor, uploads, rows) are below the dense
/// rounds'; else none, with why in p.no_sn.
void plan_auto_supernodal(SolvePlan& p, const Graph& g, const SolveOptions& o) {
  using SparseRows = Capabilities::SparseRows;
  const bool gpu = p.caps.sparse_rows == SparseRows::Device;
  if (o.order != Order::Auto || o.sparse_plan || p.caps.sparse_rows == SparseRows::None) return;
  if (o.paths) return;  // auto keeps the rounds' next-hop rules (docs/paths.md)
  // The cpu backend from 4 tiles of 256 a side, cuda from 128 tiles of 128 (as nd's auto).
  p.no_sn = sparse::auto_candidate(g, gpu ? 128 * 128 : 4 * 256);
  if (!p.no_sn.empty()) return;
  try {
    if (gpu) p.backend->check_fits(g.num_vertices, p.dtype, 128, false);
  } catch (const ResourceError&) {
    p.no_sn = "the n x n result does not fit the GPU";
    return;
  }
  if (o.on_stage) o.on_stage("order");
  sparse::TimedPlan plan = sparse::plan_supernodal(g);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  p.sn_predicted_s = sparse::predicted_seconds(plan, gpu, threads);
  p.rounds_predicted_s = sparse::dense_rounds_seconds(g.num_vertices, gpu, threads);
  if (p.sn_predicted_s >= p.rounds_predicted_s) {
    char buf[128];
    std::snprintf(buf, sizeof buf,
                  "sn would run %.2f%% of the dense work: predicted %.3g s vs the dense rounds' "
                  "%.3g s",
                  100 * plan.work_fraction(), p.sn_predicted_s, p.rounds_predicted_s);
    p.no_sn = buf;
    return;
  }
  p.sn_auto = std::move(plan);
}

}  // namespace

void check_keep_on_device(const SolvePlan& p, const SolveInput& x, const SolveOptions& o) {
  const char* no = nullptr;
  const bool device_rows =
      p.backend->capabilities().sparse_rows == Capabilities::SparseRows::Device;
  if (!device_rows)
    no = "the sparse direct engine's rows on the cuda backend (backend cuda)";
  else if (o.order != Order::Auto && o.order != Order::Supernodal)
    no = "order sn or auto";
  else if (o.paths)
    no = "no paths";
  else if (o.dist_sink || o.next_sink)
    no = "no sinks";
  else if (x.range.min_weight < 0)
    no = "non-negative weights (Johnson's restore runs on the host)";
  if (no)
    throw UsageError(std::string("keep_on_device: the distances stay on a GPU only with ") + no +
                     (device_rows ? "" : std::string("; this backend: ") + p.backend->name()));
}

void plan_engine(SolvePlan& p, const SolveInput& x, const SolveOptions& options, Result& result) {
  plan_auto_supernodal(p, *x.g, options);
  if (options.sparse_plan && options.order != Order::Auto && options.order != Order::Supernodal)
    throw UsageError(std::string("a sparse plan runs the sparse direct engine (order sn), not "
                                 "order ") +
                     order_name(options.order));
  p.sn_plan = options.sparse_plan ? &options.sparse_plan->timed : p.sn_auto ? &*p.sn_auto : nullptr;
  if (options.order == Order::Supernodal || p.sn_plan || options.keep_on_device) {
    if (p.caps.sparse_rows == Capabilities::SparseRows::None)
      throw UsageError("--order sn runs on the cpu and cuda backends (asked: " + p.backend->name() +
                       ")");
    p.engine = EnginePlan::Supernodal;
    return;
  }
  if (!p.no_sn.empty() && p.no_sn.rfind("sn would", 0) == 0)
    result.notes.push_back("auto: " + p.no_sn);
}

void plan_supernodal_memory(SolvePlan& p, const SolveInput& x, const SolveOptions& o) {
  const bool gpu = p.caps.sparse_rows == Capabilities::SparseRows::Device;
  p.streamed = gpu && o.dist_sink && !o.paths;
  p.memory = o.keep_on_device ? "host: none (the distances stay on the GPU)"
             : p.streamed     ? "host: no whole matrix (rows stream from the GPU to the sink)"
                              : "host: the whole result, rows padded to 32";
  if (!p.streamed && !o.keep_on_device)
    check_host_memory(x.g->num_vertices, round_up(x.g->num_vertices, 32), p.dtype, o.paths);
}

}  // namespace apsp::detail
