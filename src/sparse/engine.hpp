// src/sparse/engine.hpp — the sparse direct engine's entry (internal; docs/sparse.md).
//
// solve_supernodal() runs `--order sn`: a supernode tree (order/supernodes.hpp), the min-plus
// factorization of the graph's matrix in that order (sparse/factor.hpp), then every row of the
// closure by a forward and a backward min-plus sweep over the factors, a block of rows at a time
// on CPU threads, written straight into the result in the user's vertex order. Same semantics and
// dtypes as the dense rounds: integer results byte-identical, floats within a path's rounding.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "order/supernodes.hpp"
#include "sparse/plan.hpp"
#include "sparse/rows_job.hpp"

namespace apsp::detail::sparse {

/// What a run did, for Result and --stats.
struct EngineRun {
  Matrix dist, next;  ///< user order; next empty unless paths
  double order_s = 0, symbolic_s = 0, factor_s = 0, solve_s = 0, paths_s = 0;
  double work_fraction = 0;     ///< min-plus updates (factor + rows) over n^3
  double h2d_s = 0, d2h_s = 0;  ///< a device's uploads and downloads (rows_backend)
  std::int64_t supernodes = 0, factor_entries = 0;
  double predicted_s = 0;               ///< predicted_seconds() of the run's plan, where it ran
  bool plan_cached = false;             ///< the plan came from the structure cache (plan_cache.hpp)
  std::shared_ptr<void> device_result;  ///< EngineOptions::keep_on_device: n x n, rows n apart
  std::function<void(void* host)> download;  ///< copies device_result to n x n host memory
  std::string detail;                        ///< where the rows ran
};

/// The host memory the engine needs beyond the result (factors, per-thread row blocks), bytes;
/// an estimate before the plan exists (e.g. for the memory check).
std::int64_t engine_memory_estimate(std::int64_t n, std::int64_t arcs, Dtype t, int threads);

/// Where the rows are computed and where they go.
struct EngineOptions {
  bool paths = false;   ///< also the next hops (the cpu backend's out-arc rule, docs/paths.md)
  int threads = 0;      ///< host threads (0 = all)
  ProgressFn progress;  ///< (rows done, rows total)
  StageFn stage;        ///< "order" (no plan given), "factor", "rows", "paths" (apsp/solve.hpp)
  /// A backend whose device computes the rows (BackendImpl::run_sparse_rows; the cuda backend),
  /// or null: the host's threads.
  BackendImpl* rows_backend = nullptr;
  int device = 0;
  /// With sums: the GPUs that share the rows (RowsJob::devices; empty: `device` alone).
  std::vector<int> devices;
  /// With rows_backend and without paths: the rows go to this sink in stripes (ascending user
  /// rows) and EngineRun::dist stays empty.
  RowSink sink;
  /// With rows_backend: the distances stay in device memory (EngineRun::device_result).
  bool keep_on_device = false;
  /// Only the rows' sums (sparse/rows_job.hpp), on the device or the host's threads: no n x n
  /// anywhere, EngineRun::dist stays empty. Not with paths.
  RowSums* sums = nullptr;
  /// The supernode tree made when no plan is given (order/supernodes.hpp).
  TreeOrder tree_order = TreeOrder::Auto;
};

/// The ordering and symbolic analysis of g (sparse/plan.hpp), timed; the plan of an earlier
/// call on the same structure where this process still keeps it (sparse/plan_cache.hpp).
struct TimedPlan {
  SupernodalPlan plan;
  double order_s = 0, symbolic_s = 0;
  /// The plan of an earlier solve of the same structure in this process (sparse/plan_cache.hpp):
  /// order_s is the lookup's time.
  bool cached = false;
  /// Min-plus updates of the factorization and all rows over n^3.
  double work_fraction() const;
};
TimedPlan plan_supernodal(const Graph& g, TreeOrder how = TreeOrder::Auto);

/// The cost model of `--order auto` (docs/sparse.md): predicted seconds of the engine's
/// factorization, uploads and rows for plan `tp` (the ordering is already spent), on a GPU or
/// the host's `threads`; and of the dense rounds on n vertices. Rates from the H200 and the
/// 2-core box (bench/results/sparse-direct-engine-2026-11-29.md), rounded.
double predicted_seconds(const TimedPlan& tp, bool gpu, int threads);
double dense_rounds_seconds(std::int64_t n, bool gpu, int threads);
/// Whether auto tries the engine on g: an edge list with at most 32 arcs per vertex (as nd's
/// auto rule, order/choice.hpp) and at least `min_vertices`; "" if so, else why not.
std::string auto_candidate(const Graph& g, std::int64_t min_vertices);

/// "" when every arc of g has its place in the plan's factor blocks (the plan was made for g's
/// structure, or one that covers it), else what does not fit.
std::string plan_covers(const SupernodalPlan& p, const Graph& g);

/// Runs the engine on g (non-negative weights: Johnson has run; weights exact in t), with the
/// plan made here or the given one (made for g, or checked by plan_covers).
EngineRun solve_supernodal(const Graph& g, Dtype t, const EngineOptions& o,
                           const TimedPlan* plan = nullptr);

}  // namespace apsp::detail::sparse

namespace apsp {
/// The public face of a plan (apsp/solve.hpp).
class SparsePlan {
 public:
  detail::sparse::TimedPlan timed;
};
}  // namespace apsp
