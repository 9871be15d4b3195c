// tests/test_cpu_backend.cpp — the CPU backend against the triple-loop reference.
//
// Integer types must match bit for bit; float types too, since the weights are small integers
// (every sum is exact). Every instruction set this machine runs (AVX-512, AVX2, portable) is
// forced in turn. Sizes hit the tile edges (1, 2, 63..65, 127..129 with block 64, a prime near
// 1000 with the default block), plus random V in 1000..1100. Next hops are checked by walking
// every path and adding up its edge weights, for both ways the backend keeps them (tracked in the
// kernels, or the edges pass after a distances-only solve, forced in turn); the edges pass must
// also equal, entry for entry, a plain scalar implementation of its rule (the CUDA backend's).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <vector>
#include <random>
#include <tuple>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "cpu/next_hops.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using detail::cpu::Isa;
using detail::cpu::NextMethod;

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

// Forces how next hops are kept while a test runs.
struct ForcedNext {
  explicit ForcedNext(NextMethod m) { detail::cpu::force_next_method(m); }
  ~ForcedNext() { detail::cpu::force_next_method(std::nullopt); }
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
  if (it == cache.end())
    it = cache
             .emplace(std::make_tuple(V, seed, t),
                      reference(test::random_graph(spec_for(V, seed)), t))
             .first;
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
template <class T>
std::string check_paths(const Graph& g, const Matrix& dist, const Matrix& next) {
  const std::int64_t n = g.num_vertices;
  std::vector<double> w(std::size_t(n * n), INFINITY);  // lightest edge u -> v
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    double& x = w[std::size_t(g.src[e] * n + g.dst[e])];
    x = std::min(x, g.weight[e]);
    if (!g.directed) {
      double& y = w[std::size_t(g.dst[e] * n + g.src[e])];
      y = std::min(y, g.weight[e]);
    }
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const T d = dist.at<T>(i, j);
      const std::int32_t first = next.at<std::int32_t>(i, j);
      if (i == j) continue;
      if (!(d < unreachable<T>())) {
        if (first != -1)
          return "unreachable pair with a next hop at (" + std::to_string(i) + "," +
                 std::to_string(j) + ")";
        continue;
      }
      double len = 0;
      std::int64_t at = i, steps = 0;
      while (at != j) {
        const std::int32_t nx = next.at<std::int32_t>(at, j);
        if (nx < 0 || nx >= n || !std::isfinite(w[std::size_t(at * n + nx)]) || ++steps > n)
          return "broken path " + std::to_string(i) + "->" + std::to_string(j) + " at " +
                 std::to_string(at);
        len += w[std::size_t(at * n + nx)];
        at = nx;
      }
      if (len != double(d))
        return "path " + std::to_string(i) + "->" + std::to_string(j) + " has length " +
               std::to_string(len) + ", distance " + std::to_string(double(d));
    }
  return "";
}

std::string check_paths_any(const Graph& g, const Matrix& dist, const Matrix& next) {
  return visit_dtype(dist.dtype(),
                     [&](auto tag) { return check_paths<decltype(tag)>(g, dist, next); });
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
  const std::int64_t V =
      997;  // prime; 4 rounds of 256 after padding to 1024, the last one narrower
  const std::uint64_t seed = 77;
  SCOPED_TRACE("V=997 seed=77");
  const Graph g = test::random_graph(spec_for(V, seed));
  const Matrix& want = cached_reference(V, seed, t);
  ASSERT_GT(test::finite_off_diagonal(want), V * V / 10);
  EXPECT_EQ(test::compare(solve_cpu(g, t, 0, 2, false).dist, want), "");
  EXPECT_EQ(test::compare(solve_cpu(g, t, 96, 2, false).dist, want), "");
}

