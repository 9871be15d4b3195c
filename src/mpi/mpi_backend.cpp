// src/mpi/mpi_backend.cpp — the mpi backend: blocked Floyd-Warshall over MPI ranks, one GPU per
// rank (NCCL between the GPUs) where every rank has a GPU of its own, else CPU kernels on every
// rank.
//
// Which kind: choose_device() (gpu_ranks.cpp) decides collectively, every rank the same kind.
// CPU ranks: cpu_ranks.cpp; GPU ranks: gpu_ranks.cpp. Both use the 2D block-cyclic layout of
// dist/block_cyclic.hpp and gather the result to rank 0 (gather.hpp), which hands it to
// SolveOptions::dist_sink / next_sink or, without one, keeps it in Result::dist / next; the other
// ranks return empty matrices. Result::block says which tile ran (128 on GPU ranks). MPI is
// initialised on first use unless the program did it (mpi_common.hpp).
//
// Sparse rounds (--order nd / auto, docs/distributed.md): solve() lays the order out before run()
// knows the rank kind (choose_device is collective and made in run()), so the order has one tile
// width for both kinds: kOrderTile = 128, the GPU ranks' tile (multigpu::kGpuTile), uniform
// (Capabilities::uniform_tiles: every tile bound a multiple of 128, the ordered graph's vertex
// count too). CPU ranks run such a plan at its width, whatever --block (their kernels take any
// multiple of 32; Result::block then says 128). The result leaves in the user's order, streamed
// like a dense one: rank 0 gathers stripes of user rows, each rank sending its block of a stripe
// (its user rows x its user columns: mpi/gather.hpp gather_user_to_root, dist/user_order.hpp).
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/memory_limit.hpp"
#include "cpu/blocked_fw.hpp"
#include "mpi/mpi_common.hpp"
#include "mpi/ranks.hpp"
#include "order/choice.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"
#ifdef APSP_WITH_NCCL
#include "dist/gpu_rank.hpp"
#endif

namespace apsp::detail {

namespace mpi {

namespace {

/// The tile width of every sparse order on this backend: GPU ranks' tile, run by CPU ranks too.
constexpr int kOrderTile = 128;
#ifdef APSP_WITH_NCCL
static_assert(kOrderTile == multigpu::kGpuTile, "mpi sparse orders are laid out for GPU tiles");
#endif

class MpiBackend final : public BackendImpl {
 public:
  std::string name() const override { return "mpi"; }
  /// Every type; builds its matrix (every rank its blocks, from edges) and streams distances and
  /// next hops (loop-free: hop counts where zero-weight edges exist, next_hop_mode); sparse
  /// rounds on either kind of rank over one uniform tile width (the file comment), the result
  /// handed out in the user's order; only rank 0 gets the gathered matrices. auto orders from 4
  /// tiles a side (the cpu backend's rule), not from the cuda backend's 128: dense CPU-rank
  /// rounds cost what the cpu backend's do. GPU ranks run the plan's listed rounds too
  /// (src/multigpu/, docs/sparse.md).
  Capabilities capabilities() const override {
    Capabilities c;
    c.pad_multiple = 1;
    c.builds_matrix = true;
    c.streams_paths = true;
    c.receives_result = receives_result();
    c.skips_tiles = true;
    c.uniform_tiles = true;
    c.order_tile = kOrderTile;
    c.auto_min_tiles = kAutoMinTiles;
    c.unpermutes = true;
    return c;
  }
  /// GPU ranks: the type their rounds ran in (int16x2 where kept); CPU ranks: "" (the dtype).
  std::string rounds_used() const override { return rounds_; }
  int default_block(Dtype t, std::int64_t) const override { return cpu::default_block(t); }
  /// CPU ranks: the CPU backend's rule, or with a plan its tile (128). GPU ranks (known once
  /// run() chose them): the GPU tile.
  int effective_block(Dtype t, int block) const override {
#ifdef APSP_WITH_NCCL
    if (gpu_ranks_) return multigpu::kGpuTile;
#endif
    if (plan_) return int(plan_->B);
    return cpu::effective_block(t, block);
  }
  void set_tile_plan(std::shared_ptr<const TilePlan> plan) override { plan_ = std::move(plan); }
  void set_permutation(std::shared_ptr<const Permutation> perm) override {
    perm_ = std::move(perm);
  }
  void agree_on(const std::string& problem) const override {
    ensure_mpi_initialised();
    if (const std::string p = first_problem(MPI_COMM_WORLD, problem); !p.empty())
      throw ResourceError(p);
  }
  /// Only rank 0 gets the gathered matrices; the other ranks hold their blocks alone.
  static bool receives_result() {
    ensure_mpi_initialised();
    int rank = 0;
    APSP_MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    return rank == 0;
  }

