// src/sparse/engine.hpp — the sparse direct engine's entry (internal; docs/sparse.md).
//
// solve_supernodal() runs `--order sn`: a METIS separator tree (the supernodes), the min-plus
// factorization of the graph's matrix in that order (sparse/factor.hpp), then every row of the
// closure by a forward and a backward min-plus sweep over the factors, a block of rows at a time
// on CPU threads, written straight into the result in the user's vertex order. Same semantics and
// dtypes as the dense rounds: integer results byte-identical, floats within a path's rounding.
#pragma once

#include <string>

#include "apsp/graph.hpp"
#include "apsp/solve.hpp"

namespace apsp::detail::sparse {

/// What a run did, for Result and --stats.
struct EngineRun {
  Matrix dist, next;  ///< user order; next empty unless paths
  double order_s = 0, symbolic_s = 0, factor_s = 0, solve_s = 0, paths_s = 0;
  double work_fraction = 0;  ///< min-plus updates (factor + rows) over n^3
  std::int64_t supernodes = 0, factor_entries = 0;
};

/// The host memory the engine needs beyond the result (factors, per-thread row blocks), bytes;
/// an estimate before the plan exists (e.g. for the memory check).
std::int64_t engine_memory_estimate(std::int64_t n, std::int64_t arcs, Dtype t, int threads);

/// Runs the engine on g (non-negative weights: Johnson has run; weights exact in t) with
/// `threads` CPU threads (0 = all). With `paths` also the next hops (the out-arc rule of the cpu
/// backend's edges method, docs/paths.md). `progress` (optional) gets (rows done, rows total).
EngineRun solve_supernodal(const Graph& g, Dtype t, bool paths, int threads,
                           const ProgressFn& progress);

}  // namespace apsp::detail::sparse
