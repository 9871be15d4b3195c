// tests/test_mpi.cpp — the mpi backend against the cpu backend, as a library.
//
// Runs as one rank under plain ctest and as N ranks under `mpirun -np N test_mpi` (tests/mpi.cmake
// registers np = 1..4). Every rank runs every test in the same order (the solves are collective);
// rank 0 collects the streamed stripes and compares them with `--backend cpu` on the same graph
// and tile size: distances must be identical, and next hops too, except where the mpi backend
// streams next hops of a graph with zero-weight edges (it then breaks ties by hop count instead of
// relying on solve()'s loop repair; see mpi_backend.cpp): there every path walk must end at its
// target with exactly the shortest length. Seeds are fixed and printed on failure. CPU ranks only
// (APSP_MPI_GPU=0 below), also on machines with GPUs.
// MpiSparse.*: sparse rounds (--order nd, tiles of 128) against the cpu backend's dense rounds
// (--order none): identical distances, next-hop walks of exactly those lengths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "cpu/blocked_fw.hpp"
#include "dist/block_cyclic.hpp"
#include "order/ordering.hpp"
#include "backend_equals_cpu.hpp"
#include "support.hpp"

#ifdef APSP_WITH_MPI
#include <mpi.h>
#endif

namespace {

using apsp::Dtype;
using apsp::Matrix;
using apsp::test::RandomGraphSpec;

#ifdef APSP_WITH_MPI
int world_rank() {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
#endif

// These tests are about CPU ranks (next hops identical to the cpu backend with the same --block):
// keep them on CPU ranks where GPUs exist too (tests/test_mpi_gpu.cpp covers GPU ranks). Set
// before main(), so before any solve.
[[maybe_unused]] const int kCpuRanks = setenv("APSP_MPI_GPU", "0", 1);
// The reference: the cpu backend with next hops tracked in its kernels (the arithmetic the mpi
// backend repeats op for op), not derived from the edges afterwards (src/cpu/next_hops.hpp).
[[maybe_unused]] const int kTrackedNextHops = setenv("APSP_CPU_NEXT", "tracked", 1);

using Case = apsp::test::EqualsCpuCase;
using Collector = apsp::test::StripeCollector;

/// `c` on CPU ranks (every rank solves; rank 0 compares): tests/backend_equals_cpu.hpp.
void check_against_cpu(const Case& c) {
#ifndef APSP_WITH_MPI
  (void)c;
  GTEST_SKIP() << "the mpi backend is not built (no MPI at configure time)";
#else
  apsp::test::BackendUnderTest mpi;
  mpi.backend = apsp::Backend::Mpi;
  mpi.name = "mpi";
  mpi.is_root = [] { return world_rank() == 0; };
  apsp::test::expect_equals_cpu(mpi, c);
#endif
}

Case make(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t = Dtype::Int32,
          int block = 32, bool paths = false) {
  Case c;
  c.spec.V = V;
  c.spec.E = E;
  c.spec.seed = seed;
  c.dtype = t;
  c.block = block;
  c.paths = paths;
  return c;
}

// First, before any solve: asking what is built must not start MPI.
TEST(Mpi, InfoDoesNotInitialiseMpi) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  int init = 0;
  MPI_Initialized(&init);
  if (init) GTEST_SKIP() << "MPI already initialised by an earlier test";
  bool found = false;
  for (const auto& b : apsp::backends())
    if (b.name == "mpi") {
      found = true;
      EXPECT_TRUE(b.built);
      EXPECT_TRUE(b.usable) << b.detail;
      if (std::getenv("OMPI_COMM_WORLD_SIZE")) {
        EXPECT_NE(b.detail.find("run under mpirun"), std::string::npos) << b.detail;
      }
    }
  EXPECT_TRUE(found);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Cpu;
  (void)apsp::solve(apsp::test::random_graph({}), o);
  MPI_Initialized(&init);
  EXPECT_EQ(init, 0) << "backends() or a cpu solve initialised MPI";
#endif
}

TEST(Mpi, SizesThatDoNotDivideByTheGrid) {
  for (std::int64_t V : {1, 2, 31, 33, 97, 130, 257})
    check_against_cpu(make(V, V * 4, 100 + std::uint64_t(V)));
}

TEST(Mpi, Float32AndInt64) {
  check_against_cpu(make(211, 900, 7, Dtype::Float32, 32));
  check_against_cpu(make(150, 700, 8, Dtype::Int64, 64));
  check_against_cpu(make(123, 600, 9, Dtype::Float64, 32));
}

TEST(Mpi, PathsAreIdenticalToCpu) {
  Case p = make(190, 800, 11, Dtype::Int32, 32, true);
  p.spec.wmin = 1;  // positive weights: identical next hops
  check_against_cpu(p);
  // Small weights: many equal-length alternatives, so the tie rule is exercised.
  Case c = make(160, 1200, 12, Dtype::Int32, 32, true);
  c.spec.wmin = 0;
  c.spec.wmax = 3;
  check_against_cpu(c);
  Case f = make(140, 600, 13, Dtype::Float32, 64, true);
  f.spec.wmin = 1;
  check_against_cpu(f);
  // Tiles wider than 64: the pivot is closed by blocked FW inside the tile, as the cpu backend
  // does.
  Case wide = make(700, 5000, 14, Dtype::Int32, 0, true);
  wide.spec.wmin = 1;
  check_against_cpu(wide);
  Case z = make(420, 4000, 15, Dtype::Int32, 96, true);  // zero weights: valid walks
  z.spec.wmin = 0;
  z.spec.wmax = 4;
  check_against_cpu(z);
  Case d = make(300, 2000, 16, Dtype::Float64, 128, true);
  d.spec.wmin = 1;
  check_against_cpu(d);
}

// --paths with a distance sink but no next-hop sink (a library caller): the next hops come back
// whole and are repaired against whole distances, which then reach the sink; streaming the
// distances alone would leave the next hops in their unrepaired form (zero-weight loops).
TEST(Mpi, DistanceSinkWithoutNextSinkKeepsWalksFinite) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    RandomGraphSpec s;
    s.V = 300, s.E = 3000, s.wmin = 0, s.wmax = 2, s.seed = seed;  // a third of the arcs weigh 0
    const apsp::Graph g = apsp::test::random_graph(s);
    apsp::SolveOptions o;
    o.backend = apsp::Backend::Mpi;
    o.block = 32;
    o.paths = true;
    Collector dist;
    o.dist_sink = dist.sink();
    const apsp::Result r = apsp::solve(g, o);
    if (world_rank() != 0) continue;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string got = dist.check();
    EXPECT_EQ(got, "");
    if (!got.empty()) continue;
    EXPECT_EQ(apsp::test::compare(dist.m, r.dist), "") << "the sink got the whole distances";
    EXPECT_EQ(apsp::test::check_next_hop_walks(g, dist.m, r.next), "");
  }
}

