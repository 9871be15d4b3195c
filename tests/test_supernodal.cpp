// tests/test_supernodal.cpp — the sparse direct engine (--order sn, issue 31, CPU): distances
// byte-identical to the dense rounds for integer dtypes (floats within a path's rounding) on
// grids, geometric graphs, meshes, random directed and disconnected graphs, negative weights,
// V in {1, 2, 3, 63, 129, 1000, 5003} and a graph with one huge separator; next-hop walks; the
// plan's structure against a brute-force elimination; the CLI's --order sn.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "order/ordering.hpp"
#include "sparse/plan.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using test::compare;

SolveOptions cpu(Order order, std::optional<Dtype> t = std::nullopt, bool paths = false) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.order = order;
  o.dtype = t;
  o.paths = paths;
  o.threads = 2;
  return o;
}

std::vector<test::NamedGraph> cases_of(std::int64_t V) { return test::sparse_cases_with_mesh(V); }
double tolerance(Dtype t) { return test::path_sum_tolerance(t); }

TEST(Supernodal, MatchesDenseRounds) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {1, 2, 3, 63, 129, 1000}) {
    for (const test::NamedGraph& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t));
        const Result dense = solve(c.g, cpu(Order::None, t));
        const Result sn = solve(c.g, cpu(Order::Supernodal, t));
        ASSERT_EQ(sn.order, "sn");
        ASSERT_EQ(sn.dtype(), t);
        if (V >= 63 && c.name.find("disconnected") == std::string::npos) {
          ASSERT_GT(test::finite_off_diagonal(dense.dist), V * (V - 1) / 2)
              << "test graph too trivial";
        }
        EXPECT_EQ(compare(sn.dist, dense.dist, tolerance(t)), "");
      }
    }
  }
}

TEST(Supernodal, LargerGraphsAndDefaultTypes) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const test::NamedGraph& c : cases_of(5003)) {
    SCOPED_TRACE(c.name);
    const Result dense = solve(c.g, cpu(Order::None));
    const Result sn = solve(c.g, cpu(Order::Supernodal));
    ASSERT_EQ(sn.dtype(), dense.dtype());
    EXPECT_EQ(compare(sn.dist, dense.dist), "");
    EXPECT_LT(sn.work_fraction, 0.5);
  }
}

TEST(Supernodal, OneHugeSeparator) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  // Two dense random halves joined through a wide band: most vertices end up in separators.
  test::RandomGraphSpec s;
  s.V = 300;
  s.E = 9000;
  s.wmin = 0;
  s.wmax = 30;
  s.seed = 77;
  const Graph g = test::random_graph(s);
  for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
    const Result dense = solve(g, cpu(Order::None, t));
    const Result sn = solve(g, cpu(Order::Supernodal, t));
    EXPECT_EQ(compare(sn.dist, dense.dist, tolerance(t)), "");
  }
}

TEST(Supernodal, FractionalWeights) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  Graph g = generate_geometric(1500, 4, 10, 5);
  for (double& w : g.weight) w = w / 7.0 + 0.013;
  g.integer_weights = false;
  const Result dense = solve(g, cpu(Order::None));
  const Result sn = solve(g, cpu(Order::Supernodal));
  ASSERT_EQ(sn.dtype(), Dtype::Float64);
  EXPECT_EQ(compare(sn.dist, dense.dist, 1e-12), "");
}

TEST(Supernodal, PathsWalk) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {2, 65, 1000}) {
    for (const test::NamedGraph& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t));
        const Result dense = solve(c.g, cpu(Order::None, t, true));
        const Result sn = solve(c.g, cpu(Order::Supernodal, t, true));
        EXPECT_EQ(compare(sn.dist, dense.dist, tolerance(t)), "");
        EXPECT_EQ(test::check_next_hop_walks(c.g, sn.dist, sn.next), "");
      }
    }
  }
}

TEST(Supernodal, StreamsToTheSink) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(20, 30, 1, 9, 3);
  const Result dense = solve(g, cpu(Order::None));
  SolveOptions o = cpu(Order::Supernodal);
  Matrix got(600, 600, Dtype::Int32);
  std::int64_t rows = 0;
  o.dist_sink = [&](const RowBlock& b) {
    ASSERT_EQ(b.dtype, Dtype::Int32);
    for (std::int64_t i = 0; i < b.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j)
        got.at<std::int32_t>(b.row0 + i, j) =
            static_cast<const std::int32_t*>(b.data)[i * b.stride + j];
    rows += b.rows;
  };
  solve(g, o);
  EXPECT_EQ(rows, 600);
  EXPECT_EQ(compare(got, dense.dist), "");
}

