// tests/test_multigpu.cpp — the multi-gpu backend against the single-device result.
//
// Every test needs the backend built (CUDA + NCCL) and at least 2 GPUs; otherwise it skips and
// says why. Results must equal the cuda backend's (the same kernels, the same arithmetic per tile)
// and, for small V, the cpu backend's. Seeds are fixed and printed on failure.
//
// MultiGpuBench.DISABLED_Scaling is the scaling benchmark of scripts/multigpu_check.sh: run it with
// --gtest_also_run_disabled_tests and APSP_SCALING="V:GPUS,V:GPUS,..." ("V:c": the cuda backend on
// GPU 0, the single-GPU baseline). It prints one line per run (backend, the rounds' type, compute
// seconds, T updates/s = V^3 / compute seconds) and checks sampled rows against Dijkstra.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "dist/block_cyclic.hpp"
#include "dist/gpu_rank.hpp"
#include "backend_equals_cpu.hpp"
#include "support.hpp"

#ifdef APSP_WITH_NCCL
#include <cuda_runtime.h>
#endif

namespace {

using apsp::Dtype;
using apsp::Matrix;
using apsp::test::RandomGraphSpec;

int gpu_count() {
#ifdef APSP_WITH_NCCL
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

#define REQUIRE_GPUS(k)                                                             \
  do {                                                                              \
    const auto info = apsp::backends();                                             \
    for (const auto& b : info)                                                      \
      if (b.name == "multi-gpu" && !b.usable)                                       \
        GTEST_SKIP() << "multi-gpu backend not usable: " << b.detail;               \
    if (gpu_count() < (k))                                                          \
      GTEST_SKIP() << "needs " << (k) << " GPUs, this machine has " << gpu_count(); \
  } while (0)

using Collector = apsp::test::StripeCollector;

// The --paths reference: the cpu backend with next hops tracked in its kernels (the arithmetic the
// multi-gpu backend repeats), not derived from the edges afterwards (src/cpu/next_hops.hpp).
[[maybe_unused]] const int kTrackedNextHops = setenv("APSP_CPU_NEXT", "tracked", 1);

apsp::Backend single_device() {
  return apsp::test::backend_usable("cuda") ? apsp::Backend::Cuda : apsp::Backend::Cpu;
}

/// The multi-gpu backend on `devices`, distances streamed: equal to the cuda backend where usable
/// and to the cpu backend (up to V = 700 where cuda is usable; tests/backend_equals_cpu.hpp).
apsp::test::BackendUnderTest multi_gpu() {
  apsp::test::BackendUnderTest b;
  b.backend = apsp::Backend::MultiGpu;
  b.name = "multi-gpu";
  b.ref_block = 0;
  b.vs_cuda = true;
  b.cpu_up_to = 700;
  return b;
}

void check_case(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t,
                const std::vector<int>& devices, bool undirected = false) {
  apsp::test::EqualsCpuCase c;
  c.spec.V = V;
  c.spec.E = E;
  c.spec.seed = seed;
  c.spec.directed = !undirected;
  c.dtype = t;
  c.devices = devices;
  apsp::test::expect_equals_cpu(multi_gpu(), c);
}

std::vector<int> first(int k) {
  std::vector<int> d;
  for (int i = 0; i < k; ++i) d.push_back(i);
  return d;
}

TEST(MultiGpu, TwoGpusMatchSingleDevice) {
  REQUIRE_GPUS(2);
  for (std::int64_t V : {1, 5, 127, 128, 129, 300, 1000, 2049})
    for (Dtype t : {Dtype::Int32, Dtype::Float32})
      check_case(V, 4 * V, 1000 + std::uint64_t(V), t, first(2));
}

TEST(MultiGpu, EveryGridUpToAllGpus) {
  REQUIRE_GPUS(2);
  // 3 GPUs: a 1 x 3 grid; 4: 2 x 2; sizes whose tile count does not divide by the grid.
  for (int k = 3; k <= gpu_count(); ++k)
    for (std::int64_t V : {129, 700, 1500, 5003})
      check_case(V, 6 * V, 2000 + std::uint64_t(V + k), Dtype::Int32, first(k));
}

TEST(MultiGpu, LargerGraphs) {
  REQUIRE_GPUS(2);
  check_case(9001, 200000, 3001, Dtype::Int32, first(gpu_count()));
  check_case(6000, 100000, 3002, Dtype::Float32, first(2), true);
}

TEST(MultiGpu, DeviceListOrderAndSubset) {
  REQUIRE_GPUS(2);
  check_case(1234, 8000, 4001, Dtype::Int32, {1, 0});
}

TEST(MultiGpu, WithoutSinkResultHoldsTheMatrix) {
  REQUIRE_GPUS(2);
  RandomGraphSpec s;
  s.V = 777;
  s.E = 5000;
  s.seed = 5001;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::MultiGpu;
  const apsp::Result r = apsp::solve(g, o);
  o.backend = apsp::Backend::Cpu;
  EXPECT_EQ(apsp::test::compare(r.dist, apsp::solve(g, o).dist), "");
}

TEST(MultiGpu, RefusesWhatItCannotDo) {
  REQUIRE_GPUS(2);
  const apsp::Graph g = apsp::test::random_graph({});
  apsp::SolveOptions o;
  o.backend = apsp::Backend::MultiGpu;
  o.block = 64;
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  o.block = 0;
  o.devices = {0, 0};
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  o.devices = {gpu_count()};
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
}

// With --paths the tiles are updated exactly as the cpu backend does (multigpu/rounds_paths.cuh):
// distances and next hops must equal `--backend cpu --block 128` bit for bit, except for streamed
// next hops of graphs with zero-weight edges (hop-count tie rule): there every walk must end at its
// target with the shortest length.
void check_paths(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t, double wmin,
                 double wmax, const std::vector<int>& devices, bool streamed) {
  apsp::test::EqualsCpuCase c;
  c.spec.V = V;
  c.spec.E = E;
  c.spec.seed = seed;
  c.spec.wmin = wmin;
  c.spec.wmax = wmax;
  c.dtype = t;
  c.paths = true;
  c.streamed = streamed;
  c.devices = devices;
  apsp::test::BackendUnderTest b = multi_gpu();
  b.ref_block = 128;
  apsp::test::expect_equals_cpu(b, c);
}

TEST(MultiGpu, PathsMatchCpu) {
  REQUIRE_GPUS(2);
  for (std::int64_t V : {2, 130, 333, 1000}) {
    check_paths(V, 5 * V, 6000 + std::uint64_t(V), Dtype::Int32, 1, 100, first(2),
                true);  // next hops
    check_paths(V, 5 * V, 6100 + std::uint64_t(V), Dtype::Int32, 0, 3, first(2),
                true);  // hop counts
    check_paths(V, 5 * V, 6100 + std::uint64_t(V), Dtype::Int32, 0, 3, first(2),
                false);  // repaired
  }
  check_paths(700, 4000, 6201, Dtype::Float32, 1, 50, first(gpu_count()), true);
  check_paths(701, 9000, 6202, Dtype::Float32, 0, 2, first(gpu_count()), false);
  check_paths(1500, 12000, 6203, Dtype::Int32, 0, 10, first(gpu_count()), true);
}

// ---- grid shapes other than the default (APSP_GRID) ---------------------------------------------
//
// Each GPU's local matrix has the grid's widest local column count as its stride and the
// transposed column panels the widest local row count (gpu_strides): on 1 x P and P x 1 grids
// the two differ, so these run every shape the GPUs allow, with V that no grid divides.

/// Sets an environment variable for one scope (restores the old value, or unsets it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

/// Every R x C with R * C = k.
std::vector<std::string> shapes_of(int k) {
  std::vector<std::string> out;
  for (int r = 1; r <= k; ++r)
    if (k % r == 0) out.push_back(std::to_string(r) + "x" + std::to_string(k / r));
  return out;
}

TEST(MultiGpu, EveryGridShape) {
  REQUIRE_GPUS(2);
  for (int k = 2; k <= std::min(gpu_count(), 4); ++k)
    for (const std::string& shape : shapes_of(k)) {
      SCOPED_TRACE("APSP_GRID=" + shape);
      ScopedEnv grid("APSP_GRID", shape);
      for (std::int64_t V : {129, 700, 1500}) {
        check_case(V, 6 * V, 7000 + std::uint64_t(V + k), Dtype::Int32, first(k));
        check_case(V, 6 * V, 7100 + std::uint64_t(V + k), Dtype::Float32, first(k), true);
      }
      check_paths(333, 1700, 7201, Dtype::Int32, 1, 100, first(k), true);  // next hops
      check_paths(333, 1700, 7202, Dtype::Int32, 0, 3, first(k), true);    // hop counts
      check_paths(333, 1700, 7203, Dtype::Int32, 0, 3, first(k), false);   // repaired
    }
}

// Every dtype on grids of 1, 2 and all (up to 4) GPUs here (one GPU: the 1 x 1 grid, every
// kernel and the lookahead but no NCCL), odd sizes. Integer-valued weights: equal to the cpu
// backend's answer bit for bit in every dtype. Fractional weights (float32 / float64): equal to the
// cuda backend's (the same tile arithmetic) and within 1e-12 (float64) of the cpu backend's.
TEST(MultiGpu, EveryTypeOnEveryGpuHere) {
  REQUIRE_GPUS(1);
  std::vector<int> counts = {1};
  if (gpu_count() >= 2) counts.push_back(2);
  if (gpu_count() >= 3) counts.push_back(std::min(gpu_count(), 4));
  for (const int k : counts) {
    const std::vector<int> devs = first(k);
    for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
      for (const bool integer : {true, false}) {
        if (!integer && apsp::is_integer(t)) continue;
        for (const std::int64_t V : {129, 700, 1501}) {
          std::ostringstream what;
          what << "V=" << V << " dtype=" << apsp::dtype_name(t)
               << (integer ? " integer" : " fractional") << " weights, gpus=" << devs.size();
          SCOPED_TRACE(what.str());
          RandomGraphSpec s;
          s.V = V;
          s.E = 5 * V;
          s.wmin = 0;
          s.wmax = 1000;
          s.integer = integer;
          s.seed = 8100 + std::uint64_t(V) + (integer ? 0 : 7);
          const apsp::Graph g = apsp::test::random_graph(s);
          apsp::SolveOptions o;
          o.dtype = t;
          o.backend = apsp::Backend::MultiGpu;
          o.devices = devs;
          const apsp::Result got = apsp::solve(g, o);
          ASSERT_EQ(got.dtype(), t);
          apsp::SolveOptions ref = o;
          ref.devices = {};
          ref.backend = apsp::Backend::Cpu;
          const apsp::Result cpu = apsp::solve(g, ref);
          ASSERT_GT(apsp::test::finite_off_diagonal(cpu.dist), V) << "trivial test input";
          EXPECT_EQ(apsp::test::compare(got.dist, cpu.dist,
                                        integer ? 0.0 : (t == Dtype::Float64 ? 1e-12 : 1e-5)),
                    "")
              << "vs cpu";
          if (!integer && single_device() == apsp::Backend::Cuda) {
            ref.backend = apsp::Backend::Cuda;
            EXPECT_EQ(apsp::test::compare(got.dist, apsp::solve(g, ref).dist), "") << "vs cuda";
          }
        }
      }
  }
}

// The type ladder on the grid: int16x2 rounds (forced at these sizes) kept where every distance
// stays below the int16 band and dropped for int32 rounds where one reaches it; checked int32
// rounds for an int64 result kept or dropped for int64 rounds. Each answer equals the cpu one.
TEST(MultiGpu, LadderKeepsAndDropsRungs) {
  REQUIRE_GPUS(1);
  const std::vector<int> devs = first(std::min(gpu_count(), 4));
  ScopedEnv force("APSP_CUDA_INT16", "1");
  struct Case {
    std::int64_t V;
    double wmin, wmax;
    bool chain;  // a path 0 -> 1 -> ... of weight-wmax edges: distances far past the int16 cap
    Dtype t;
    const char* rounds;
  };
  const Case cases[] = {
      {1500, 1, 100, false, Dtype::Int32, "int16x2"},
      {1501, 0, 1000, true, Dtype::Int32, "int16x2 -> int32"},
      {777, 0, 9, false, Dtype::Int32, "int16x2"},
      {1500, 1, 2000000, false, Dtype::Int64, "int32 (checked; bound asked int64)"},
      {900, 0, 1e8, true, Dtype::Int64,
       "int64 (int32 rounds checked: a distance may reach 2^30-1)"},
  };
  for (const Case& c : cases) {
    std::ostringstream what;
    what << "V=" << c.V << " w=" << c.wmin << ".." << c.wmax << (c.chain ? " chain" : "") << " "
         << apsp::dtype_name(c.t) << " gpus=" << devs.size();
    SCOPED_TRACE(what.str());
    RandomGraphSpec s;
    s.V = c.V;
    s.E = 4 * c.V;
    s.wmin = c.wmin;
    s.wmax = c.wmax;
    s.seed = 8300 + std::uint64_t(c.V);
    apsp::Graph g = apsp::test::random_graph(s);
    if (c.chain) {  // a second graph on top: the chain alone spans every vertex
      apsp::Graph h;
      h.num_vertices = c.V;
      for (std::int64_t v = 0; v + 1 < c.V; ++v)
        h.add_edge(std::int32_t(v), std::int32_t(v + 1), c.wmax);
      g = h;
    }
    apsp::SolveOptions o;
    o.dtype = c.t;
    o.backend = apsp::Backend::MultiGpu;
    o.devices = devs;
    const apsp::Result got = apsp::solve(g, o);
    EXPECT_EQ(got.rounds, c.rounds);
    apsp::SolveOptions ref = o;
    ref.devices = {};
    ref.backend = apsp::Backend::Cpu;
    const apsp::Result want = apsp::solve(g, ref);
    ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), c.V) << "trivial test input";
    EXPECT_EQ(apsp::test::compare(got.dist, want.dist), "") << "vs cpu";
  }
  // Paths: int64 / float64 are refused with a line naming the backends that give them.
  apsp::SolveOptions o;
  o.backend = apsp::Backend::MultiGpu;
  o.devices = devs;
  o.paths = true;
  o.dtype = Dtype::Float64;
  try {
    (void)apsp::solve(apsp::test::random_graph({}), o);
    ADD_FAILURE() << "float64 --paths on multi-gpu did not throw";
  } catch (const apsp::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda and cpu backends"), std::string::npos) << e.what();
  }
}

