// src/core/backend.hpp — what a backend supplies (internal; not installed).
//
// solve() builds the padded host matrix (stride a multiple of pad_multiple(); padding vertices
// have 0 on the diagonal and unreachable elsewhere) and, with paths, the next-hop matrix
// (next[i][j] = j for an edge i->j, -1 otherwise), then calls run(). run() leaves the closed
// distances (and next hops) in the same host matrices. A backend that builds_matrix() gets them
// allocated but unfilled and builds them itself (the GPU does it on the device, from the edges, or
// with builds_matrix_from_dense() straight from a dense graph's matrix).
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

class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  virtual std::string name() const = 0;
  virtual bool supports(Dtype t) const = 0;
  /// Tile size used when SolveOptions::block is 0.
  virtual int default_block(Dtype t, std::int64_t n) const = 0;
  /// The tile size run() really uses when asked for `block` (Result::block reports it).
  virtual int effective_block(Dtype t, int block) const {
    (void)t;
    return block;
  }
  /// Host matrices get a stride and row count rounded up to a multiple of this. The CPU backend
  /// works in place and wants `block`; a GPU backend pads on the device and may return 1.
  virtual int pad_multiple(Dtype t, int block) const {
    (void)t;
    return block;
  }
  /// When true, solve() leaves the host matrices allocated but unfilled and run() must build
  /// the distances (and next hops) from `g` itself, e.g. on the device from the edge list.
  virtual bool builds_matrix() const { return false; }
  /// Only with builds_matrix(): true when run() builds the distances straight from a dense graph
  /// (Graph::dense, empty src/dst) too, so solve() hands it the dense graph instead of copying
  /// its entries into an edge list (when no weight is negative; with paths too).
  virtual bool builds_matrix_from_dense() const { return false; }
  /// With paths and both sinks set: true when run() streams next hops to options.next_sink as it
  /// streams distances, with walks that end without solve()'s repair_next_hops() (which needs the
  /// whole matrices), or that repairs them itself (cuda, where a walk could loop). solve() then
  /// allocates no whole matrix (cuda, multi-gpu, mpi).
  virtual bool streams_paths() const { return false; }
  /// False in a process that gets no result matrices (an MPI rank other than 0): solve() then
  /// allocates none there, and run() leaves dist / next empty.
  virtual bool receives_result() const { return true; }
  /// solve()'s set-up problem on this process ("" for none; e.g. the host memory check, which
  /// only a receiving rank makes): throws ResourceError if there is one. The mpi backend agrees
  /// on it first, so that every rank throws alike instead of some waiting in a collective.
  virtual void agree_on(const std::string& problem) const {
    if (!problem.empty()) throw ResourceError(problem);
  }
  /// What the last run()'s rounds ran in (Result::rounds); "" = the matrix's own dtype.
  virtual std::string rounds_used() const { return ""; }
  /// Memory the host matrices should live in (Pinned for GPU backends).
  virtual Memory host_memory() const { return Memory::Host; }
  /// True when run() can restrict its rounds to a TilePlan's active tiles (sparse graphs).
  virtual bool skips_tiles() const { return false; }
  /// The plan for the next run()s (the graph as run() gets it; null: dense rounds). Only called
  /// when skips_tiles().
  virtual void set_tile_plan(std::shared_ptr<const TilePlan> plan) { (void)plan; }
  /// True when every tile of run()'s rounds is effective_block() wide (the GPU kernels' kTile):
  /// a sparse order then aligns every tile bound to it (order/ordering.hpp NdLayout).
  virtual bool uniform_tiles() const { return false; }
  /// The tile width solve() lays a sparse order out for (the plan's B; only asked when
  /// skips_tiles()). The default is effective_block(). A backend whose tile width is known only
  /// inside run() returns one width that every kind of its workers runs (mpi: 128, the GPU
  /// ranks' tile, which the CPU ranks run too; mpi_backend.cpp).
  virtual int order_tile(Dtype t, int block) const { return effective_block(t, block); }
  /// `--order auto` tries a sparse order only with at least this many tiles of order_tile() a
  /// side; 0: solve()'s default (order/choice.hpp: kAutoMinTilesGpu with uniform_tiles(), else
  /// kAutoMinTiles).
  virtual std::int64_t auto_min_tiles() const { return 0; }
  /// True when run() hands its result out in the user's vertex order itself, given the order by
  /// set_permutation() (cuda: the GPU gathers each stripe before the download; multi-gpu, mpi:
  /// each worker gathers its block of a stripe, dist/user_order.hpp): solve() then neither
  /// unpermutes nor needs host matrices for it. Otherwise solve() unpermutes whole matrices.
  virtual bool unpermutes() const { return false; }
  /// The order of the graph run() gets (null: the user's), with set_tile_plan(); only called
  /// when unpermutes().
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
  /// Runs blocked Floyd-Warshall, leaving the result in the host matrices. `g` is the graph the
  /// kernels see (already reweighted when it had negative weights; edge weights are exact in the
  /// dtype). `next` is null unless paths were asked for. Fills timings.h2d/compute/d2h.
  /// A dense input graph (Graph::dense) reaches run() as it is, with empty src/dst, when no
  /// weight is negative (with or without paths), for a backend that does not builds_matrix() or
  /// that builds_matrix_from_dense(); every other run() gets its edge list (solve() copies it
  /// once). So a run() must read arcs through detail::for_each_arc (or check g.is_dense()), and
  /// num_edges() of a dense graph is a scan.
  /// Streaming: a backend may hand finished stripes to options.dist_sink / next_sink (when set)
  /// instead; it must then leave `dist` / `*next` empty (Matrix{}) so solve() does not hand
  /// them out a second time. solve() has already wrapped the sink for Johnson's restore.
  virtual void run(const Graph& g, Matrix& dist, Matrix* next, int block,
                   const SolveOptions& options, Timings& timings) = 0;
};

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
