// tests/test_sparse_gpu.cpp — sparse rounds on the cuda backend (issue 21): `--order nd` on the
// GPU gives byte-identical distances to the cpu backend's dense rounds and to the cuda backend's
// dense rounds, in the user's order, on grids, geometric graphs, disconnected and negative-weight
// graphs of odd sizes, every dtype, next hops (valid walks), the int16x2 rung kept and failing
// over to int32, the checked int32 rung, streamed and whole results, and the CLI. The 128-aligned
// layout of the order and its plan are checked without a GPU; everything else skips without one.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <cstdlib>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "order/choice.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using test::compare;

#define REQUIRE_CUDA_AND_METIS()                                                    \
  do {                                                                              \
    REQUIRE_CUDA();                                                                 \
    if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason(); \
  } while (0)

SolveOptions opts(Backend b, Order order, std::optional<Dtype> t = std::nullopt,
                  bool paths = false) {
  SolveOptions o;
  o.backend = b;
  o.order = order;
  o.dtype = t;
  o.paths = paths;
  return o;
}

using test::ScopedEnv;


using Case = test::NamedGraph;
std::vector<Case> cases_of(std::int64_t V, bool all = true) { return test::sparse_cases(V, all); }

// ---- without a GPU: the order and plan the cuda backend gets ----

TEST(SparseGpuLayout, OrderAlignsEveryTileTo128) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {1, 2, 65, 129, 1000, 5003}) {
    for (const Case& c : cases_of(V)) {
      SCOPED_TRACE(c.name + " V=" + std::to_string(V));
      const detail::OrderChoice o =
          detail::choose_order(c.g, Order::NestedDissection, true, "cuda", round_up(V, 128), 128,
                               {128, detail::kGpuLeaf});
      ASSERT_TRUE(o.plan);
      const detail::TilePlan& p = *o.plan;
      EXPECT_EQ(p.n % 128, 0);
      EXPECT_EQ(p.n, std::int64_t(o.perm.old_of_new.size()));
      EXPECT_EQ(p.B, 128);
      for (std::int64_t I = 0; I <= p.R; ++I) ASSERT_EQ(p.bounds[std::size_t(I)], I * 128);
      EXPECT_EQ(o.graph.num_vertices, p.n);
      std::int64_t real = 0;
      for (const std::int32_t v : o.perm.old_of_new) real += v >= 0;
      EXPECT_EQ(real, V);
      EXPECT_GT(o.work_fraction, 0.0);
    }
  }
}

TEST(SparseGpuLayout, GridSkipsMostWorkAt128) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(96, 96, 1, 9, 3);
  const detail::OrderChoice o = detail::choose_order(
      g, Order::Auto, true, "cuda", round_up(96 * 96, 128), 128, {128, detail::kGpuLeaf}, 4);
  ASSERT_TRUE(o.plan) << o.label;
  EXPECT_EQ(o.label, "nd (auto)");
  EXPECT_LT(o.work_fraction, 0.5);
  // With the GPU's threshold auto keeps the dense rounds at this size, without ordering.
  const detail::OrderChoice k =
      detail::choose_order(g, Order::Auto, true, "cuda", round_up(96 * 96, 128), 128,
                           {128, detail::kGpuLeaf}, detail::kAutoMinTilesGpu);
  EXPECT_FALSE(k.plan);
  EXPECT_EQ(k.label, "none (auto: 72 tiles a side)");
}

TEST(SparseGpuLayout, EveryBuiltBackendRunsPlansAndOneWithoutIsRefused) {
  for (auto make :
       {detail::make_cpu_backend, detail::make_cuda_backend, detail::make_multigpu_backend,
        detail::make_mpi_backend, detail::make_hip_backend}) {
    const std::unique_ptr<detail::BackendImpl> b = make();
    if (!b) continue;  // not built here
    // mpi's capabilities() starts MPI (whether this rank receives results): test_mpi asks.
    if (b->name() == "mpi") continue;
    EXPECT_TRUE(b->capabilities().skips_tiles) << b->name();
  }
  // A backend without tile lists (none today): nd refused in one line, auto keeps none.
  const Graph g = generate_grid(64, 64, 1, 9, 3);
  try {
    (void)detail::choose_order(g, Order::NestedDissection, false, "dense-only", 4096, 128);
    ADD_FAILURE() << "nd accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("dense-only backend does not skip tiles"),
              std::string::npos)
        << e.what();
  }
  const detail::OrderChoice o =
      detail::choose_order(g, Order::Auto, false, "dense-only", 4096, 128);
  EXPECT_FALSE(o.plan);
  EXPECT_EQ(o.label.rfind("none (auto: ", 0), 0u) << o.label;
}

