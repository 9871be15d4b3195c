// src/multigpu/multigpu_backend.cu — the multi-gpu backend: blocked Floyd-Warshall over the GPUs
// of one host, one process, NCCL between them, and the mpi GPU ranks' entry points (the same
// rounds on one GPU per rank: gpu_rank_of.cuh). The GPUs form the 2D block-cyclic grid of
// src/dist/block_cyclic.hpp with tile 128 (workers.cuh); the rounds run with one round of
// lookahead (rounds.cuh); the result leaves in stripes (gather.cuh). The type ladder is the cuda
// backend's: int16x2 rounds for int32 distances where it would try them, checked int32 rounds
// for an int64 result, each kept only when its band check over every GPU passes.
// References: Venkataraman et al. (JEA 2003); ScaLAPACK's 2D block-cyclic layout; HPL lookahead.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/distance_evidence.hpp"
#include "core/ladder.hpp"
#include "cpu/blocked_fw.hpp"
#include "cuda/device_solver.cuh"
#include "dist/block_cyclic.hpp"
#include "dist/gpu_rank.hpp"
#include "cuda/backend_info.hpp"
#include "multigpu/gather.cuh"
#include "multigpu/gpu_rank_of.cuh"
#include "multigpu/rounds.cuh"
#include "multigpu/user_order.cuh"
#include "multigpu/workers.cuh"
#include "order/ordering.hpp"
#include "sparse/rows_job.hpp"

namespace apsp::detail {
namespace sparse {
void run_sparse_rows_cuda(RowsJob& job);  // src/cuda/sparse_rows.cu
}
namespace multigpu {

namespace {

std::vector<int> devices_of(const SolveOptions& o) {
  int count = 0;
  APSP_CUDA_TRY(cudaGetDeviceCount(&count));
  std::vector<int> devs = o.devices;
  if (devs.empty())
    for (int d = 0; d < count; ++d) devs.push_back(d);
  for (int d : devs)
    if (d < 0 || d >= count)
      throw UsageError("--devices: no GPU " + std::to_string(d) + " (this machine has " +
                       std::to_string(count) + ")");
  std::vector<int> sorted = devs;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UsageError("--devices: a GPU is listed twice");
  if (devs.empty()) throw BackendUnavailable("the multi-gpu backend found no GPU");
  return devs;
}

class MultiGpuBackend final : public BackendImpl {
 public:
  std::string name() const override { return "multi-gpu"; }
  /// Every type (paths: 4-byte types, check_fits); the matrix built on the GPUs, from edges or a
  /// dense graph; streamed next hops are loop-free (hop counts where zero-weight edges exist; see
  /// run()). Sparse rounds (docs/sparse.md): 128-wide tiles, each GPU's share of the plan's lists
  /// per round (dist/local_plan.hpp); the result leaves in the user's order, stripe by stripe
  /// (user_order.cuh: each GPU gathers its block of a stripe, GPU 0 scatters them into the
  /// user's columns and downloads the stripe).
  Capabilities capabilities() const override {
    Capabilities c;
    c.pad_multiple = 1;
    c.builds_matrix = true;
    c.builds_matrix_from_dense = true;
    c.streams_paths = true;
    c.skips_tiles = true;
    c.uniform_tiles = true;
    c.unpermutes = true;
    return c;
  }
  /// The metrics' sums of the sparse direct engine's rows (RowsJob::sums) split over the GPUs
  /// (--devices, else every GPU): a block of sources each in turn (src/cuda/sparse_rows.cu).
  /// The all-pairs rows are not split (capabilities: none, so solve() keeps the rounds here).
  bool run_sparse_rows(sparse::RowsJob& job) override {
    if (!job.sums) return false;
    SolveOptions o;
    o.devices = job.devices;
    job.devices = devices_of(o);
    job.device = job.devices.front();
    sparse::run_sparse_rows_cuda(job);
    return true;
  }
  std::string rounds_used() const override { return rounds_; }
  int default_block(Dtype, std::int64_t) const override { return kTile; }
  int effective_block(Dtype, int) const override { return kTile; }
  void set_tile_plan(std::shared_ptr<const TilePlan> plan) override { plan_ = std::move(plan); }
  void set_permutation(std::shared_ptr<const Permutation> perm) override {
    perm_ = std::move(perm);
  }
  void check_fits(std::int64_t n, Dtype t, int block, bool paths) const override {
    if (block != kTile)
      throw UsageError("the multi-gpu backend uses tile size " + std::to_string(kTile) +
                       " (got --block " + std::to_string(block) + ")");
    if (paths && dtype_size(t) != 4)
      throw UsageError(std::string("the multi-gpu backend's --paths runs int32 and float32, not ") +
                       dtype_name(t) + "; the cuda and cpu backends give " + dtype_name(t) +
                       " paths");
    int count = 0;
    APSP_CUDA_TRY(cudaGetDeviceCount(&count));
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    // With a plan the result leaves in the user's order through stripe buffers on the GPUs.
    const std::size_t need = bytes_per_gpu(n, std::max(1, count), dtype_size(t), paths) +
                             (plan_ ? user_order_bytes(n) : 0);
    if (need > free_b)
      throw ResourceError("V=" + std::to_string(n) + " needs " + gib(double(need)) +
                          " per GPU on " + std::to_string(count) + " GPUs; GPU 0 has " +
                          gib(double(free_b)) + " free");
  }