TEST(Mpi, DefaultBlockAndUndirectedAndDisconnected) {
  Case c = make(300, 1500, 21, Dtype::Int32, 0);
  c.spec.directed = false;
  c.spec.components = 3;
  check_against_cpu(c);
}

TEST(Mpi, NegativeWeightsThroughJohnson) {
  Case c = make(120, 500, 31, Dtype::Int64, 32, true);
  c.spec.wmin = -5;
  c.spec.wmax = 50;
  // A random graph with negative edges may hold a negative cycle: then every backend must say so.
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
  check_against_cpu(c);
}

TEST(Mpi, WithoutSinkRankZeroGetsTheWholeMatrix) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  RandomGraphSpec s;
  s.V = 101;
  s.E = 500;
  s.seed = 41;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.block = 32;
  o.paths = true;
  const apsp::Result r = apsp::solve(g, o);
  if (world_rank() != 0) {
    EXPECT_TRUE(r.dist.empty());
    EXPECT_TRUE(r.next.empty());
    return;
  }
  o.backend = apsp::Backend::Cpu;
  const apsp::Result want = apsp::solve(g, o);
  EXPECT_EQ(apsp::test::compare(r.dist, want.dist), "");
  EXPECT_EQ(apsp::test::compare(r.next, want.next), "");
