// tests/test_negative.cpp — negative weights through Johnson reweighting, and negative cycles.
//
// Graphs with negative edges but no negative cycle are made from a random non-negative graph by
// a random potential p: w(u,v) = w0(u,v) + p(u) - p(v) keeps every cycle's weight (>= 0) while
// making many edges negative; zeros in w0 give zero-weight cycles. Every solve is compared with
// Bellman-Ford from every source. Negative cycles are checked to be real: consecutive vertices are
// joined by edges, the vertices are distinct, and the total weight is < 0.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "order/ordering.hpp"
#include "support.hpp"

namespace apsp {
namespace {

/// w = w0 + p(u) - p(v) with p uniform in [-pmax, pmax] (integers when `integer`).
Graph with_potential_shift(Graph g, double pmax, std::uint64_t seed, bool integer = true) {
  std::mt19937_64 rng(seed);
  std::vector<double> p(std::size_t(g.num_vertices));
  std::uniform_real_distribution<double> pr(-pmax, pmax);
  std::uniform_int_distribution<std::int64_t> pi(-std::int64_t(pmax), std::int64_t(pmax));
  for (double& x : p) x = integer ? double(pi(rng)) : pr(rng);
  Graph out;
  out.num_vertices = g.num_vertices;
  out.directed = g.directed;
  for (std::size_t e = 0; e < g.num_edges(); ++e)
    out.add_edge(g.src[e], g.dst[e],
                 g.weight[e] + p[std::size_t(g.src[e])] - p[std::size_t(g.dst[e])]);
  return out;
}

/// Bellman-Ford from every source, as a V x V float64 matrix (+inf unreachable, 0 diagonal).
Matrix bellman_ford_all(const Graph& g) {
  const std::int64_t n = g.num_vertices;
  Matrix m(n, n, Dtype::Float64);
  std::vector<double> d;
  for (std::int64_t s = 0; s < n; ++s) {
    EXPECT_TRUE(detail::reference_bellman_ford(g, s, d))
        << "reference found a negative cycle from " << s;
    for (std::int64_t j = 0; j < n; ++j) m.at<double>(s, j) = j == s ? 0.0 : d[std::size_t(j)];
  }
  return m;
}

/// "" when `got` (any dtype) equals the float64 reference (within tol relative for floats).
std::string compare_to(const Matrix& got, const Matrix& want, double tol = 0) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) return "shape differs";
  std::ostringstream os;
  int bad = 0;
  for (std::int64_t i = 0; i < got.rows(); ++i)
    for (std::int64_t j = 0; j < got.cols(); ++j) {
      const double a = visit_dtype(got.dtype(), [&](auto tag) -> double {
        using T = decltype(tag);
        const T v = got.at<T>(i, j);
        return v >= unreachable<T>() ? INFINITY : double(v);
      });
      const double b = want.at<double>(i, j);
      const bool ok = a == b || (tol > 0 && std::isfinite(a) && std::isfinite(b) &&
                                 std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)));
      if (!ok && bad++ < 5) os << "(" << i << "," << j << "): got " << a << " want " << b << "; ";
    }
  if (bad) os << bad << " mismatches";
  return os.str();
}

std::int64_t negative_finite_entries(const Matrix& want) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < want.rows(); ++i)
    for (std::int64_t j = 0; j < want.cols(); ++j) c += want.at<double>(i, j) < 0;
  return c;
}

/// True when g has a negative cycle (Bellman-Ford from a virtual source joined to every vertex).
bool has_negative_cycle(const Graph& g) {
  Graph a = g;
  a.num_vertices = g.num_vertices + 1;
  const auto s = std::int32_t(g.num_vertices);
  if (!g.directed) {  // the virtual source's edges must stay one-way
    a.directed = true;
    a.src.clear(), a.dst.clear(), a.weight.clear();
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      a.add_edge(g.src[e], g.dst[e], g.weight[e]);
      a.add_edge(g.dst[e], g.src[e], g.weight[e]);
    }
  }
  for (std::int32_t v = 0; v < s; ++v) a.add_edge(s, v, 0);
  std::vector<double> d;
  return !detail::reference_bellman_ford(a, s, d);
}

