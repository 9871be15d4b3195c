// tests/test_paths.cpp — next-hop matrices: every returned path is a real path of the graph whose
// weight equals the distance; next[i][j] == -1 exactly when j is unreachable from i or i == j.
//
// Families: random, many zero weights (zero-weight cycles everywhere), all-zero weights (every
// path ties), duplicates, self loops, disconnected parts, undirected, negative weights (Johnson),
// every dtype, several tile sizes, and a gadget built so that a careless tie rule would point two
// vertices of a zero-weight cycle at each other. Backends: cpu always (as its cost model picks
// the next-hop method, and with each method forced), cuda when usable. All pairs for small V,
// sampled pairs plus whole rows for larger V. Seeds are in the trace on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <unordered_map>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "cpu/next_hops.hpp"
#include "support.hpp"

namespace apsp {
namespace {

/// Minimum weight of each edge u -> v (both directions for undirected; self loops ignored).
class EdgeWeights {
 public:
  explicit EdgeWeights(const Graph& g) : n_(g.num_vertices) {
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      if (g.src[e] == g.dst[e]) continue;
      put(g.src[e], g.dst[e], g.weight[e]);
      if (!g.directed) put(g.dst[e], g.src[e], g.weight[e]);
    }
  }
  /// Weight of u -> v, or NaN when there is no such edge.
  double operator()(std::int64_t u, std::int64_t v) const {
    auto it = w_.find(key(u, v));
    return it == w_.end() ? NAN : it->second;
  }

 private:
  std::uint64_t key(std::int64_t u, std::int64_t v) const { return std::uint64_t(u) * std::uint64_t(n_) + std::uint64_t(v); }
  void put(std::int64_t u, std::int64_t v, double w) {
    auto [it, fresh] = w_.try_emplace(key(u, v), w);
    if (!fresh) it->second = std::min(it->second, w);
  }
  std::int64_t n_;
  std::unordered_map<std::uint64_t, double> w_;
};

double dist_at(const Matrix& m, std::int64_t i, std::int64_t j) {
  return visit_dtype(m.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    const T v = m.at<T>(i, j);
    return v >= unreachable<T>() ? INFINITY : double(v);
  });
}

/// Equal for integer weights; for fractional ones within a relative tolerance fitting the dtype
/// the distances were computed in (float32 sums drift by a few ulps per edge).
bool same_weight(double a, double b, bool exact, Dtype t = Dtype::Float64) {
  const double tol = t == Dtype::Float32 ? 1e-4 : 1e-9;
  return exact ? a == b : std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b));
}

/// Checks pair (i, j) of a --paths result; returns "" or what is wrong.
std::string check_pair(const Graph& g, const EdgeWeights& w, const Result& r, std::int64_t i, std::int64_t j,
                       bool exact) {
  std::ostringstream os;
  const double d = dist_at(r.dist, i, j);
  const std::int32_t nx = r.next.at<std::int32_t>(i, j);
  const bool reachable = i != j && std::isfinite(d);
  if (!reachable) {
    if (nx != -1) os << "(" << i << "," << j << "): next " << nx << " but " << (i == j ? "i == j" : "unreachable");
    if (i == j && path(r, i, j) != std::vector<std::int64_t>{i}) os << "(" << i << "," << i << "): path is not {i}";
    if (i != j && !path(r, i, j).empty()) os << "(" << i << "," << j << "): path for an unreachable pair";
    return os.str();
  }
  if (nx < 0 || nx >= g.num_vertices) {
    os << "(" << i << "," << j << "): reachable (d=" << d << ") but next = " << nx;
    return os.str();
  }
  std::vector<std::int64_t> p;
  try {
    p = path(r, i, j);
  } catch (const std::exception& e) {
    return "(" + std::to_string(i) + "," + std::to_string(j) + "): " + e.what();
  }
  if (p.size() < 2 || p.front() != i || p.back() != j) {
    os << "(" << i << "," << j << "): path does not run from i to j";
    return os.str();
  }
  std::vector<std::int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    os << "(" << i << "," << j << "): path repeats a vertex; ";
  double total = 0;
  for (std::size_t k = 0; k + 1 < p.size(); ++k) {
    const double e = w(p[k], p[k + 1]);
    if (std::isnan(e)) {
      os << "(" << i << "," << j << "): no edge " << p[k] << " -> " << p[k + 1];
      return os.str();
    }
    total += e;
  }
  if (!same_weight(total, d, exact, r.dtype())) os << "(" << i << "," << j << "): path weighs " << total << ", distance " << d;
  return os.str();
}

