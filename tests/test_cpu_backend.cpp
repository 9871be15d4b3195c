// tests/test_cpu_backend.cpp — the CPU backend against the triple-loop reference.
//
// Integer types must match bit for bit; float types too, since the weights are small integers
// (every sum is exact). Every instruction set this machine runs (AVX-512, AVX2, portable) is
// forced in turn. Sizes hit the tile edges (1, 2, 63..65, 127..129 with block 64, a prime near
// 1000 with the default block), plus random V in 1000..1100. Next hops are checked by walking
// every path and adding up its edge weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <vector>
#include <random>
#include <tuple>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using detail::cpu::Isa;

std::vector<Isa> runnable_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Scalar})
    if (detail::cpu::isa_supported(isa)) out.push_back(isa);
  return out;
}

// Restores automatic ISA selection when a test ends.
struct ForcedIsa {
  explicit ForcedIsa(Isa isa) { detail::cpu::force_isa(isa); }
  ~ForcedIsa() { detail::cpu::force_isa(std::nullopt); }
};

test::RandomGraphSpec spec_for(std::int64_t V, std::uint64_t seed) {
  test::RandomGraphSpec s;
  s.V = V;
  s.E = std::max<std::int64_t>(1, V * 3);  // sparse enough for long paths, dense enough to connect
  s.wmin = 0;
  s.wmax = 20;  // many zero-weight edges and ties
  s.duplicates = true;
  s.self_loops = true;
  s.components = V >= 8 ? 3 : 1;
  s.seed = seed;
  return s;
}

Matrix reference(const Graph& g, Dtype t) {
  Matrix m = detail::build_matrix(g, t, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(m);
  return m;
}

// The reference for the graph spec_for(V, seed) gives, computed once per process (the suites
// below reuse it for every instruction set).
const Matrix& cached_reference(std::int64_t V, std::uint64_t seed, Dtype t) {
  static std::map<std::tuple<std::int64_t, std::uint64_t, Dtype>, Matrix> cache;
  auto it = cache.find({V, seed, t});
  if (it == cache.end()) it = cache.emplace(std::make_tuple(V, seed, t), reference(test::random_graph(spec_for(V, seed)), t)).first;
  return it->second;
}

Result solve_cpu(const Graph& g, Dtype t, int block, int threads, bool paths) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.dtype = t;
  o.block = block;
  o.threads = threads;
  o.paths = paths;
  return solve(g, o);
}

// Walks every finite path of the next-hop matrix; the edge weights along it must add up to the
// distance and the walk must end within V steps.
template <class T> std::string check_paths(const Graph& g, const Matrix& dist, const Matrix& next) {
  const std::int64_t n = g.num_vertices;
  std::vector<double> w(std::size_t(n * n), INFINITY);  // lightest edge u -> v
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    double& x = w[std::size_t(g.src[e] * n + g.dst[e])];
    x = std::min(x, g.weight[e]);
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const T d = dist.at<T>(i, j);
      const std::int32_t first = next.at<std::int32_t>(i, j);
      if (i == j) continue;
      if (!(d < unreachable<T>())) {
        if (first != -1) return "unreachable pair with a next hop at (" + std::to_string(i) + "," + std::to_string(j) + ")";
        continue;
      }
      double len = 0;
      std::int64_t at = i, steps = 0;
      while (at != j) {
        const std::int32_t nx = next.at<std::int32_t>(at, j);
        if (nx < 0 || nx >= n || !std::isfinite(w[std::size_t(at * n + nx)]) || ++steps > n)
          return "broken path " + std::to_string(i) + "->" + std::to_string(j) + " at " + std::to_string(at);
        len += w[std::size_t(at * n + nx)];
        at = nx;
      }
      if (len != double(d))
        return "path " + std::to_string(i) + "->" + std::to_string(j) + " has length " + std::to_string(len) +
               ", distance " + std::to_string(double(d));
    }
  return "";
}

std::string check_paths_any(const Graph& g, const Matrix& dist, const Matrix& next) {
  return visit_dtype(dist.dtype(), [&](auto tag) { return check_paths<decltype(tag)>(g, dist, next); });
}

class CpuIsaTest : public ::testing::TestWithParam<std::tuple<Isa, Dtype>> {};

