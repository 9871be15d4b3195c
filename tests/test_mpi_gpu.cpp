// tests/test_mpi_gpu.cpp — the mpi backend with GPU ranks (one rank per GPU, NCCL between them)
// against the single-device backends, as a library.
//
// Runs as one rank under plain ctest and as N ranks under `mpirun -np 2` / `-np 4`
// (tests/mpi.cmake). Every rank runs every test in the same order (the solves are collective), and
// every skip depends only on the host, so all ranks skip alike. A GPU test forces GPU ranks
// (APSP_MPI_GPU=1: a silent fall-back to CPU ranks would fail) and skips, saying why, unless the
// build has MPI, CUDA and NCCL and this host has a usable GPU for each of its ranks. Rank 0
// compares the streamed stripes with
// `--backend cpu --block 128` (and `--backend cuda` where usable): distances identical; with
// --paths, next hops identical too (the GPU ranks run the CPU backend's next-hop arithmetic with
// the GPU tile, 128), except for streamed next hops of graphs with zero-weight edges (hop-count tie
// rule, see docs/distributed.md): there every walk must end at its target with exactly the
// shortest length. Where GPU ranks are impossible (CI), the fall-back tests run instead: auto picks
// CPU ranks, APSP_MPI_GPU=1 fails on every rank without a hang. Seeds are fixed and printed.
//
// MpiGpuBench.DISABLED_Compute is the benchmark of scripts/multigpu_check.sh: with
// --gtest_also_run_disabled_tests and APSP_MPI_BENCH="V,V,..." it solves each V on GPU ranks and
// rank 0 prints one line per V (compute seconds, T updates/s = V^3 / compute seconds, sampled rows
// checked against Dijkstra), the graphs of MultiGpuBench.DISABLED_Scaling for the same V.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "order/ordering.hpp"
#include "backend_equals_cpu.hpp"
#include "support.hpp"

#ifdef APSP_WITH_MPI
#include <mpi.h>
#endif
#ifdef APSP_WITH_NCCL
#include <cuda_runtime.h>
#endif

namespace {

using apsp::Dtype;
using apsp::Matrix;
using apsp::test::RandomGraphSpec;
using Collector = apsp::test::StripeCollector;

constexpr int kGpuTile = 128;

// The reference: the cpu backend with next hops tracked in its kernels (the arithmetic the GPU
// ranks repeat), not derived from the edges afterwards (src/cpu/next_hops.hpp). Before main().
[[maybe_unused]] const int kTrackedNextHops = setenv("APSP_CPU_NEXT", "tracked", 1);

int world_rank() {
#ifdef APSP_WITH_MPI
  int init = 0;
  MPI_Initialized(&init);
  if (!init) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
#else
  return 0;
#endif
}

/// Ranks on this host as the launcher says (the same on every rank of the host); 1 when run alone.
int ranks_on_host() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE"})
    if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
  return 1;
}

/// CUDA devices of compute capability 9.0 or newer (what the GPU kernels are built for).
int capable_gpus() {
#ifdef APSP_WITH_NCCL
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  int capable = 0;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) == cudaSuccess && p.major >= 9) ++capable;
  }
  return capable;
#else
  return 0;
#endif
}

/// "" when GPU ranks can run here, else why not.
std::string why_no_gpu_ranks() {
#ifndef APSP_WITH_MPI
  return "the mpi backend is not built (no MPI at configure time)";
#elif !defined(APSP_WITH_NCCL)
  return "this build has no CUDA + NCCL";
#else
  const int gpus = capable_gpus(), ranks = ranks_on_host();
  if (gpus < ranks)
    return "needs a usable GPU (sm_90+) for each of the " + std::to_string(ranks) +
           " ranks on this host, found " + std::to_string(gpus);
  return "";
#endif
}

/// APSP_MPI_GPU for the following solves; nullptr unsets it (automatic choice).
void set_gpu_env(const char* value) {
  if (value)
    setenv("APSP_MPI_GPU", value, 1);
  else
    unsetenv("APSP_MPI_GPU");
}

#define REQUIRE_GPU_RANKS()                                                   \
  do {                                                                        \
    const std::string why_ = why_no_gpu_ranks();                              \
    if (!why_.empty()) GTEST_SKIP() << "GPU ranks cannot run here: " << why_; \
    set_gpu_env("1");                                                         \
  } while (0)