/// Checks that `cycle` is a simple cycle of g with negative total weight (min over duplicates).
void expect_real_negative_cycle(const Graph& g, const std::vector<std::int64_t>& cycle) {
  ASSERT_FALSE(cycle.empty());
  std::map<std::pair<std::int64_t, std::int64_t>, double> w;
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    auto put = [&](std::int64_t u, std::int64_t v) {
      auto [it, fresh] = w.try_emplace({u, v}, g.weight[e]);
      if (!fresh) it->second = std::min(it->second, g.weight[e]);
    };
    put(g.src[e], g.dst[e]);
    if (!g.directed) put(g.dst[e], g.src[e]);
  }
  std::vector<std::int64_t> sorted = cycle;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
      << "cycle repeats a vertex";
  double total = 0;
  for (std::size_t k = 0; k < cycle.size(); ++k) {
    const std::int64_t u = cycle[k], v = cycle[(k + 1) % cycle.size()];
    auto it = w.find({u, v});
    ASSERT_NE(it, w.end()) << "cycle uses a missing edge " << u << " -> " << v;
    total += it->second;
  }
  EXPECT_LT(total, 0) << "cycle weight " << total;
}

SolveOptions cpu(std::optional<Dtype> t = std::nullopt, int block = 0) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.dtype = t;
  o.block = block;
  return o;
}

struct NegCase {
  std::int64_t V, E;
  std::int64_t wmax;
  std::int64_t pmax;
  int block;
};

class NegativeNoCycle : public ::testing::TestWithParam<NegCase> {};

TEST_P(NegativeNoCycle, MatchesBellmanFordEveryDtype) {
  const NegCase c = GetParam();
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    test::RandomGraphSpec s;
    s.V = c.V, s.E = c.E, s.wmin = 0, s.wmax = double(c.wmax), s.seed = seed;
    const Graph g = with_potential_shift(test::random_graph(s), double(c.pmax), seed * 77);
    SCOPED_TRACE("V=" + std::to_string(c.V) + " E=" + std::to_string(c.E) +
                 " block=" + std::to_string(c.block) + " seed=" + std::to_string(seed));
    ASSERT_LT(g.min_weight(), 0) << "test graph has no negative edge";
    const Matrix want = bellman_ford_all(g);
    if (c.V > 2) {
      EXPECT_GT(negative_finite_entries(want), 0) << "no negative distance: test is trivial";
    }
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float64, Dtype::Float32}) {
      SCOPED_TRACE(dtype_name(t));
      const Result r = solve(g, cpu(t, c.block));
      EXPECT_EQ(r.dtype(), t);
      EXPECT_EQ(compare_to(r.dist, want), "");
    }
    const Result r = solve(g, cpu(std::nullopt, c.block));  // auto dtype
    EXPECT_TRUE(is_integer(r.dtype()));
    EXPECT_EQ(compare_to(r.dist, want), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, NegativeNoCycle,
                         ::testing::Values(NegCase{2, 3, 10, 20, 0}, NegCase{5, 12, 10, 20, 0},
                                           NegCase{17, 60, 100, 80, 0}, NegCase{40, 300, 3, 10, 16},
                                           NegCase{64, 500, 100, 300, 16},
                                           NegCase{97, 700, 50, 100, 32},
                                           NegCase{130, 1500, 1000, 2000, 0},
                                           NegCase{150, 400, 0, 40, 32}));

TEST(Negative, FractionalWeightsFloat64) {
  for (std::uint64_t seed : {5u, 6u}) {
    test::RandomGraphSpec s;
    s.V = 70, s.E = 500, s.wmin = 0, s.wmax = 10, s.integer = false, s.seed = seed;
    const Graph g = with_potential_shift(test::random_graph(s), 7.5, seed, /*integer=*/false);
    ASSERT_LT(g.min_weight(), 0);
    const Matrix want = bellman_ford_all(g);
    const Result r = solve(g, cpu(std::nullopt, 16));
    EXPECT_EQ(r.dtype(), Dtype::Float64);
    EXPECT_EQ(compare_to(r.dist, want, 1e-9), "") << "seed " << seed;
  }
}

