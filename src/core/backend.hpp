// src/core/backend.hpp — what a backend supplies (internal; not installed).
//
// solve() builds the padded host matrix (stride a multiple of Capabilities::pad_multiple; padding
// vertices have 0 on the diagonal and unreachable elsewhere) and, with paths, the next-hop matrix
// (next[i][j] = j for an edge i->j, -1 otherwise), then calls run(). run() leaves the closed
// distances (and next hops) in the same host matrices. A backend that builds its matrix
// (Capabilities::builds_matrix) gets them allocated but unfilled and builds them itself (the GPU
// does it on the device, from the edges, or straight from a dense graph's matrix). What a backend
// can do is one Capabilities value; solve()'s plan (core/solve_plan.hpp) is decided from it once.
#pragma once

#include <memory>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"

namespace apsp::detail {

struct TilePlan;     // order/symbolic.hpp
struct Permutation;  // order/ordering.hpp
namespace sparse {
struct RowsJob;  // sparse/rows_job.hpp
}

/// What a backend can do, as one value (BackendImpl::capabilities()): solve()'s plan
/// (core/solve_plan.hpp) reads it once and never asks the backend again.
struct Capabilities {
  /// Bit 1 << int(Dtype) for every type run() runs (the others are refused, naming a backend).
  unsigned dtypes = 0xF;
  /// Host matrices get a stride and row count rounded up to a multiple of this; 0: the block
  /// (the CPU backend works in place). A GPU backend pads on the device and says 1.
  int pad_multiple = 0;
  /// solve() leaves the host matrices allocated but unfilled and run() builds the distances
  /// (and next hops) from the graph itself, e.g. on the device from the edge list.
  bool builds_matrix = false;
  /// With builds_matrix: run() builds them straight from a dense graph (Graph::dense, empty
  /// src/dst) too, so solve() hands it the dense graph instead of an edge-list copy (when no
  /// weight is negative; with paths too).
  bool builds_matrix_from_dense = false;
  /// With paths and both sinks set: run() streams next hops to options.next_sink as it streams
  /// distances, with walks that end without solve()'s repair_next_hops() (which needs the whole
  /// matrices), or repairs them itself (cuda, where a walk could loop). solve() then allocates no
  /// whole matrix (cuda, multi-gpu, mpi).
  bool streams_paths = false;
  /// False in a process that gets no result matrices (an MPI rank other than 0): solve() then
  /// allocates none there, and run() leaves dist / next empty.
  bool receives_result = true;
  /// Memory the host matrices should live in.
  Memory host_memory = Memory::Host;
  /// run() can restrict its rounds to a TilePlan's active tiles (sparse graphs).
  bool skips_tiles = false;
  /// Every tile of run()'s rounds is effective_block() wide (the GPU kernels' kTile): a sparse
  /// order then aligns every tile bound to it (order/ordering.hpp NdLayout).
  bool uniform_tiles = false;
  /// The tile width solve() lays a sparse order out for; 0: effective_block(). A backend whose
  /// tile width is known only inside run() gives one width that every kind of its workers runs
  /// (mpi: 128, the GPU ranks' tile, which the CPU ranks run too; mpi_backend.cpp).
  int order_tile = 0;
  /// `--order auto` tries a sparse order only with at least this many tiles of the order tile a
  /// side; 0: solve()'s default (order/choice.hpp: kAutoMinTilesGpu with uniform_tiles, else
  /// kAutoMinTiles).
  std::int64_t auto_min_tiles = 0;
  /// run() hands its result out in the user's vertex order itself, given the order by
  /// set_permutation() (cuda: the GPU gathers each stripe before the download; multi-gpu, mpi:
  /// each worker gathers its block of a stripe, dist/user_order.hpp): solve() then neither
  /// unpermutes nor needs host matrices for it. Otherwise solve() unpermutes whole matrices.
  bool unpermutes = false;
  /// Where the sparse direct engine's rows (--order sn) run with this backend: None (refused),
  /// the host's threads, or this backend's device (run_sparse_rows()).
  enum class SparseRows { None, Host, Device };
  SparseRows sparse_rows = SparseRows::None;

