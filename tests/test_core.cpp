// tests/test_core.cpp — solve() against the triple-loop reference on edge-case sizes and graph
// shapes, the dtype rules (exactness bound), validation, the memory check and the sinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <tuple>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/host_copy.hpp"
#include "core/reference.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using test::RandomGraphSpec;

SolveOptions cpu(std::optional<Dtype> t = std::nullopt) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.dtype = t;
  return o;
}

Matrix reference(const Graph& g, Dtype t) {
  Matrix m = detail::build_matrix(g, t, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(m);
  return m;
}

struct Shape {
  const char* name;
  double wmin, wmax;
  bool self_loops, duplicates;
  std::int64_t components;
};

class CoreSizes : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CoreSizes, CpuMatchesReferenceOnManyShapes) {
  const std::int64_t V = GetParam();
  const Shape shapes[] = {
      {"plain", 1, 100, false, false, 1},
      {"zero weights", 0, 3, false, true, 1},
      {"self loops + duplicates", 0, 50, true, true, 1},
      {"disconnected", 1, 1000, false, true, 3},
  };
  for (const Shape& s : shapes) {
    RandomGraphSpec spec;
    spec.V = V;
    spec.E = V * 4 + 3;
    spec.wmin = s.wmin;
    spec.wmax = s.wmax;
    spec.self_loops = s.self_loops;
    spec.duplicates = s.duplicates;
    spec.components = s.components;
    spec.seed = std::uint64_t(V) * 7919 + 17;
    const Graph g = test::random_graph(spec);
    const Matrix want = reference(g, Dtype::Int32);
    if (V >= 8) {
      ASSERT_GT(test::finite_off_diagonal(want), V) << "trivial input, seed " << spec.seed;
    }
    for (int block : {0, 32}) {
      SolveOptions o;
      o.backend = Backend::Cpu;
      o.block = block;
      const Result r = solve(g, o);
      EXPECT_EQ(r.dtype(), Dtype::Int32);
      EXPECT_EQ(test::compare(r.dist, want), "")
          << s.name << " V=" << V << " block=" << block << " seed " << spec.seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CoreSizes, ::testing::Values(1, 2, 63, 64, 65, 127, 128, 129, 997));

TEST(Core, DirectedAndUndirectedDiffer) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 5);
  g.add_edge(1, 2, 7);
  SolveOptions o;
  o.backend = Backend::Cpu;
  Result r = solve(g, o);
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 2), 12);
  EXPECT_EQ(r.dist.at<std::int32_t>(2, 0), kNthuInf);
  g.directed = false;
  r = solve(g, o);
  EXPECT_EQ(r.dist.at<std::int32_t>(2, 0), 12);
}

// Zero-weight cycles (where tight next hops can loop): chains and zero self loops are not,
// directed zero cycles of any length and undirected zero edges are; a dense view has no zero edge.
TEST(Core, ZeroWeightCycleDetection) {
  auto graph = [](std::int64_t n, std::initializer_list<std::tuple<int, int, double>> edges,
                  bool directed = true) {
    Graph g;
    g.num_vertices = n;
    g.directed = directed;
    for (const auto& [u, v, w] : edges) g.add_edge(u, v, w);
    return g;
  };
  EXPECT_FALSE(detail::may_have_zero_weight_cycle(graph(3, {{0, 1, 1}, {1, 0, 1}})));
  EXPECT_FALSE(
      detail::may_have_zero_weight_cycle(graph(4, {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 1}})));
  EXPECT_FALSE(detail::may_have_zero_weight_cycle(graph(2, {{0, 0, 0}, {1, 1, 0}, {0, 1, 0}})));
  EXPECT_TRUE(
      detail::may_have_zero_weight_cycle(graph(4, {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 1, 0}})));
  EXPECT_TRUE(detail::may_have_zero_weight_cycle(graph(5, {{4, 3, 0}, {3, 4, 0}, {0, 1, 2}})));
  EXPECT_TRUE(detail::may_have_zero_weight_cycle(graph(3, {{0, 1, 0}, {1, 2, 4}}, false)));
  EXPECT_FALSE(detail::may_have_zero_weight_cycle(graph(3, {{0, 1, 1}, {1, 2, 4}}, false)));
  EXPECT_FALSE(detail::may_have_zero_weight_cycle(graph(1, {})));
  std::vector<std::int32_t> m = {0, 1, 1, 0};
  EXPECT_FALSE(detail::may_have_zero_weight_cycle(
      Graph::from_dense(2, {m.data(), Dtype::Int32, 8, 4}, false)));
}

TEST(Core, DuplicateEdgesKeepMinimumAndSelfLoopsAreIgnored) {
  Graph g;
  g.num_vertices = 2;
  g.add_edge(0, 1, 9);
  g.add_edge(0, 1, 4);
  g.add_edge(0, 1, 6);
  g.add_edge(1, 1, 3);
  const Result r = solve(g, cpu());
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 1), 4);
  EXPECT_EQ(r.dist.at<std::int32_t>(1, 1), 0);
  EXPECT_EQ(r.dist.at<std::int32_t>(1, 0), kNthuInf);
}

TEST(Core, AllDtypesAgreeOnIntegerWeights) {
  RandomGraphSpec spec;
  spec.V = 150;
  spec.E = 900;
  spec.seed = 5;
  const Graph g = test::random_graph(spec);
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.dtype = t;
    const Result r = solve(g, o);
    EXPECT_EQ(r.dtype(), t);
    EXPECT_EQ(test::compare(r.dist, reference(g, t)), "") << dtype_name(t);
  }
}

