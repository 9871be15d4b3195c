// src/mpi/gpu_ranks.cpp — the mpi backend's GPU ranks and the choice of rank kind.
//
// choose_device() decides collectively (every rank the same kind): GPU ranks when the build has
// NCCL, the type is int32 or float32 and every rank has a GPU of its own (APSP_MPI_GPU=0|1
// forces). GPU ranks run the multi-gpu driver with this rank's GPU as its one worker
// (dist/gpu_rank.hpp, src/multigpu/gpu_rank_of.cuh): NCCL broadcasts along grid rows and columns
// on communicators made with ncclCommInitRank, two-stream lookahead; with a TilePlan (sparse
// rounds, docs/sparse.md) each rank runs its share of the plan's tile lists.
// Which GPU, memory, exactness: docs/distributed.md ("GPU ranks").
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/ladder.hpp"
#include "mpi/gather.hpp"
#include "mpi/mpi_common.hpp"
#include "mpi/ranks.hpp"
#ifdef APSP_WITH_NCCL
#include "dist/gpu_rank.hpp"
#endif

namespace apsp::detail::mpi {

namespace {

using cpu::Mode;

/// APSP_MPI_GPU: "0" CPU ranks, "1" GPU ranks or an error, unset or empty: GPU ranks where
/// possible.
enum class GpuWish { Auto, Off, On };
GpuWish gpu_wish() {
  const auto on = config::get_switch(config::Knob::MpiGpu);
  return !on ? GpuWish::Auto : *on ? GpuWish::On : GpuWish::Off;
}

#ifdef APSP_WITH_NCCL
/// The NCCL id exchange of a GPU rank, over the MPI communicators of its grid row and column
/// (made with MPI_Comm_split keyed by the grid column / row index, so index = rank in them).
class MpiLinks final : public multigpu::RankLinks {
 public:
  MpiLinks(MPI_Comm row, MPI_Comm col, MPI_Comm world) : row_(row), col_(col), world_(world) {}
  void broadcast(void* data, std::size_t bytes, int root, bool row) override {
    APSP_MPI_TRY(MPI_Bcast(data, mpi_count(i64(bytes)), MPI_BYTE, root, row ? row_ : col_));
  }
  bool any(bool mine) override {
    int in = mine ? 1 : 0, out = 0;
    APSP_MPI_TRY(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, world_));
    return out != 0;
  }

 private:
  MPI_Comm row_, col_, world_;
};

multigpu::Mode gpu_mode(Mode m) {
  switch (m) {
    case Mode::Distances:
      break;
    case Mode::NextHops:
      return multigpu::Mode::NextHops;
    case Mode::HopCounts:
      return multigpu::Mode::HopCounts;
  }
  return multigpu::Mode::Distances;
}
#endif

}  // namespace