TEST_P(CpuIsaTest, EdgeSizesMatchReference) {
  const auto [isa, t] = GetParam();
  ForcedIsa forced(isa);
  for (std::int64_t V : {1, 2, 31, 63, 64, 65, 127, 128, 129, 200}) {
    const std::uint64_t seed = 1000 + std::uint64_t(V);
    SCOPED_TRACE("V=" + std::to_string(V) + " seed=" + std::to_string(seed));
    const Graph g = test::random_graph(spec_for(V, seed));
    const Matrix want = reference(g, t);
    if (V >= 8) {
      ASSERT_GT(test::finite_off_diagonal(want), 2 * V);
    }
    for (int block : {32, 64, 0}) {
      SCOPED_TRACE("block=" + std::to_string(block));
      const Result r = solve_cpu(g, t, block, 2, false);
      EXPECT_EQ(test::compare(r.dist, want), "");
    }
  }
}

TEST_P(CpuIsaTest, PrimeSizeMatchesReference) {
  const auto [isa, t] = GetParam();
  ForcedIsa forced(isa);
  const std::int64_t V = 997;  // prime; 4 rounds of 256 after padding to 1024, the last one narrower
  const std::uint64_t seed = 77;
  SCOPED_TRACE("V=997 seed=77");
  const Graph g = test::random_graph(spec_for(V, seed));
  const Matrix& want = cached_reference(V, seed, t);
  ASSERT_GT(test::finite_off_diagonal(want), V * V / 10);
  EXPECT_EQ(test::compare(solve_cpu(g, t, 0, 2, false).dist, want), "");
  EXPECT_EQ(test::compare(solve_cpu(g, t, 96, 2, false).dist, want), "");
}

// Both next-hop modes: graphs with zero-weight edges (hop counts break ties) and with positive
// weights only (plain strict-less next hops).
TEST_P(CpuIsaTest, NextHopsWalkToTheDistance) {
  const auto [isa, t] = GetParam();
  ForcedIsa forced(isa);
  for (double wmin : {0.0, 1.0})
    for (std::int64_t V : {1, 2, 65, 129, 300}) {
      SCOPED_TRACE("V=" + std::to_string(V) + " wmin=" + std::to_string(wmin));
      test::RandomGraphSpec s = spec_for(V, 500 + std::uint64_t(V));
      s.wmin = wmin;
      const Graph g = test::random_graph(s);
      bool zero_edge = false;
      for (std::size_t e = 0; e < g.num_edges(); ++e) zero_edge |= g.src[e] != g.dst[e] && g.weight[e] == 0;
      EXPECT_EQ(detail::cpu::positive_weights(g, t), !zero_edge);
      if (V >= 65) {
        EXPECT_EQ(zero_edge, wmin == 0);
      }
      const Matrix want = reference(g, t);
      for (int block : {32, 0}) {
        const Result r = solve_cpu(g, t, block, 2, true);
        ASSERT_FALSE(r.next.empty());
        EXPECT_EQ(test::compare(r.dist, want), "");
        EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
      }
    }
}

// Zero-weight cycles are where next hops go wrong if ties are broken carelessly (two vertices on
// a zero-weight cycle pointing at each other); many small graphs full of them, several rounds.
TEST(CpuBackend, ZeroWeightCyclesGiveNoNextHopCycles) {
  for (Isa isa : runnable_isas()) {
    for (Dtype t : {Dtype::Int32, Dtype::Float64}) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        SCOPED_TRACE(std::string(detail::cpu::isa_name(isa)) + " " + dtype_name(t) + " seed=" + std::to_string(seed));
        test::RandomGraphSpec s = spec_for(150, seed);
        s.wmax = double(seed % 3);  // weights 0..2 (0 only, for every third seed)
        s.E = 450;
        s.components = 5;
        const Graph g = test::random_graph(s);
        std::int64_t zero = 0;
        for (double w : g.weight) zero += w == 0;
        ASSERT_GT(zero, 100);
        Matrix d = detail::build_matrix(g, t, 160, 160);
        Matrix next = detail::build_next(d);
        detail::cpu::blocked_floyd_warshall(d, &next, 32, 2, isa);
        d.set_logical_shape(150, 150);
        next.set_logical_shape(150, 150);
        EXPECT_EQ(test::compare(d, reference(g, t)), "");
        EXPECT_EQ(check_paths_any(g, d, next), "");
      }
    }
  }
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Isa, Dtype>>& info) {
  return std::string(detail::cpu::isa_name(std::get<0>(info.param))) + "_" + dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllIsas, CpuIsaTest,
                         ::testing::Combine(::testing::ValuesIn(runnable_isas()),
                                            ::testing::Values(Dtype::Int32, Dtype::Int64, Dtype::Float32,
                                                              Dtype::Float64)),
                         param_name);