  /// The plan's early memory stage; collective (every rank calls it, then agree_on()). Rank 0's
  /// whole result where it comes back whole (this host's memory rule, as solve()'s later check),
  /// and where the ranks are surely CPU ranks, their blocks: each holds at least its 1/P share
  /// of the n x n distances, so the ranks on this host need at least (ranks here / P) n^2
  /// entries of this machine's memory (RAM, MemAvailable, cgroups; APSP_HOST_MEMORY limits only
  /// what solve() allocates: whole matrices). GPU ranks' blocks: checked by choose_device().
  std::string early_memory_problem(std::int64_t n, Dtype t, const SolveOptions& o) const override {
    ensure_mpi_initialised();
    int size = 1;
    APSP_MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    const Host host(MPI_COMM_WORLD);
    std::string problem = early_host_problem(n, t, o, capabilities());
    if (!problem.empty() || !cpu_ranks_certain(t, o.paths)) return problem;
    const double need = double(n) * double(n) * double(dtype_size(t)) * host.size / size;
    const MemoryLimit have = machine_memory_limit();
    if (need > double(have.bytes)) {
      char text[400];
      std::snprintf(text, sizeof text,
                    "V = %lld needs at least %.0f bytes (%s) for the %s distance blocks of the %d "
                    "ranks on this host (of %d), more than the %llu bytes available (%s)",
                    (long long)n, need, gib(need).c_str(), dtype_name(t), host.size, size,
                    (unsigned long long)have.bytes, have.source.c_str());
      problem = text;
    }
    return problem;
  }

  /// True when run() will choose CPU ranks whatever the GPUs (choose_device's rules that need
  /// no device): no GPU ranks in this build, APSP_MPI_GPU=0, or paths in an 8-byte type.
  static bool cpu_ranks_certain(Dtype t, bool paths) {
#ifdef APSP_WITH_NCCL
    const std::optional<bool> gpu = config::get_switch(config::Knob::MpiGpu);
    return (gpu && !*gpu) || (paths && dtype_size(t) != 4);
#else
    (void)t;
    (void)paths;
    return true;
#endif
  }

  /// A GPU rank needs more than one CPU: the host thread that drives the GPU and NCCL's proxy
  /// thread share whatever the rank is bound to, and OpenMPI binds each rank to one core by
  /// default when np <= 2. Measured on 2 x H200, V=32768: 16.7 T updates/s bound to a core each,
  /// 26.4 T with --bind-to none (bench/results/mpi-gpu-2026-11-21.md). Rank 0 says so.
  static void warn_if_bound_to_one_cpu(MPI_Comm world, int rank) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    int fewest = mine;
    APSP_MPI_TRY(MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, world));
    if (rank == 0 && fewest == 1)
      std::fprintf(stderr,
                   "apsp: warning: mpi GPU ranks are bound to one CPU each (mpirun's default for "
                   "-np <= 2); the GPU's "
                   "host thread and NCCL share it, about 1.6x slower: run mpirun --bind-to none "
                   "(or --map-by numa)\n");
  }

  void run(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o,
           Timings& timings) override {
    ensure_mpi_initialised();
    APSP_EXPECTS(!plan_ || (plan_->B == kOrderTile && plan_->n == g.num_vertices &&
                            plan_->n % kOrderTile == 0 && plan_->R * kOrderTile == plan_->n),
                 "mpi: tile plan for another shape");
    Comm world;
    APSP_MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &world.c));
    APSP_MPI_TRY(MPI_Comm_set_errhandler(world.c, MPI_ERRORS_RETURN));
    int rank = 0, size = 1;
    APSP_MPI_TRY(MPI_Comm_rank(world.c, &rank));
    APSP_MPI_TRY(MPI_Comm_size(world.c, &size));
    const Host host(world.c);
    const int threads =
        o.threads > 0 ? o.threads : std::max(1, omp_get_num_procs() / std::max(1, host.size));
    const int device =
        choose_device(world.c, host, dist.dtype(), g.num_vertices, next != nullptr, bool(plan_), o);
    gpu_ranks_ = device >= 0;
    rounds_.clear();
    if (device >= 0) warn_if_bound_to_one_cpu(world.c, rank);
    if (device >= 0)
      rounds_ = run_gpu_ranks(g, dist, next, device, o, timings, world.c, rank, size, threads,
                              plan_.get(), plan_ ? perm_.get() : nullptr);
    else
      run_cpu_ranks(g, dist, next, block, o, timings, world.c, rank, size, threads, plan_.get(),
                    plan_ ? perm_.get() : nullptr);
  }

 private:
  std::string rounds_;
  bool gpu_ranks_ = false;
  std::shared_ptr<const TilePlan> plan_;      // set_tile_plan's (null: dense rounds)
  std::shared_ptr<const Permutation> perm_;  // set_permutation's (null: the user's order)
};

}  // namespace

}  // namespace mpi

std::unique_ptr<BackendImpl> make_mpi_backend() { return std::make_unique<mpi::MpiBackend>(); }

BackendInfo mpi_backend_info() {
  // No MPI call here: `apsp info` and non-mpi runs must not initialise MPI.
  std::string version = "MPI";
#ifdef OMPI_MAJOR_VERSION
  version = "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." +
            std::to_string(OMPI_MINOR_VERSION) + "." + std::to_string(OMPI_RELEASE_VERSION);
#endif
#ifdef APSP_WITH_NCCL
  const int gpus = multigpu::gpu_count();
  const std::string kernels = gpus > 0 ? "GPU ranks when every rank has a GPU of its own (" +
                                             std::to_string(gpus) +
                                             " here), else CPU kernels; APSP_MPI_GPU=0|1 forces"
                                       : "CPU kernels per rank (no GPU here)";
#else
  const std::string kernels = "CPU kernels per rank";
#endif
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* s = std::getenv(var))
      return {"mpi", true, true,
              "run under mpirun: " + std::string(s) + " ranks (" + version + ", " + kernels + ")"};
  }
  return {"mpi", true, true,
          version + ", " + kernels + "; run under `mpirun -np N` (alone: 1 rank)"};
}

}  // namespace apsp::detail