#endif
}

}  // namespace

// No rank holds the whole matrix: with both sinks, --paths streams next hops too, so solve()
// allocates no V x V matrix on any rank; without sinks only rank 0 gets (and allocates) them.
// APSP_HOST_MEMORY below the size of one whole matrix makes solve() refuse any rank that would.
TEST(Mpi, NoRankAllocatesTheWholeMatrixWithPaths) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  RandomGraphSpec s;
  s.V = 333;
  s.E = 3000;
  s.seed = 51;
  s.wmin = 0;  // zero-weight edges: the streamed next hops use hop counts
  s.wmax = 9;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.block = 32;
  o.paths = true;
  const std::string whole =
      std::to_string(333 * 333 * 4);  // one int32 matrix: less than dist + next
  apsp::Result want;
  if (world_rank() == 0) {
    apsp::SolveOptions ref = o;
    ref.backend = apsp::Backend::Cpu;
    want = apsp::solve(g, ref);
  }
  Collector dist, next;
  o.dist_sink = dist.sink();
  o.next_sink = next.sink();
  setenv("APSP_HOST_MEMORY", whole.c_str(), 1);
  apsp::Result r;
  EXPECT_NO_THROW(r = apsp::solve(g, o)) << "a streamed --paths solve must not need a whole matrix";
  // Without sinks: rank 0 gets the matrices; the others must still allocate none.
  o.dist_sink = nullptr;
  o.next_sink = nullptr;
  if (world_rank() == 0) unsetenv("APSP_HOST_MEMORY");
  apsp::Result gathered;
  EXPECT_NO_THROW(gathered = apsp::solve(g, o));
  unsetenv("APSP_HOST_MEMORY");
  EXPECT_TRUE(r.dist.empty());
  EXPECT_TRUE(r.next.empty());
  if (world_rank() != 0) {
    EXPECT_TRUE(gathered.dist.empty());
    EXPECT_TRUE(gathered.next.empty());
    return;
  }
  ASSERT_EQ(dist.check(), "");
  ASSERT_EQ(next.check(), "");
  EXPECT_EQ(apsp::test::compare(dist.m, want.dist), "");
  EXPECT_EQ(apsp::test::check_next_hop_walks(g, dist.m, next.m), "");
  EXPECT_EQ(apsp::test::compare(gathered.dist, want.dist), "");
  EXPECT_EQ(apsp::test::check_next_hop_walks(g, gathered.dist, gathered.next), "");
  // The limit is real: the cpu backend needs the whole matrices and is refused.
  setenv("APSP_HOST_MEMORY", whole.c_str(), 1);
  apsp::SolveOptions cpu = o;
  cpu.backend = apsp::Backend::Cpu;
  EXPECT_THROW((void)apsp::solve(g, cpu), apsp::ResourceError);
  unsetenv("APSP_HOST_MEMORY");
#endif
}

// The grid shape: as square as P allows, or APSP_GRID=RxC when R * C = P (else a clear error).
TEST(Mpi, GridShapeFromTheEnvironment) {
  using apsp::detail::dist::Grid;
  unsetenv("APSP_GRID");
  const Grid sq = Grid::for_workers(4), six = Grid::for_workers(6), prime = Grid::for_workers(7);
  EXPECT_EQ(sq.Pr * 10 + sq.Pc, 22);
  EXPECT_EQ(six.Pr * 10 + six.Pc, 23);
  EXPECT_EQ(prime.Pr * 10 + prime.Pc, 17);
  setenv("APSP_GRID", "4x1", 1);
  const Grid tall = Grid::for_run(4);
  EXPECT_EQ(tall.Pr * 10 + tall.Pc, 41);
  // Status lines and estimates keep the default shape (for_workers ignores APSP_GRID), so a
  // shape for a run of 4 does not break `apsp info` on a host with another GPU count.
  const Grid info = Grid::for_workers(8);
  EXPECT_EQ(info.Pr * 10 + info.Pc, 24);
  for (const char* bad : {"3x3", "2x", "x2", "0x4", "2x2x1", "two", "2x2 ", "65536x65536"}) {
    setenv("APSP_GRID", bad, 1);
    EXPECT_THROW((void)Grid::for_run(4), apsp::UsageError) << bad;
  }
  unsetenv("APSP_GRID");
}