TEST(CpuBackend, EveryIsaIsTestedHere) {
  // This machine class (CI and dev) has AVX-512; fail loudly if a path silently drops out.
  if (detail::cpu::detected_isa() == Isa::Avx512) {
    EXPECT_TRUE(detail::cpu::isa_supported(Isa::Avx2));
  }
  EXPECT_TRUE(detail::cpu::isa_supported(Isa::Scalar));
}

TEST(CpuBackend, RandomSizesAbove1000MatchReference) {
  std::mt19937_64 rng(2026);
  for (int rep = 0; rep < 3; ++rep) {
    const std::int64_t V = 1000 + std::int64_t(rng() % 101);
    const std::uint64_t seed = rng();
    SCOPED_TRACE("V=" + std::to_string(V) + " seed=" + std::to_string(seed));
    test::RandomGraphSpec s = spec_for(V, seed);
    s.E = 4 * V;
    s.wmax = 1000;
    const Graph g = test::random_graph(s);
    const Matrix want = reference(g, Dtype::Int32);
    ASSERT_GT(test::finite_off_diagonal(want), V * V / 10);
    EXPECT_EQ(test::compare(solve_cpu(g, Dtype::Int32, 0, 2, false).dist, want), "");
  }
}

TEST(CpuBackend, OneAndTwoThreadsGiveIdenticalResults) {
  const Graph g = test::random_graph(spec_for(700, 9));
  for (bool paths : {false, true}) {
    const Result a = solve_cpu(g, Dtype::Int32, 64, 1, paths), b = solve_cpu(g, Dtype::Int32, 64, 2, paths);
    ASSERT_GT(test::finite_off_diagonal(a.dist), 700 * 70);
    EXPECT_EQ(test::compare(a.dist, b.dist), "");
    if (paths) {
      EXPECT_EQ(test::compare(a.next, b.next), "");
    }
  }
}

TEST(CpuBackend, ZeroWeightsDuplicatesAndDisconnectedParts) {
  test::RandomGraphSpec s = spec_for(150, 4);
  s.wmax = 0;          // every edge weight 0: the answer is reachability
  s.components = 5;    // five parts with no edges between them
  const Graph g = test::random_graph(s);
  const Matrix want = reference(g, Dtype::Int32);
  const Result r = solve_cpu(g, Dtype::Int32, 32, 2, true);
  EXPECT_EQ(test::compare(r.dist, want), "");
  EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
  std::int64_t finite = 0, infinite = 0;
  for (std::int64_t i = 0; i < 150; ++i)
    for (std::int64_t j = 0; j < 150; ++j) (r.dist.at<std::int32_t>(i, j) == 0 ? finite : infinite)++;
  EXPECT_GT(finite, 150 * 10);
  EXPECT_GT(infinite, 150 * 50);
}

TEST(CpuBackend, IsaFromTheEnvironment) {
  ASSERT_EQ(setenv("APSP_CPU_ISA", "scalar", 1), 0);
  EXPECT_EQ(detail::cpu::active_isa(), Isa::Scalar);
  ASSERT_EQ(setenv("APSP_CPU_ISA", "avx1024", 1), 0);
  EXPECT_THROW(detail::cpu::active_isa(), UsageError);
  {
    ForcedIsa forced(Isa::Scalar);  // an explicit force wins over the environment
    EXPECT_EQ(detail::cpu::active_isa(), Isa::Scalar);
  }
  ASSERT_EQ(unsetenv("APSP_CPU_ISA"), 0);
  EXPECT_EQ(detail::cpu::active_isa(), detail::cpu::detected_isa());
}

TEST(CpuBackend, ForcingAnIsaTheCpuLacksIsRefused) {
  for (Isa isa : {Isa::Avx512, Isa::Avx2}) {
    if (!detail::cpu::isa_supported(isa)) {
      EXPECT_THROW(detail::cpu::force_isa(isa), UsageError);
    }
  }
  detail::cpu::force_isa(std::nullopt);
}

}  // namespace
}  // namespace apsp