  /// Every GPU of the run must hold its share of the n x n matrix (bytes_per_gpu, as run()
  /// checks before its allocations), and this host the whole result where it comes back whole
  /// (no sink). A --devices mistake is left to run(), which names it.
  std::string early_memory_problem(std::int64_t n, Dtype t, const SolveOptions& o) const override {
    std::vector<int> devs;
    try {
      devs = devices_of(o);
    } catch (const Error&) {
      return "";
    }
    const std::size_t need = bytes_per_gpu(n, int(devs.size()), dtype_size(t), o.paths);
    for (int d : devs) {
      const std::size_t free_b = free_device_bytes(d);
      if (need > free_b)
        return "V=" + std::to_string(n) + " needs " + gib(double(need)) + " on each of " +
               std::to_string(devs.size()) + " GPUs; GPU " + std::to_string(d) + " has " +
               gib(double(free_b)) + " free";
    }
    return early_host_problem(n, t, o, capabilities());
  }

  /// The cuda backend's ladder over the grid: int32 distances try int16x2 rounds first where the
  /// cuda backend would (int16_try, core/ladder.hpp; sampled-distance evidence asked before the
  /// rung, where it pays), kept when the band check over every GPU passes; an int64 result runs
  /// checked int32 rounds first where the weights and the evidence allow, kept when their band
  /// check passes, else int64 rounds.
  void run(const Graph& g, Matrix& dist, Matrix* next, int, const SolveOptions& o,
           Timings& timings) override {
    const std::vector<int> devs = devices_of(o);
    // With a plan g is the ordered graph (solve.cpp) and the result is handed out in the user's
    // order (its vertex count; sinks or whole matrices of it).
    const std::unique_ptr<dist::UserOrder> user =
        dist::user_order_of(Grid::for_run(int(devs.size())), kTile, plan_ ? perm_.get() : nullptr);
    APSP_EXPECTS(!plan_ || user, "multi-gpu: a tile plan without its vertex order");
    const Graph::WeightRange range = g.validated_weight_range();
    run_ladder(dist.dtype(), range.max_abs_weight, range.min_weight, timings, rounds_,
               [&](auto t, auto r, Rung rung) {
                 return run_typed<typename decltype(t)::type, typename decltype(r)::type>(
                     g, dist, next, devs, o, timings, rung, user.get());
               });
  }

 private:
  std::string rounds_;
  std::shared_ptr<const TilePlan> plan_;      // set_tile_plan's (null: dense rounds)
  std::shared_ptr<const Permutation> perm_;  // set_permutation's (null: the user's order)