TEST(Negative, DagWithLargeNegativeWeights) {
  // Edges only from lower to higher ids: no cycles at all, any signs.
  std::mt19937_64 rng(11);
  Graph g;
  g.num_vertices = 90;
  for (int e = 0; e < 800; ++e) {
    std::int32_t u = std::int32_t(rng() % 90), v = std::int32_t(rng() % 90);
    if (u == v) continue;
    if (u > v) std::swap(u, v);
    g.add_edge(u, v, double(std::int64_t(rng() % 20001) - 15000));
  }
  const Matrix want = bellman_ford_all(g);
  for (int block : {0, 16}) {
    const Result r = solve(g, cpu(std::nullopt, block));
    EXPECT_EQ(compare_to(r.dist, want), "") << "block " << block;
  }
}

TEST(Negative, ZeroWeightCyclesAreFine) {
  // 0 -> 1 (-2), 1 -> 2 (1), 2 -> 0 (1): weight 0. Also a zero cycle of zero edges 3 <-> 4.
  Graph g;
  g.num_vertices = 6;
  g.add_edge(0, 1, -2);
  g.add_edge(1, 2, 1);
  g.add_edge(2, 0, 1);
  g.add_edge(2, 3, -1);
  g.add_edge(3, 4, 0);
  g.add_edge(4, 3, 0);
  g.add_edge(4, 5, -3);
  ASSERT_FALSE(has_negative_cycle(g));
  const Matrix want = bellman_ford_all(g);
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float64}) {
    const Result r = solve(g, cpu(t));
    EXPECT_EQ(compare_to(r.dist, want), "") << dtype_name(t);
  }
  EXPECT_EQ(want.at<double>(1, 0), 2);
  EXPECT_EQ(want.at<double>(0, 5), -5);
}

TEST(Negative, NegativeSelfLoopIsACycle) {
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 1, 3);
  g.add_edge(2, 2, -1);
  g.add_edge(1, 2, 1);
  try {
    solve(g, cpu());
    FAIL() << "no NegativeCycleError";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(e.cycle(), (std::vector<std::int64_t>{2}));
    EXPECT_EQ(std::string(e.what()), "negative cycle: 2 -> 2 (weight -1)");
    EXPECT_EQ(e.exit_code(), 5);
  }
}

TEST(Negative, NonNegativeSelfLoopIsIgnored) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 0, 5);
  g.add_edge(0, 1, -2);
  g.add_edge(1, 2, 4);
  const Result r = solve(g, cpu());
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 0), 0);
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 2), 2);
}

