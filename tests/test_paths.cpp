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
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <tuple>
#include <unordered_map>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
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
  std::uint64_t key(std::int64_t u, std::int64_t v) const {
    return std::uint64_t(u) * std::uint64_t(n_) + std::uint64_t(v);
  }
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
std::string check_pair(const Graph& g, const EdgeWeights& w, const Result& r, std::int64_t i,
                       std::int64_t j, bool exact) {
  std::ostringstream os;
  const double d = dist_at(r.dist, i, j);
  const std::int32_t nx = r.next.at<std::int32_t>(i, j);
  const bool reachable = i != j && std::isfinite(d);
  if (!reachable) {
    if (nx != -1)
      os << "(" << i << "," << j << "): next " << nx << " but "
         << (i == j ? "i == j" : "unreachable");
    if (i == j && path(r, i, j) != std::vector<std::int64_t>{i})
      os << "(" << i << "," << i << "): path is not {i}";
    if (i != j && !path(r, i, j).empty())
      os << "(" << i << "," << j << "): path for an unreachable pair";
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
  if (!same_weight(total, d, exact, r.dtype()))
    os << "(" << i << "," << j << "): path weighs " << total << ", distance " << d;
  return os.str();
}

/// All pairs when V <= full_limit, else every pair of `rows` sampled rows plus `samples` random
/// pairs.
void check_paths(const Graph& g, const Result& r, std::uint64_t seed, std::int64_t full_limit = 160,
                 int rows = 6, int samples = 4000) {
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
    for (int k = 0; k < samples; ++k)
      one(std::int64_t(rng() % std::uint64_t(n)), std::int64_t(rng() % std::uint64_t(n)));
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
    g.add_edge(g0.src[e], g0.dst[e],
               g0.weight[e] + p[std::size_t(g0.src[e])] - p[std::size_t(g0.dst[e])]);
  return g;
}

struct Family {
  const char* name;
  test::RandomGraphSpec spec;
  std::int64_t potential = 0;  ///< > 0: shift by a random potential (negative weights)
};

std::vector<Family> families() {
  std::vector<Family> f;
  auto add = [&](const char* name, std::int64_t V, std::int64_t E, double wmin, double wmax,
                 auto&& tweak, std::int64_t potential = 0) {
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
  add("zeros", 100, 700, 0, 1, none);   // half the edges weigh 0
  add("allzero", 90, 500, 0, 0, none);  // every path ties
  add("zerosdense", 70, 2500, 0, 2, none);
  add("components", 120, 500, 0, 20, [](auto& s) { s.components = 4; });
  add("undirected", 80, 200, 0, 5, [](auto& s) { s.directed = false; });
  add("undirzeros", 80, 300, 0, 1, [](auto& s) {
    s.directed = false;
    s.components = 2;
  });
  add("negative", 100, 600, 0, 30, none, 50);
  add("negzeros", 100, 600, 0, 0, none, 20);  // negative edges, every cycle weighs 0
  add("sparse", 150, 160, 0, 10, none);       // mostly unreachable
  return f;
}

Graph make(const Family& f, std::uint64_t seed) {
  test::RandomGraphSpec s = f.spec;
  s.seed = seed;
  Graph g = test::random_graph(s);
  return f.potential > 0 ? shift_by_potential(g, f.potential, seed + 1000) : g;
}

/// Solves with paths on `backend`, or skips the test when that backend cannot run here.
std::optional<Result> solve_paths(const Graph& g, Backend backend, std::optional<Dtype> t,
                                  int block) {
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
        skipped_ = "backend '" + std::string(backend_name(backend())) +
                   "' does not keep paths yet: " + msg;
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
        SCOPED_TRACE(std::string(f.name) + " seed=" + std::to_string(seed) +
                     " block=" + std::to_string(block));
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
      const Family& f = *std::find_if(fs.begin(), fs.end(),
                                      [&](const Family& x) { return std::string(x.name) == name; });
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
INSTANTIATE_TEST_SUITE_P(
    Backends, PathsOnBackend,
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
  const int edges[][3] = {{1, 3, 0}, {4, 5, 1}, {4, 1, 1}, {5, 2, 1}, {0, 3, 1}, {5, 1, 1},
                          {3, 0, 1}, {2, 1, 0}, {5, 0, 1}, {2, 5, 1}, {4, 3, 0}, {5, 1, 0},
                          {0, 5, 0}, {5, 2, 2}, {0, 2, 0}, {1, 2, 0}, {1, 2, 0}, {1, 0, 1},
                          {3, 4, 0}, {1, 3, 0}, {1, 5, 1}, {2, 5, 1}, {3, 1, 0}, {4, 2, 0},
                          {4, 5, 1}, {3, 2, 0}, {0, 3, 0}};
  for (const auto& e : edges) g.add_edge(e[0], e[1], e[2]);
  Result r;
  r.dist = detail::build_matrix(g, Dtype::Int32, 6, 6);
  detail::reference_floyd_warshall(r.dist);
  r.next = next_matrix(6, {-1, 2,  2,  3,  2,  5,  //
                           0,  -1, 2,  3,  2,  5,  //
                           1,  1,  -1, 1,  1,  5,  //
                           0,  1,  2,  -1, 4,  0,  //
                           2,  2,  2,  3,  -1, 5,  //
                           0,  1,  1,  1,  1,  -1});
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
    s.V = 6 + std::int64_t(seed % 30), s.E = 3 * s.V + std::int64_t(seed % 40), s.wmin = 0,
    s.wmax = 1 + double(seed % 3);
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
    const Family& f = *std::find_if(fs.begin(), fs.end(),
                                    [&](const Family& x) { return std::string(x.name) == name; });
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

// ---- repair_next_hops on next hops of the edges rule --------------------------------------------
// The edges rule (cpu edges method, cuda) loops across nearly every zero-weight cycle, so it is
// the repair's main customer. These tests build such matrices directly: reference distances, then
// a plain implementation of the rule, then the repair.

/// Closed distances of g in dtype t by the triple-loop reference.
Matrix reference_dist(const Graph& g, Dtype t) {
  Matrix d = detail::build_matrix(g, t, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(d);
  return d;
}

/// The edges rule, plainly: next[i][j] = the first out-arc (i,v) in CSR order (input edge order;
/// undirected edges both ways; self loops skipped) minimising w(i,v) + d[v][j] in the distance
/// type; -1 where i == j or j is unreachable.
Matrix edges_rule_next(const Graph& g0, const Matrix& dist) {
  const Graph g = g0.is_dense() ? g0.edges_from_dense() : g0;
  const std::int64_t n = g.num_vertices;
  std::vector<std::vector<std::pair<std::int32_t, double>>> out(static_cast<std::size_t>(n));
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    if (g.src[e] == g.dst[e]) continue;
    out[std::size_t(g.src[e])].push_back({g.dst[e], g.weight[e]});
    if (!g.directed) out[std::size_t(g.dst[e])].push_back({g.src[e], g.weight[e]});
  }
  Matrix next(n, n, Dtype::Int32);
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T inf = unreachable<T>();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        std::int32_t best = -1;
        T best_val = inf;
        if (i != j && dist.at<T>(i, j) < inf)
          for (const auto& [v, w] : out[std::size_t(i)]) {
            const T dv = v == j ? T(0) : dist.at<T>(v, j);
            if (!(dv < inf)) continue;
            const T val = T(std::is_integral_v<T> ? T(std::llround(w)) : T(w)) + dv;
            if (best < 0 || val < best_val) best = v, best_val = val;
          }
        next.at<std::int32_t>(i, j) = best;
      }
  });
  return next;
}

/// Whether the walk i -> j of `next` ends (at j, or where a hop is -1).
bool walk_ends(const Matrix& next, std::int64_t i, std::int64_t j) {
  for (std::int64_t v = i, steps = 0; v != j; ++steps) {
    if (steps > next.rows()) return false;
    v = next.at<std::int32_t>(v, j);
    if (v < 0) return true;
  }
  return true;
}

Matrix copy_of(const Matrix& m) {
  Matrix c(m.rows(), m.cols(), m.dtype());
  for (std::int64_t i = 0; i < m.rows(); ++i)
    std::copy(m.row<std::int32_t>(i), m.row<std::int32_t>(i) + m.cols(), c.row<std::int32_t>(i));
  return c;
}

struct RepairOutcome {
  std::int64_t looping = 0;  ///< entries whose walk looped before
  std::int64_t changed = 0;  ///< what repair_next_hops returned
  Matrix next;
};

/// Repairs a copy of `next` and checks: the count returned is the number of entries that differ,
/// every one of them looped before, every walk now ends on a shortest path, and a second repair
/// finds nothing.
RepairOutcome repair_and_check(const Graph& g, const Matrix& dist, const Matrix& next) {
  RepairOutcome r;
  r.next = copy_of(next);
  const std::int64_t n = next.rows();
  std::vector<char> looped(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      r.looping += looped[std::size_t(i * n + j)] = !walk_ends(next, i, j);
  r.changed = repair_next_hops(g, dist, r.next);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (r.next.at<std::int32_t>(i, j) != next.at<std::int32_t>(i, j)) {
        ++differ;
        EXPECT_TRUE(looped[std::size_t(i * n + j)])
            << "(" << i << "," << j << ") changed but its walk ended";
      }
  EXPECT_EQ(r.changed, differ);
  EXPECT_EQ(r.changed > 0, r.looping > 0);
  EXPECT_EQ(test::check_next_hop_walks(g, dist, r.next), "");
  Matrix again = copy_of(r.next);
  EXPECT_EQ(repair_next_hops(g, dist, again), 0) << "a second repair must find nothing";
  return r;
}

// Zero-weight 2-cycles (undirected zero-weight edges, and directed pairs u -> v -> u) in random
// graphs: the edges rule loops in many columns; each loop costs a re-pointed entry or two, far
// fewer than the entries caught in the loops.
TEST(Paths, RepairEdgesRuleZeroWeightTwoCycles) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::RandomGraphSpec s;
    s.V = 40 + std::int64_t(seed) * 7, s.E = 6 * s.V, s.wmin = 0, s.wmax = 3 + double(seed % 5),
    s.seed = seed;
    s.directed = seed % 3 != 0;
    Graph g = test::random_graph(s);
    std::mt19937_64 rng(seed);
    for (int k = 0; k < 6; ++k) {  // a few explicit 2-cycles, one arc of each first in CSR order
      const auto u = std::int32_t(rng() % std::uint64_t(s.V)),
                 v = std::int32_t(rng() % std::uint64_t(s.V));
      g.src.insert(g.src.begin(), {u, v});
      g.dst.insert(g.dst.begin(), {v, u});
      g.weight.insert(g.weight.begin(), {0.0, 0.0});
    }
    const Matrix d = reference_dist(g, Dtype::Int32);
    const RepairOutcome r = repair_and_check(g, d, edges_rule_next(g, d));
    EXPECT_GT(r.looping, 0);
    EXPECT_LT(r.changed, r.looping);
  }
}