int choose_device(MPI_Comm world, const Host& host, Dtype t, std::int64_t n, bool paths,
                  bool ordered, const SolveOptions& o) {
  const GpuWish wish = gpu_wish();
  std::string why;    // why this rank cannot be a GPU rank
  std::string usage;  // a --devices mistake
  int device = -1;
  if (wish == GpuWish::Off) {
    why = "APSP_MPI_GPU=0";
  } else if (paths && dtype_size(t) != 4) {
    why = std::string("GPU ranks run --paths in int32 and float32, not ") + dtype_name(t);
  } else {
#ifdef APSP_WITH_NCCL
    const int count = multigpu::gpu_count();
    std::vector<int> usable = o.devices;
    if (usable.empty())
      for (int d = 0; d < count; ++d) usable.push_back(d);
    std::vector<int> sorted = usable;
    std::sort(sorted.begin(), sorted.end());
    for (int d : o.devices)
      if (d < 0 || d >= count)
        usage = "--devices: no GPU " + std::to_string(d) + " (this host has " +
                std::to_string(count) + ")";
    if (usage.empty() && std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      usage = "--devices: a GPU is listed twice";
    if (!usage.empty()) {
      why = usage;
    } else if (count == 0) {
      why = "no usable CUDA device";
    } else {
      device = usable[std::size_t(host.rank) % usable.size()];
      why = multigpu::gpu_unusable(device);
    }
#else
    (void)o;
    (void)host;
    why = "this build has no GPU ranks (CUDA and NCCL were not found at configure time)";
#endif
  }
#ifdef APSP_WITH_NCCL
  // Two ranks of one host on one GPU: compare the chosen GPUs' bus ids within the host.
  {
    constexpr int kIdChars = 64;
    std::vector<char> ids(std::size_t(host.size) * kIdChars, '\0');
    char mine[kIdChars] = {};
    if (device >= 0) multigpu::gpu_bus_id(device).copy(mine, kIdChars - 1);
    APSP_MPI_TRY(
        MPI_Allgather(mine, kIdChars, MPI_CHAR, ids.data(), kIdChars, MPI_CHAR, host.comm.c));
    for (int r = 0; r < host.size && device >= 0 && why.empty(); ++r)
      if (r != host.rank &&
          std::strncmp(mine, ids.data() + std::size_t(r) * kIdChars, kIdChars) == 0)
        why = "local ranks " + std::to_string(std::min(r, host.rank)) + " and " +
              std::to_string(std::max(r, host.rank)) + " would share GPU " + mine +
              " (a GPU rank needs a GPU of its own: " + std::to_string(host.size) +
              " ranks on this host)";
  }
#endif
  if (const std::string u = first_problem(world, usage); !u.empty()) throw UsageError(u);
  if (const std::string missing = first_problem(world, why); !missing.empty()) {
    if (wish == GpuWish::On)
      throw BackendUnavailable("APSP_MPI_GPU=1 but GPU ranks are not possible: " + missing);
    return -1;
  }
#ifdef APSP_WITH_NCCL
  std::string short_of;
  try {
    int size = 1;
    APSP_MPI_TRY(MPI_Comm_size(world, &size));
    const std::size_t need = multigpu::bytes_per_gpu(n, size, dtype_size(t), paths) +
                             (ordered ? multigpu::user_order_bytes(n) : 0);
    const std::size_t free_b = multigpu::free_device_bytes(device);
    if (need > free_b)
      short_of = "V=" + std::to_string(n) + " needs " + gib(double(need)) + " on each of " +
                 std::to_string(size) + " GPUs; GPU " + std::to_string(device) + " has " +
                 gib(double(free_b)) + " free";
  } catch (const std::exception& e) {
    short_of = e.what();
  }
  if (const std::string m = first_problem(world, short_of); !m.empty()) throw ResourceError(m);
#else
  (void)n;
  (void)paths;
  (void)ordered;
#endif
  return device;
}

// GPU ranks: the multi-gpu driver with this rank's GPU as its one worker (dist/gpu_rank.hpp),
// NCCL between the ranks' GPUs, the result gathered to rank 0 over MPI as with CPU ranks.
std::string run_gpu_ranks(const Graph& g, Matrix& dist, Matrix* next, int device,
                          const SolveOptions& o, Timings& timings, MPI_Comm world, int rank,
                          int size, int threads, const TilePlan* plan, const Permutation* perm) {
#ifdef APSP_WITH_NCCL
  std::string used;  // the type the rounds ran in
  const Dtype t = dist.dtype();
  const i64 n = g.num_vertices;
  const i64 B = multigpu::kGpuTile;
  const Grid grid = agreed_grid(world, size);
  const Layout lay(grid, rank, n, B);
  const std::unique_ptr<dist::UserOrder> user = dist::user_order_of(grid, B, perm);
  Comm row_comm, col_comm;
  APSP_MPI_TRY(MPI_Comm_split(world, lay.pr, lay.pc, &row_comm.c));
  APSP_MPI_TRY(MPI_Comm_split(world, lay.pc, lay.pr, &col_comm.c));

  double t0 = MPI_Wtime();
  std::unique_ptr<multigpu::GpuRank> gpu;
  const Mode mode = next_hop_mode(g, t, next != nullptr, bool(o.next_sink));
  MpiLinks links(row_comm.c, col_comm.c, world);
  // An int64 result runs checked int32 rounds first where the weights allow (the cuda
  // backend's ladder; every rank decides alike from the same graph), int64 rounds after them
  // when some rank's band check fails.
  const Graph::WeightRange range = g.validated_weight_range();
  const bool applicable =
      t == Dtype::Int64 && detail::int32_rung_applicable(range.max_abs_weight, range.min_weight);
  // Sampled evidence that the checked rung would fail skips it (the same answer on every rank;
  // agreed anyway).
  int skip =
      applicable && detail::evidence_skips_rung(g, detail::int32_band_low(range.max_abs_weight),
                                                detail::kInt32UpdatesPerGpu * double(size))
          ? 1
          : 0;
  APSP_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_LOR, world));
  const bool checked = applicable && !skip;
  auto start = [&](bool checked32) {
    gpu.reset();
    std::string error;
    try {
      // With a plan: the listed rounds (its tiles must be the GPU's 128; docs/sparse.md).
      gpu = multigpu::make_gpu_rank(device, grid, rank, n, t, gpu_mode(mode), checked32, plan);
      gpu->build(g);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (const std::string p = first_problem(world, error); !p.empty()) throw ResourceError(p);
    // A rank whose NCCL set-up fails leaves the others waiting in ncclCommInitRank; mpirun
    // ends the job when that rank exits with its error.
    gpu->connect(links);
  };
  start(checked);
  double t1 = MPI_Wtime();
  timings.h2d = t1 - t0;
  used = gpu->run(rank == 0 ? o.progress : ProgressFn{}, links, g);
  if (checked && gpu->dropped()) {
    const std::string why = used;
    timings.compute = MPI_Wtime() - t1;  // the dropped pass counts in the times too
    t0 = MPI_Wtime();
    start(false);
    t1 = MPI_Wtime();
    timings.h2d += t1 - t0;
    (void)gpu->run(rank == 0 ? o.progress : ProgressFn{}, links, g);
    used = detail::ladder_note::int64_because(why);
    t1 -= timings.compute;
  } else if (t == Dtype::Int64 && !checked) {
    used = detail::ladder_note::int64_because(skip ? detail::ladder_note::kEvidenceReachesInt32
                                                   : detail::ladder_note::kWeightsReachInt32);
  }
  APSP_MPI_TRY(MPI_Barrier(world));
  const double t2 = MPI_Wtime();
  timings.compute = t2 - t1;

  auto gather = [&](auto tag, bool next_hops, const RowSink& sink, Matrix& m) {
    using U = decltype(tag);
    const bool keep = rank == 0 && !sink;
    StripeSource<U> src;
    src.grid = grid;
    src.rank = rank;
    src.n = n;
    src.R = lay.R;
    src.B = B;
    src.ld_of = [grid, R = lay.R, B](int q) {
      return Layout::tiles_of(R, grid.Pc, grid.col_of(q)) * B;
    };
    multigpu::GpuRank* gr = gpu.get();
    if (user) {  // an ordered graph's result, in the user's order (dist/user_order.hpp)
      UserSource<U> us;
      us.order = user.get();
      us.rank = rank;
      us.block = [gr, next_hops, &user](i64 u0, i64 u1, int slot) {
        return static_cast<const U*>(gr->user_block_to_host(*user, next_hops, u0, u1, slot));
      };
      us.prepare = [gr, &user](i64 most) { gr->reserve_user_blocks(*user, most); };
      gather_user_to_root(world, us, next_hops, sink, keep ? m.data<U>() : nullptr, m.stride(),
                          next_hops ? Dtype::Int32 : t, threads);
      if (!keep) m = Matrix{};
      return;
    }
    src.rows = [gr, B, next_hops](TileRange lr, int slot) {
      return static_cast<const U*>(
          gr->rows_to_host(next_hops, lr.begin * B, (lr.end - lr.begin) * B, slot));
    };
    src.copies = true;
    gather_to_root(world, src, next_hops, sink, keep ? m.data<U>() : nullptr, m.stride(),
                   next_hops ? Dtype::Int32 : t, threads);
    if (!keep) m = Matrix{};
  };
  switch (t) {
    case Dtype::Int32:
      gather(i32{}, false, o.dist_sink, dist);
      break;
    case Dtype::Int64:
      gather(std::int64_t{}, false, o.dist_sink, dist);
      break;
    case Dtype::Float32:
      gather(float{}, false, o.dist_sink, dist);
      break;
    case Dtype::Float64:
      gather(double{}, false, o.dist_sink, dist);
      break;
  }
  if (next) gather(i32{}, true, o.next_sink, *next);
  timings.d2h = MPI_Wtime() - t2;
  return used;
#else
  (void)g, (void)dist, (void)next, (void)device, (void)o, (void)timings, (void)world, (void)rank,
      (void)size, (void)threads, (void)plan, (void)perm;
  throw BackendUnavailable("this build has no GPU ranks");
#endif
}

}  // namespace apsp::detail::mpi