using Case = apsp::test::EqualsCpuCase;

Case make(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t = Dtype::Int32,
          bool paths = false) {
  Case c;
  c.spec.V = V;
  c.spec.E = E;
  c.spec.seed = seed;
  c.spec.wmin = 1;
  c.spec.wmax = 100;
  c.dtype = t;
  c.paths = paths;
  return c;
}

std::string describe_here(const Case& c) {
  return apsp::test::describe(c) + " ranks_on_host=" + std::to_string(ranks_on_host());
}

/// Solves `c` with --backend mpi (GPU ranks forced by the caller) and, on rank 0, compares with
/// `--backend cpu --block 128` and, for distances, `--backend cuda` where usable
/// (tests/backend_equals_cpu.hpp).
void check_against_single_device(const Case& c) {
  SCOPED_TRACE("ranks_on_host=" + std::to_string(ranks_on_host()));
  apsp::test::BackendUnderTest mpi;
  mpi.backend = apsp::Backend::Mpi;
  mpi.name = "mpi";
  mpi.reported_block = kGpuTile;  // GPU ranks report the GPU tile
  mpi.ref_block = kGpuTile;
  mpi.vs_cuda = true;
  mpi.is_root = [] { return world_rank() == 0; };
  apsp::test::expect_equals_cpu(mpi, c);
}

class MpiGpu : public ::testing::Test {
 protected:
  void TearDown() override { set_gpu_env(nullptr); }
};

// ---- where GPU ranks are impossible (CI): the automatic choice and the forced failure -----------

TEST_F(MpiGpu, WithoutGpuRanksAutoUsesCpuRanksAndForcingFailsEverywhere) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  const std::string why = why_no_gpu_ranks();
  if (why.empty()) GTEST_SKIP() << "GPU ranks can run here; the GPU tests below cover this host";
  RandomGraphSpec s;
  s.V = 150;
  s.E = 700;
  s.seed = 71;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.block = 32;
  set_gpu_env("1");
  // Every rank must throw (the choice is collective): a rank that went on would hang the others.
  EXPECT_THROW((void)apsp::solve(g, o), apsp::BackendUnavailable) << why;
  set_gpu_env(nullptr);
  const apsp::Result r = apsp::solve(g, o);
  EXPECT_EQ(r.block, 32) << "CPU ranks keep the CPU tile";
  if (world_rank() == 0) {
    o.backend = apsp::Backend::Cpu;
    EXPECT_EQ(apsp::test::compare(r.dist, apsp::solve(g, o).dist), "");
  }
#endif
}

// ---- GPU ranks --------------------------------------------------------------------------------

TEST_F(MpiGpu, DistancesMatchSingleDevice) {
  REQUIRE_GPU_RANKS();
  std::uint64_t seed = 9100;
  for (std::int64_t V : {1, 2, 129, 1000, 1337})
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
      check_against_single_device(make(V, 5 * V, ++seed, t));
}

// The int16x2 rung on GPU ranks (forced at these sizes; every rank sets the variable): kept
// where every distance stays below the int16 band, dropped for int32 rounds where a chain's
// distances pass it (the band check agreed over the ranks). The answer equals the cpu one.
TEST_F(MpiGpu, Int16RungKeptAndDropped) {
  REQUIRE_GPU_RANKS();
  setenv("APSP_CUDA_INT16", "1", 1);
  for (const bool chain : {false, true}) {
    Case c = make(chain ? 1501 : 1300, 6000, chain ? 9701 : 9702);
    SCOPED_TRACE(describe_here(c) + (chain ? " chain" : ""));
    apsp::Graph g = apsp::test::random_graph(c.spec);
    if (chain) {  // 0 -> 1 -> ... -> V-1, weight 1000 each: distances to 1.5e6
      g = apsp::Graph{};
      g.num_vertices = c.spec.V;
      for (std::int64_t v = 0; v + 1 < c.spec.V; ++v)
        g.add_edge(std::int32_t(v), std::int32_t(v + 1), 1000);
    }
    apsp::SolveOptions o;
    o.backend = apsp::Backend::Mpi;
    o.dtype = Dtype::Int32;
    const apsp::Result r = apsp::solve(g, o);
    EXPECT_EQ(r.rounds, chain ? "int16x2 -> int32" : "int16x2");
    if (world_rank() != 0) continue;
    o.backend = apsp::Backend::Cpu;
    const apsp::Result want = apsp::solve(g, o);
    ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), c.spec.V) << "trivial test input";
    EXPECT_EQ(apsp::test::compare(r.dist, want.dist), "");
  }
  unsetenv("APSP_CUDA_INT16");
}