TEST(Core, Int32BoundPromotesToInt64ByDefault) {
  // A chain of 4 edges of weight 5e8: the true distance 0 -> 4 is 2e9, beyond int32.
  Graph g;
  g.num_vertices = 5;
  for (int i = 0; i < 4; ++i) g.add_edge(i, i + 1, 5e8);
  const Result r = solve(g, cpu());
  ASSERT_EQ(r.dtype(), Dtype::Int64);
  EXPECT_EQ(r.dist.at<std::int64_t>(0, 4), 2000000000LL);
  EXPECT_FALSE(r.notes.empty());
}

TEST(Core, ExplicitInt32RefusedWhenItCannotBeExact) {
  Graph g;
  g.num_vertices = 5;
  for (int i = 0; i < 4; ++i) g.add_edge(i, i + 1, 5e8);
  SolveOptions o;
  o.dtype = Dtype::Int32;
  try {
    solve(g, o);
    FAIL() << "expected a refusal";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
}

TEST(Core, FractionalWeightsUseFloat64AndIntegerTypesRefuseThem) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 0.25);
  g.add_edge(1, 2, 0.5);
  const Result r = solve(g, cpu());
  ASSERT_EQ(r.dtype(), Dtype::Float64);
  EXPECT_DOUBLE_EQ(r.dist.at<double>(0, 2), 0.75);
  EXPECT_THROW(solve(g, cpu(Dtype::Int32)), UsageError);
}

TEST(Core, ValidationRejectsBadGraphs) {
  Graph empty;
  EXPECT_THROW(solve(empty), UsageError);
  Graph out_of_range;
  out_of_range.num_vertices = 3;
  out_of_range.add_edge(0, 3, 1);
  EXPECT_THROW(solve(out_of_range), UsageError);
  Graph negative_id;
  negative_id.num_vertices = 3;
  negative_id.add_edge(-1, 2, 1);
  EXPECT_THROW(solve(negative_id), UsageError);
}

TEST(Core, HugeGraphIsRefusedBeforeAllocating) {
  Graph g;
  g.num_vertices = 3'000'000;  // 3e6^2 * 4 bytes = 36 TB
  g.add_edge(0, 1, 1);
  try {
    solve(g, cpu());
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
  }
}

TEST(Core, SinksReceiveEveryRowOnce) {
  RandomGraphSpec spec;
  spec.V = 77;
  spec.E = 300;
  const Graph g = test::random_graph(spec);
  std::vector<int> seen(77, 0);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  std::int64_t next_rows = 0;
  o.dist_sink = [&](const RowBlock& b) {
    EXPECT_EQ(b.cols, 77);
    for (std::int64_t r = b.row0; r < b.row0 + b.rows; ++r) ++seen[std::size_t(r)];
  };
  o.next_sink = [&](const RowBlock& b) { next_rows += b.rows; };
  solve(g, o);
  for (int c : seen) EXPECT_EQ(c, 1);
  EXPECT_EQ(next_rows, 77);
}

TEST(Core, VerifyDetectsAWrongAnswer) {
  RandomGraphSpec spec;
  spec.V = 60;
  spec.E = 300;
  const Graph g = test::random_graph(spec);
  Result r = solve(g, cpu());
  EXPECT_EQ(detail::verify(g, r.dist), "");
  // Sampled mode (full_limit below V) must agree too.
  EXPECT_EQ(detail::verify(g, r.dist, 10, 8), "");
  r.dist.at<std::int32_t>(3, 7) += 1;
  EXPECT_NE(detail::verify(g, r.dist), "");
}

TEST(Core, DtypeNamesRoundTrip) {
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
    EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_THROW(parse_dtype("int8"), UsageError);
  EXPECT_EQ(parse_backend("multi-gpu"), Backend::MultiGpu);
  EXPECT_THROW(parse_backend("tpu"), UsageError);
}

TEST(Core, BackendsListsCpuAsUsable) {
  bool cpu = false;
  for (const auto& b : backends())
    if (b.name == "cpu") cpu = b.built && b.usable;
  EXPECT_TRUE(cpu);
}

}  // namespace
}  // namespace apsp

namespace {
// detail::parallel_copy (the CUDA backend's staging copies): every job lands whole, whatever the
// sizes (empty, below one piece, across piece edges), and nothing outside the targets is touched.
TEST(HostCopy, EveryJobLandsWholeAcrossPieceBoundaries) {
  const std::size_t sizes[] = {0, 1, 4095, (std::size_t(256) << 10) + 3,
                               (std::size_t(5) << 20) + 77};
  std::vector<std::vector<unsigned char>> src, dst;
  std::uint64_t x = 88172645463325252ull;
  for (const std::size_t n : sizes) {
    src.emplace_back(n);
    for (auto& c : src.back())
      x ^= x << 13, x ^= x >> 7, x ^= x << 17, c = static_cast<unsigned char>(x);
    dst.emplace_back(n + 16, 0xAB);  // 8 guard bytes on each side
  }
  apsp::detail::parallel_copy({{dst[0].data() + 8, src[0].data(), sizes[0]},
                               {dst[1].data() + 8, src[1].data(), sizes[1]},
                               {dst[2].data() + 8, src[2].data(), sizes[2]},
                               {dst[3].data() + 8, src[3].data(), sizes[3]},
                               {dst[4].data() + 8, src[4].data(), sizes[4]}});
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    const std::size_t n = sizes[k];
    EXPECT_TRUE(std::equal(src[k].begin(), src[k].end(), dst[k].begin() + 8)) << "job " << k;
    for (std::size_t g = 0; g < 8; ++g) {
      EXPECT_EQ(dst[k][g], 0xAB) << "job " << k;
      EXPECT_EQ(dst[k][8 + n + g], 0xAB) << "job " << k;
    }
  }
}
}  // namespace
