// src/dist/gpu_rank.hpp — the multi-gpu driver as one MPI rank's GPU (internal; no CUDA, NCCL
// or MPI types here).
//
// The multi-gpu backend drives every GPU of one host from one process. The mpi backend with GPU
// ranks runs the same driver (src/multigpu/: the round loop, the cuda backend's kernels, NCCL
// broadcasts along grid rows and columns, two-stream lookahead) with a single member: this rank's
// GPU at this rank's place in the 2D block-cyclic grid. Its NCCL communicators are made with
// ncclCommInitRank from an id that the first member of each grid row / column creates and the
// mpi backend broadcasts over MPI (RankLinks). The result leaves the GPU stripe by stripe
// (rows_to_host) and the mpi backend gathers it to rank 0 over MPI. With a TilePlan (sparse
// rounds, docs/sparse.md) each rank runs its share of the plan's tile lists
// (dist/local_plan.hpp), as the multi-gpu backend does.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "apsp/solve.hpp"
#include "dist/block_cyclic.hpp"

namespace apsp::detail {
struct TilePlan;  // order/symbolic.hpp
namespace dist {
struct UserOrder;  // dist/user_order.hpp
}
}

namespace apsp::detail::multigpu {

/// Tile size of every GPU path (cuda::kTile; the .cu checks that they agree).
inline constexpr int kGpuTile = 128;
/// Edges per upload of the edge-list build (cuda::kEdgeChunk; the .cu checks that they agree).
inline constexpr std::int64_t kGpuEdgeChunk = std::int64_t(1) << 22;

/// The row strides (elements) of a GPU's buffers for an n-vertex solve on grid g, the same on
/// every GPU of the grid, so that a panel broadcast has one element count on every member of its
/// communicator:
/// - cols: the widest local column count (grid column 0's): the local matrix D (local_rows x
///   cols), the next hops and hop counts like it, and the row panels (B x cols) that grid columns
///   broadcast;
/// - rows: the widest local row count (grid row 0's): the pivot column strip transposed, csT,
///   and the column panels transposed, colT (B x rows), that grid rows broadcast.
/// On a square grid both are equal; on a 1 x P grid cols is about V / P and rows is V.
struct GpuStrides {
  std::int64_t cols = 0;
  std::int64_t rows = 0;
};
inline GpuStrides gpu_strides(const dist::Grid& g, std::int64_t n) {
  const std::int64_t R = (n + kGpuTile - 1) / kGpuTile;
  return {dist::Layout::tiles_of(R, g.Pc, 0) * kGpuTile,
          dist::Layout::tiles_of(R, g.Pr, 0) * kGpuTile};
}

/// Device memory that the GPU with the most tiles (grid position (0, 0)) of grid g allocates for
/// n vertices of `elem`-byte distances (with `paths`: 4-byte next hops and hop counts too): the
/// element counts that src/multigpu/workers.cuh allocates (Workers, warm_up_comms,
/// build_edges), hop counts always counted. No CUDA: testable anywhere.
inline std::size_t gpu_bytes_on(const dist::Grid& g, std::int64_t n, std::size_t elem, bool paths) {
  const GpuStrides s = gpu_strides(g, n);
  const std::int64_t B = kGpuTile, rows = s.rows, cols = s.cols;  // (0, 0)'s local rows = s.rows
  // Distances: D (rows x cols); rowp x 2 (B x cols); csT, colT x 2 (B x rows); pivot x 2 (2 B^2).
  // Paths: D, N, H (rows x cols); rowold, rowpw x 2 (2 B x cols each); colold, colpw x 2
  // (3 rows x B each); pivot x 2 (3 B^2).
  const std::int64_t words = paths ? 3 * rows * cols + 6 * B * cols + 9 * rows * B + 6 * B * B
                                   : rows * cols + 2 * B * cols + 3 * B * rows + 4 * B * B;
  // warm_up_comms: one panel of scratch (B x the wider stride), freed before the rounds; the edge
  // upload buffers (int32 src, int32 dst, double weight) of build_edges. Both counted, though
  // they are never allocated at the same time.
  const std::int64_t scratch = g.P > 1 ? B * std::max(cols, rows) : 0;
  return std::size_t(words + scratch) * elem + std::size_t(kGpuEdgeChunk) * 16;
}

/// Device memory (at most) that handing a sparse order's result out in the user's order takes on
/// a GPU besides gpu_bytes_on (src/multigpu/user_order.cuh, allocated after the rounds): index
/// lists (rows, columns, the next-hop renaming; on the assembling GPU every grid row's and
/// column's users too) and stripe buffers (a block, the others' blocks, the stripe: each at most
/// one 64 MiB stripe).
inline std::size_t user_order_bytes(std::int64_t n) {
  return std::size_t(3) * (std::size_t(64) << 20) + std::size_t(5) * std::size_t(n) * 4;
}

/// What the kernels keep beside the distances (as the CPU backend: hop counts only when
/// zero-weight edges could make equal-length alternatives point at each other).
enum class Mode { Distances, NextHops, HopCounts };

/// How a GPU rank's NCCL communicators find their members: a broadcast of a few bytes (an NCCL
/// unique id) within the rank's grid row or grid column. Implemented over MPI by the mpi backend.
class RankLinks {
 public:
  virtual ~RankLinks() = default;
  /// Broadcasts `bytes` at `data` from the member with index `root` (its grid column index within
  /// a grid row, its grid row index within a grid column) to every member of this rank's grid row
  /// (`row`) or grid column. Collective over that row or column.
  virtual void broadcast(void* data, std::size_t bytes, int root, bool row) = 0;
  /// Whether `mine` is true on some rank of the world. Collective over the world.
  virtual bool any(bool mine) = 0;
};

/// One MPI rank's GPU: its tiles of the 2D block-cyclic layout (tile kGpuTile), built on the GPU
/// from the edge list.
class GpuRank {
 public:
  virtual ~GpuRank() = default;
  /// Fills this rank's tiles from the edges (every rank passes the same graph).
  virtual void build(const Graph& g) = 0;
  /// Makes the NCCL communicators of this rank's grid row and column. Collective over the world:
  /// every rank calls it once, after build().
  virtual void connect(RankLinks& links) = 0;
  /// Runs every round; returns when this GPU is idle. Collective (NCCL, and `links` for the
  /// type ladder's agreements) over the world. int32 distances try int16x2 rounds first where
  /// the cuda backend would for `g` (the graph build() got), kept when no rank's band check
  /// fails. Returns the type the rounds ran in ("int16x2", "int16x2 -> int32", "int32", ...).
  virtual std::string run(const ProgressFn& progress, RankLinks& links, const Graph& g) = 0;
  /// After run() of a checked int32 rank (make_gpu_rank's `checked32`): true when some rank's
  /// band check failed (agreed over the world): its result cannot be trusted and int64 rounds
  /// must follow (a new GpuRank). False otherwise.
  virtual bool dropped() const { return false; }
  /// Copies `rows` local rows from local row `row0` of the distances (or the next hops) into host
  /// memory this object owns (pinned; one buffer per `slot`, 0 or 1), densely (the rank's local
  /// columns a row; distances in the dtype, next hops int32), and returns it; the data stays
  /// valid until the next call with the same slot. Synchronous.
  virtual const void* rows_to_host(bool next_hops, std::int64_t row0, std::int64_t rows,
                                   int slot) = 0;
  /// A sparse order's result in the user's order (dist/user_order.hpp): this rank's block of the
  /// user rows [u0, u1) (o.block_elems entries: its user rows x its user columns, ascending;
  /// distances as rows_to_host hands them out, next hops renamed to user vertices), gathered on
  /// the GPU and copied into host memory this object owns, as rows_to_host (slots, validity).
  /// `o` must outlive this object's last call. Synchronous.
  virtual const void* user_block_to_host(const dist::UserOrder& o, bool next_hops,
                                         std::int64_t u0, std::int64_t u1, int slot) = 0;
  /// Before a gather's first user_block_to_host: the GPU's index lists for `o` and the buffers
  /// for blocks of up to `most` entries, so that nothing is allocated inside the collective
  /// gather (a failure here can be agreed on first).
  virtual void reserve_user_blocks(const dist::UserOrder& o, std::int64_t most) = 0;
};

/// Allocates rank `rank`'s share of an n-vertex solve on CUDA device `device` (any dtype; next
/// hops only with int32 / float32). `checked32` (t = int64): int32 rounds capped at 2^30-1 whose
/// result, when its band check passes, is handed out as int64 (see dropped()). `plan` (null:
/// dense rounds): the sparse rounds' tile lists (docs/sparse.md) for the ordered graph of n
/// vertices, with uniform kGpuTile-wide tiles (else an Error); the distance, int16x2 and
/// next-hop rounds run over this rank's share of them.
std::unique_ptr<GpuRank> make_gpu_rank(int device, const dist::Grid& grid, int rank, std::int64_t n,
                                       Dtype t, Mode mode, bool checked32 = false,
                                       const TilePlan* plan = nullptr);

/// CUDA devices on this host; 0 when there is none or the driver cannot be used (never throws).
int gpu_count();
/// "" when `device` can run this build's kernels, else why not (never throws).
std::string gpu_unusable(int device);
/// The PCI bus id of `device` (which physical GPU it is, whatever CUDA_VISIBLE_DEVICES says).
std::string gpu_bus_id(int device);
/// Free bytes on `device` (throws on a CUDA error).
std::size_t free_device_bytes(int device);
/// Device memory that each of `workers` GPUs needs for n vertices of `elem` bytes (with `paths`:
/// next hops and hop counts too): gpu_bytes_on() for the grid a run of `workers` uses.
std::size_t bytes_per_gpu(std::int64_t n, int workers, std::size_t elem, bool paths);

}  // namespace apsp::detail::multigpu