// Both ways of keeping next hops (tracked in the kernels; the edges pass after a distances-only
// solve), on graphs with zero-weight edges (solve() repairs any loop) and with positive weights.
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
      for (std::size_t e = 0; e < g.num_edges(); ++e)
        zero_edge |= g.src[e] != g.dst[e] && g.weight[e] == 0;
      EXPECT_EQ(detail::cpu::positive_weights(g, t), !zero_edge);
      if (V >= 65) {
        EXPECT_EQ(zero_edge, wmin == 0);
      }
      const Matrix want = reference(g, t);
      for (NextMethod m : {NextMethod::Tracked, NextMethod::Edges}) {
        ForcedNext forced_next(m);
        for (int block : {32, 0}) {
          SCOPED_TRACE(std::string(detail::cpu::next_method_name(m)) +
                       " block=" + std::to_string(block));
          const Result r = solve_cpu(g, t, block, 2, true);
          ASSERT_FALSE(r.next.empty());
          EXPECT_EQ(test::compare(r.dist, want), "");
          EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
        }
      }
    }
}

// The edges pass's rule, written as plainly as possible: next[i][j] = the out-neighbour v of i
// minimising w(i,v) + d[v][j] (in T arithmetic, weights rounded as build_matrix does), the first
// arc in input-edge order on ties (strict <; undirected edges give both arcs, self loops none),
// -1 for i == j or d[i][j] unreachable.
template <class T>
Matrix rule_next(const Graph& g, const Matrix& dist) {
  const std::int64_t n = g.num_vertices;
  std::vector<std::vector<std::pair<std::int32_t, T>>> out(static_cast<std::size_t>(n));
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    const std::int32_t u = g.src[e], v = g.dst[e];
    if (u == v) continue;
    const T w = std::is_integral_v<T> ? T(std::llround(g.weight[e])) : T(g.weight[e]);
    out[std::size_t(u)].push_back({v, w});
    if (!g.directed) out[std::size_t(v)].push_back({u, w});
  }
  Matrix next(n, n, Dtype::Int32);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T best = std::numeric_limits<T>::max();
      if constexpr (!std::is_integral_v<T>) best = std::numeric_limits<T>::infinity();
      std::int32_t arg = -1;
      for (const auto& [v, w] : out[std::size_t(i)]) {
        const T cand = w + dist.at<T>(v, j);
        if (cand < best) best = cand, arg = v;
      }
      next.at<std::int32_t>(i, j) = i == j || !(dist.at<T>(i, j) < unreachable<T>()) ? -1 : arg;
    }
  return next;
}

// The edges pass on its own (no repair) against rule_next, on the graph families where ties and
// edge order matter: zero weights, duplicates with different weights, disconnected parts,
// undirected graphs, fractional weights for the float types; V around the 32/64-column chunks.
TEST_P(CpuIsaTest, EdgesPassFollowsTheRule) {
  const auto [isa, t] = GetParam();
  int cases = 0;
  for (std::int64_t V : {1, 2, 63, 65, 129, 997})
    for (int family = 0; family < 4; ++family) {
      test::RandomGraphSpec s = spec_for(V, 3000 + std::uint64_t(V) * 7 + std::uint64_t(family));
      if (family == 1) s.wmax = 1;                      // half the weights 0: ties everywhere
      if (family == 2) s.directed = false, s.wmax = 3;  // both arcs of an edge, in edge order
      if (family == 3) {
        if (!is_integer(t)) s.integer = false;    // fractional: the float kernels' own minimum
        s.E = V <= 129 ? V * V / 3 + 1 : 40 * V;  // dense: many arcs per row, long arc lists
        s.wmax = 50;
      }
      const std::string trace = "V=" + std::to_string(V) + " family=" + std::to_string(family) +
                                " seed=" + std::to_string(s.seed);
      SCOPED_TRACE(trace);
      const Graph g = test::random_graph(s);
      const std::int64_t n_pad = (V + 31) / 32 * 32;
      Matrix d = detail::build_matrix(g, t, n_pad, n_pad);
      detail::cpu::blocked_floyd_warshall(d, nullptr, 64, 2, isa);
      Matrix next(V, V, n_pad, n_pad, Dtype::Int32);
      detail::cpu::next_hops_from_edges(g, d, next, 2, isa);
      d.set_logical_shape(V, V);
      const Matrix want = visit_dtype(t, [&](auto tag) { return rule_next<decltype(tag)>(g, d); });
      EXPECT_EQ(test::compare(next, want), "");
      if (V >= 63) {
        ASSERT_GT(test::finite_off_diagonal(d), 2 * V);
      }
      // Padding rows and columns: no next hop.
      for (std::int64_t i = 0; i < n_pad; ++i)
        for (std::int64_t j = (i < V ? V : 0); j < n_pad; ++j)
          ASSERT_EQ(next.data<std::int32_t>()[i * n_pad + j], -1);
      ++cases;
    }
  EXPECT_EQ(cases, 24);
}