// ---- on the GPU ----

TEST(SparseGpu, NdMatchesCpuAndCudaDenseEveryType) {
  REQUIRE_CUDA_AND_METIS();
  for (const std::int64_t V : {1, 2, 65, 129, 1000}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t));
        const Result cpu = solve(c.g, opts(Backend::Cpu, Order::None, t));
        const Result dense = solve(c.g, opts(Backend::Cuda, Order::None, t));
        const Result nd = solve(c.g, opts(Backend::Cuda, Order::NestedDissection, t));
        ASSERT_EQ(nd.order, "nd");
        ASSERT_EQ(nd.backend, "cuda");
        EXPECT_EQ(compare(nd.dist, cpu.dist), "");
        EXPECT_EQ(compare(nd.dist, dense.dist), "");
        // Streamed (the CLI's way): stripes in the user's order.
        SolveOptions o = opts(Backend::Cuda, Order::NestedDissection, t);
        test::StripeCollector got;
        o.dist_sink = got.sink();
        const Result streamed = solve(c.g, o);
        EXPECT_TRUE(streamed.dist.empty());
        EXPECT_EQ(got.check(), "");
        EXPECT_EQ(compare(got.m, cpu.dist), "");
      }
    }
  }
}

TEST(SparseGpu, Large5003MatchesCudaDense) {
  REQUIRE_CUDA_AND_METIS();
  for (const Case& c : cases_of(5003, false)) {
    SCOPED_TRACE(c.name);
    const Result dense = solve(c.g, opts(Backend::Cuda, Order::None, Dtype::Int32));
    const Result nd = solve(c.g, opts(Backend::Cuda, Order::NestedDissection, Dtype::Int32));
    ASSERT_GT(test::finite_off_diagonal(dense.dist), 5003LL * 5000 / 2);
    EXPECT_EQ(compare(nd.dist, dense.dist), "");
    EXPECT_LT(nd.work_fraction, 0.5);
  }
}

TEST(SparseGpu, FractionalWeights) {
  REQUIRE_CUDA_AND_METIS();
  for (const std::int64_t V : {129, 1000}) {
    Graph g = generate_geometric(V, 4, 10, 77);
    for (double& w : g.weight) w = w * 0.37 + 0.013;
    g.integer_weights = false;
    for (const Dtype t : {Dtype::Float64, Dtype::Float32}) {
      SCOPED_TRACE("V=" + std::to_string(V) + " " + dtype_name(t));
      const Result cpu = solve(g, opts(Backend::Cpu, Order::None, t));
      const Result nd = solve(g, opts(Backend::Cuda, Order::NestedDissection, t));
      // Another order adds a path's weights in another order: equal up to rounding.
      EXPECT_EQ(compare(nd.dist, cpu.dist, t == Dtype::Float64 ? 1e-12 : 1e-5), "");
    }
  }
}

