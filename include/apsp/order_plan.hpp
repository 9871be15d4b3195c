// apsp/order_plan.hpp — what solve()'s order="auto" decides for a graph on the cpu backend, asked
// without solving: for a cost model that compares the solve with other methods (the Python
// package's method='auto', apsp/_cost.py). Runs the ordering (METIS) and the symbolic analysis;
// the solve runs them again.
#pragma once

#include <string>

#include "apsp/graph.hpp"
#include "apsp/types.hpp"

namespace apsp {

/// The plan order="auto" picks on the cpu backend.
struct CpuOrderPlan {
  /// "sn (auto)" (the sparse direct engine), or the order's label ("none", "nd (auto)", ...).
  std::string label;
  /// The work of the rounds (or of the sparse engine, priced as dense rounds' updates) as a
  /// fraction of the dense rounds' n^3; 1 for the dense rounds.
  double work_fraction = 1;
  /// Seconds spent ordering and in the symbolic analysis.
  double seconds = 0;
};

/// What order="auto" on the cpu backend decides for g in `dtype` with tile size `block` (0: the
/// backend's default), as solve() decides it: first the sparse direct engine by its cost model
/// (its compute priced at a fixed slowdown over the dense rounds' per update), else
/// choose_order's nested dissection or none.
CpuOrderPlan cpu_order_plan(const Graph& g, Dtype dtype, int block);

}  // namespace apsp
