// tests/test_cuda.cpp — the cuda backend against the triple-loop reference and the CPU backend.
//
// Exact comparison throughout: every dtype with small-integer weights (every sum exact); fractional
// float64 weights against the CPU backend within 1e-12 relative.
// Sizes hit the 128-tile edges (1, 2, 63..65, 127..129), a round 1000, and two large odd sizes
// (5003 against the CPU backend, 12345 against Dijkstra from sampled sources). Also zero
// weights, disconnected and undirected graphs, duplicates and self loops, next hops (every walk
// reaches j along edges summing to the distance, zero-weight cycles included), the errors the
// backend raises (dtype, a graph too large for the GPU); --block is accepted and ignored. Without a
// usable GPU (or in a CPU-only build) every test skips and says why. Inputs are asserted
// non-trivial.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "core/reference.hpp"
#include "support.hpp"

namespace apsp {
namespace {

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

constexpr Dtype kAllTypes[] = {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64};

void expect_matches_reference(const Graph& g, Dtype t, std::uint64_t seed,
                              bool need_finite = true) {
  const Result r = solve_with(g, Backend::Cuda, t);
  EXPECT_EQ(r.backend, "cuda");
  ASSERT_EQ(r.dtype(), t);
  const Matrix want = reference(g, t);
  if (need_finite && g.num_vertices > 1) {
    ASSERT_GT(test::finite_off_diagonal(want), 0) << "trivial input, seed " << seed;
  }
  EXPECT_EQ(test::compare(r.dist, want), "")
      << "V=" << g.num_vertices << " " << dtype_name(t) << " seed " << seed;
}

class CudaSizes : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CudaSizes, MatchesReferenceAndCpuBackend) {
  REQUIRE_CUDA();
  const std::int64_t V = GetParam();
  const std::uint64_t seed = 1000 + std::uint64_t(V);
  const Graph g = test::random_graph(spec(V, 4 * V, seed));
  for (Dtype t : kAllTypes) {
    expect_matches_reference(g, t, seed, V > 1);
    const Result cpu = solve_with(g, Backend::Cpu, t);
    const Result gpu = solve_with(g, Backend::Cuda, t);
    EXPECT_EQ(test::compare(gpu.dist, cpu.dist), "")
        << "vs cpu backend, V=" << V << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(TileEdges, CudaSizes,
                         ::testing::Values(1, 2, 63, 64, 65, 127, 128, 129, 1000));

TEST(Cuda, Large5003MatchesCpuBackend) {
  REQUIRE_CUDA();
  const std::uint64_t seed = 5003;
  const Graph g = test::random_graph(spec(5003, 60000, seed));
  for (Dtype t : kAllTypes) {
    const Result gpu = solve_with(g, Backend::Cuda, t);
    const Result cpu = solve_with(g, Backend::Cpu, t);
    ASSERT_EQ(gpu.dtype(), t);
    ASSERT_GT(test::finite_off_diagonal(cpu.dist), 5003LL * 100) << "seed " << seed;
    EXPECT_EQ(test::compare(gpu.dist, cpu.dist), "") << dtype_name(t) << " seed " << seed;
  }
}

// Fractional weights: float64 by default on cuda and auto (never a silent float32), within
// 1e-12 relative of the CPU backend's float64 answer (the two add a path's weights in different
// orders); an explicit float32 stays float32.
TEST(Cuda, FractionalWeightsSolveInFloat64) {
  REQUIRE_CUDA();
  for (std::int64_t V : {2, 63, 64, 65, 129, 1000, 3001}) {
    test::RandomGraphSpec s = spec(V, 6 * V, 300 + std::uint64_t(V));
    s.integer = false;
    s.wmin = 0.001;
    s.wmax = 123.456;
    const Graph g = test::random_graph(s);
    ASSERT_FALSE(g.integer_weights);
    for (Backend b : {Backend::Cuda, Backend::Auto}) {
      SolveOptions o;
      o.backend = b;
      const Result gpu = solve(g, o);
      EXPECT_EQ(gpu.backend, "cuda");
      ASSERT_EQ(gpu.dtype(), Dtype::Float64) << "V=" << V;
      EXPECT_EQ(gpu.rounds, "float64");
      o.backend = Backend::Cpu;
      const Result cpu = solve(g, o);
      if (V > 1) {
        ASSERT_GT(test::finite_off_diagonal(cpu.dist), 0);
      }
      EXPECT_EQ(test::compare(gpu.dist, cpu.dist, 1e-12), "") << "V=" << V << " seed " << s.seed;
    }
    SolveOptions o;
    o.backend = Backend::Cuda;
    o.dtype = Dtype::Float32;
    EXPECT_EQ(solve(g, o).dtype(), Dtype::Float32);
  }
}

// Negative weights (Johnson: the kernels see reweighted, non-negative ones) in every dtype.
TEST(Cuda, NegativeWeightsEveryType) {
  REQUIRE_CUDA();
  for (std::int64_t V : {65, 300}) {
    test::RandomGraphSpec s = spec(V, 3 * V, 500 + std::uint64_t(V));
    Graph g = test::random_graph(s);
    // A few negative edges into vertices with no path back (no negative cycle): u -> v with
    // u > v only, among edges that go "down" a DAG layer added on top.
    for (std::int32_t u = 1; u < std::int32_t(V); u += 7) g.add_edge(u, u - 1, -5);
    for (Dtype t : kAllTypes) {
      SolveOptions o;
      o.backend = Backend::Cuda;
      o.dtype = t;
      Result gpu;
      try {
        gpu = solve(g, o);
      } catch (const NegativeCycleError&) {
        continue;  // random edges closed a cycle through a negative edge: nothing to compare
      }
      o.backend = Backend::Cpu;
      const Result cpu = solve(g, o);
      EXPECT_EQ(test::compare(gpu.dist, cpu.dist), "") << "V=" << V << " " << dtype_name(t);
    }
  }
}

TEST(Cuda, Large12345MatchesSampledDijkstra) {
  REQUIRE_CUDA();
  const std::uint64_t seed = 12345;
  const Graph g = test::random_graph(spec(12345, 200000, seed));
  for (Dtype t : kAllTypes) {
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
  for (Dtype t : kAllTypes) expect_matches_reference(g, t, s.seed);
}

TEST(Cuda, DisconnectedAndUndirected) {
  REQUIRE_CUDA();
  test::RandomGraphSpec s = spec(517, 3000, 11);
  s.components = 4;
  const Graph g = test::random_graph(s);
  for (Dtype t : kAllTypes) expect_matches_reference(g, t, s.seed);
  const Matrix want = reference(g, Dtype::Int32);
  EXPECT_LT(test::finite_off_diagonal(want), 517LL * 516) << "expected unreachable pairs";
  s.directed = false;
  s.seed = 12;
  const Graph u = test::random_graph(s);
  for (Dtype t : kAllTypes) expect_matches_reference(u, t, s.seed);
}

TEST(Cuda, DuplicatesAndSelfLoops) {
  REQUIRE_CUDA();
  test::RandomGraphSpec s = spec(200, 4000, 13);
  s.self_loops = true;
  s.duplicates = true;
  const Graph g = test::random_graph(s);
  for (Dtype t : kAllTypes) expect_matches_reference(g, t, s.seed);
}

/// Every pair: next == -1 exactly for i == j or unreachable, else walking next from i reaches j
/// within V hops along edges whose weights add up to the distance.
std::string check_paths(const Graph& g, const Result& r) {
  const std::int64_t V = g.num_vertices;
  std::map<std::pair<std::int64_t, std::int64_t>, double> w;
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    auto put = [&](std::int64_t u, std::int64_t v) {
      auto it = w.find({u, v});
      if (it == w.end() || g.weight[e] < it->second) w[{u, v}] = g.weight[e];
    };
    put(g.src[e], g.dst[e]);
    if (!g.directed) put(g.dst[e], g.src[e]);
  }
  auto dist = [&](std::int64_t i, std::int64_t j) {
    return visit_dtype(r.dtype(), [&](auto tag) { return double(r.dist.at<decltype(tag)>(i, j)); });
  };
  const double inf =
      visit_dtype(r.dtype(), [](auto tag) { return double(unreachable<decltype(tag)>()); });
  // Messages through a stream: GCC 12's -Wrestrict misfires on "(" + std::string temporaries here.
  auto at = [](std::int64_t i, std::int64_t j, const auto&... rest) {
    std::ostringstream os;
    os << "(" << i << "," << j << "): ";
    (os << ... << rest);
    return os.str();
  };
  for (std::int64_t i = 0; i < V; ++i)
    for (std::int64_t j = 0; j < V; ++j) {
      const std::int32_t nx = r.next.at<std::int32_t>(i, j);
      const bool none = i == j || dist(i, j) >= inf;
      if (none != (nx == -1)) return at(i, j, "next ", nx);
      if (none) continue;
      double sum = 0;
      std::int64_t u = i, hops = 0;
      while (u != j && hops++ <= V) {
        const std::int64_t v = r.next.at<std::int32_t>(u, j);
        auto it = w.find({u, v});
        if (v < 0 || it == w.end()) return at(i, j, "no edge on the walk");
        sum += it->second;
        u = v;
      }
      if (u != j || sum != dist(i, j))
        return at(i, j, "walk sums to ", sum, ", distance ", dist(i, j));
    }
  return "";
}

TEST(Cuda, PathsWalkToShortestDistances) {
  REQUIRE_CUDA();
  for (std::int64_t V : {1, 2, 65, 129, 300}) {
    for (bool zero : {false, true}) {
      test::RandomGraphSpec s = spec(V, 5 * V, 70 + std::uint64_t(V));
      s.wmax = zero ? 2 : 100;  // with 0..2 many zero-weight edges and cycles
      s.directed = V != 129;
      const Graph g = test::random_graph(s);
      for (Dtype t : kAllTypes) {
        SolveOptions o;
        o.backend = Backend::Cuda;
        o.dtype = t;
        o.paths = true;
        const Result r = solve(g, o);
        ASSERT_FALSE(r.next.empty());
        EXPECT_EQ(test::compare(r.dist, reference(g, t)), "") << "V=" << V << " seed " << s.seed;
        EXPECT_EQ(check_paths(g, r), "") << "V=" << V << " " << dtype_name(t) << " seed " << s.seed;
      }
    }
  }
}

// With both sinks (the CLI) --paths streams: solve() allocates no matrix. Positive int32 weights:
// stripes straight from the GPU, next hops equal to the whole-matrix run's (nothing to repair);
// zero-weight cycles or float32: the backend repairs whole matrices itself before the sinks.
TEST(Cuda, StreamedPathsEqualWholeMatricesAndWalk) {
  REQUIRE_CUDA();
  for (std::int64_t V : {1, 2, 129, 777}) {
    for (std::int64_t wmin : {1, 0, -1}) {
      test::RandomGraphSpec s = spec(V, 6 * V, 90 + std::uint64_t(V));
      s.wmin = wmin == 0 ? 0 : 1;    // -1: positive weights, then some zeroed below
      s.wmax = wmin == 0 ? 2 : 100;  // 0..2: zero-weight cycles, loops for the repair
      Graph g = test::random_graph(s);
      if (wmin < 0)  // zero-weight edges, but only from lower to higher ids: no zero-weight cycle
        for (std::size_t e = 0; e < g.src.size(); e += 3)
          if (g.src[e] < g.dst[e]) g.weight[e] = 0;
      if (V >= 129) {
        EXPECT_EQ(detail::may_have_zero_weight_cycle(g), wmin == 0)
            << "V=" << V << " wmin=" << wmin;
      }
      for (Dtype t : {Dtype::Int32, Dtype::Float32}) {
        SCOPED_TRACE("V=" + std::to_string(V) + " wmin=" + std::to_string(wmin) + " " +
                     dtype_name(t));
        SolveOptions o;
        o.backend = Backend::Cuda;
        o.dtype = t;
        o.paths = true;
        const Result whole = solve(g, o);
        test::StripeCollector dist, next;
        o.dist_sink = dist.sink();
        o.next_sink = next.sink();
        const Result r = solve(g, o);
        EXPECT_TRUE(r.dist.empty()) << "a streaming backend leaves Result::dist empty";
        EXPECT_TRUE(r.next.empty());
        ASSERT_EQ(dist.check(), "");
        ASSERT_EQ(next.check(), "");
        EXPECT_EQ(test::compare(dist.m, whole.dist), "");
        EXPECT_EQ(test::check_next_hop_walks(g, dist.m, next.m), "");
        EXPECT_EQ(test::compare(next.m, whole.next), "");  // same device result, same repair
      }
    }
  }
}

/// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

// int16x2 mode, forced: kept when no distance lies in the band [2^14-1 - max w, 2^14-1), else the
// int32 rounds run again; exact either way. Dense graphs and split graphs keep it; long chains
// fall back.
TEST(Cuda, Int16ModeExactOrFallsBack) {
  REQUIRE_CUDA();
  const ScopedEnv force("APSP_CUDA_INT16", "1");
  for (std::int64_t V : {129, 700, 1500}) {
    const Graph dense = test::random_graph(spec(V, 30 * V, 90 + std::uint64_t(V)));
    expect_matches_reference(dense, Dtype::Int32, 90 + std::uint64_t(V));
  }
  // A ring 0 -> 1 -> ... -> 0 of weight 900 each: distances reach 900 * 399, far past 2^14-1.
  test::RandomGraphSpec s = spec(400, 200, 17);
  Graph ring = test::random_graph(s);
  for (std::int32_t v = 0; v < 400; ++v) ring.add_edge(v, (v + 1) % 400, 900);
  expect_matches_reference(ring, Dtype::Int32, s.seed);
  s = spec(600, 12000, 18);
  s.components = 3;
  expect_matches_reference(test::random_graph(s), Dtype::Int32, s.seed);
}

// --paths on int16x2 rounds (APSP_CUDA_INT16=1 forces them at this V; with --paths they are on
// by default wherever int16x2 is tried): the packed result is widened to int32 before the
// next-hop kernel, so distances and next hops equal the int32 run's exactly, kept or fallen back,
// with and without sinks; APSP_CUDA_INT16_PATHS=0 keeps int32 rounds.
TEST(Cuda, Int16ModeWithPaths) {
  REQUIRE_CUDA();
  test::RandomGraphSpec kept = spec(700, 30 * 700, 31);
  test::RandomGraphSpec split = spec(600, 12000, 32);
  split.components = 3;  // unreachable pairs: kept all the same (the band check)
  for (const test::RandomGraphSpec& s : {kept, split}) {
    const Graph g = test::random_graph(s);
    SolveOptions o;
    o.backend = Backend::Cuda;
    o.dtype = Dtype::Int32;
    o.paths = true;
    const Result want = solve(g, o);
    EXPECT_STREQ(detail::cuda_last_rounds(), "int32");  // V < 6144: not tried by default
    const ScopedEnv force("APSP_CUDA_INT16", "1");
    const Result got = solve(g, o);  // int16x2 with paths is on by default where int16x2 is tried
    // The packed rounds keep their result: every finite distance is far below 2^14-1 - 100
    // (unreachable pairs included: the band check tells them from saturated ones).
    const char* used = "int16x2";
    EXPECT_STREQ(detail::cuda_last_rounds(), used) << "seed " << s.seed;
    EXPECT_EQ(test::compare(got.dist, want.dist), "") << "seed " << s.seed;
    EXPECT_EQ(test::compare(got.next, want.next), "") << "seed " << s.seed;
    EXPECT_EQ(check_paths(g, got), "") << "seed " << s.seed;
    test::StripeCollector dist, next;
    o.dist_sink = dist.sink();
    o.next_sink = next.sink();
    (void)solve(g, o);
    EXPECT_STREQ(detail::cuda_last_rounds(), used) << "seed " << s.seed;
    ASSERT_EQ(dist.check(), "");
    ASSERT_EQ(next.check(), "");
    EXPECT_EQ(test::compare(dist.m, want.dist), "") << "seed " << s.seed;
    EXPECT_EQ(test::compare(next.m, want.next), "") << "seed " << s.seed;
    o.dist_sink = nullptr;
    o.next_sink = nullptr;
    const ScopedEnv off("APSP_CUDA_INT16_PATHS", "0");
    const Result plain = solve(g, o);
    EXPECT_STREQ(detail::cuda_last_rounds(), "int32");
    EXPECT_EQ(test::compare(plain.next, want.next), "") << "seed " << s.seed;
  }
}

// Small enough for compute-sanitizer (scripts/gpu_check.sh): one int16x2 run that is kept and
// one that falls back.
TEST(Cuda, Int16SmallForSanitizers) {
  REQUIRE_CUDA();
  const ScopedEnv force("APSP_CUDA_INT16", "1");
  const Graph kept = test::random_graph(spec(300, 9000, 31));
  expect_matches_reference(kept, Dtype::Int32, 31);
  SolveOptions o;  // with --paths: widened, arcs uploaded on a helper thread during the rounds
  o.backend = Backend::Cuda;
  o.dtype = Dtype::Int32;
  o.paths = true;
  const Result r = solve(kept, o);
  EXPECT_STREQ(detail::cuda_last_rounds(), "int16x2");
  EXPECT_EQ(check_paths(kept, r), "");
  test::RandomGraphSpec s = spec(300, 600, 32);
  s.components = 2;
  expect_matches_reference(test::random_graph(s), Dtype::Int32, s.seed);
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
  o.block = 64;  // a hint the GPU kernels do not take: same answer with their own tile
  EXPECT_EQ(test::compare(solve(g, o).dist, reference(g, Dtype::Int32)), "");
  o.block = 0;
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