// Elimination-tree batches (order/batches.hpp): several rounds a launch must give the rounds'
// result bit for bit (same candidates from the same panels), in every dtype; APSP_ND_BATCH=0
// runs the rounds one after another.
TEST(SparseGpu, BatchedRoundsEqualRoundsInOrder) {
  REQUIRE_CUDA_AND_METIS();
  const Graph grid = generate_grid(70, 73, 0, 9, 5);  // zero weights too
  const Graph geo = generate_geometric(5003, 4, 10, 9);
  Graph frac = geo, big = geo;
  for (double& w : frac.weight) w = w * 0.37 + 0.013;
  frac.integer_weights = false;
  for (double& w : big.weight) w *= 3e8;  // distances past 2^30: int64 rounds
  Graph directed = geo;                    // every third link one way only
  directed.directed = true;
  for (std::size_t e = 0, m = geo.src.size(); e < m; ++e) {
    if (!geo.directed && e % 3) {
      directed.src.push_back(geo.dst[e]);
      directed.dst.push_back(geo.src[e]);
      directed.weight.push_back(geo.weight[e] + 5);
    }
  }
  Graph far = geo;  // distances past the int16x2 cap: packed rounds, then int32 ones
  for (double& w : far.weight) w *= 40;
  struct Run {
    const char* name;
    const Graph* g;
    Dtype t;
    const char* int16 = "0";   // APSP_CUDA_INT16
    const char* graph = "0";   // APSP_CUDA_GRAPH: 1 captures the batches into a CUDA graph
    const char* rounds = "";   // the rounds the result must say
  };
  for (const Run& r :
       {Run{"grid int32", &grid, Dtype::Int32}, Run{"geo int32", &geo, Dtype::Int32},
        Run{"directed int32", &directed, Dtype::Int32}, Run{"big int64", &big, Dtype::Int64},
        Run{"fractional float64", &frac, Dtype::Float64},
        Run{"fractional float32", &frac, Dtype::Float32},
        Run{"grid int32, one CUDA graph", &grid, Dtype::Int32, "0", "1"},
        Run{"grid int16x2", &grid, Dtype::Int32, "1", "0", "int16x2"},
        Run{"directed int16x2", &directed, Dtype::Int32, "1", "0", "int16x2"},
        Run{"far int16x2 -> int32", &far, Dtype::Int32, "1", "0", "int16x2 -> int32"}}) {
    SCOPED_TRACE(r.name);
    const ScopedEnv int16("APSP_CUDA_INT16", r.int16);
    const ScopedEnv graph("APSP_CUDA_GRAPH", r.graph);
    Result in_order;
    {
      const ScopedEnv off("APSP_ND_BATCH", "0");
      in_order = solve(*r.g, opts(Backend::Cuda, Order::NestedDissection, r.t));
    }
    const Result batched = solve(*r.g, opts(Backend::Cuda, Order::NestedDissection, r.t));
    EXPECT_EQ(batched.rounds, in_order.rounds);
    if (*r.rounds) {
      EXPECT_EQ(batched.rounds, r.rounds);
    }
    EXPECT_EQ(compare(batched.dist, in_order.dist), "");
    if (r.t == Dtype::Int32 || r.t == Dtype::Int64) {
      EXPECT_EQ(compare(batched.dist, solve(*r.g, opts(Backend::Cpu, Order::None, r.t)).dist), "");
    }
  }
  // The CLI's trace says how many rounds ran in batches (int32 rounds: the packed int16x2 ones
  // run one after another).
  const ScopedEnv int32_rounds("APSP_CUDA_INT16", "0");
  test::TempDir dir;
  ASSERT_EQ(test::run_cli({"generate", dir / "g.bin", "--kind", "grid", "--rows", "90", "--cols",
                           "90"})
                .exit_code,
            0);
  test::CommandResult traced;
  {
    const ScopedEnv trace("APSP_TRACE", "1");
    traced = test::run_cli(
        {"solve", dir / "g.bin", dir / "b.bin", "--backend", "cuda", "--order", "nd", "-q"});
  }
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  const std::size_t at = traced.err.find(" heights: ");
  ASSERT_NE(at, std::string::npos) << traced.err;
  EXPECT_GT(std::atoll(traced.err.c_str() + at + 10), 0) << traced.err.substr(at, 80);
  {
    const ScopedEnv off("APSP_ND_BATCH", "0");
    ASSERT_EQ(test::run_cli({"solve", dir / "g.bin", dir / "o.bin", "--backend", "cuda",
                             "--order", "nd", "-q"})
                  .exit_code,
              0);
  }
  EXPECT_EQ(test::read_bytes(dir / "b.bin"), test::read_bytes(dir / "o.bin"));
}

