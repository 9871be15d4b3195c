// tests/test_cuda.cpp — the cuda backend against the triple-loop reference and the CPU backend.
//
// Exact comparison throughout: int32, and float32 with small-integer weights (every sum exact).
// Sizes hit the 128-tile edges (1, 2, 63..65, 127..129), a round 1000, and two large odd sizes
// (5003 against the CPU backend, 12345 against Dijkstra from sampled sources). Also zero
// weights, disconnected and undirected graphs, duplicates and self loops, the errors the backend
// raises (tile size, paths, a graph too large for the GPU). Without a usable GPU (or in a
// CPU-only build) every test skips and says why. Inputs are asserted non-trivial.
#include <gtest/gtest.h>

#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "support.hpp"

namespace apsp {
namespace {

/// "" when the cuda backend can run here, else why not.
std::string cuda_unavailable() {
  for (const BackendInfo& b : backends())
    if (b.name == "cuda") return b.usable ? "" : (b.built ? b.detail : "not built (" + b.detail + ")");
  return "no cuda backend in this build";
}

#define REQUIRE_CUDA()                                                 \
  do {                                                                 \
    const std::string why = cuda_unavailable();                        \
    if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;       \
  } while (0)

Result solve_with(const Graph& g, Backend b, Dtype t) {
  SolveOptions o;
  o.backend = b;
  o.dtype = t;
  return solve(g, o);
}

Matrix reference(const Graph& g, Dtype t) {
  Matrix m = detail::build_matrix(g, t, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(m);
  return m;
}

test::RandomGraphSpec spec(std::int64_t V, std::int64_t E, std::uint64_t seed) {
  test::RandomGraphSpec s;
  s.V = V;
  s.E = E;
  s.wmin = 0;
  s.wmax = 100;
  s.seed = seed;
  return s;
}

void expect_matches_reference(const Graph& g, Dtype t, std::uint64_t seed, bool need_finite = true) {
  const Result r = solve_with(g, Backend::Cuda, t);
  EXPECT_EQ(r.backend, "cuda");
  ASSERT_EQ(r.dtype(), t);
  const Matrix want = reference(g, t);
  if (need_finite && g.num_vertices > 1) {
    ASSERT_GT(test::finite_off_diagonal(want), 0) << "trivial input, seed " << seed;
  }
  EXPECT_EQ(test::compare(r.dist, want), "") << "V=" << g.num_vertices << " " << dtype_name(t) << " seed " << seed;
}

class CudaSizes : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CudaSizes, MatchesReferenceAndCpuBackend) {
  REQUIRE_CUDA();
  const std::int64_t V = GetParam();
  const std::uint64_t seed = 1000 + std::uint64_t(V);
  const Graph g = test::random_graph(spec(V, 4 * V, seed));
  for (Dtype t : {Dtype::Int32, Dtype::Float32}) {
    expect_matches_reference(g, t, seed, V > 1);
    const Result cpu = solve_with(g, Backend::Cpu, t);
    const Result gpu = solve_with(g, Backend::Cuda, t);
    EXPECT_EQ(test::compare(gpu.dist, cpu.dist), "") << "vs cpu backend, V=" << V << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(TileEdges, CudaSizes, ::testing::Values(1, 2, 63, 64, 65, 127, 128, 129, 1000));

TEST(Cuda, Large5003MatchesCpuBackend) {
  REQUIRE_CUDA();
  const std::uint64_t seed = 5003;
  const Graph g = test::random_graph(spec(5003, 60000, seed));
  const Result gpu = solve_with(g, Backend::Cuda, Dtype::Int32);
  const Result cpu = solve_with(g, Backend::Cpu, Dtype::Int32);
  ASSERT_GT(test::finite_off_diagonal(cpu.dist), 5003LL * 100) << "seed " << seed;
  EXPECT_EQ(test::compare(gpu.dist, cpu.dist), "") << "seed " << seed;
}

TEST(Cuda, Large12345MatchesSampledDijkstra) {
  REQUIRE_CUDA();
  const std::uint64_t seed = 12345;
  const Graph g = test::random_graph(spec(12345, 200000, seed));
  for (Dtype t : {Dtype::Int32, Dtype::Float32}) {
    const Result gpu = solve_with(g, Backend::Cuda, t);
    ASSERT_GT(test::finite_off_diagonal(gpu.dist), 12345LL * 100);
    EXPECT_EQ(detail::verify(g, gpu.dist, 0, 12, seed), "") << dtype_name(t) << " seed " << seed;
  }
}

TEST(Cuda, ZeroWeights) {
  REQUIRE_CUDA();
  test::RandomGraphSpec s = spec(300, 900, 7);
  s.wmax = 0;
  const Graph g = test::random_graph(s);
  expect_matches_reference(g, Dtype::Int32, s.seed);
  expect_matches_reference(g, Dtype::Float32, s.seed);
}

TEST(Cuda, DisconnectedAndUndirected) {
  REQUIRE_CUDA();
  test::RandomGraphSpec s = spec(517, 3000, 11);
  s.components = 4;
  const Graph g = test::random_graph(s);
  expect_matches_reference(g, Dtype::Int32, s.seed);
  const Matrix want = reference(g, Dtype::Int32);
  EXPECT_LT(test::finite_off_diagonal(want), 517LL * 516) << "expected unreachable pairs";
  s.directed = false;
  s.seed = 12;
  const Graph u = test::random_graph(s);
  expect_matches_reference(u, Dtype::Int32, s.seed);
  expect_matches_reference(u, Dtype::Float32, s.seed);
}

TEST(Cuda, DuplicatesAndSelfLoops) {
  REQUIRE_CUDA();
  test::RandomGraphSpec s = spec(200, 4000, 13);
  s.self_loops = true;
  s.duplicates = true;
  const Graph g = test::random_graph(s);
  expect_matches_reference(g, Dtype::Int32, s.seed);
  expect_matches_reference(g, Dtype::Float32, s.seed);
}

TEST(Cuda, AutoPicksCudaWhenUsable) {
  REQUIRE_CUDA();
  const Graph g = test::random_graph(spec(100, 400, 3));
  const Result r = solve(g);
  EXPECT_EQ(r.backend, "cuda");
  EXPECT_GT(r.timings.compute, 0.0);
}

TEST(Cuda, Errors) {
  REQUIRE_CUDA();
  const Graph g = test::random_graph(spec(100, 400, 3));
  SolveOptions o;
  o.backend = Backend::Cuda;
  o.block = 64;
  EXPECT_THROW(solve(g, o), UsageError);
  o.block = 0;
  o.dtype = Dtype::Int64;
  EXPECT_THROW(solve(g, o), UsageError);
  // Far beyond any GPU: refused before any allocation, naming the bytes needed.
  Graph huge;
  huge.num_vertices = 2'000'000;
  huge.add_edge(0, 1, 1);
  o.dtype = Dtype::Int32;
  try {
    solve(huge, o);
    ADD_FAILURE() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace apsp