// A directed zero-weight cycle 0 -> 1 -> ... -> k-1 -> 0 whose only tight way out toward t is
// from vertex k/2: every vertex takes its cycle arc (first in CSR order), so every walk toward t
// loops; the repair re-points exactly vertex k/2. A second case needs a route through a vertex
// off the cycle: x <-> y (zero weight), b -> x (zero, first), x -> b (zero), and only b has a
// tight arc to t: b goes to t and x to b, two entries for t.
TEST(Paths, RepairLongZeroWeightCycleTakesOneEntry) {
  for (const std::int32_t k : {3, 5, 17}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Graph g;
    g.num_vertices = k + 1;
    const std::int32_t t = k;
    for (std::int32_t v = 0; v < k; ++v) g.add_edge(v, (v + 1) % k, 0);
    for (std::int32_t v = 0; v < k; ++v) g.add_edge(v, t, v == k / 2 ? 5 : 7);
    const Matrix d = reference_dist(g, Dtype::Int32);
    const Matrix next = edges_rule_next(g, d);
    for (std::int32_t v = 0; v < k; ++v) ASSERT_EQ(next.at<std::int32_t>(v, t), (v + 1) % k);
    const RepairOutcome r = repair_and_check(g, d, next);
    EXPECT_EQ(r.looping, k);
    EXPECT_EQ(r.changed, 1);
    EXPECT_EQ(r.next.at<std::int32_t>(k / 2, t), t);
  }
  Graph g;  // x = 0, y = 1, b = 2, t = 3
  g.num_vertices = 4;
  g.add_edge(0, 1, 0);
  g.add_edge(1, 0, 0);
  g.add_edge(2, 0, 0);
  g.add_edge(0, 2, 0);
  g.add_edge(2, 3, 4);
  g.add_edge(0, 3, 9);
  const Matrix d = reference_dist(g, Dtype::Int32);
  const RepairOutcome r = repair_and_check(g, d, edges_rule_next(g, d));
  EXPECT_EQ(r.changed, 3);  // and toward b itself x <-> y loop too: x takes its arc to b
  EXPECT_EQ(r.next.at<std::int32_t>(0, 2), 2);
  EXPECT_EQ(r.next.at<std::int32_t>(2, 3), 3);
  EXPECT_EQ(r.next.at<std::int32_t>(0, 3), 2);
  EXPECT_EQ(r.next.at<std::int32_t>(1, 3), 0);
}

