// src/core/solve_plan.hpp — solve()'s plan (internal; driver level, beside solve.cpp).
//
// solve() reads as stages: validate, plan, prepare, run, hand out. The plan is decided once, from
// the backend's Capabilities and the options: Johnson or not, the backend and the dtype (with
// the rungs it may try), the engine (rounds or the sparse direct engine) and the order, the
// memory it needs where, the sinks the backend gets and how next hops come back. It is a value:
// describe() prints it (`apsp solve --stats --verbose`, apsp::explain, apsp.explain in Python).
// After decide() no stage asks the backend what it can do; the backend only runs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "order/choice.hpp"
#include "sparse/engine.hpp"

namespace apsp::detail {

/// The graph as the kernels will see it: the caller's, an edge-list copy of a dense one (where
/// edges are needed), or Johnson's reweighting of either. Not copyable: `in` and `g` point into it.
struct SolveInput {
  explicit SolveInput(const Graph& graph) : input(graph), range(graph.validated_weight_range()) {}
  SolveInput(const SolveInput&) = delete;
  SolveInput& operator=(const SolveInput&) = delete;

  const Graph& input;
  const Graph::WeightRange range;  ///< one scan for a dense graph
  Graph copied;                    ///< a dense input's edge list, where edges are needed
  Graph reweighted;                ///< Johnson's w + h(u) - h(v)
  std::vector<double> h;           ///< Johnson's potentials; empty: the weights as given
  const Graph* in = &input;        ///< the input, or its edge-list copy
  const Graph* g = &input;         ///< the graph the kernels see
  std::string copied_why;          ///< why a dense input became an edge list ("": it did not)

  /// Copies a dense input into an edge list once (a note says why); `in` points at it.
  void to_edges(const std::string& why, std::vector<std::string>& notes);
  /// Integer weights of x: the scan's answer for the input as given (a dense Graph's flag may not
  /// come from one), the graph's own for a copy or a reweighting.
  bool integer_weights(const Graph* x) const;
};

enum class JohnsonPlan { None, Reweight, FloatsAsGiven };
enum class EnginePlan { Rounds, Supernodal };

/// Everything solve() decided before the rounds. Not copyable (the sparse plan may point into
/// itself, the backend is owned).
struct SolvePlan {
  SolvePlan() = default;
  SolvePlan(const SolvePlan&) = delete;
  SolvePlan& operator=(const SolvePlan&) = delete;

  std::unique_ptr<BackendImpl> backend;
  Capabilities caps;
  std::string backend_why;  ///< how auto chose it ("" when asked by name)
  JohnsonPlan johnson = JohnsonPlan::None;
  Dtype dtype = Dtype::Int32;
  std::string dtype_why;
  EnginePlan engine = EnginePlan::Rounds;
  std::optional<sparse::TimedPlan> sn_auto;    ///< auto's sparse direct engine plan
  const sparse::TimedPlan* sn_plan = nullptr;  ///< the engine's plan (given, or sn_auto's)
  std::string no_sn;                           ///< why auto did not take the engine
  /// auto's cost model (sparse::predicted_seconds): the engine's factor + rows, the dense rounds.
  double sn_predicted_s = 0, rounds_predicted_s = 0;
  // The rounds (engine Rounds):
  int block = 0;                  ///< asked, or the backend's default
  std::int64_t n = 0;             ///< vertices of the graph the rounds see (before ordering)
  std::int64_t n_user_pad = 0;    ///< the user's order, padded for the backend
  std::int64_t n_pad = 0;         ///< the rounds' matrix (the ordered graph's, with padding)
  std::int64_t n_result_pad = 0;  ///< the result's (the user's, where the backend unpermutes)
  OrderChoice order;
  bool backend_unpermutes = false;  ///< the backend hands the ordered result out in user order
  bool solve_unpermutes = false;    ///< solve() unpermutes whole matrices
  bool streamed = false;     ///< the backend streams the result to the sinks; no host matrices
  bool no_matrices = false;  ///< streamed, or a process that receives no result
  bool host_rung = false;    ///< int64 asked: checked int32 rounds first, on host matrices
  std::string memory;        ///< what the memory stage asked for, where
  SolveOptions run_options;  ///< the options run() gets (sinks held back or restoring)
};

// The engine stage of decide() (core/solve_plan_engine.cpp).
/// keep_on_device: only the sparse direct engine's rows on the cuda backend stay on a GPU (auto
/// then takes that engine, whatever its cost model said); UsageError naming what is missing.
void check_keep_on_device(const SolvePlan& p, const SolveInput& x, const SolveOptions& o);
/// The engine: the sparse direct engine for --order sn, a plan given, or auto's choice; else
/// the rounds.
void plan_engine(SolvePlan& p, const SolveInput& x, const SolveOptions& options, Result& result);
/// The sparse direct engine's memory: its rows stream straight from the device (restored on the
/// way under Johnson) where no next hops need the whole matrix; else the whole matrix comes back
/// to this host (checked), or nothing with keep_on_device.
void plan_supernodal_memory(SolvePlan& p, const SolveInput& x, const SolveOptions& o);

/// Part of solve()'s validate stage, before any per-vertex work: the backend that will run (the
/// one asked for, which must be available here, or auto's pick; the plan may still fall back to
/// the cpu backend for a type the GPU does not run).
void choose_backend(SolvePlan& p, const SolveOptions& options);
/// solve()'s plan stage (the input validated, the backend chosen): Johnson, the backend and dtype,
/// the engine and order, memory, sinks. Notes, the order label and the work fraction go into
/// `result`.
void decide(SolvePlan& p, SolveInput& x, const SolveOptions& options, Result& result);
/// The plan, in order, as (what, decision) pairs.
std::vector<PlanItem> describe(const SolvePlan& p, const SolveInput& x, const SolveOptions& o);

/// Johnson's d(u,v) = d'(u,v) - h(u) + h(v) on a stripe that a streaming backend hands out.
/// Copies the stripe (the backend's buffer is read-only) and passes the copy on.
RowSink restoring_sink(RowSink sink, const std::vector<double>& h);

}  // namespace apsp::detail