TEST(Negative, UndirectedNegativeEdgeIsACycle) {
  Graph g;
  g.num_vertices = 5;
  g.directed = false;
  g.add_edge(0, 1, 4);
  g.add_edge(3, 2, -3);
  g.add_edge(1, 3, 2);
  try {
    solve(g, cpu());
    FAIL() << "no NegativeCycleError";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(e.cycle(), (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(std::string(e.what()), "negative cycle: 2 -> 3 -> 2 (weight -6)");
    expect_real_negative_cycle(g, e.cycle());
  }
}

TEST(Negative, UndirectedNonNegativeStillWorks) {
  test::RandomGraphSpec s;
  s.V = 60, s.E = 200, s.wmin = 0, s.wmax = 9, s.directed = false, s.seed = 4;
  const Graph g = test::random_graph(s);
  const Matrix want = bellman_ford_all(g);
  EXPECT_EQ(compare_to(solve(g, cpu()).dist, want), "");
}

TEST(Negative, KnownCycleIsNamed) {
  // 3 -> 7 -> 5 -> 3 weighs 2 - 4 - 2 = -4; the rest is harmless.
  Graph g;
  g.num_vertices = 9;
  g.add_edge(0, 3, 1);
  g.add_edge(3, 7, 2);
  g.add_edge(7, 5, -4);
  g.add_edge(5, 3, -2);
  g.add_edge(5, 8, 1);
  g.add_edge(7, 5, 10);  // a heavier duplicate
  try {
    solve(g, cpu());
    FAIL() << "no NegativeCycleError";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(e.cycle(), (std::vector<std::int64_t>{3, 7, 5}));
    EXPECT_EQ(std::string(e.what()), "negative cycle: 3 -> 7 -> 5 -> 3 (weight -4)");
  }
}

TEST(Negative, CycleNotReachableFromVertexZeroIsFound) {
  Graph g;
  g.num_vertices = 6;
  g.add_edge(0, 1, 1);
  g.add_edge(4, 5, -1);
  g.add_edge(5, 4, 0);
  EXPECT_THROW(solve(g, cpu()), NegativeCycleError);
}

TEST(Negative, LongCycleMessageIsOneLineAndShortened) {
  const std::int32_t n = 200;
  Graph g;
  g.num_vertices = n;
  for (std::int32_t v = 0; v < n; ++v) g.add_edge(v, (v + 1) % n, v == 0 ? -1 : 0);
  try {
    solve(g, cpu());
    FAIL() << "no NegativeCycleError";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(e.cycle().size(), std::size_t(n));
    expect_real_negative_cycle(g, e.cycle());
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    EXPECT_NE(msg.find("... ->"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(200 vertices, weight -1)"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 400u);
  }
}

TEST(Negative, RandomGraphsCycleOrAgreement) {
  // Mostly positive weights with a few negative ones: some seeds have a negative cycle, some not.
  int cycles = 0, solved = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    test::RandomGraphSpec s;
    s.V = 30 + std::int64_t(seed % 7) * 9, s.E = 3 * s.V, s.wmin = -6, s.wmax = 30, s.seed = seed;
    s.self_loops = seed % 5 == 0;
    const Graph g = test::random_graph(s);
    const bool neg = has_negative_cycle(g);
    try {
      const Result r = solve(g, cpu(std::nullopt, 16));
      EXPECT_FALSE(neg) << "missed a negative cycle, seed " << seed;
      if (!neg) {
        EXPECT_EQ(compare_to(r.dist, bellman_ford_all(g)), "") << "seed " << seed;
      }
      ++solved;
    } catch (const NegativeCycleError& e) {
      EXPECT_TRUE(neg) << "invented a negative cycle, seed " << seed;
      expect_real_negative_cycle(g, e.cycle());
      EXPECT_EQ(std::string(e.what()).rfind("negative cycle: ", 0), 0u);
      ++cycles;
    }
  }
  EXPECT_GT(cycles, 3);
  EXPECT_GT(solved, 3);
}

TEST(Negative, FractionalNegativeCycle) {
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 1, 0.5);
  g.add_edge(1, 2, 0.25);
  g.add_edge(2, 0, -0.875);
  g.add_edge(2, 3, 1.5);
  try {
    solve(g, cpu());
    FAIL() << "no NegativeCycleError";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(std::string(e.what()), "negative cycle: 0 -> 1 -> 2 -> 0 (weight -0.125)");
  }
}

// The int32 bound is checked on the reweighted graph: here the original weights fit int32 with
// room to spare ((V-1) * max|w| = 8e8), but 2 -> 1 reweights to 8e8 and (V-1) * 8e8 does not.
TEST(Negative, ReweightedGraphNeedsInt64) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, -400000000);
  g.add_edge(2, 1, 400000000);
  const Result r = solve(g, cpu());
  EXPECT_EQ(r.dtype(), Dtype::Int64);
  EXPECT_EQ(r.dist.at<std::int64_t>(0, 1), -400000000);
  EXPECT_EQ(r.dist.at<std::int64_t>(2, 1), 400000000);
  EXPECT_EQ(r.dist.at<std::int64_t>(1, 0), unreachable<std::int64_t>());
  EXPECT_THROW(solve(g, cpu(Dtype::Int32)), UsageError);
}

