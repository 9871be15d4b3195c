// apsp/solve.hpp — the one entry point: solve(graph, options) -> Result.
//
// solve() validates the graph, picks the element type (int32 unless the exactness bound
// (V-1)*max|w| < 2^30-1 fails, then int64; or what options.dtype says), applies Johnson
// reweighting when there are negative weights, builds the padded distance matrix and hands it to
// a backend (cpu, cuda, multi-gpu, mpi), which runs blocked Floyd-Warshall on it. The graph is an
// edge list or a dense adjacency view (Graph::dense, e.g. a NumPy array): the CPU backend's
// matrix is then filled straight from the view; other cases copy it into an edge list once and
// say so in Result::notes (apsp/graph.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/types.hpp"

namespace apsp {

enum class Backend { Auto, Cpu, Cuda, MultiGpu, Mpi, Hip };
const char* backend_name(Backend b);
/// "auto", "cpu", "cuda", "multi-gpu", "mpi", "hip" (AMD GPUs); throws UsageError otherwise.
Backend parse_backend(const std::string& name);

/// Vertex order of the rounds (docs/sparse.md). none: the user's order, every tile (the dense
/// rounds); nd: METIS nested dissection with each round restricted to the tiles that can hold a
/// finite distance (sparse graphs with small separators); auto: nd where the symbolic count says
/// it pays, else none; sn: the sparse direct engine (a supernodal min-plus factorization in a
/// nested-dissection order, then every row from the factors; cpu backend; docs/sparse.md).
/// Results are in the user's vertex order either way.
enum class Order { Auto, None, NestedDissection, Supernodal };
/// "auto", "none", "nd", "sn".
const char* order_name(Order o);
/// "auto", "none", "nd" or "sn"; throws UsageError otherwise.
Order parse_order(const std::string& name);

/// Called now and then during a solve with (rounds done, rounds total).
using ProgressFn = std::function<void(std::int64_t done, std::int64_t total)>;
/// Called on the calling thread as a solve enters a stage of its work: "reweight" (Johnson's
/// potentials), "order" (nested dissection or the supernode tree, and its symbolic analysis),
/// "build" (the distance matrix), "rounds" (progress then counts rounds), "unpermute" (the result
/// back in the user's order), "factor" (the sparse direct engine's factorization), "rows" (its
/// rows; progress then counts rows), "paths" (its next hops). Stages a run does not have are
/// not called; a stage may be entered twice in a row (auto trying sn, then nd). "" ends the stage
/// running without starting another (the metrics' plan priced, their searches next).
using StageFn = std::function<void(std::string_view stage)>;

/// A stripe of finished result rows: rows [row0, row0 + rows) x [0, cols), `stride` elements
/// between rows, host memory valid only during the call.
struct RowBlock {
  std::int64_t row0 = 0, rows = 0, cols = 0, stride = 0;
  Dtype dtype = Dtype::Int32;
  const void* data = nullptr;
};
/// Receives result stripes. Calls may come from any thread but never concurrently; stripes are
/// consecutive: they arrive in increasing row order and together cover every row exactly once
/// (so a writer can append them to a file as they come).
using RowSink = std::function<void(const RowBlock&)>;

/// The sparse direct engine's plan for a graph's structure (ordering and symbolic analysis,
/// docs/sparse.md), reusable for graphs on the same vertices whose arcs it covers, whatever their
/// weights (PATHPACK.jl's `apsp_plan`). Opaque: made by plan_sparse(), given to solve() through
/// SolveOptions::sparse_plan.
class SparsePlan;
/// The plan of g (directions and weights ignored). Throws UsageError without METIS.
std::shared_ptr<const SparsePlan> plan_sparse(const Graph& g);
/// What a plan holds, for messages: vertices, supernodes, work as a fraction of n^3, seconds.
struct SparsePlanInfo {
  std::int64_t vertices = 0, supernodes = 0;
  double work_fraction = 0, order_s = 0, symbolic_s = 0;
};
SparsePlanInfo sparse_plan_info(const SparsePlan& p);

struct SolveOptions {
  Backend backend = Backend::Auto;
  /// Element type. nullopt = int32 for integer weights (int64 if the int32 bound fails),
  /// float64 for fractional weights. An explicit int32 that cannot be exact is refused.
  std::optional<Dtype> dtype;
  /// Tile size; 0 = the backend's default.
  int block = 0;
  /// Keep a next-hop matrix (Result::next).
  bool paths = false;
  /// CPU threads; 0 = all hardware threads.
  int threads = 0;
  /// GPU ordinals for cuda / multi-gpu; empty = device 0 / all devices.
  std::vector<int> devices;
  /// Vertex order of the rounds (cpu, cuda and mpi backends; auto elsewhere keeps none).
  Order order = Order::Auto;
  /// With order sn or auto: the sparse direct engine runs with this plan instead of making one
  /// (a graph with an arc the plan does not cover is refused: UsageError).
  std::shared_ptr<const SparsePlan> sparse_plan;
  /// The distances stay in the GPU's memory (Result::device_dist; Result::dist stays empty), as
  /// PATHPACK.jl's GPU results do: the sparse direct engine on the cuda backend (order sn, or
  /// auto, which then takes it), without paths, sinks or negative weights (UsageError).
  bool keep_on_device = false;
  ProgressFn progress;
  StageFn on_stage;
  /// When set, the distances (and with paths the next hops, through next_sink) are handed out
  /// in stripes as they are finished, so output can be written while the solve runs; Result::dist
  /// (and next) may then be left empty. Distributed backends need it: no rank holds the whole
  /// matrix. A backend that does not stream calls each sink with the whole matrix at the end.
  RowSink dist_sink;
  RowSink next_sink;
  /// dist_sink takes int32 stripes for an int64 result whose rounds ran in checked int32 and
  /// were proven exact (Result::rounds says "int32 (checked; ...)"): the same numbers, half the
  /// bytes, unreachable as unreachable<int32_t>(). For writers whose format is int32 anyway (the
  /// NTHU binary); ignored with paths and with negative weights (Johnson's restored distances
  /// are bounded by the original graph).
  bool int32_stripes = false;
};

/// Seconds spent in each stage; stages a run did not have stay 0.
struct Timings {
  double read = 0, build = 0, h2d = 0, compute = 0, d2h = 0, write = 0;
  /// Sparse rounds: ordering (METIS), symbolic analysis, putting the result back in user order.
  double order = 0, symbolic = 0, unpermute = 0;
};

/// One decision of solve()'s plan: what was decided ("backend", "dtype", "engine", "memory",
/// ...) and the decision, with why. The plan is decided once, before the rounds run.
struct PlanItem {
  std::string key;
  std::string value;
};

/// Distances in a GPU's memory (SolveOptions::keep_on_device): rows x cols of `dtype`, row r at
/// data + r * stride elements, in the user's vertex order; the memory lives while a copy of
/// `owner` does. `download` copies it to rows x stride elements of host memory.
struct DeviceMatrix {
  void* data = nullptr;
  int device = 0;
  std::int64_t rows = 0, cols = 0, stride = 0;
  Dtype dtype = Dtype::Int32;
  std::shared_ptr<void> owner;
  std::function<void(void* host)> download;
  bool empty() const { return data == nullptr; }
};

struct Result {
  /// V x V distances (stride may exceed V). Unreachable = unreachable<T>() of its dtype.
  Matrix dist;
  /// With SolveOptions::keep_on_device: the V x V distances on the GPU (dist is then 0 x 0 of
  /// their dtype).
  DeviceMatrix device_dist;
  /// V x V int32 next hops, -1 for none; empty unless SolveOptions::paths.
  Matrix next;
  std::string backend;  ///< name of the backend that ran
  /// The type the rounds ran in and how the ladder got there, e.g. "int32", "float64",
  /// "int16x2 -> int32", "int32 (checked; bound asked int64)". The result's dtype() is the type
  /// asked for or derived (a narrower rung is kept only when it is proven exact, then widened).
  std::string rounds;
  int block = 0;               ///< tile size it used
  std::string order = "none";  ///< vertex order the rounds ran in ("none", "nd"), and for auto why
  double work_fraction = 1;    ///< element updates the rounds ran, over the dense rounds' n^3
  Timings timings;
  std::vector<std::string> notes;  ///< e.g. "promoted to int64: (V-1)*max|w| >= 2^30-1"
  std::vector<PlanItem> plan;      ///< what solve() decided, in order (explain(), --stats -v)