/// All pairs when V <= full_limit, else every pair of `rows` sampled rows plus `samples` random pairs.
void check_paths(const Graph& g, const Result& r, std::uint64_t seed, std::int64_t full_limit = 160, int rows = 6,
                 int samples = 4000) {
  ASSERT_FALSE(r.next.empty()) << "no next-hop matrix";
  ASSERT_EQ(r.next.dtype(), Dtype::Int32);
  ASSERT_EQ(r.next.rows(), g.num_vertices);
  ASSERT_EQ(r.next.cols(), g.num_vertices);
  const EdgeWeights w(g);
  const bool exact = g.integer_weights;
  const std::int64_t n = g.num_vertices;
  int bad = 0;
  std::int64_t reachable = 0;
  auto one = [&](std::int64_t i, std::int64_t j) {
    const std::string s = check_pair(g, w, r, i, j, exact);
    reachable += i != j && std::isfinite(dist_at(r.dist, i, j));
    if (!s.empty() && bad++ < 5) ADD_FAILURE() << s << " (seed " << seed << ")";
  };
  if (n <= full_limit) {
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) one(i, j);
  } else {
    std::mt19937_64 rng(seed);
    for (int k = 0; k < rows; ++k) {
      const std::int64_t i = std::int64_t(rng() % std::uint64_t(n));
      for (std::int64_t j = 0; j < n; ++j) one(i, j);
    }
    for (int k = 0; k < samples; ++k) one(std::int64_t(rng() % std::uint64_t(n)), std::int64_t(rng() % std::uint64_t(n)));
  }
  if (bad > 5) ADD_FAILURE() << bad << " bad pairs in all";
  if (n > 2 && g.num_edges() > 0) {
    EXPECT_GT(reachable, 0) << "no reachable pair: the test is trivial";
  }
}