  /// Rounds in T, result handed out as R (R = T, or int64 from checked int32 rounds), in the
  /// user's order through `user` where set (an ordered graph). False, having handed nothing out,
  /// when a checked rung failed its band check (rounds_ says why).
  template <class T, class R>
  bool run_typed(const Graph& g, Matrix& dist, Matrix* next, const std::vector<int>& devs,
                 const SolveOptions& o, Timings& timings, Rung rung, const dist::UserOrder* user) {
    if constexpr (std::is_same_v<T, int>) {
      // The checked int32 rung (an int64 result): skipped, before any allocation, where sampled
      // evidence already reaches its band (int32 rounds ~15 T updates/s a GPU).
      if (rung.checked && evidence_skips_rung(g, int32_band_low(rung.max_w),
                                              kInt32UpdatesPerGpu * double(devs.size()))) {
        rounds_ = ladder_note::kEvidenceReachesInt32;
        return false;
      }
    }
    const std::size_t need =
        bytes_per_gpu(g.num_vertices, int(devs.size()), sizeof(T), next != nullptr) +
        (user ? user_order_bytes(g.num_vertices) : 0);
    for (int d : devs) {
      APSP_CUDA_TRY(cudaSetDevice(d));
      std::size_t free_b = 0, total_b = 0;
      APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
      if (need > free_b)
        throw ResourceError("V=" + std::to_string(g.num_vertices) + " needs " + gib(double(need)) +
                            " on each of " + std::to_string(devs.size()) + " GPUs; GPU " +
                            std::to_string(d) + " has " + gib(double(free_b)) + " free");
    }
    auto t0 = Clock::now();
    // As the cpu backend: strict-less next hops, whose rare zero-weight loops solve() repairs on
    // a whole matrix; streamed next hops cannot be repaired, so with zero-weight edges they
    // compare (distance, hop count) instead (valid walks; ties may differ from the cpu backend).
    const Mode mode = !next                                                    ? Mode::Distances
                      : !o.next_sink || cpu::positive_weights(g, dist.dtype()) ? Mode::NextHops
                                                                               : Mode::HopCounts;
    std::vector<Member> members;
    for (std::size_t q = 0; q < devs.size(); ++q) members.push_back({devs[q], int(q)});
    Workers<T> fw(Grid::for_run(int(devs.size())), members, g.num_vertices, mode);
    fw.connect_in_process();
    fw.build(g);
    if (plan_) fw.set_plan(*plan_);
    timings.h2d = seconds_since(t0);
    t0 = Clock::now();
    fw.set_progress(o.progress);
    const char* asked = rung.checked ? ladder_note::kCheckedInt32 : "";
    std::string rounds = dtype_name(DtypeOf<T>::value);
    bool kept16 = false;
    if constexpr (std::is_same_v<T, int>) {
      const Int16Try policy = int16_try(g.num_vertices, rung.max_w, rung.min_w);
      const double band16 = int16x2_band_low(rung.max_w);
      if (policy != Int16Try::No && mode == Mode::Distances && PackedRounds(fw).fits()) {
        // Sampled evidence first (packed rounds ~28 T updates/s a GPU: the lab's rate), unless
        // forced: a graph whose distances pass the cap loses no pass to the rung.
        if (policy == Int16Try::IfNoEvidence &&
            evidence_skips_rung(g, band16, kInt16x2UpdatesPerGpu * double(devs.size()))) {
          rounds = std::string(ladder_note::kInt16x2Skipped) + "int32";
        } else {
          kept16 = run_packed(fw, o.progress, int(band16));
          rounds =
              kept16 ? ladder_note::kInt16x2 : std::string(ladder_note::kInt16x2Fell) + "int32";
        }
      }
    }
    if (!kept16) {
      run_lookahead(fw, o.progress);
      fw.synchronize();
      if constexpr (std::is_same_v<T, int>) {
        if (rung.checked && fw.int32_in_band(int(int32_band_low(rung.max_w)))) {
          timings.compute = seconds_since(t0);
          rounds_ = ladder_note::kInt32BandHit;
          return false;
        }
      }
    }
    rounds_ = rounds + asked;
    timings.compute = seconds_since(t0);
    fw.report_profile();
    t0 = Clock::now();
    constexpr Dtype rt = DtypeOf<R>::value;
    R* const whole = o.dist_sink ? nullptr : dist.data<R>();
    int* const whole_next = !next || o.next_sink ? nullptr : next->data<int>();
    double merge_s = 0;  // user order: GPU 0's gather / pull / scatter time (the unpermute)
    if (user)
      merge_s += gather_user<T, R>(fw, *user, false, o.dist_sink, whole, dist.stride(), rt);
    else
      gather<T, R>(fw, false, o.dist_sink, whole, dist.stride(), rt);
    if (o.dist_sink) dist = Matrix{};
    if (next) {
      if (user)
        merge_s += gather_user<int>(fw, *user, true, o.next_sink, whole_next, next->stride(),
                                    Dtype::Int32);
      else
        gather<int>(fw, true, o.next_sink, whole_next, next->stride(), Dtype::Int32);
      if (o.next_sink) *next = Matrix{};
    }
    timings.unpermute = merge_s;
    timings.d2h = std::max(0.0, seconds_since(t0) - merge_s);
    return true;
  }
};

}  // namespace

std::unique_ptr<GpuRank> make_gpu_rank(int device, const Grid& grid, int rank, i64 n, Dtype t,
                                       Mode mode, bool checked32, const TilePlan* plan) {
  APSP_EXPECTS(rank >= 0 && rank < grid.P, "make_gpu_rank: rank outside the grid");
  APSP_EXPECTS(!checked32 || t == Dtype::Int64, "checked int32 rounds are for an int64 result");
  if (checked32) return std::make_unique<GpuRankOf<int>>(device, grid, rank, n, mode, plan, true);
  if (t == Dtype::Int32) return std::make_unique<GpuRankOf<int>>(device, grid, rank, n, mode, plan);
  if (t == Dtype::Float32)
    return std::make_unique<GpuRankOf<float>>(device, grid, rank, n, mode, plan);
  APSP_EXPECTS(mode == Mode::Distances,
               "GPU ranks hold int64 / float64 distances only (no next hops)");
  if (t == Dtype::Int64)
    return std::make_unique<GpuRankOf<long>>(device, grid, rank, n, mode, plan);
  return std::make_unique<GpuRankOf<double>>(device, grid, rank, n, mode, plan);
}

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string gpu_unusable(int device) {
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return "GPU " + std::to_string(device) + ": " + cudaGetErrorString(e);
  }
  if (p.major < 9) return "GPU " + std::to_string(device) + " (" + p.name + ")" + cuda::kNeedsSm90;
  return "";
}

std::string gpu_bus_id(int device) {
  char id[64] = {};
  if (cudaDeviceGetPCIBusId(id, int(sizeof(id)), device) != cudaSuccess) {
    cudaGetLastError();
    return "device " + std::to_string(device);
  }
  return id;
}

std::size_t free_device_bytes(int device) {
  APSP_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

std::size_t bytes_per_gpu(i64 n, int workers, std::size_t elem, bool paths) {
  // The shape a run of `workers` would use (APSP_GRID when it fits them: an R x C grid's panels
  // are B x V / C and B x V / R, besides its V^2 / P elements of tiles).
  Grid g = Grid::for_workers(workers);
  try {
    g = Grid::for_run(workers);
  } catch (const UsageError&) {
  }
  return gpu_bytes_on(g, n, elem, paths);
}

}  // namespace multigpu

std::unique_ptr<BackendImpl> make_multigpu_backend() {
  return std::make_unique<multigpu::MultiGpuBackend>();
}

BackendInfo multigpu_backend_info() {
  return cuda::probe_backend_info("multi-gpu", [](const cuda::DeviceProbe& d) {
    int version = 0;
    ncclGetVersion(&version);
    const multigpu::Grid grid = multigpu::Grid::for_workers(d.count);
    std::ostringstream os;
    os << d.count << " x " << d.props.name << ", NCCL " << version / 10000 << "."
       << version / 100 % 100 << "." << version % 100 << ", grid " << grid.Pr << " x " << grid.Pc;
    return os.str();
  });
}

}  // namespace apsp::detail