// A set-up problem on one rank only (rank 0's host memory check: only it receives the matrices)
// is one ResourceError on every rank, not an error on rank 0 and a hang in the others' collectives.
TEST(Mpi, HostMemoryShortOnRankZeroFailsEveryRank) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  RandomGraphSpec s;
  s.V = 200;
  s.E = 1000;
  s.seed = 61;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  o.block = 32;
  if (world_rank() == 0) setenv("APSP_HOST_MEMORY", "4096", 1);
  EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << "rank " << world_rank();
  unsetenv("APSP_HOST_MEMORY");
  const apsp::Result again = apsp::solve(g, o);  // every rank still in step afterwards
  if (world_rank() == 0) {
    EXPECT_FALSE(again.dist.empty());
  }
#endif
}

// Issue 36, the plan's early memory stage on the mpi backend, before Johnson's per-vertex work
// (which would name the negative cycle first), alike on every rank: a result rank 0 cannot hold
// (no sink: it gets the whole matrix) is refused; a streamed result needs no whole matrix on any
// rank, so that graph goes on to Johnson, which names the cycle; but CPU ranks' blocks that this
// machine cannot hold (each rank at least 1/P of the n^2 distances) are refused, sinks or not.
TEST(Mpi, EarlyMemoryStageRefusesBeforeJohnson) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  auto cycle_on = [](std::int64_t n) {
    apsp::Graph g;
    g.num_vertices = n;
    g.src = {0, 1};
    g.dst = {1, 0};
    g.weight = {-1, -1};
    return g;
  };
  const apsp::Graph g = cycle_on(20000);  // a 1.6 GB int32 result
  apsp::SolveOptions o;
  o.backend = apsp::Backend::Mpi;
  {
    apsp::test::ScopedEnv mem("APSP_HOST_MEMORY", world_rank() == 0 ? "1000000000" : nullptr);
    EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << "rank " << world_rank();
    EXPECT_THROW((void)apsp::explain(g, o), apsp::ResourceError) << "rank " << world_rank();
    o.paths = true;
    EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << "rank " << world_rank();
    o.paths = false;
    Collector dist;
    o.dist_sink = dist.sink();
    EXPECT_THROW((void)apsp::solve(g, o), apsp::NegativeCycleError) << "rank " << world_rank();
    // 2^24 vertices: 64 TiB of int32 blocks over the ranks of this machine.
    EXPECT_THROW((void)apsp::solve(cycle_on(std::int64_t{1} << 24), o), apsp::ResourceError)
        << "rank " << world_rank();
  }
  o.dist_sink = nullptr;  // every rank still in step afterwards
  const apsp::Graph small = apsp::test::random_graph({});
  const apsp::Result again = apsp::solve(small, o);
  EXPECT_EQ(again.dist.empty(), world_rank() != 0);
#endif
}

// The backend's capabilities: it builds its matrix, streams results and next hops, runs sparse
// rounds over uniform tiles and hands them out in the user's order; only rank 0 receives.
TEST(Mpi, CapabilitiesOfTheBackend) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  const auto b = apsp::detail::make_mpi_backend();
  ASSERT_TRUE(b);
  const apsp::detail::Capabilities c = b->capabilities();
  EXPECT_TRUE(c.builds_matrix && c.streams_paths && c.skips_tiles && c.uniform_tiles &&
              c.unpermutes);
  EXPECT_FALSE(c.builds_matrix_from_dense);
  EXPECT_EQ(c.receives_result, world_rank() == 0);
  EXPECT_EQ(c.order_tile, 128);
  EXPECT_EQ(c.sparse_rows, apsp::detail::Capabilities::SparseRows::None);
#endif
}

// ---- Sparse rounds (--order nd): CPU ranks run only the plan's tiles -------------------------