  std::int64_t num_vertices() const { return device_dist.empty() ? dist.rows() : device_dist.rows; }
  Dtype dtype() const { return dist.dtype(); }
};

/// Solves APSP on `g`. Throws UsageError, ResourceError, NegativeCycleError, BackendUnavailable.
Result solve(const Graph& g, const SolveOptions& options = {});

/// What solve(g, options) would decide (backend, dtype and rungs, Johnson, engine and order,
/// memory, sinks, paths) without running the rounds: its validate and plan stages, so it
/// throws what they would (a negative cycle, a refused type or size). Orders the graph where
/// solve() would (that work is done, not estimated).
std::vector<PlanItem> explain(const Graph& g, const SolveOptions& options = {});

/// The dtype solve() would choose for `g` under `options` (applies the exactness rule).
Dtype choose_dtype(const Graph& g, const SolveOptions& options);

/// Starts the slow part of a backend's start-up (GPU driver and context creation, ~0.2 s) so that
/// it overlaps other work: call it on a thread while the input is read, before solve(). Never
/// throws; does nothing for the CPU backend or where no GPU exists.
void warm_up(Backend backend, const std::vector<int>& devices = {});

/// Backends compiled into this build ("cpu", "cuda", ...), and whether each can run here.
struct BackendInfo {
  std::string name;
  bool built = false;
  bool usable = false;
  std::string detail;  ///< e.g. device names, thread count, or why not usable
};
std::vector<BackendInfo> backends();

/// Vertices of a shortest path i -> j (i first, j last) from the next-hop matrix; empty if none.
std::vector<std::int64_t> path(const Result& r, std::int64_t i, std::int64_t j);
/// Same, from a bare next-hop matrix.
std::vector<std::int64_t> path_from_next(const Matrix& next, std::int64_t i, std::int64_t j);

}  // namespace apsp