/// Distances agree with the triple-loop reference (small V only).
void check_distances(const Graph& g, const Result& r) {
  if (g.num_vertices > 300) return;
  Matrix want = detail::build_matrix(g, Dtype::Float64, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(want);
  for (std::int64_t i = 0; i < g.num_vertices; ++i)
    for (std::int64_t j = 0; j < g.num_vertices; ++j) {
      const double a = dist_at(r.dist, i, j), b = dist_at(want, i, j);
      if (!same_weight(a, b, g.integer_weights, r.dtype()) && !(std::isinf(a) && std::isinf(b))) {
        ADD_FAILURE() << "distance (" << i << "," << j << "): got " << a << " want " << b;
        return;
      }
    }
}

/// w = w0 + p(u) - p(v): negative edges, no negative cycle.
Graph shift_by_potential(const Graph& g0, std::int64_t pmax, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> p(std::size_t(g0.num_vertices));
  for (double& x : p) x = double(std::int64_t(rng() % std::uint64_t(2 * pmax + 1)) - pmax);
  Graph g;
  g.num_vertices = g0.num_vertices;
  for (std::size_t e = 0; e < g0.num_edges(); ++e)
    g.add_edge(g0.src[e], g0.dst[e], g0.weight[e] + p[std::size_t(g0.src[e])] - p[std::size_t(g0.dst[e])]);
  return g;
}

struct Family {
  const char* name;
  test::RandomGraphSpec spec;
  std::int64_t potential = 0;  ///< > 0: shift by a random potential (negative weights)
};

std::vector<Family> families() {
  std::vector<Family> f;
  auto add = [&](const char* name, std::int64_t V, std::int64_t E, double wmin, double wmax, auto&& tweak,
                 std::int64_t potential = 0) {
    test::RandomGraphSpec s;
    s.V = V, s.E = E, s.wmin = wmin, s.wmax = wmax;
    tweak(s);
    f.push_back({name, s, potential});
  };
  auto none = [](test::RandomGraphSpec&) {};
  add("tiny1", 1, 0, 0, 9, none);
  add("tiny2", 2, 2, 0, 9, none);
  add("tiny3", 3, 5, 0, 9, [](auto& s) { s.self_loops = true; });
  add("random17", 17, 60, 0, 100, none);
  add("random63", 63, 300, 0, 100, none);
  add("random65", 65, 300, 0, 100, none);
  add("random130", 130, 900, 0, 1000, [](auto& s) { s.self_loops = true; });
  add("zeros", 100, 700, 0, 1, none);                  // half the edges weigh 0
  add("allzero", 90, 500, 0, 0, none);                 // every path ties
  add("zerosdense", 70, 2500, 0, 2, none);
  add("components", 120, 500, 0, 20, [](auto& s) { s.components = 4; });
  add("undirected", 80, 200, 0, 5, [](auto& s) { s.directed = false; });
  add("undirzeros", 80, 300, 0, 1, [](auto& s) { s.directed = false; s.components = 2; });
  add("negative", 100, 600, 0, 30, none, 50);
  add("negzeros", 100, 600, 0, 0, none, 20);           // negative edges, every cycle weighs 0
  add("sparse", 150, 160, 0, 10, none);               // mostly unreachable
  return f;
}

Graph make(const Family& f, std::uint64_t seed) {
  test::RandomGraphSpec s = f.spec;
  s.seed = seed;
  Graph g = test::random_graph(s);
  return f.potential > 0 ? shift_by_potential(g, f.potential, seed + 1000) : g;
}

/// Solves with paths on `backend`, or skips the test when that backend cannot run here.
std::optional<Result> solve_paths(const Graph& g, Backend backend, std::optional<Dtype> t, int block) {
  SolveOptions o;
  o.backend = backend;
  o.dtype = t;
  o.block = block;
  o.paths = true;
  return solve(g, o);
}

bool backend_usable(Backend b, std::string& why) {
  for (const BackendInfo& info : backends())
    if (info.name == backend_name(b)) {
      why = info.built ? info.detail : "not built: " + info.detail;
      return info.usable;
    }
  why = "not listed";
  return false;
}

/// A backend to run the path tests on; for the CPU, also how it keeps next hops (forced).
struct BackendCase {
  Backend backend;
  std::optional<detail::cpu::NextMethod> cpu_next;
  std::string name;
};
void PrintTo(const BackendCase& c, std::ostream* os) { *os << c.name; }

class PathsOnBackend : public ::testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backend_usable(backend(), why))
      GTEST_SKIP() << "backend '" << backend_name(backend()) << "' not usable here: " << why;
    if (GetParam().cpu_next) detail::cpu::force_next_method(GetParam().cpu_next);
  }
  void TearDown() override { detail::cpu::force_next_method(std::nullopt); }
  Backend backend() const { return GetParam().backend; }
  /// Runs solve with paths; a backend that does not keep paths yet makes the test skip.
  std::optional<Result> run(const Graph& g, std::optional<Dtype> t = std::nullopt, int block = 0) {
    try {
      return solve_paths(g, backend(), t, block);
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (backend() != Backend::Cpu && msg.find("path") != std::string::npos) {
        skipped_ = "backend '" + std::string(backend_name(backend())) + "' does not keep paths yet: " + msg;
        return std::nullopt;
      }
      throw;
    }
  }
  std::string skipped_;
};