// Checked int32 rounds on GPU ranks for an int64 result: kept where distances stay below the
// band [2^30-1 - max w, 2^30-1), dropped for int64 rounds where a chain passes 2^30-1 (the band
// check agreed over the ranks). Either way the answer equals the cpu one.
TEST_F(MpiGpu, CheckedInt32KeptAndDropped) {
  REQUIRE_GPU_RANKS();
  constexpr double kW = 153391690;  // 7 * kW = 2^30 + 6
  for (const bool chain : {false, true}) {
    Case c = make(700, 3500, chain ? 9801 : 9802, Dtype::Int64);
    c.spec.wmax = 2000000;  // (V-1) * max w > 2^30: the bound asks for int64
    SCOPED_TRACE(describe_here(c) + (chain ? " chain" : ""));
    apsp::Graph g = apsp::test::random_graph(c.spec);
    if (chain) {  // nine new vertices in a chain of their own: d = 8 kW > 2^30-1 at its ends
      const auto b = std::int32_t(g.num_vertices);
      g.num_vertices += 9;
      for (std::int32_t v = b; v < b + 8; ++v) g.add_edge(v, v + 1, kW);
    }
    apsp::SolveOptions o;
    o.backend = apsp::Backend::Mpi;
    o.dtype = Dtype::Int64;
    const apsp::Result r = apsp::solve(g, o);
    EXPECT_EQ(r.block, kGpuTile) << "GPU ranks";
    EXPECT_EQ(r.rounds, chain ? "int64 (int32 rounds checked: a distance may reach 2^30-1)"
                              : "int32 (checked; bound asked int64)");
    if (world_rank() != 0) continue;
    o.backend = apsp::Backend::Cpu;
    const apsp::Result want = apsp::solve(g, o);
    ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), c.spec.V) << "trivial test input";
    EXPECT_EQ(apsp::test::compare(r.dist, want.dist), "");
  }
}

TEST_F(MpiGpu, UndirectedDisconnectedZeroWeights) {
  REQUIRE_GPU_RANKS();
  Case c = make(1001, 6000, 9201);
  c.spec.directed = false;
  c.spec.components = 3;
  c.spec.wmin = 0;
  c.spec.wmax = 5;
  check_against_single_device(c);
  Case f = make(777, 5000, 9202, Dtype::Float32);
  f.spec.directed = false;
  check_against_single_device(f);
}

TEST_F(MpiGpu, PathsMatchCpu) {
  REQUIRE_GPU_RANKS();
  std::uint64_t seed = 9300;
  for (std::int64_t V : {2, 129, 1000, 1337}) {
    check_against_single_device(
        make(V, 5 * V, ++seed, Dtype::Int32, true));      // strict-less next hops
    Case z = make(V, 5 * V, ++seed, Dtype::Int32, true);  // zero weights, streamed:
    z.spec.wmin = 0;                                      // hop-count tie rule
    z.spec.wmax = 3;
    check_against_single_device(z);
    z.streamed = false;  // whole matrix on rank 0: solve() repairs it as for the cpu backend
    check_against_single_device(z);
  }
  check_against_single_device(make(1000, 6000, 9351, Dtype::Float32, true));
  Case fz = make(701, 9000, 9352, Dtype::Float32, true);
  fz.spec.wmin = 0;
  fz.spec.wmax = 2;
  check_against_single_device(fz);
}

TEST_F(MpiGpu, NegativeWeightsThroughJohnson) {
  REQUIRE_GPU_RANKS();
  Case c = make(500, 2500, 9401, Dtype::Int32, true);
  c.spec.wmin = -3;
  c.spec.wmax = 60;
  const apsp::Graph g = apsp::test::random_graph(c.spec);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Cpu;
  bool cycle = false;
  try {
    (void)apsp::solve(g, o);
  } catch (const apsp::NegativeCycleError&) {
    cycle = true;
  }
  if (cycle) {
    o.backend = apsp::Backend::Mpi;
    EXPECT_THROW((void)apsp::solve(g, o), apsp::NegativeCycleError);
    return;
  }
  c.streamed = false;
  check_against_single_device(c);
}