// Through solve(): the edges method's next hops equal the rule followed by solve()'s repair of
// zero-weight loops (so they match the CUDA backend's entry for entry), and every path walks to
// its distance; int32 results are identical for every instruction set, for both methods.
TEST(CpuBackend, EdgesMethodInSolveIsTheRuleAfterRepair) {
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
    for (std::uint64_t seed : {1u, 2u}) {
      test::RandomGraphSpec s = spec_for(130, 40 + seed);
      s.wmax = 2;  // many zero-weight cycles: loops to repair
      const Graph g = test::random_graph(s);
      SCOPED_TRACE(std::string(dtype_name(t)) + " seed=" + std::to_string(40 + seed));
      ForcedNext forced(NextMethod::Edges);
      const Result r = solve_cpu(g, t, 32, 2, true);
      Matrix want = visit_dtype(t, [&](auto tag) { return rule_next<decltype(tag)>(g, r.dist); });
      repair_next_hops(g, r.dist, want);
      EXPECT_EQ(test::compare(r.next, want), "");
      EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
    }
}

TEST(CpuBackend, Int32NextHopsAreTheSameOnEveryIsa) {
  for (NextMethod m : {NextMethod::Edges, NextMethod::Tracked}) {
    ForcedNext forced(m);
    for (std::int64_t V : {65, 997}) {
      test::RandomGraphSpec s = spec_for(V, 60 + std::uint64_t(V));
      s.wmax = 5;
      const Graph g = test::random_graph(s);
      std::optional<Result> first;
      for (Isa isa : runnable_isas()) {
        SCOPED_TRACE(std::string(detail::cpu::next_method_name(m)) + " V=" + std::to_string(V) +
                     " " + detail::cpu::isa_name(isa));
        ForcedIsa forced_isa(isa);
        Result r = solve_cpu(g, Dtype::Int32, 0, 2, true);
        if (!first) {
          ASSERT_GT(test::finite_off_diagonal(r.dist), V * 10);
          first = std::move(r);
          continue;
        }
        EXPECT_EQ(test::compare(r.next, first->next), "");
      }
    }
  }
}

// Both methods keep paths on negative weights (Johnson: the kernels and the edges pass see the
// reweighted graph, full of zero-weight edges) and on undirected graphs.
TEST(CpuBackend, BothMethodsOnNegativeAndUndirectedGraphs) {
  for (NextMethod m : {NextMethod::Edges, NextMethod::Tracked})
    for (bool undirected : {false, true}) {
      ForcedNext forced(m);
      test::RandomGraphSpec s = spec_for(129, 70);
      s.directed = !undirected;
      s.self_loops = false;
      Graph g = test::random_graph(s);
      if (!undirected) {  // w + p(u) - p(v): negative edges, no negative cycle
        std::mt19937_64 rng(71);
        std::vector<double> p(129);
        for (double& x : p) x = double(rng() % 41) - 20;
        for (std::size_t e = 0; e < g.num_edges(); ++e)
          g.weight[e] += p[std::size_t(g.src[e])] - p[std::size_t(g.dst[e])];
        ASSERT_LT(g.min_weight(), 0);
      }
      SCOPED_TRACE(std::string(detail::cpu::next_method_name(m)) +
                   (undirected ? " undirected" : " negative"));
      const Result r = solve_cpu(g, Dtype::Int64, 32, 2, true);
      EXPECT_EQ(test::compare(r.dist, reference(g, Dtype::Int64)), "");
      EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
    }
}