  bool supports(Dtype t) const { return (dtypes >> int(t)) & 1u; }
};

/// The types a backend runs, for Capabilities::dtypes.
constexpr unsigned dtype_bit(Dtype t) { return 1u << int(t); }

class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  virtual std::string name() const = 0;
  /// What this backend can do (in this process: an MPI rank knows whether it receives results).
  virtual Capabilities capabilities() const = 0;
  /// Tile size used when SolveOptions::block is 0.
  virtual int default_block(Dtype t, std::int64_t n) const = 0;
  /// The tile size run() really uses when asked for `block` (Result::block reports it).
  virtual int effective_block(Dtype t, int block) const {
    (void)t;
    return block;
  }
  /// solve()'s set-up problem on this process ("" for none; e.g. the host memory check, which
  /// only a receiving rank makes): throws ResourceError if there is one. The mpi backend agrees
  /// on it first, so that every rank throws alike instead of some waiting in a collective.
  virtual void agree_on(const std::string& problem) const {
    if (!problem.empty()) throw ResourceError(problem);
  }
  /// What the last run()'s rounds ran in (Result::rounds); "" = the matrix's own dtype.
  virtual std::string rounds_used() const { return ""; }
  /// The plan for the next run()s (the graph as run() gets it; null: dense rounds). Only called
  /// when capabilities().skips_tiles.
  virtual void set_tile_plan(std::shared_ptr<const TilePlan> plan) { (void)plan; }
  /// The order of the graph run() gets (null: the user's), with set_tile_plan(); only called
  /// when capabilities().unpermutes.
  virtual void set_permutation(std::shared_ptr<const Permutation> perm) { (void)perm; }
  /// The sparse direct engine's rows (--order sn, sparse/rows_job.hpp) on this backend's device:
  /// true when it ran them, false when it has no such engine (the host's threads run them).
  virtual bool run_sparse_rows(sparse::RowsJob& job) {
    (void)job;
    return false;
  }
  /// Throws ResourceError if n vertices cannot be solved here (e.g. device memory).
  virtual void check_fits(std::int64_t n, Dtype t, int block, bool paths) const {
    (void)n;
    (void)t;
    (void)block;
    (void)paths;
  }
  /// The plan's early memory stage, before any per-vertex work (Johnson, ordering) and any
  /// V-sized allocation: "" when n vertices of `t` (with o.paths, into o's sinks or returned
  /// whole) may fit where this backend keeps them, else why. A lower bound (unpadded n, the
  /// narrowest type solve() could pick): the padded and ordered sizes are checked again once
  /// known. The default: the whole result on this host (early_host_problem()).
  virtual std::string early_memory_problem(std::int64_t n, Dtype t, const SolveOptions& o) const;
  /// Runs blocked Floyd-Warshall, leaving the result in the host matrices. `g` is the graph the
  /// kernels see (already reweighted when it had negative weights; edge weights are exact in the
  /// dtype). `next` is null unless paths were asked for. Fills timings.h2d/compute/d2h.
  /// A dense input graph (Graph::dense) reaches run() as it is, with empty src/dst, when no
  /// weight is negative (with or without paths), for a backend that does not build its matrix or
  /// that builds it from a dense graph (Capabilities); every other run() gets its edge list
  /// (solve() copies it once). So a run() must read arcs through detail::for_each_arc (or check
  /// g.is_dense()), and num_edges() of a dense graph is a scan.
  /// Streaming: a backend may hand finished stripes to options.dist_sink / next_sink (when set)
  /// instead; it must then leave `dist` / `*next` empty (Matrix{}) so solve() does not hand
  /// them out a second time. solve() has already wrapped the sink for Johnson's restore.
  virtual void run(const Graph& g, Matrix& dist, Matrix* next, int block,
                   const SolveOptions& options, Timings& timings) = 0;
};

/// "" when a whole V = n result of `t` (with o.paths) may fit this host, or needs no room here
/// (a backend with `caps` that builds its matrix and streams it to o's sinks, or a process that
/// receives no result); else check_host_memory()'s message.
std::string early_host_problem(std::int64_t n, Dtype t, const SolveOptions& o,
                               const Capabilities& caps);

/// Throws ResourceError if a V = n result (n_pad^2 entries of t, plus int32 next hops with
/// `paths`) does not fit this host's memory (APSP_HOST_MEMORY overrides; solve.cpp). `copy_pad`
/// > 0: a second matrix of copy_pad^2 entries is held at the same time (an ordered result and
/// its copy in the user's order, where solve() unpermutes).
void check_host_memory(std::int64_t n, std::int64_t n_pad, Dtype t, bool paths,
                       std::int64_t copy_pad = 0);

/// Factories; each returns nullptr when that backend is not built.
std::unique_ptr<BackendImpl> make_cpu_backend();
std::unique_ptr<BackendImpl> make_cuda_backend();
std::unique_ptr<BackendImpl> make_multigpu_backend();
std::unique_ptr<BackendImpl> make_mpi_backend();
/// The cuda backend's source compiled by hipcc for AMD GPUs (src/hip; nullptr when not built).
std::unique_ptr<BackendImpl> make_hip_backend();
/// Creates the CUDA context on `device` (no-op without CUDA or a device); see warm_up().
void cuda_warm_up(int device);
/// What the cuda backend's last run left its result in: "int16x2", "int32", "int64", "float32" or
/// "float64" ("" before any run, or without CUDA). For tests.
const char* cuda_last_rounds();
/// Status lines for `apsp info` / apsp::backends().
BackendInfo cpu_backend_info();
BackendInfo cuda_backend_info();
BackendInfo multigpu_backend_info();
BackendInfo mpi_backend_info();
BackendInfo hip_backend_info();
/// hip's cuda_last_rounds().
const char* hip_last_rounds();

}  // namespace apsp::detail