// Sparse rounds (docs/sparse.md): `--order nd` on GPU ranks runs each rank's share of the plan's
// tile lists (dist/local_plan.hpp, as the multi-gpu backend); the result, in the user's order on
// rank 0 (whole, or streamed in stripes of a few rows from every rank's blocks), equals the cpu
// backend's dense answer in every dtype, and with --paths its next hops walk shortest paths.
TEST_F(MpiGpu, OrderNdRunsTheListedRounds) {
  REQUIRE_GPU_RANKS();
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  const apsp::Graph grid = apsp::generate_grid(37, 41, 0, 9, 9501);  // V = 1517, zero weights
  const apsp::Graph geo = apsp::generate_geometric(1333, 4, 10, 9502);
  for (const apsp::Graph* g : {&grid, &geo})
    for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
      SCOPED_TRACE("V=" + std::to_string(g->num_vertices) + " " + apsp::dtype_name(t) +
                   " ranks_on_host=" + std::to_string(ranks_on_host()));
      apsp::SolveOptions o;
      o.backend = apsp::Backend::Mpi;
      o.order = apsp::Order::NestedDissection;
      o.dtype = t;
      const apsp::Result r = apsp::solve(*g, o);
      EXPECT_EQ(r.order, "nd");
      // Streamed: stripes of user rows from every rank's blocks (with paths: listed next-hop
      // rounds, hop counts where weights are zero, next hops renamed to user vertices).
      const bool paths = dtype_size(t) == 4;
      apsp::test::StripeCollector dist, next;
      o.paths = paths;
      o.dist_sink = dist.sink();
      if (paths) o.next_sink = next.sink();
      apsp::Result streamed;
      {
        const apsp::test::ScopedEnv stripe("APSP_GATHER_STRIPE", "40000");  // many stripes
        streamed = apsp::solve(*g, o);
      }
      EXPECT_EQ(streamed.order, "nd");
      if (world_rank() != 0) continue;  // no ASSERT below: rank 0 must go on to the next solve
      EXPECT_TRUE(streamed.dist.empty());
      o = apsp::SolveOptions{};
      o.backend = apsp::Backend::Cpu;
      o.order = apsp::Order::None;
      o.dtype = t;
      const apsp::Result want = apsp::solve(*g, o);
      EXPECT_EQ(apsp::test::compare(r.dist, want.dist), "");
      const std::string whole = dist.check(), hops = paths ? next.check() : "";
      EXPECT_EQ(whole, "");
      EXPECT_EQ(hops, "");
      if (whole.empty()) {
        EXPECT_EQ(apsp::test::compare(dist.m, want.dist), "");
      }
      if (paths && whole.empty() && hops.empty()) {
        EXPECT_EQ(apsp::test::check_next_hop_walks(*g, dist.m, next.m), "");
      }
    }
}

TEST_F(MpiGpu, AutomaticChoiceAndTheSwitch) {
  REQUIRE_GPU_RANKS();
  RandomGraphSpec s;
  s.V = 333;
  s.E = 2000;
  s.seed = 9501;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.block = 32;
  set_gpu_env(nullptr);
  const apsp::Result gpu = apsp::solve(g, o);
  EXPECT_EQ(gpu.block, kGpuTile) << "with a GPU for every rank the automatic choice is GPU ranks";
  set_gpu_env("0");
  const apsp::Result cpu = apsp::solve(g, o);
  EXPECT_EQ(cpu.block, 32) << "APSP_MPI_GPU=0 must give CPU ranks";
  // int64 distances run on GPU ranks; int64 --paths does not (4-byte next-hop kernels):
  // automatic -> CPU ranks; forced -> an error on every rank.
  o.dtype = Dtype::Int64;
  set_gpu_env(nullptr);
  const apsp::Result wide = apsp::solve(g, o);
  EXPECT_EQ(wide.block, kGpuTile);
  o.paths = true;
  const apsp::Result wide_paths = apsp::solve(g, o);
  EXPECT_EQ(wide_paths.block, 32);
  set_gpu_env("1");
  EXPECT_THROW((void)apsp::solve(g, o), apsp::BackendUnavailable);
  o.paths = false;
  if (world_rank() == 0) {
    o.backend = apsp::Backend::Cpu;
    o.dtype = Dtype::Int32;
    const Matrix want = apsp::solve(g, o).dist;
    EXPECT_EQ(apsp::test::compare(gpu.dist, want), "");
    EXPECT_EQ(apsp::test::compare(cpu.dist, want), "");
    o.dtype = Dtype::Int64;
    EXPECT_EQ(apsp::test::compare(wide.dist, apsp::solve(g, o).dist), "");
  }
}