// A dense graph (Graph::from_dense) is built on each GPU from its stripes of the caller's matrix,
// all ld columns of each local row: the same result as its edge list on every grid shape.
TEST(MultiGpu, DenseGraphEveryGridShape) {
  REQUIRE_GPUS(2);
  for (std::int64_t V : {300, 1100}) {
    RandomGraphSpec s;
    s.V = V;
    s.E = 8 * V;
    s.wmin = 1;  // 0 is "no edge" in a dense matrix
    s.wmax = 100;
    s.seed = 7300 + std::uint64_t(V);
    const apsp::Graph edges = apsp::test::random_graph(s);
    std::vector<double> W(std::size_t(V * V), 0.0);
    for (std::size_t e = 0; e < edges.src.size(); ++e) {
      double& w = W[std::size_t(edges.src[e] * V + edges.dst[e])];
      if (edges.src[e] != edges.dst[e] && (w == 0 || edges.weight[e] < w)) w = edges.weight[e];
    }
    apsp::DenseAdjacency a;
    a.data = W.data();
    a.kind = Dtype::Float64;
    a.row_stride = V * std::int64_t(sizeof(double));
    a.col_stride = std::int64_t(sizeof(double));
    const apsp::Graph dense = apsp::Graph::from_dense(V, a, true);
    apsp::SolveOptions ref;
    ref.dtype = Dtype::Int32;
    ref.backend = apsp::Backend::Cpu;
    const apsp::Result want = apsp::solve(edges, ref);
    ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), 0) << "trivial test input";
    for (int k = 2; k <= std::min(gpu_count(), 4); ++k)
      for (const std::string& shape : shapes_of(k)) {
        SCOPED_TRACE("V=" + std::to_string(V) + " APSP_GRID=" + shape);
        ScopedEnv grid("APSP_GRID", shape);
        apsp::SolveOptions o;
        o.dtype = Dtype::Int32;
        o.backend = apsp::Backend::MultiGpu;
        o.devices = first(k);
        EXPECT_EQ(apsp::test::compare(apsp::solve(dense, o).dist, want.dist), "");
      }
  }
}