// The only way out of the cycle x <-> y toward t runs through b, which is on no zero-weight cycle
// (so the repair has no candidate list for it at first) and whose own walk runs into a second
// cycle p <-> q: x -> b -> t, then p -> t for the second cycle. x = 0, y = 1, p = 2, q = 3, b = 4,
// t = 5; every cycle arc comes first in CSR order, so the edges rule loops.
TEST(Paths, RepairRouteThroughAVertexOffTheZeroCycles) {
  Graph g;
  g.num_vertices = 6;
  for (const auto& [u, v, w] : std::vector<std::tuple<int, int, int>>{
           {0, 1, 0}, {1, 0, 0}, {0, 4, 0}, {4, 2, 0}, {4, 5, 5}, {2, 3, 0}, {3, 2, 0}, {2, 5, 5}})
    g.add_edge(u, v, w);
  const Matrix d = reference_dist(g, Dtype::Int32);
  const Matrix next = edges_rule_next(g, d);
  ASSERT_EQ(next.at<std::int32_t>(4, 5), 2);
  const RepairOutcome r = repair_and_check(g, d, next);
  EXPECT_EQ(r.next.at<std::int32_t>(0, 5), 4);
  EXPECT_EQ(r.next.at<std::int32_t>(4, 5), 5);
  EXPECT_EQ(r.next.at<std::int32_t>(2, 5), 5);
  EXPECT_EQ(r.next.at<std::int32_t>(1, 5), 0);
  EXPECT_EQ(r.next.at<std::int32_t>(3, 5), 2);
  EXPECT_EQ(r.changed, 6);  // 3 toward t; toward b, p and q x <-> y loops too and x takes x -> b
}