TEST_P(PathsOnBackend, EveryFamilyAllPairs) {
  for (const Family& f : families())
    for (std::uint64_t seed : {1u, 2u})
      for (int block : {0, 16, 32}) {
        SCOPED_TRACE(std::string(f.name) + " seed=" + std::to_string(seed) + " block=" + std::to_string(block));
        const Graph g = make(f, seed);
        auto r = run(g, std::nullopt, block);
        if (!r) GTEST_SKIP() << skipped_;
        check_distances(g, *r);
        check_paths(g, *r, seed);
      }
}

TEST_P(PathsOnBackend, EveryDtype) {
  for (const char* name : {"zeros", "negative", "undirected", "random130"})
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
      const auto fs = families();
      const Family& f = *std::find_if(fs.begin(), fs.end(), [&](const Family& x) { return std::string(x.name) == name; });
      SCOPED_TRACE(std::string(name) + " " + dtype_name(t));
      const Graph g = make(f, 3);
      std::optional<Result> r;
      try {
        r = run(g, t, 16);
      } catch (const UsageError&) {  // a GPU backend without this dtype
        if (backend() == Backend::Cpu) throw;
        continue;
      }
      if (!r) GTEST_SKIP() << skipped_;
      EXPECT_EQ(r->dtype(), t);
      check_distances(g, *r);
      check_paths(g, *r, 3);
    }
}

TEST_P(PathsOnBackend, FractionalWeights) {
  test::RandomGraphSpec s;
  s.V = 90, s.E = 600, s.wmin = 0, s.wmax = 3, s.integer = false, s.seed = 8;
  const Graph g = test::random_graph(s);
  auto r = run(g, std::nullopt, 16);
  if (!r) GTEST_SKIP() << skipped_;
  check_distances(g, *r);
  check_paths(g, *r, 8);
}

// A zero-weight 2-cycle x <-> y where both x and y have an equally short route to j through c:
// x -> y -> c -> j and y -> c -> j both weigh 8, and so do y -> x -> y -> c -> j-like detours.
// A tie rule that lets y take x's route after x took y's would make next[x][j] = y and
// next[y][j] = x, a walk that never ends. The gadget is planted at random ids in a larger random
// graph so its vertices fall in different tiles and in every relative order.
TEST_P(PathsOnBackend, ZeroCycleGadgetNeverLoops) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    test::RandomGraphSpec s;
    s.V = 70, s.E = 150, s.wmin = 3, s.wmax = 40, s.seed = seed;
    Graph g = test::random_graph(s);
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> ids(70);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    const std::int32_t x = ids[0], y = ids[1], c = ids[2], j = ids[3], z = ids[4];
    g.add_edge(x, y, 0);
    g.add_edge(y, x, 0);
    g.add_edge(x, z, 0);
    g.add_edge(z, x, 0);
    g.add_edge(y, c, 1);
    g.add_edge(x, c, 1);
    g.add_edge(z, c, 1);
    g.add_edge(c, j, 7);
    g.add_edge(x, j, 10);
    g.add_edge(y, j, 10);
    for (int block : {0, 16}) {
      SCOPED_TRACE("seed=" + std::to_string(seed) + " block=" + std::to_string(block));
      auto r = run(g, std::nullopt, block);
      if (!r) GTEST_SKIP() << skipped_;
      check_paths(g, *r, seed);
      EXPECT_EQ(dist_at(r->dist, x, j), 8);
      EXPECT_EQ(dist_at(r->dist, y, j), 8);
    }
  }
}

TEST_P(PathsOnBackend, LargerSampled) {
  for (std::uint64_t seed : {1u, 2u}) {
    test::RandomGraphSpec s;
    s.V = 700, s.E = 6000, s.wmin = 0, s.wmax = 3, s.seed = seed;  // a quarter of the edges weigh 0
    const Graph g = test::random_graph(s);
    auto r = run(g, std::nullopt, 64);
    if (!r) GTEST_SKIP() << skipped_;
    EXPECT_EQ(detail::verify(g, r->dist, 0, 8, seed), "");
    check_paths(g, *r, seed);
  }
}