// The reweighted chain is all zeros (fits int32), but the real distances reach -1.6e9 < -(2^30-1):
// auto must promote, and an explicit int32 must be refused rather than wrap.
TEST(Negative, RestoredDistancesNeedInt64) {
  Graph g;
  g.num_vertices = 5;
  for (std::int32_t v = 0; v + 1 < 5; ++v) g.add_edge(v, v + 1, -400000000);
  const Result r = solve(g, cpu());
  EXPECT_EQ(r.dtype(), Dtype::Int64);
  EXPECT_EQ(r.dist.at<std::int64_t>(0, 4), -1600000000);
  EXPECT_EQ(r.dist.at<std::int64_t>(1, 3), -800000000);
  EXPECT_EQ(r.dist.at<std::int64_t>(4, 0), unreachable<std::int64_t>());
  EXPECT_THROW(solve(g, cpu(Dtype::Int32)), UsageError);
  const Result r64 = solve(g, cpu(Dtype::Int64));
  EXPECT_EQ(r64.dist.at<std::int64_t>(0, 4), -1600000000);
}

TEST(Negative, UnreachableStaysUnreachableEveryDtype) {
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 1, -5);
  g.add_edge(2, 3, -7);
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
    const Result r = solve(g, cpu(t));
    const Matrix want = bellman_ford_all(g);
    EXPECT_EQ(compare_to(r.dist, want), "") << dtype_name(t);
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      EXPECT_EQ(r.dist.at<T>(0, 2), unreachable<T>()) << dtype_name(t);
      EXPECT_EQ(r.dist.at<T>(1, 0), unreachable<T>()) << dtype_name(t);
    });
  }
}

// Issue 33, defect 5: fractional negative weights keep their direct edges exact (float rounds run
// on the weights as given: no potential's rounding), on the dense rounds and the sparse engine.
TEST(Negative, FractionalNegativeWeightsStayExact) {
  Graph g;
  g.num_vertices = 3;
  g.integer_weights = false;
  g.add_edge(0, 1, -0.5);
  g.add_edge(1, 2, 1e-3);
  g.add_edge(2, 0, 1.5e2);
  for (const Order order : {Order::None, Order::Supernodal}) {
    SolveOptions o = cpu(Dtype::Float64);
    o.order = order;
    if (order == Order::Supernodal && !detail::metis_available()) continue;
    const Result r = solve(g, o);
    EXPECT_EQ(r.dist.at<double>(1, 2), 1e-3) << order_name(order);  // SciPy: 0.001
    EXPECT_EQ(r.dist.at<double>(0, 1), -0.5);
    EXPECT_EQ(r.dist.at<double>(2, 1), 1.5e2 + -0.5);
    EXPECT_EQ(r.dist.at<double>(0, 2), -0.5 + 1e-3);
    EXPECT_EQ(compare_to(r.dist, bellman_ford_all(g), 1e-12), "");
  }
  // A negative cycle is still named, fractional or not.
  g.add_edge(2, 1, -0.01);
  EXPECT_THROW(solve(g, cpu(Dtype::Float64)), NegativeCycleError);
  // Paths keep Johnson's reweighting (their float next-hop pass needs non-negative distances)
  // and still walk.
  test::RandomGraphSpec spec;
  spec.V = 40;
  spec.E = 160;
  spec.wmax = 30;
  spec.seed = 5;
  Graph h = with_potential_shift(test::random_graph(spec), 20, 9, false);
  SolveOptions op = cpu(Dtype::Float64);
  op.paths = true;
  const Result rp = solve(h, op);
  EXPECT_EQ(compare_to(rp.dist, bellman_ford_all(h), 1e-9), "");
  EXPECT_EQ(test::check_next_hop_walks(h, rp.dist, rp.next), "");
}

}  // namespace
}  // namespace apsp