// Every arc weighs 0 and every pair ties: the edges rule points every vertex at its first
// out-neighbour, which makes a cycle toward nearly every target. Edges in a shuffled order, so
// that the cycles differ per vertex; directed and undirected.
TEST(Paths, RepairCompleteGraphOfZeroWeights) {
  for (const bool directed : {true, false}) {
    Graph g;
    g.num_vertices = 60;
    g.directed = directed;
    for (std::int32_t u = 0; u < 60; ++u)
      for (std::int32_t v = 0; v < 60; ++v)
        if (u != v && (directed || u < v)) g.add_edge(u, v, 0);
    std::mt19937_64 rng(directed ? 3 : 4);
    for (std::size_t e = g.src.size(); e > 1; --e) {
      const std::size_t f = rng() % e;
      std::swap(g.src[e - 1], g.src[f]), std::swap(g.dst[e - 1], g.dst[f]);
    }
    const Matrix d = reference_dist(g, Dtype::Int64);
    const RepairOutcome r = repair_and_check(g, d, edges_rule_next(g, d));
    EXPECT_GT(r.looping, 60) << (directed ? "directed" : "undirected");
  }
}

// A dense view (Graph::from_dense; 0 means no edge) repairs exactly like its edge-list copy
// (same CSR order), directed and undirected, int32 and float64. Zero-weight cycles in a view:
// directed, weights c + p(u) - p(v) with c in {0, 1, 2} (u -> v -> u weighs 0 where both c are 0);
// undirected, weights 1e-20 (0 once rounded to int32; a float64 sum never sees it) besides 1, 2.
TEST(Paths, RepairDenseViewEqualsEdgeList) {
  for (const bool directed : {true, false})
    for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
      SCOPED_TRACE(std::string(directed ? "directed " : "undirected ") + dtype_name(t));
      const std::int64_t n = 45;
      std::mt19937_64 rng(directed ? 11 : 12);
      std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
      std::vector<double> p(static_cast<std::size_t>(n));
      for (double& x : p) x = double(rng() % 7);
      for (std::int64_t u = 0; u < n; ++u)
        for (std::int64_t v = 0; v < n; ++v) {
          if (u == v || rng() % 3 != 0) continue;
          const double c = double(std::max<int>(0, int(rng() % 4) - 1));  // 0, 0, 1, 2
          if (directed)
            a[std::size_t(u * n + v)] = c + p[std::size_t(u)] - p[std::size_t(v)];
          else if (u < v)
            a[std::size_t(u * n + v)] = c == 0 ? 1e-20 : c;  // (v,u) stays 0: one edge
        }
      DenseAdjacency view;
      view.data = a.data();
      view.kind = Dtype::Float64;
      view.row_stride = n * std::int64_t(sizeof(double));
      view.col_stride = sizeof(double);
      const Graph dense = Graph::from_dense(n, view, directed);
      const Graph edges = dense.edges_from_dense();
      const Matrix d = reference_dist(edges, t);
      const Matrix next = edges_rule_next(edges, d);
      const RepairOutcome by_view = repair_and_check(dense, d, next);
      const RepairOutcome by_edges = repair_and_check(edges, d, next);
      EXPECT_GT(by_view.looping, 0) << "the test should loop";
      EXPECT_EQ(by_view.changed, by_edges.changed);
      EXPECT_EQ(test::compare(by_view.next, by_edges.next), "");
    }
}