TEST_P(PathsOnBackend, LargerNegativeSampled) {
  test::RandomGraphSpec s;
  s.V = 520, s.E = 5000, s.wmin = 0, s.wmax = 10, s.seed = 9;
  const Graph g = shift_by_potential(test::random_graph(s), 40, 99);
  ASSERT_LT(g.min_weight(), 0);
  auto r = run(g, std::nullopt, 0);
  if (!r) GTEST_SKIP() << skipped_;
  EXPECT_EQ(detail::verify(g, r->dist, 0, 8, 9), "");
  check_paths(g, *r, 9);
}

// The CPU backend three ways: as its cost model picks, and with each next-hop method forced.
INSTANTIATE_TEST_SUITE_P(Backends, PathsOnBackend,
                         ::testing::Values(BackendCase{Backend::Cpu, std::nullopt, "cpu"},
                                           BackendCase{Backend::Cpu, detail::cpu::NextMethod::Edges, "cpu_edges"},
                                           BackendCase{Backend::Cpu, detail::cpu::NextMethod::Tracked, "cpu_tracked"},
                                           BackendCase{Backend::Cuda, std::nullopt, "cuda"}),
                         [](const auto& pinfo) { return pinfo.param.name; });

// The cpu backend's edges method and the cuda backend follow one rule (docs/paths.md, "Tie
// rule"), so on int32 their next hops agree entry for entry, zero-weight loops repaired alike.
// Runs where a GPU is usable; skips elsewhere (CI).
TEST(Paths, CpuEdgesMethodEqualsCuda) {
  std::string why;
  if (!backend_usable(Backend::Cuda, why)) GTEST_SKIP() << "cuda not usable here: " << why;
  detail::cpu::force_next_method(detail::cpu::NextMethod::Edges);
  for (const Family& f : families())
    for (std::uint64_t seed : {1u, 2u}) {
      SCOPED_TRACE(std::string(f.name) + " seed=" + std::to_string(seed));
      const Graph g = make(f, seed);
      const auto cpu = solve_paths(g, Backend::Cpu, Dtype::Int32, 0);
      const auto cuda = solve_paths(g, Backend::Cuda, Dtype::Int32, 0);
      EXPECT_EQ(test::compare(cpu->dist, cuda->dist), "");
      EXPECT_EQ(test::compare(cpu->next, cuda->next), "");
    }
  test::RandomGraphSpec s;
  s.V = 1500, s.E = 150000, s.wmin = 0, s.wmax = 20, s.seed = 5;  // many ties, some zero cycles
  const Graph g = test::random_graph(s);
  const auto cpu = solve_paths(g, Backend::Cpu, Dtype::Int32, 0);
  const auto cuda = solve_paths(g, Backend::Cuda, Dtype::Int32, 0);
  EXPECT_EQ(test::compare(cpu->next, cuda->next), "");
  detail::cpu::force_next_method(std::nullopt);
}

TEST(Paths, WithoutPathsNextIsEmpty) {
  test::RandomGraphSpec s;
  s.V = 10, s.E = 30;
  SolveOptions o;
  o.backend = Backend::Cpu;
  const Result r = solve(test::random_graph(s), o);
  EXPECT_TRUE(r.next.empty());
  EXPECT_THROW(path(r, 0, 1), UsageError);
}

TEST(Paths, HandMadeGraph) {
  // 0 -> 4 (5), 4 -> 2 (12), 0 -> 2 (20), 2 -> 1 (1), 3 isolated.
  Graph g;
  g.num_vertices = 5;
  g.add_edge(0, 4, 5);
  g.add_edge(4, 2, 12);
  g.add_edge(0, 2, 20);
  g.add_edge(2, 1, 1);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Result r = solve(g, o);
  EXPECT_EQ(path(r, 0, 2), (std::vector<std::int64_t>{0, 4, 2}));
  EXPECT_EQ(path(r, 0, 1), (std::vector<std::int64_t>{0, 4, 2, 1}));
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 1), 18);
  EXPECT_EQ(r.next.at<std::int32_t>(0, 1), 4);
  EXPECT_EQ(r.next.at<std::int32_t>(0, 0), -1);
  EXPECT_EQ(r.next.at<std::int32_t>(0, 3), -1);
  EXPECT_TRUE(path(r, 0, 3).empty());
  EXPECT_EQ(path(r, 3, 3), (std::vector<std::int64_t>{3}));
  EXPECT_THROW(path(r, 0, 5), UsageError);
  EXPECT_THROW(path(r, -1, 2), UsageError);
}

