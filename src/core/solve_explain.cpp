// src/core/solve_explain.cpp — describe(): solve()'s plan (core/solve_plan.hpp) as (what,
// decision) pairs, in the order the stages decide them: `apsp solve --stats --verbose`,
// apsp::explain() and apsp.explain() print them.
#include <cstdio>
#include <string>
#include <vector>

#include "core/solve_plan.hpp"

namespace apsp::detail {

namespace {

std::string input_text(const SolveInput& x) {
  const Graph& g = x.input;
  std::string s = "V = " + std::to_string(g.num_vertices) + ", ";
  s += g.is_dense() ? "a dense V x V matrix read in place"
                    : "an edge list of " + std::to_string(g.src.size()) + " arcs";
  if (!x.copied_why.empty()) s += "; copied into an edge list (" + x.copied_why + ")";
  return s;
}

std::string johnson_text(JohnsonPlan j) {
  switch (j) {
    case JohnsonPlan::None:
      return "none (no negative weight)";
    case JohnsonPlan::Reweight:
      return "potentials h by Bellman-Ford; the kernels see w + h(u) - h(v) >= 0, distances "
             "restored after";
    case JohnsonPlan::FloatsAsGiven:
      return "none: negative weights, no negative cycle, float rounds on the weights as given";
  }
  return "";
}

std::string rungs_text(const SolvePlan& p) {
  if (p.engine == EnginePlan::Supernodal) return std::string(dtype_name(p.dtype));
  if (p.host_rung)
    return "checked int32 rounds first (sampled distances, then the band check), kept when "
           "exact, else int64 rounds";
  if (p.caps.builds_matrix && is_integer(p.dtype))
    return std::string(dtype_name(p.dtype)) + ", or a narrower rung the " + p.backend->name() +
           " backend proves exact (its ladder: int16x2 for int32, checked int32 for int64)";
  return dtype_name(p.dtype);
}

std::string engine_text(const SolvePlan& p, const SolveOptions& o) {
  if (p.engine == EnginePlan::Rounds) {
    std::string s = "blocked Floyd-Warshall rounds, tile " +
                    std::to_string(p.backend->effective_block(p.dtype, p.block));
    if (!p.no_sn.empty()) s += " (sparse direct engine not taken: " + p.no_sn + ")";
    return s;
  }
  const bool gpu = p.caps.sparse_rows == Capabilities::SparseRows::Device;
  std::string s = std::string("sparse direct engine (supernodal factors on the host's threads, ") +
                  (gpu ? "rows on the GPU" : "rows on the host's threads") + ")";
  if (p.sn_plan) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; plan %s: %.4g%% of the dense work",
                  o.sparse_plan ? "given" : "by auto", 100 * p.sn_plan->work_fraction());
    s += buf;
  }
  if (p.sn_predicted_s > 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "; predicted %.3g s (factor, uploads, rows) vs the dense "
                  "rounds' %.3g s", p.sn_predicted_s, p.rounds_predicted_s);
    s += buf;
  }
  return s;
}

std::string order_text(const SolvePlan& p) {
  if (p.engine == EnginePlan::Supernodal) return "sn (the engine's own nested dissection)";
  std::string s = p.order.label;
  if (p.order.plan) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; %.4g%% of the dense work", 100 * p.order.work_fraction);
    s += buf;
    s += p.backend_unpermutes ? "; the backend hands the result out in the user's order"
                              : "; solve() puts the whole result back in the user's order";
  }
  return s;
}

std::string sinks_text(const SolvePlan& p, const SolveInput& x, const SolveOptions& o) {
  if (!o.dist_sink) return "none: the whole result is returned";
  if (p.streamed)
    return std::string("the backend streams finished stripes to the sink") +
           (x.h.empty() ? "" : ", restored (Johnson) on the way") +
           (p.run_options.int32_stripes ? "; int32 stripes where int32 rounds are proven exact"
                                        : "");
  return "the whole result is handed to the sink after the solve";
}

std::string paths_text(const SolvePlan& p, const SolveOptions& o) {
  if (!o.paths) return "no";
  if (p.streamed) return "next hops streamed by the backend (walks end: loop-free hop rules)";
  if (p.engine == EnginePlan::Supernodal) return "next hops from the sparse direct engine";
  return "next hops in the whole matrix, repaired by solve() where a walk could loop";
}

}  // namespace

std::vector<PlanItem> describe(const SolvePlan& p, const SolveInput& x, const SolveOptions& o) {
  std::vector<PlanItem> items;
  items.push_back({"input", input_text(x)});
  items.push_back({"johnson", johnson_text(p.johnson)});
  items.push_back(
      {"backend", p.backend->name() + (p.backend_why.empty() ? "" : " (" + p.backend_why + ")")});
  items.push_back({"dtype", std::string(dtype_name(p.dtype)) + " (" + p.dtype_why + ")"});
  items.push_back({"rungs", rungs_text(p)});
  items.push_back({"engine", engine_text(p, o)});
  items.push_back({"order", order_text(p)});
  if (p.engine == EnginePlan::Rounds)
    items.push_back({"matrix", std::to_string(p.n_pad) + " x " + std::to_string(p.n_pad) +
                                   " (V = " + std::to_string(p.n) + " padded for the rounds)"});
  items.push_back({"memory", p.memory});
  items.push_back({"sinks", sinks_text(p, x, o)});
  items.push_back({"paths", paths_text(p, o)});
  return items;
}

}  // namespace apsp::detail