// Fractional weights in float32 and float64 with exact ties (multiples of 0.25, and zero-weight
// cycles): the tight test's tolerance and the float candidate arcs.
TEST(Paths, RepairFloatTies) {
  for (const Dtype t : {Dtype::Float32, Dtype::Float64})
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " seed " + std::to_string(seed));
      test::RandomGraphSpec s;
      s.V = 70, s.E = 500, s.wmin = 0, s.wmax = 3, s.seed = seed;
      Graph g = test::random_graph(s);
      for (double& w : g.weight) w *= 0.25;
      g.integer_weights = false;
      const Matrix d = reference_dist(g, t);
      const RepairOutcome r = repair_and_check(g, d, edges_rule_next(g, d));
      EXPECT_GT(r.looping, 0);
    }
}

// Parts with no edges between them: unreachable pairs keep -1, loops in each part are repaired.
TEST(Paths, RepairDisconnectedParts) {
  test::RandomGraphSpec s;
  s.V = 120, s.E = 700, s.wmin = 0, s.wmax = 2, s.components = 4, s.seed = 9;
  const Graph g = test::random_graph(s);
  const Matrix d = reference_dist(g, Dtype::Int32);
  const RepairOutcome r = repair_and_check(g, d, edges_rule_next(g, d));
  EXPECT_GT(r.looping, 0);
  std::int64_t unreachable_pairs = 0;
  for (std::int64_t i = 0; i < 120; ++i)
    for (std::int64_t j = 0; j < 120; ++j)
      if (i != j && d.at<std::int32_t>(i, j) >= unreachable<std::int32_t>()) {
        ++unreachable_pairs;
        EXPECT_EQ(r.next.at<std::int32_t>(i, j), -1);
      }
  EXPECT_GT(unreachable_pairs, 0);
}