TEST(Paths, TieKeepsTheFirstPathFound) {
  // Two shortest 0 -> 3 paths of weight 2: the direct edge is there from the start and a route
  // through 1 only ties it, so strict improvement keeps the edge.
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 3, 2);
  g.add_edge(0, 1, 1);
  g.add_edge(1, 3, 1);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Result r = solve(g, o);
  EXPECT_EQ(path(r, 0, 3), (std::vector<std::int64_t>{0, 3}));
}

Matrix next_matrix(std::int64_t n, std::initializer_list<std::int32_t> values) {
  Matrix m(n, n, Dtype::Int32);
  auto it = values.begin();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) m.at<std::int32_t>(i, j) = *it++;
  return m;
}

TEST(Paths, WalkGuardsAgainstBrokenMatrices) {
  // 0 -> 1 -> 0 -> ... toward 2: a cycle must be reported, not walked forever.
  const Matrix cyc = next_matrix(3, {-1, 1, 1, 0, -1, 0, -1, -1, -1});
  EXPECT_THROW(path_from_next(cyc, 0, 2), Error);
  try {
    path_from_next(cyc, 0, 2);
  } catch (const UsageError&) {
    ADD_FAILURE() << "a broken matrix is not a usage error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  // 0 -> 1, then next[1][2] = -1: the path stops in the middle.
  const Matrix stop = next_matrix(3, {-1, 1, 1, -1, -1, -1, -1, -1, -1});
  EXPECT_THROW(path_from_next(stop, 0, 2), Error);
  // A hop outside 0..V-1.
  const Matrix wild = next_matrix(2, {-1, 7, -1, -1});
  EXPECT_THROW(path_from_next(wild, 0, 1), Error);
  EXPECT_THROW(path_from_next(Matrix(), 0, 0), UsageError);
  EXPECT_THROW(path_from_next(Matrix(2, 2, Dtype::Int64), 0, 1), UsageError);
}

// A next-hop matrix the scalar CPU backend really produced (V = 6, tile size 2) before solve()
// repaired next hops: toward 4, vertices 1 and 2 (joined by 0-weight edges both ways) point at
// each other, because the rest-tile update for (1,4) took k = 2 (tied with k = 3) after the panel
// had routed 2 -> 4 through 1. repair_next_hops must re-point them along tight edges.
TEST(Paths, RepairBreaksZeroWeightLoop) {
  Graph g;
  g.num_vertices = 6;
  const int edges[][3] = {{1, 3, 0}, {4, 5, 1}, {4, 1, 1}, {5, 2, 1}, {0, 3, 1}, {5, 1, 1}, {3, 0, 1},
                          {2, 1, 0}, {5, 0, 1}, {2, 5, 1}, {4, 3, 0}, {5, 1, 0}, {0, 5, 0}, {5, 2, 2},
                          {0, 2, 0}, {1, 2, 0}, {1, 2, 0}, {1, 0, 1}, {3, 4, 0}, {1, 3, 0}, {1, 5, 1},
                          {2, 5, 1}, {3, 1, 0}, {4, 2, 0}, {4, 5, 1}, {3, 2, 0}, {0, 3, 0}};
  for (const auto& e : edges) g.add_edge(e[0], e[1], e[2]);
  Result r;
  r.dist = detail::build_matrix(g, Dtype::Int32, 6, 6);
  detail::reference_floyd_warshall(r.dist);
  r.next = next_matrix(6, {-1, 2, 2, 3, 2, 5,  //
                           0, -1, 2, 3, 2, 5,  //
                           1, 1, -1, 1, 1, 5,  //
                           0, 1, 2, -1, 4, 0,  //
                           2, 2, 2, 3, -1, 5,  //
                           0, 1, 1, 1, 1, -1});
  EXPECT_THROW(path(r, 0, 4), Error);
  EXPECT_GT(repair_next_hops(g, r.dist, r.next), 0);
  check_paths(g, r, 0);
  EXPECT_EQ(repair_next_hops(g, r.dist, r.next), 0) << "a second repair must find nothing";
}

/// Blocked Floyd-Warshall with strict-improvement next hops, tile size B, int32, in the simplest
/// order (pivot, row and column panels, rest; k outermost in each tile): the order that produced
/// the case above. Used to make many looping next-hop matrices for repair_next_hops.
void naive_blocked_fw(Matrix& d, Matrix& nx, std::int64_t B) {
  const std::int64_t n = d.rows(), R = (n + B - 1) / B;
  auto tile = [&](std::int64_t I, std::int64_t J, std::int64_t K) {
    for (std::int64_t k = K * B; k < std::min(n, (K + 1) * B); ++k)
      for (std::int64_t i = I * B; i < std::min(n, (I + 1) * B); ++i)
        for (std::int64_t j = J * B; j < std::min(n, (J + 1) * B); ++j) {
          const std::int32_t s = d.at<std::int32_t>(i, k) + d.at<std::int32_t>(k, j);
          if (s < d.at<std::int32_t>(i, j)) {
            d.at<std::int32_t>(i, j) = s;
            nx.at<std::int32_t>(i, j) = nx.at<std::int32_t>(i, k);
          }
        }
  };
  for (std::int64_t t = 0; t < R; ++t) {
    tile(t, t, t);
    for (std::int64_t o = 0; o < R; ++o)
      if (o != t) tile(t, o, t), tile(o, t, t);
    for (std::int64_t I = 0; I < R; ++I)
      for (std::int64_t J = 0; J < R; ++J)
        if (I != t && J != t) tile(I, J, t);
  }
}

TEST(Paths, RepairFixesEveryLoopOfANaiveBlockedSchedule) {
  int looping = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    test::RandomGraphSpec s;
    s.V = 6 + std::int64_t(seed % 30), s.E = 3 * s.V + std::int64_t(seed % 40), s.wmin = 0, s.wmax = 1 + double(seed % 3);
    s.directed = seed % 4 != 0;
    s.components = seed % 7 == 0 ? 2 : 1;
    const Graph g = test::random_graph(s);
    Result r;
    r.dist = detail::build_matrix(g, Dtype::Int32, g.num_vertices, g.num_vertices);
    r.next = detail::build_next(r.dist);
    naive_blocked_fw(r.dist, r.next, 2 + std::int64_t(seed % 3));
    bool loops = false;
    for (std::int64_t i = 0; i < g.num_vertices && !loops; ++i)
      for (std::int64_t j = 0; j < g.num_vertices && !loops; ++j) {
        try {
          path(r, i, j);
        } catch (const Error&) {
          loops = true;
        }
      }
    looping += loops;
    const std::int64_t changed = repair_next_hops(g, r.dist, r.next);
    EXPECT_EQ(changed > 0, loops) << "seed " << seed;
    SCOPED_TRACE("seed " + std::to_string(seed));
    check_distances(g, r);
    check_paths(g, r, seed);
  }
  EXPECT_GT(looping, 5) << "the naive schedule should loop on some of these graphs";
  std::printf("naive blocked schedule looped on %d of 120 graphs; all repaired\n", looping);
}