TEST(CpuBackend, NextMethodFromTheEnvironment) {
  const Graph g = test::random_graph(spec_for(40, 5));
  ASSERT_EQ(setenv("APSP_CPU_NEXT", "edges", 1), 0);
  EXPECT_EQ(detail::cpu::requested_next_method(), NextMethod::Edges);
  ASSERT_EQ(setenv("APSP_CPU_NEXT", "tracked", 1), 0);
  EXPECT_EQ(detail::cpu::requested_next_method(), NextMethod::Tracked);
  {
    ForcedNext forced(NextMethod::Edges);  // an explicit force wins over the environment
    EXPECT_EQ(detail::cpu::requested_next_method(), NextMethod::Edges);
  }
  ASSERT_EQ(setenv("APSP_CPU_NEXT", "fast", 1), 0);
  EXPECT_THROW(detail::cpu::requested_next_method(), UsageError);
  EXPECT_THROW(solve_cpu(g, Dtype::Int32, 0, 1, true), UsageError);
  EXPECT_NO_THROW(solve_cpu(g, Dtype::Int32, 0, 1, false));  // only read when paths are kept
  ASSERT_EQ(unsetenv("APSP_CPU_NEXT"), 0);
  EXPECT_EQ(detail::cpu::requested_next_method(), std::nullopt);
}

// Zero-weight cycles do not steer the cost model any more: the edges rule's next hops loop in
// most columns of such a graph, and solve()'s repair breaks each loop at the cost of the loop
// (it used to re-point every caught vertex, seconds at V = 4096, so such graphs kept the tracked
// kernels, and dense ones the (distance, hops) kernels). A dense graph full of zero-weight cycles
// solves with paths by the model's choice and by each method forced, every walk ending on a
// shortest path, and the repair left nothing to do for a second one.
TEST(CpuBackend, DenseZeroWeightCyclesByEitherMethod) {
  Graph g;
  g.num_vertices = 300;
  std::mt19937_64 rng(5);
  for (std::int32_t u = 0; u < 300; ++u)
    for (std::int32_t v = 0; v < 300; ++v)
      if (u != v) g.add_edge(u, v, double(rng() % 21));  // weights 0..20: many zero-weight cycles
  const Matrix w = detail::build_matrix(g, Dtype::Int32, 320, 320);
  EXPECT_EQ(detail::cpu::choose_next_method(g, w, detail::cpu::active_isa()).why, "model");
  for (const std::optional<NextMethod> m :
       {std::optional<NextMethod>{}, std::optional{NextMethod::Edges},
        std::optional{NextMethod::Tracked}}) {
    SCOPED_TRACE(m ? detail::cpu::next_method_name(*m) : "model");
    std::optional<ForcedNext> forced;
    if (m) forced.emplace(*m);
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.paths = true;
    const Result r = solve(g, o);
    EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
    Matrix again = Matrix(r.next.rows(), r.next.cols(), Dtype::Int32);
    for (std::int64_t i = 0; i < r.next.rows(); ++i)
      for (std::int64_t j = 0; j < r.next.cols(); ++j)
        again.at<std::int32_t>(i, j) = r.next.at<std::int32_t>(i, j);
    EXPECT_EQ(repair_next_hops(g, r.dist, again), 0);  // nothing loops: nothing to re-point
    EXPECT_EQ(test::compare(again, r.next), "");
  }
}