TEST(Supernodal, RefusesOtherBackends) {
  const Graph g = generate_grid(4, 4, 1, 9, 3);
  SolveOptions o = cpu(Order::Supernodal);
  o.backend = Backend::Mpi;
  EXPECT_THROW(solve(g, o), Error);
}

TEST(Supernodal, KeepOnDeviceNeedsTheCudaBackend) {
  const Graph g = generate_grid(6, 7, 1, 9, 3);
  SolveOptions o = cpu(Order::Supernodal);
  o.keep_on_device = true;
  try {
    solve(g, o);
    ADD_FAILURE() << "keep_on_device on the cpu backend ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("keep_on_device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
}

/// Brute-force structure: eliminate vertex by vertex on a boolean matrix in the plan's order and
/// collect, for each supernode, the later vertices its columns or rows reach.
std::vector<std::set<std::int32_t>> brute_structure(const Graph& g,
                                                    const detail::sparse::SupernodalPlan& p) {
  const std::int64_t n = p.n();
  std::vector<std::vector<char>> a(std::size_t(n), std::vector<char>(std::size_t(n), 0));
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    const std::int32_t i = p.tree.perm.new_of_old[std::size_t(g.src[e])];
    const std::int32_t j = p.tree.perm.new_of_old[std::size_t(g.dst[e])];
    a[std::size_t(i)][std::size_t(j)] = a[std::size_t(j)][std::size_t(i)] = 1;
  }
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = k + 1; i < n; ++i)
      if (a[std::size_t(i)][std::size_t(k)])
        for (std::int64_t j = k + 1; j < n; ++j)
          if (a[std::size_t(k)][std::size_t(j)]) a[std::size_t(i)][std::size_t(j)] = 1;
  std::vector<std::set<std::int32_t>> out(std::size_t(p.nodes()));
  for (std::int64_t k = 0; k < p.nodes(); ++k)
    for (std::int64_t v = p.first(k); v < p.first(k + 1); ++v)
      for (std::int64_t j = p.first(k + 1); j < n; ++j)
        if (a[std::size_t(v)][std::size_t(j)]) out[std::size_t(k)].insert(std::int32_t(j));
  return out;
}

TEST(Supernodal, PlanStructureContainsTheFill) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const test::NamedGraph& c : cases_of(400)) {
    SCOPED_TRACE(c.name);
    const detail::sparse::SupernodalPlan p = detail::sparse::make_plan(c.g, 16);
    ASSERT_GT(p.nodes(), 4);
    const auto want = brute_structure(c.g, p);
    std::int64_t fill = 0, want_fill = 0;
    for (std::int64_t k = 0; k < p.nodes(); ++k) {
      const std::set<std::int32_t> got(p.struct_of(k), p.struct_of(k) + p.struct_size(k));
      // Every fill entry past the supernode is in its structure (a supernode whose vertices are
      // not joined among themselves may hold more: entries its D block leaves unreachable).
      for (const std::int32_t j : want[std::size_t(k)])
        EXPECT_TRUE(got.count(j)) << "supernode " << k << " misses fill " << j;
      fill += p.struct_size(k);
      want_fill += std::int64_t(want[std::size_t(k)].size());
      // Children come before parents and structure lies after the node, in ancestors.
      const std::int32_t par = p.parent[std::size_t(k)];
      if (par >= 0) {
        EXPECT_GT(par, k);
      }
      for (const std::int32_t j : got) {
        EXPECT_GE(j, p.first(k + 1));
        std::int32_t a = par;
        while (a >= 0 && a != p.node_of[std::size_t(j)]) a = p.parent[std::size_t(a)];
        EXPECT_GE(a, 0) << "struct entry " << j << " of " << k << " not in an ancestor";
      }
    }
    std::printf("%s: structure %lld entries, element fill %lld\n", c.name.c_str(),
                static_cast<long long>(fill), static_cast<long long>(want_fill));
    EXPECT_LE(fill, 2 * want_fill + p.nodes());
    EXPECT_GT(fill, 0);
  }
}