TEST(Paths, RepairLeavesSolvedMatricesAlone) {
  for (const char* name : {"zeros", "allzero", "negzeros", "undirzeros"}) {
    const auto fs = families();
    const Family& f = *std::find_if(fs.begin(), fs.end(), [&](const Family& x) { return std::string(x.name) == name; });
    const Graph g = make(f, 7);
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.block = 16;
    o.paths = true;
    Result r = solve(g, o);
    EXPECT_EQ(repair_next_hops(g, r.dist, r.next), 0) << name << ": solve() left a looping walk";
    check_paths(g, r, 7);
  }
}

TEST(Paths, ReversedGraph) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 4);
  g.add_edge(1, 2, -1);
  const Graph r = reversed(g);
  EXPECT_EQ(r.src, (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(r.dst, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(r.weight, g.weight);
  EXPECT_EQ(r.num_vertices, 3);
  g.directed = false;
  EXPECT_EQ(reversed(g).src, g.src);
}

// SciPy convention: pred[i][j] is the vertex before j on a shortest i -> j path, -9999 for none
// (i == j or unreachable), derived from the reversed graph's next hops.
TEST(Paths, PredecessorsFromReversedNext) {
  for (const char* name : {"random65", "zeros", "negative", "components", "undirected", "allzero"}) {
    const auto fs = families();
    const Family& f = *std::find_if(fs.begin(), fs.end(), [&](const Family& x) { return std::string(x.name) == name; });
    SCOPED_TRACE(name);
    const Graph g = make(f, 5);
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.block = 16;
    o.paths = true;
    const Result fwd = solve(g, o);
    const Result rev = solve(reversed(g), o);
    const Matrix pred = predecessors_from_reversed_next(rev.next);
    ASSERT_EQ(pred.dtype(), Dtype::Int32);
    ASSERT_EQ(pred.rows(), g.num_vertices);
    ASSERT_EQ(pred.cols(), g.num_vertices);
    const EdgeWeights w(g);
    int bad = 0;
    for (std::int64_t i = 0; i < g.num_vertices; ++i)
      for (std::int64_t j = 0; j < g.num_vertices; ++j) {
        const double d = dist_at(fwd.dist, i, j);
        const std::int32_t p = pred.at<std::int32_t>(i, j);
        if (i == j || !std::isfinite(d)) {
          if (p != kNoPredecessor && bad++ < 5) ADD_FAILURE() << "(" << i << "," << j << "): pred " << p;
          continue;
        }
        const double dp = i == p ? 0.0 : dist_at(fwd.dist, i, p);
        if ((p < 0 || std::isnan(w(p, j)) || dp + w(p, j) != d) && bad++ < 5) {
          ADD_FAILURE() << "(" << i << "," << j << "): pred " << p << " is not the vertex before j on a shortest path";
          continue;
        }
        const auto route = path_from_predecessors(pred, i, j);
        double total = 0;
        for (std::size_t k = 0; k + 1 < route.size(); ++k) total += w(route[k], route[k + 1]);
        if ((route.front() != i || route.back() != j || total != d) && bad++ < 5)
          ADD_FAILURE() << "(" << i << "," << j << "): predecessor walk weighs " << total << ", distance " << d;
      }
  }
}

TEST(Paths, PredecessorsSmallExample) {
  // 0 -> 1 (1), 1 -> 2 (1), 0 -> 2 (5): pred[0][2] = 1, pred[0][1] = 0, pred[2][*] = -9999.
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 1);
  g.add_edge(1, 2, 1);
  g.add_edge(0, 2, 5);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Matrix pred = predecessors_from_reversed_next(solve(reversed(g), o).next);
  const std::int32_t N = kNoPredecessor;
  const std::int32_t want[3][3] = {{N, 0, 1}, {N, N, 1}, {N, N, N}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(pred.at<std::int32_t>(i, j), want[i][j]) << i << "," << j;
  EXPECT_EQ(path_from_predecessors(pred, 0, 2), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(path_from_predecessors(pred, 2, 0).empty());
  EXPECT_EQ(path_from_predecessors(pred, 1, 1), (std::vector<std::int64_t>{1}));
  EXPECT_THROW(path_from_predecessors(pred, 0, 3), UsageError);
}

}  // namespace
}  // namespace apsp