namespace {

struct SparseCase {
  std::string name;
  apsp::Graph g;
};

// Grids with zero weights, geometric graphs, two grids side by side with no edge between them,
// and negative weights (Johnson): odd sizes, so that no size is a multiple of 128 or of the grid.
std::vector<SparseCase> sparse_cases() {
  std::vector<SparseCase> out;
  out.push_back({"grid 23x31 w 0..9", apsp::generate_grid(23, 31, 0, 9, 1)});
  out.push_back({"geometric V=777 k=4", apsp::generate_geometric(777, 4, 10, 2)});
  apsp::Graph two = apsp::generate_grid(17, 19, 1, 9, 3);  // vertices 0..322, then a copy
  const apsp::Graph b = apsp::generate_geometric(301, 3, 10, 4);
  const auto base = std::int32_t(two.num_vertices);
  for (std::size_t e = 0; e < b.src.size(); ++e) {
    two.src.push_back(b.src[e] + base);
    two.dst.push_back(b.dst[e] + base);
    two.weight.push_back(b.weight[e]);
  }
  two.num_vertices += b.num_vertices;
  out.push_back({"disconnected grid + geometric", two});
  out.push_back({"negative weights grid 19x27",
                 apsp::test::with_potentials(apsp::generate_grid(19, 27, 0, 20, 5), 7)});
  return out;
}

apsp::SolveOptions sparse_options(apsp::Backend b, apsp::Order order, Dtype t, bool paths) {
  apsp::SolveOptions o;
  o.backend = b;
  o.order = order;
  o.dtype = t;
  o.paths = paths;
  return o;
}

// Solves c.g on the mpi backend in nd order (streamed through the sinks, the CLI's way, or whole)
// and compares with the cpu backend's dense rounds on rank 0.
void check_sparse(const SparseCase& c, Dtype t, bool paths, bool streamed) {
#ifndef APSP_WITH_MPI
  (void)c, (void)t, (void)paths, (void)streamed;
  GTEST_SKIP() << "the mpi backend is not built";
#else
  SCOPED_TRACE(c.name + " " + apsp::dtype_name(t) + (paths ? " paths" : "") +
               (streamed ? " streamed" : " whole"));
  apsp::SolveOptions o =
      sparse_options(apsp::Backend::Mpi, apsp::Order::NestedDissection, t, paths);
  Collector dist, next;
  if (streamed) {
    o.dist_sink = dist.sink();
    if (paths) o.next_sink = next.sink();
  }
  apsp::Result r = apsp::solve(c.g, o);
  EXPECT_EQ(r.order, "nd");
  EXPECT_EQ(r.block, 128) << "CPU ranks run the order's 128-wide tiles";
  EXPECT_GT(r.work_fraction, 0.0);
  if (c.g.num_vertices > 500) {
    EXPECT_LT(r.work_fraction, 0.9);
  }
  if (world_rank() != 0) {
    EXPECT_TRUE(r.dist.empty());
    EXPECT_TRUE(dist.m.empty()) << "only rank 0 may call the sink";
    return;
  }
  if (streamed) {  // in the user's order stripe by stripe: no whole matrix anywhere
    EXPECT_TRUE(r.dist.empty());
    ASSERT_EQ(dist.check(), "");
    if (paths) {
      ASSERT_EQ(next.check(), "");
    }
  } else {
    dist.m = std::move(r.dist);
    next.m = std::move(r.next);
  }
  const apsp::Result want =
      apsp::solve(c.g, sparse_options(apsp::Backend::Cpu, apsp::Order::None, t, false));
  ASSERT_GE(apsp::test::finite_off_diagonal(want.dist), c.g.num_vertices) << "trivial input";
  EXPECT_EQ(apsp::test::compare(dist.m, want.dist), "") << "vs --backend cpu --order none";
  if (paths) {
    EXPECT_EQ(apsp::test::check_next_hop_walks(c.g, dist.m, next.m), "");
  }
#endif
}

}  // namespace