// With a sparse order the cuda backend asks the sampled evidence before the packed rung, where
// it pays against the order's short rounds: a 160 x 160 grid, weights 500..1000, passes
// int16x2's band within a few dozen edges of a sampled source, so int32 rounds run at once (no
// packed pass, no rebuild). (On an 80 x 80 grid the rounds are too short for the evidence to pay:
// there the packed rounds are tried and abandoned beside it.) The result streams (V = 25600).
TEST(SparseGpu, EvidenceSkipsThePackedRungForAnOrder) {
  REQUIRE_CUDA_AND_METIS();
  const Graph g = generate_grid(160, 160, 500, 1000, 7);
  SolveOptions o = opts(Backend::Cuda, Order::NestedDissection, Dtype::Int32);
  std::int64_t rows = 0;
  o.dist_sink = [&rows](const RowBlock& b) { rows += b.rows; };
  const Result r = solve(g, o);
  EXPECT_EQ(r.rounds, "int16x2 skipped: a sampled distance reaches 2^14-1 - max w; int32");
  EXPECT_EQ(rows, g.num_vertices);
}

TEST(SparseGpu, PathsWalkInTheUsersOrder) {
  REQUIRE_CUDA_AND_METIS();
  for (const std::int64_t V : {2, 65, 129, 1000}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
        for (const bool streamed : {false, true}) {
          SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t) +
                       (streamed ? " streamed" : " whole"));
          const Result cpu = solve(c.g, opts(Backend::Cpu, Order::None, t));
          SolveOptions o = opts(Backend::Cuda, Order::NestedDissection, t, true);
          test::StripeCollector dist, next;
          if (streamed) {
            o.dist_sink = dist.sink();
            o.next_sink = next.sink();
          }
          const Result nd = solve(c.g, o);
          ASSERT_EQ(nd.order, "nd");
          const Matrix& d = streamed ? dist.m : nd.dist;
          const Matrix& nx = streamed ? next.m : nd.next;
          if (streamed) {
            EXPECT_EQ(dist.check(), "");
            EXPECT_EQ(next.check(), "");
          }
          EXPECT_EQ(compare(d, cpu.dist), "");
          // Next hops may differ from the dense rounds' on ties: every walk must be a shortest
          // path.
          EXPECT_EQ(test::check_next_hop_walks(c.g, d, nx), "");
        }
      }
    }
  }
}

TEST(SparseGpu, Int16x2KeptAndFailingOverToInt32) {
  REQUIRE_CUDA_AND_METIS();
  const ScopedEnv force("APSP_CUDA_INT16", "1");
  // Short distances: the packed rounds keep their result.
  const Graph small = generate_grid(33, 31, 0, 9, 5);
  const Result cpu_small = solve(small, opts(Backend::Cpu, Order::None, Dtype::Int32));
  for (const bool paths : {false, true}) {
    const Result nd =
        solve(small, opts(Backend::Cuda, Order::NestedDissection, Dtype::Int32, paths));
    EXPECT_STREQ(detail::cuda_last_rounds(), "int16x2");
    EXPECT_EQ(compare(nd.dist, cpu_small.dist), "");
    if (paths) {
      EXPECT_EQ(test::check_next_hop_walks(small, nd.dist, nd.next), "");
    }
  }
  // Distances far past 2^14: the band check drops the packed rounds, int32 rounds follow.
  const Graph far = generate_geometric(1000, 4, 1000, 6);
  const Result cpu_far = solve(far, opts(Backend::Cpu, Order::None, Dtype::Int32));
  const Result nd = solve(far, opts(Backend::Cuda, Order::NestedDissection, Dtype::Int32));
  EXPECT_STREQ(detail::cuda_last_rounds(), "int32");
  EXPECT_NE(nd.rounds.find("int16x2 -> "), std::string::npos) << nd.rounds;
  EXPECT_EQ(compare(nd.dist, cpu_far.dist), "");
}