TEST_F(MpiGpu, DevicesOption) {
  REQUIRE_GPU_RANKS();
  const int ranks = ranks_on_host(), gpus = capable_gpus();
  // Local rank l takes the l-th listed GPU: list them backwards.
  Case c = make(900, 5000, 9601);
  for (int d = ranks - 1; d >= 0; --d) c.devices.push_back(d);
  check_against_single_device(c);
  const apsp::Graph g = apsp::test::random_graph(c.spec);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.devices = {gpus};  // no such GPU
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  o.devices = {0, 0};
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  if (ranks >= 2) {
    o.devices = {0};  // fewer GPUs than ranks on this host
    EXPECT_THROW((void)apsp::solve(g, o), apsp::BackendUnavailable);
  }
}

// ---- the benchmark (scripts/multigpu_check.sh) ------------------------------------------------

TEST(MpiGpuBench, DISABLED_Compute) {
  REQUIRE_GPU_RANKS();
  const char* spec = std::getenv("APSP_MPI_BENCH");
  if (!spec) GTEST_SKIP() << "set APSP_MPI_BENCH=V,V,...";
  int size = 1;
#ifdef APSP_WITH_MPI
  int init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::int64_t V = std::stoll(item);
    RandomGraphSpec s;  // as MultiGpuBench.DISABLED_Scaling
    s.V = V;
    s.E = std::min<std::int64_t>(5000000, V * (V - 1) / 4);
    s.wmin = 0;
    s.wmax = 1000;
    s.seed = std::uint64_t(V);
    const apsp::Graph g = apsp::test::random_graph(s);
    const std::vector<std::int64_t> sample = {0, V / 2, V - 1};
    std::vector<std::vector<std::int32_t>> kept(sample.size());
    std::int64_t rows_seen = 0;
    apsp::SolveOptions o;
    o.backend = apsp::Backend::Mpi;
    o.dtype = Dtype::Int32;
    o.dist_sink = [&](const apsp::RowBlock& b) {
      rows_seen += b.rows;
      for (std::size_t k = 0; k < sample.size(); ++k)
        if (sample[k] >= b.row0 && sample[k] < b.row0 + b.rows) {
          const auto* row =
              static_cast<const std::int32_t*>(b.data) + (sample[k] - b.row0) * b.stride;
          kept[k].assign(row, row + b.cols);
        }
    };
    const auto t0 = std::chrono::steady_clock::now();
    const apsp::Result r = apsp::solve(g, o);
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.block, kGpuTile);
#ifdef APSP_WITH_MPI
    // The size of the run comes from MPI once solve() has started it.
    MPI_Initialized(&init);
    if (init) MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    if (world_rank() != 0) continue;
    int bad = 0;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const std::vector<double> want = apsp::detail::reference_dijkstra(g, sample[k]);
      for (std::int64_t j = 0; j < V; ++j) {
        const double w =
            std::isinf(want[std::size_t(j)]) ? double(apsp::kNthuInf) : want[std::size_t(j)];
        if (kept[k].size() != std::size_t(V) || double(kept[k][std::size_t(j)]) != w) ++bad;
      }
    }
    const double tups = double(V) * double(V) * double(V) / r.timings.compute / 1e12;
    std::printf(
        "mpibench V=%lld ranks=%d build_s=%.3f compute_s=%.3f gather_s=%.3f total_s=%.3f "
        "T_updates_per_s=%.3f "
        "verify=%s\n",
        (long long)V, size, r.timings.h2d, r.timings.compute, r.timings.d2h, total, tups,
        bad == 0 && rows_seen == V ? "PASS" : "FAIL");
    std::fflush(stdout);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(rows_seen, V);
  }
}

}  // namespace