TEST(MpiSparse, NestedDissectionMatchesDenseRoundsEveryType) {
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  for (const SparseCase& c : sparse_cases())
    for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
      check_sparse(c, t, false, t == Dtype::Int32 || t == Dtype::Float64);
}

TEST(MpiSparse, NestedDissectionPathsWalk) {
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  for (const SparseCase& c : sparse_cases()) {
    check_sparse(c, Dtype::Int32, true, true);   // zero weights: hop counts
    check_sparse(c, Dtype::Int64, true, false);  // whole matrices on rank 0
    check_sparse(c, Dtype::Float64, true, true);
  }
}

// The result in the user's order over many stripes (a row or two each): every rank's block of
// every stripe, rank 0's merge into the user's columns, streamed and whole, next hops renamed.
TEST(MpiSparse, ManySmallStripesInTheUsersOrder) {
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  apsp::test::ScopedEnv stripe("APSP_GATHER_STRIPE", "9000");
  for (const SparseCase& c : sparse_cases()) {
    check_sparse(c, Dtype::Int32, true, true);
    check_sparse(c, Dtype::Int64, false, false);
  }
}

TEST(MpiSparse, TinyGraphsAndOneTile) {
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  // V = 2 and 65: one tile of 128 (a single round: the pivot closure alone); V = 129: two.
  for (const std::int64_t V : {2, 65, 129}) {
    const auto [rows, cols] = apsp::test::grid_shape_of(V);
    check_sparse({"grid V=" + std::to_string(V), apsp::generate_grid(rows, cols, 1, 9, 8)},
                 Dtype::Int32, true, true);
  }
}

// auto: nd on a large sparse grid (4 tiles of 128 a side or more, the cpu backend's rule), none on
// a graph with many arcs per vertex. The ordered result streams to the sink in the user's order
// like a dense one (rank 0 merges every rank's block of a stripe): with no host memory on rank 0
// for even one whole matrix, auto and nd still run the sparse rounds.
TEST(MpiSparse, AutoOrder) {
#ifndef APSP_WITH_MPI
  GTEST_SKIP() << "the mpi backend is not built";
#else
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  const apsp::Graph grid = apsp::generate_grid(48, 48, 1, 9, 9);
  apsp::SolveOptions o = sparse_options(apsp::Backend::Mpi, apsp::Order::Auto, Dtype::Int32, false);
  const apsp::Result r = apsp::solve(grid, o);
  EXPECT_EQ(r.order, "nd (auto)");
  const apsp::Graph dense = apsp::generate_uniform(600, 600 * 60, 1, 100, 10);
  const apsp::Result d = apsp::solve(dense, o);
  EXPECT_EQ(d.order.rfind("none (auto: ", 0), 0u) << d.order;
  if (world_rank() == 0) {
    const apsp::Result want = apsp::solve(
        grid, sparse_options(apsp::Backend::Cpu, apsp::Order::None, Dtype::Int32, false));
    EXPECT_EQ(apsp::test::compare(r.dist, want.dist), "");
  }
  // Rank 0's memory is short of one whole matrix (a streamed result needs none: stripes of a few
  // rows here, as a huge V's 32 MiB stripes are a sliver of its matrix).
  const std::string whole = std::to_string(2304LL * 2304 * 4 - 1);
  apsp::test::ScopedEnv mem("APSP_HOST_MEMORY", world_rank() == 0 ? whole.c_str() : nullptr);
  apsp::test::ScopedEnv stripe("APSP_GATHER_STRIPE", "100000");
  for (const apsp::Order order : {apsp::Order::Auto, apsp::Order::NestedDissection}) {
    Collector dist;
    o.dist_sink = dist.sink();
    o.order = order;
    apsp::Result low;
    EXPECT_NO_THROW(low = apsp::solve(grid, o)) << "rank " << world_rank();
    EXPECT_EQ(low.order, order == apsp::Order::Auto ? "nd (auto)" : "nd");
    if (world_rank() == 0) {
      ASSERT_EQ(dist.check(), "");
      EXPECT_EQ(apsp::test::compare(dist.m, r.dist), "");
    }
  }
#endif
}