TEST(SparseGpu, CheckedInt32RungAndInt32Stripes) {
  REQUIRE_CUDA_AND_METIS();
  // Weights large enough that the bound asks int64; the checked int32 rung runs on the order.
  const Graph g = generate_geometric(700, 4, 1e6, 9);
  const Result cpu = solve(g, opts(Backend::Cpu, Order::None));
  const Result nd = solve(g, opts(Backend::Cuda, Order::NestedDissection));
  ASSERT_EQ(nd.dtype(), Dtype::Int64);
  EXPECT_EQ(nd.rounds, "int32 (checked; bound asked int64)");
  EXPECT_EQ(compare(nd.dist, cpu.dist), "");
  // int32 stripes (NTHU output) of the ordered solve hold the user's rows.
  SolveOptions o = opts(Backend::Cuda, Order::NestedDissection);
  o.int32_stripes = true;
  Matrix got(700, 700, Dtype::Int64);
  o.dist_sink = [&](const RowBlock& b) {
    for (std::int64_t i = 0; i < b.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j) {
        std::int64_t v;
        if (b.dtype == Dtype::Int64) {
          v = static_cast<const std::int64_t*>(b.data)[i * b.stride + j];
        } else {
          const std::int32_t x = static_cast<const std::int32_t*>(b.data)[i * b.stride + j];
          v = x == unreachable<std::int32_t>() ? unreachable<std::int64_t>() : x;
        }
        got.at<std::int64_t>(b.row0 + i, j) = v;
      }
  };
  (void)solve(g, o);
  EXPECT_EQ(compare(got, cpu.dist), "");
}

TEST(SparseGpu, AutoKeepsDenseRoundsForRandomGraphs) {
  REQUIRE_CUDA_AND_METIS();
  test::RandomGraphSpec s;
  s.V = 2000;
  s.E = 200000;
  s.wmin = 1;
  s.wmax = 100;
  s.seed = 11;
  const Graph g = test::random_graph(s);
  const Result r = solve(g, opts(Backend::Cuda, Order::Auto));
  EXPECT_EQ(r.order.rfind("none", 0), 0u) << r.order;
  // Small sparse graphs keep the dense rounds on the GPU (ordering would cost more); large ones
  // take the sparse direct engine (issue 31).
  const Graph small = generate_grid(100, 100, 1, 9, 4);
  EXPECT_EQ(solve(small, opts(Backend::Cuda, Order::Auto)).order.rfind("none (auto: ", 0), 0u);
  const Graph grid = generate_grid(160, 160, 1, 9, 4);
  const Result nd = solve(grid, opts(Backend::Cuda, Order::Auto));
  EXPECT_EQ(nd.order, "sn (auto)");
  EXPECT_EQ(compare(nd.dist, solve(grid, opts(Backend::Cuda, Order::None)).dist), "");
}

TEST(SparseGpuCli, OrderNdWritesTheCpuBytesAndStats) {
  REQUIRE_CUDA_AND_METIS();
  test::TempDir dir;
  ASSERT_EQ(
      test::run_cli({"generate", dir / "g.bin", "--kind", "geometric", "-V", "3001", "-k", "4"})
          .exit_code,
      0);
  const auto nd = test::run_cli({"solve", dir / "g.bin", dir / "nd.bin", "--backend", "cuda",
                                 "--order", "nd", "--stats", "-q"});
  ASSERT_EQ(nd.exit_code, 0) << nd.err;
  EXPECT_NE(nd.err.find("order    nd:"), std::string::npos) << nd.err;
  EXPECT_NE(nd.err.find("% of the dense work"), std::string::npos) << nd.err;
  const auto cpu = test::run_cli(
      {"solve", dir / "g.bin", dir / "cpu.bin", "--backend", "cpu", "--order", "none", "-q"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(test::read_bytes(dir / "nd.bin"), test::read_bytes(dir / "cpu.bin"));
  // With --paths: the distances again, and a walk through the next hops.
  const auto ndp = test::run_cli({"solve", dir / "g.bin", dir / "ndp.bin", "--backend", "cuda",
                                  "--order", "nd", "--paths", "-q"});
  ASSERT_EQ(ndp.exit_code, 0) << ndp.err;
  const auto cpup = test::run_cli({"solve", dir / "g.bin", dir / "cpup.bin", "--backend", "cpu",
                                   "--order", "none", "--paths", "-q"});
  ASSERT_EQ(cpup.exit_code, 0) << cpup.err;
  EXPECT_EQ(test::read_bytes(dir / "ndp.bin"), test::read_bytes(dir / "cpup.bin"));
  const auto path = test::run_cli({"path", dir / "ndp.bin", "0", "3000"});
  EXPECT_EQ(path.exit_code, 0) << path.err;
}

}  // namespace
}  // namespace apsp