// ---- device memory per GPU (no GPU needed) ------------------------------------------------------

std::vector<apsp::detail::dist::Grid> grids() {
  std::vector<apsp::detail::dist::Grid> out;
  const std::initializer_list<std::pair<int, int>> shapes = {
      {1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {3, 1}, {2, 3}, {3, 2}, {1, 4}, {4, 1}, {3, 3}};
  for (const auto& [r, c] : shapes) {
    apsp::detail::dist::Grid g;
    g.Pr = r;
    g.Pc = c;
    g.P = r * c;
    out.push_back(g);
  }
  return out;
}

// The strides are the widest local sides over the grid; every buffer indexed by them fits; the
// members of each communicator agree on what they broadcast.
TEST(MultiGpuMemory, StridesAreTheWidestLocalSides) {
  using apsp::detail::dist::Layout;
  namespace mg = apsp::detail::multigpu;
  constexpr std::int64_t B = mg::kGpuTile;
  for (const auto& g : grids())
    for (std::int64_t n : {1, 2, 127, 128, 129, 300, 1000, 5003, 65536, 65537}) {
      SCOPED_TRACE("grid " + std::to_string(g.Pr) + "x" + std::to_string(g.Pc) +
                   " n=" + std::to_string(n));
      const mg::GpuStrides s = mg::gpu_strides(g, n);
      std::int64_t widest_cols = 0, widest_rows = 0;
      for (int w = 0; w < g.P; ++w) {
        const Layout L(g, w, n, B);
        widest_cols = std::max(widest_cols, L.local_cols());
        widest_rows = std::max(widest_rows, L.local_rows());
        // Members of a grid column (the row panels' communicator) share local columns; members of
        // a grid row (the column panels') share local rows.
        const Layout top(g, g.rank_of(0, L.pc), n, B), left(g, g.rank_of(L.pr, 0), n, B);
        EXPECT_EQ(L.local_cols(), top.local_cols());
        EXPECT_EQ(L.local_rows(), left.local_rows());
      }
      EXPECT_EQ(s.cols, widest_cols);
      EXPECT_EQ(s.rows, widest_rows);
      EXPECT_EQ(s.cols % B, 0);
      EXPECT_EQ(s.rows % B, 0);
      // closure_and_transpose writes P*^T into csT (B x rows) at [i * rows + j], i, j < B.
      EXPECT_GE(s.rows, B);
      EXPECT_GE(s.cols, B);
      const std::int64_t R = (n + B - 1) / B;
      if (g.Pr == g.Pc) {  // square grids: one stride, as before the strides were split
        EXPECT_EQ(s.cols, s.rows);
        EXPECT_EQ(s.cols, Layout::tiles_of(R, g.Pr, 0) * B);
      }
      // The local matrix is the grid's share of the padded matrix, not more: at most one tile
      // row and one tile column of padding beyond (R B)^2 / P.
      EXPECT_LE(s.rows * s.cols, (R * B / g.Pr + B) * (R * B / g.Pc + B));
    }
}

TEST(MultiGpuMemory, BytesPerGpu) {
  namespace mg = apsp::detail::multigpu;
  const auto grid = [](int r, int c) {
    apsp::detail::dist::Grid g;
    g.Pr = r;
    g.Pc = c;
    g.P = r * c;
    return g;
  };
  constexpr std::size_t kEdges = std::size_t(1) << 22,
                        kEdgeBytes = kEdges * 16;  // 64 MiB upload buffers
  // V = 65536 on 1 x 2, int32 distances: D 65536 x 32768, rowp 2 x (128 x 32768), csT and colT
  // 3 x (128 x 65536), pivots 2 x 2 x 128^2, warm-up scratch 128 x 65536: 8 GiB + 160.25 MiB,
  // against 16 GiB + 160.25 MiB with the whole matrix width as the stride.
  const std::size_t v64k = std::size_t(65536) * 32768 * 4 + std::size_t(2) * 128 * 32768 * 4 +
                           std::size_t(3) * 128 * 65536 * 4 + std::size_t(4) * 128 * 128 * 4 +
                           std::size_t(128) * 65536 * 4 + kEdgeBytes;
  EXPECT_EQ(mg::gpu_bytes_on(grid(1, 2), 65536, 4, false), v64k);
  EXPECT_EQ(v64k, std::size_t(8825077760));
  // 2 x 1 holds the same tiles, with the panels the other way round.
  EXPECT_EQ(mg::gpu_bytes_on(grid(2, 1), 65536, 4, false),
            std::size_t(32768) * 65536 * 4 + std::size_t(2) * 128 * 65536 * 4 +
                std::size_t(3) * 128 * 32768 * 4 + std::size_t(4) * 128 * 128 * 4 +
                std::size_t(128) * 65536 * 4 + kEdgeBytes);
  // 1 x 3, V = 1000 (8 tiles: 3, 3, 2 local tile columns): rows 1024, cols 384.
  EXPECT_EQ(
      mg::gpu_bytes_on(grid(1, 3), 1000, 4, false),
      std::size_t(1024 * 384 + 2 * 128 * 384 + 3 * 128 * 1024 + 4 * 128 * 128 + 128 * 1024) * 4 +
          kEdgeBytes);
  // With paths: D, N, H; rowold + 2 rowpw (2 x 128 x cols each); colold + 2 colpw (3 x rows x 128
  // each); 2 pivots of 3 x 128^2.
  EXPECT_EQ(
      mg::gpu_bytes_on(grid(3, 1), 1000, 4, true),
      std::size_t(3 * 384 * 1024 + 6 * 128 * 1024 + 9 * 384 * 128 + 6 * 128 * 128 + 128 * 1024) *
              4 +
          kEdgeBytes);
  // 2 x 2, V = 5003 (40 tiles, 20 a side per GPU): as before the split, plus the scratch panel.
  EXPECT_EQ(
      mg::gpu_bytes_on(grid(2, 2), 5003, 4, false),
      std::size_t(2560 * 2560 + 5 * 128 * 2560 + 4 * 128 * 128 + 128 * 2560) * 4 + kEdgeBytes);
  // One GPU: no communicator, no scratch.
  EXPECT_EQ(mg::gpu_bytes_on(grid(1, 1), 129, 4, false),
            std::size_t(256 * 256 + 5 * 128 * 256 + 4 * 128 * 128) * 4 + kEdgeBytes);
  // About V^2 / P per GPU on every shape of 2..9 GPUs.
  for (const auto& g : grids()) {
    const double share =
        double(mg::gpu_bytes_on(g, 65536, 4, false)) / (65536.0 * 65536.0 * 4 / g.P);
    EXPECT_GT(share, 1.0);
    EXPECT_LT(share, 1.1) << g.Pr << "x" << g.Pc;
  }
#ifdef APSP_WITH_NCCL
  if (!std::getenv("APSP_GRID")) {  // bytes_per_gpu: the grid of a run of that many GPUs
    for (int workers : {1, 2, 3, 4, 6}) {
      EXPECT_EQ(mg::bytes_per_gpu(65537, workers, 4, true),
                mg::gpu_bytes_on(apsp::detail::dist::Grid::for_workers(workers), 65537, 4, true));
    }
  }
#endif
}

// ---- the scaling benchmark (scripts/multigpu_check.sh) ------------------------------------------

TEST(MultiGpuBench, DISABLED_Scaling) {
  REQUIRE_GPUS(1);
  const char* spec = std::getenv("APSP_SCALING");
  if (!spec) GTEST_SKIP() << "set APSP_SCALING=V:GPUS,...";
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    const std::int64_t V = std::stoll(item.substr(0, colon));
    // "V:c": the cuda backend on GPU 0 (the single-GPU baseline), else "V:GPUS" on multi-gpu.
    const bool cuda = item.substr(colon + 1) == "c";
    const int gpus = cuda ? 1 : std::stoi(item.substr(colon + 1));
    if (gpus > gpu_count()) {
      std::printf("scaling V=%lld gpus=%d skipped (only %d GPUs)\n", (long long)V, gpus,
                  gpu_count());
      continue;
    }
    RandomGraphSpec s;
    s.V = V;
    s.E = std::min<std::int64_t>(5000000, V * (V - 1) / 4);
    s.wmin = 0;
    s.wmax = 1000;
    s.seed = std::uint64_t(V);
    const apsp::Graph g = apsp::test::random_graph(s);
    // Keep three sampled rows for verification; drop the rest (the output would be V^2 * 4 bytes).
    const std::vector<std::int64_t> sample = {0, V / 2, V - 1};
    std::vector<std::vector<std::int32_t>> kept(sample.size());
    std::int64_t rows_seen = 0;
    apsp::SolveOptions o;
    o.backend = cuda ? apsp::Backend::Cuda : apsp::Backend::MultiGpu;
    o.devices = first(gpus);
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
    int bad = 0;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const std::vector<double> want = apsp::detail::reference_dijkstra(g, sample[k]);
      for (std::int64_t j = 0; j < V; ++j) {
        const double w =
            std::isinf(want[std::size_t(j)]) ? double(apsp::kNthuInf) : want[std::size_t(j)];
        if (double(kept[k][std::size_t(j)]) != w) ++bad;
      }
    }
    const double tups = double(V) * double(V) * double(V) / r.timings.compute / 1e12;
    std::string rounds = r.rounds;
    std::replace(rounds.begin(), rounds.end(), ' ', '_');
    std::printf(
        "scaling V=%lld gpus=%d backend=%s rounds=%s build_s=%.3f compute_s=%.3f gather_s=%.3f "
        "total_s=%.3f "
        "T_updates_per_s=%.3f verify=%s\n",
        (long long)V, gpus, r.backend.c_str(), rounds.c_str(), r.timings.h2d, r.timings.compute,
        r.timings.d2h, total, tups, bad == 0 && rows_seen == V ? "PASS" : "FAIL");
    std::fflush(stdout);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(rows_seen, V);
  }
}

}  // namespace