// The same matrix and count for 1, 2 and 3 threads (columns are independent; each is done by one
// thread), on a graph large enough for every parallel loop of the repair to run in parallel.
TEST(Paths, RepairIsTheSameForAnyThreadCount) {
  test::RandomGraphSpec s;
  s.V = 700, s.E = 16 * 700, s.wmin = 0, s.wmax = 4, s.seed = 21;
  const Graph g = test::random_graph(s);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.dtype = Dtype::Int32;
  const Matrix d = solve(g, o).dist;
  const Matrix next = edges_rule_next(g, d);
  const int saved = omp_get_max_threads();
  std::optional<RepairOutcome> first;
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    RepairOutcome r;
    r.next = copy_of(next);
    r.changed = repair_next_hops(g, d, r.next);
    if (!first) {
      EXPECT_GT(r.changed, 0);
      EXPECT_EQ(test::check_next_hop_walks(g, d, r.next), "");
      first = std::move(r);
      continue;
    }
    EXPECT_EQ(r.changed, first->changed) << threads << " threads";
    EXPECT_EQ(test::compare(r.next, first->next), "") << threads << " threads";
  }
  omp_set_num_threads(saved);
}

// Distances that do not match the graph (here d(x,t) = d(y,t) = 4 for the 2-cycle x <-> y whose
// arcs to t weigh 5 and 6): no tight way out exists, and the least-slack route (x -> t) is taken,
// so the walks still end.
TEST(Paths, RepairWithoutATightWayOut) {
  for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
    Graph g;  // x = 0, y = 1, t = 2
    g.num_vertices = 3;
    g.add_edge(0, 1, 0);
    g.add_edge(1, 0, 0);
    g.add_edge(0, 2, 5);
    g.add_edge(1, 2, 6);
    Matrix d = reference_dist(g, t);
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      d.at<T>(0, 2) = T(4), d.at<T>(1, 2) = T(4);
    });
    Matrix next(3, 3, Dtype::Int32);
    const std::int32_t hops[3][3] = {{-1, 1, 1}, {0, -1, 0}, {-1, -1, -1}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) next.at<std::int32_t>(i, j) = hops[i][j];
    EXPECT_EQ(repair_next_hops(g, d, next), 1) << dtype_name(t);
    EXPECT_EQ(next.at<std::int32_t>(0, 2), 2);
    EXPECT_EQ(next.at<std::int32_t>(1, 2), 0);
    EXPECT_NO_THROW(path_from_next(next, 1, 2));
  }
}

// solve() with the edges method on a graph like the course's (the generator's uniform graph,
// E = V^2/4; weights 0..100 so that V = 600 has zero-weight cycles, as V = 4096 has with
// 0..1000): it returns the rule's next hops with the loops repaired.
TEST(Paths, EdgesMethodOnCourseLikeGraph) {
  const Graph g = generate_uniform(600, 600 * 599 / 4, 0, 100, 1);
  detail::cpu::force_next_method(detail::cpu::NextMethod::Edges);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Result r = solve(g, o);
  detail::cpu::force_next_method(std::nullopt);
  EXPECT_EQ(test::check_next_hop_walks(g, r.dist, r.next), "");
  const Matrix raw = edges_rule_next(g, r.dist);
  const RepairOutcome again = repair_and_check(g, r.dist, raw);
  EXPECT_GT(again.looping, 0);
  EXPECT_EQ(test::compare(again.next, r.next), "") << "solve() = the rule, then the repair";
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
  for (const char* name :
       {"random65", "zeros", "negative", "components", "undirected", "allzero"}) {
    const auto fs = families();
    const Family& f = *std::find_if(fs.begin(), fs.end(),
                                    [&](const Family& x) { return std::string(x.name) == name; });
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
          if (p != kNoPredecessor && bad++ < 5)
            ADD_FAILURE() << "(" << i << "," << j << "): pred " << p;
          continue;
        }
        const double dp = i == p ? 0.0 : dist_at(fwd.dist, i, p);
        if ((p < 0 || std::isnan(w(p, j)) || dp + w(p, j) != d) && bad++ < 5) {
          ADD_FAILURE() << "(" << i << "," << j << "): pred " << p
                        << " is not the vertex before j on a shortest path";
          continue;
        }
        const auto route = path_from_predecessors(pred, i, j);
        double total = 0;
        for (std::size_t k = 0; k + 1 < route.size(); ++k) total += w(route[k], route[k + 1]);
        if ((route.front() != i || route.back() != j || total != d) && bad++ < 5)
          ADD_FAILURE() << "(" << i << "," << j << "): predecessor walk weighs " << total
                        << ", distance " << d;
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