// The cost model at its extremes: a sparse graph takes the edges pass without sampling, also
// with a zero-weight cycle; a complete graph of equal weights (every arc a possible first hop:
// about n^3 arc-column steps) keeps the tracked kernels; a complete graph of random weights (few
// tight arcs) takes the pass.
TEST(CpuBackend, CostModelExtremes) {
  auto choice = [](const Graph& g) {
    const std::int64_t n = g.num_vertices;
    const Matrix w = detail::build_matrix(g, Dtype::Int32, n, n);
    return detail::cpu::choose_next_method(g, w, detail::cpu::active_isa());
  };
  std::mt19937_64 rng(81);
  auto complete = [&](std::int32_t V, bool random_weights) {
    Graph g;
    g.num_vertices = V;
    g.reserve(std::size_t(V) * std::size_t(V - 1));
    for (std::int32_t u = 0; u < V; ++u)
      for (std::int32_t v = 0; v < V; ++v)
        if (u != v) g.add_edge(u, v, random_weights ? double(1 + rng() % 1000) : 1.0);
    return g;
  };
  test::RandomGraphSpec s = spec_for(1024, 80);
  s.E = 16 * 1024, s.components = 1, s.self_loops = false, s.wmin = 1;
  Graph sparse_graph = test::random_graph(s);
  const auto sparse = choice(sparse_graph);
  EXPECT_EQ(sparse.method, NextMethod::Edges);
  EXPECT_EQ(sparse.sampled_rows, 0);
  EXPECT_EQ(sparse.why, "model");
  // A zero-weight cycle (3 -> 7 -> 9 -> 3) changes nothing: solve()'s repair breaks the loops
  // it makes in the edges rule's next hops at the cost of the loops.
  sparse_graph.add_edge(3, 7, 0);
  sparse_graph.add_edge(7, 9, 0);
  sparse_graph.add_edge(9, 3, 0);
  EXPECT_EQ(choice(sparse_graph).method, NextMethod::Edges);
  EXPECT_EQ(choice(sparse_graph).why, "model");
  {
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.paths = true;
    const Result r = solve(sparse_graph, o);
    EXPECT_EQ(check_paths_any(sparse_graph, r.dist, r.next), "");
  }
  const auto equal = choice(complete(1024, false));
  EXPECT_EQ(equal.method, NextMethod::Tracked);
  EXPECT_GT(equal.sampled_rows, 0);
  // Random weights: about 1% of the arcs are tight. (Near V = 1000 the two methods cost about the
  // same on a complete graph, reading its edges being most of the pass; 2048 is clear of that.)
  const Graph random = complete(2048, true);
  const auto few = choice(random);
  EXPECT_EQ(few.method, NextMethod::Edges);
  EXPECT_GT(few.sampled_rows, 0);
  {
    ForcedNext forced(NextMethod::Tracked);
    EXPECT_EQ(choice(random).why, "forced");
    EXPECT_EQ(choice(random).method, NextMethod::Tracked);
  }
}

// Zero-weight cycles are where next hops go wrong if ties are broken carelessly (two vertices on
// a zero-weight cycle pointing at each other); many small graphs full of them, several rounds.
TEST(CpuBackend, ZeroWeightCyclesGiveNoNextHopCycles) {
  for (Isa isa : runnable_isas()) {
    for (Dtype t : {Dtype::Int32, Dtype::Float64}) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        SCOPED_TRACE(std::string(detail::cpu::isa_name(isa)) + " " + dtype_name(t) +
                     " seed=" + std::to_string(seed));
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
  return std::string(detail::cpu::isa_name(std::get<0>(info.param))) + "_" +
         dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllIsas, CpuIsaTest,
                         ::testing::Combine(::testing::ValuesIn(runnable_isas()),
                                            ::testing::Values(Dtype::Int32, Dtype::Int64,
                                                              Dtype::Float32, Dtype::Float64)),
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
    const Result a = solve_cpu(g, Dtype::Int32, 64, 1, paths),
                 b = solve_cpu(g, Dtype::Int32, 64, 2, paths);
    ASSERT_GT(test::finite_off_diagonal(a.dist), 700 * 70);
    EXPECT_EQ(test::compare(a.dist, b.dist), "");
    if (paths) {
      EXPECT_EQ(test::compare(a.next, b.next), "");
    }
  }
}

TEST(CpuBackend, ZeroWeightsDuplicatesAndDisconnectedParts) {
  test::RandomGraphSpec s = spec_for(150, 4);
  s.wmax = 0;        // every edge weight 0: the answer is reachability
  s.components = 5;  // five parts with no edges between them
  const Graph g = test::random_graph(s);
  const Matrix want = reference(g, Dtype::Int32);
  const Result r = solve_cpu(g, Dtype::Int32, 32, 2, true);
  EXPECT_EQ(test::compare(r.dist, want), "");
  EXPECT_EQ(check_paths_any(g, r.dist, r.next), "");
  std::int64_t finite = 0, infinite = 0;
  for (std::int64_t i = 0; i < 150; ++i)
    for (std::int64_t j = 0; j < 150; ++j)
      (r.dist.at<std::int32_t>(i, j) == 0 ? finite : infinite)++;
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