TEST(Supernodal, CliOrderSn) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const std::string dir = ::testing::TempDir();
  const std::string in = dir + "/sn_grid.gr", a = dir + "/sn_a.bin", b = dir + "/sn_b.bin";
  ASSERT_EQ(
      test::run_cli({"generate", in, "--kind", "grid", "--rows", "23", "--cols", "31"}).exit_code,
      0);
  ASSERT_EQ(test::run_cli({"solve", in, a, "--backend", "cpu", "--order", "none", "-q"}).exit_code,
            0);
  const test::CommandResult r =
      test::run_cli({"solve", in, b, "--backend", "cpu", "--order", "sn", "--stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("sn"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(test::read_bytes(a), test::read_bytes(b));
}

TEST(Supernodal, PlanReusedForNewWeights) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph a = generate_grid(31, 29, 1, 9, 3);
  Graph b = a;  // same arcs, other weights
  for (std::size_t e = 0; e < b.weight.size(); ++e) b.weight[e] = double((e * 7) % 23);
  const std::shared_ptr<const SparsePlan> plan = plan_sparse(a);
  const SparsePlanInfo info = sparse_plan_info(*plan);
  EXPECT_EQ(info.vertices, 31 * 29);
  EXPECT_GT(info.supernodes, 4);
  for (const Graph* g : {&a, static_cast<const Graph*>(&b)}) {
    SolveOptions o = cpu(Order::Auto);
    o.sparse_plan = plan;
    const Result r = solve(*g, o);
    EXPECT_EQ(r.order, "sn (plan)");
    EXPECT_EQ(r.timings.order, info.order_s);  // the plan's ordering, not a new one
    EXPECT_EQ(compare(r.dist, solve(*g, cpu(Order::None)).dist), "");
  }
  // A graph with an arc the plan does not cover, or other vertices, is refused; so is an order
  // that is not the engine's.
  Graph c = a;
  c.add_edge(0, 31 * 29 - 1, 1);
  SolveOptions o = cpu(Order::Supernodal);
  o.sparse_plan = plan;
  EXPECT_THROW(solve(c, o), UsageError);
  EXPECT_THROW(solve(generate_grid(30, 29, 1, 9, 3), o), UsageError);
  o.order = Order::None;
  EXPECT_THROW(solve(a, o), UsageError);
}

// A structure solved before is not ordered again (sparse/plan_cache.hpp): new weights on the
// same arcs reuse the plan (exact results, the note says so); other arcs on as many vertices, a
// changed arc order or another directedness make a plan of their own.
TEST(Supernodal, PlansKeptPerStructure) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  auto reused = [](const Result& r) {
    for (const std::string& n : r.notes)
      if (n.find("reused: the same structure") != std::string::npos) return true;
    return false;
  };
  const Graph a = generate_grid(27, 31, 1, 9, 11);
  EXPECT_EQ(compare(solve(a, cpu(Order::Supernodal)).dist, solve(a, cpu(Order::None)).dist), "");
  Graph b = a;  // same arcs, other weights: the plan of a, exact distances of b
  for (std::size_t e = 0; e < b.weight.size(); ++e) b.weight[e] = double((e * 5) % 17);
  const Result rb = solve(b, cpu(Order::Supernodal, Dtype::Int64));
  EXPECT_TRUE(reused(rb));
  EXPECT_EQ(compare(rb.dist, solve(b, cpu(Order::None, Dtype::Int64)).dist), "");
  Graph c = a;  // one arc moved: another structure on as many vertices
  c.dst[3] = std::int32_t((c.dst[3] + 7) % c.num_vertices);
  const Result rc = solve(c, cpu(Order::Supernodal));
  EXPECT_FALSE(reused(rc));
  EXPECT_EQ(compare(rc.dist, solve(c, cpu(Order::None)).dist), "");
  Graph d = a;  // the same arcs read as directed
  d.directed = !a.directed;
  const Result rd = solve(d, cpu(Order::Supernodal));
  EXPECT_FALSE(reused(rd));
  EXPECT_EQ(compare(rd.dist, solve(d, cpu(Order::None)).dist), "");
}

// The factors' assembly places arcs from several threads: repeated arcs of one pair (spread over
// the edge list, so that two threads meet on one entry) keep the lightest, every dtype.
TEST(Supernodal, RepeatedArcsKeepTheLightest) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph base = generate_grid(23, 19, 1, 50, 5);
  Graph g;
  g.num_vertices = base.num_vertices;
  g.directed = true;
  for (int copy = 0; copy < 4; ++copy)
    for (std::size_t e = 0; e < base.src.size(); ++e) {
      const double w = base.weight[e] + double((e * 13 + std::size_t(copy) * 7) % 5);
      g.add_edge(base.src[e], base.dst[e], w);
      if (!base.directed) g.add_edge(base.dst[e], base.src[e], w + double(copy % 2));
    }
  for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
    SCOPED_TRACE(dtype_name(t));
    SolveOptions sn = cpu(Order::Supernodal, t);
    sn.threads = 4;
    EXPECT_EQ(compare(solve(g, sn).dist, solve(g, cpu(Order::None, t)).dist, tolerance(t)), "");
  }
}

}  // namespace
}  // namespace apsp
