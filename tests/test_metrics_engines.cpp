// tests/test_metrics_engines.cpp — the per-source metrics engines (bfs: bit-parallel MS-BFS,
// dijkstra) and the bounds engine against the fw engine (solve() into MetricsReducer, itself
// checked against loops over the reference matrix in test_metrics.cpp): V in {1, 2, 63, 65, 257,
// 1031} (batches of 64 and of 256 sources, partial last batches), directed and undirected,
// connected and not, unit / uniform / integer / fractional / negative weights. Integer results
// compare exactly, closeness and harmonic to 1e-12 relative. Seeds are fixed and printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/metrics.hpp"
#include "apsp/solve.hpp"
#include "metrics/engines.hpp"
#include "support.hpp"

namespace apsp {
namespace {

struct Spec {
  std::int64_t n = 10;
  bool directed = true, connected = true;
  int wmin = 1, wmax = 1;  // integer weights in [wmin, wmax]
  double frac = 0;         // added to every weight (fractional graphs)
  double density = 3;      // edges per vertex
  std::uint64_t seed = 1;
};

std::string name(const Spec& s) {
  return "n=" + std::to_string(s.n) + (s.directed ? " directed" : " undirected") +
         (s.connected ? " connected" : " disconnected") + " w=[" + std::to_string(s.wmin) + "," +
         std::to_string(s.wmax) + "]+" + std::to_string(s.frac) + " seed=" + std::to_string(s.seed);
}

/// Random edges; connected: a Hamiltonian cycle (directed) or path (undirected) through all;
/// disconnected: vertices split in three id ranges with no edge between them.
Graph make(const Spec& s) {
  std::mt19937_64 rng(s.seed);
  Graph g;
  g.num_vertices = s.n;
  g.directed = s.directed;
  g.integer_weights = s.frac == 0;
  std::uniform_int_distribution<int> w(s.wmin, s.wmax);
  const std::int64_t parts = s.connected ? 1 : std::min<std::int64_t>(3, s.n);
  auto part_of = [&](std::int64_t v) { return v * parts / s.n; };
  const auto edges = std::int64_t(s.density * double(s.n));
  std::uniform_int_distribution<std::int64_t> vert(0, s.n - 1);
  for (std::int64_t e = 0; e < edges; ++e) {
    const std::int64_t u = vert(rng), v = vert(rng);
    if (part_of(u) != part_of(v)) continue;
    g.add_edge(std::int32_t(u), std::int32_t(v), w(rng) + s.frac);
  }
  for (std::int64_t v = 0; s.connected && v + 1 < s.n + (s.directed ? 1 : 0) && s.n > 1; ++v)
    g.add_edge(std::int32_t(v), std::int32_t((v + 1) % s.n), w(rng) + s.frac);
  return g;
}

Metrics run(const Graph& g, MetricsEngine e, bool histogram, int threads = 2) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.threads = threads;
  MetricsOptions mo;
  mo.engine = e;
  mo.histogram = histogram;
  return compute_metrics(g, o, mo);
}

bool near(double got, double want) {
  return got == want || std::fabs(got - want) <= 1e-12 * std::fabs(want);
}

void expect_same(const Metrics& got, const Metrics& want, bool integer, const std::string& where) {
  const std::int64_t n = want.num_vertices;
  ASSERT_EQ(got.num_vertices, n) << where;
  ASSERT_EQ(got.closeness.size(), want.closeness.size()) << where;
  int bad = 0;
  for (std::size_t v = 0; v < std::size_t(n) && bad < 5; ++v) {
    const bool sums = integer ? got.out_sum[v] == want.out_sum[v] && got.in_sum[v] == want.in_sum[v]
                              : near(double(got.out_sum[v]), double(want.out_sum[v])) &&
                                    near(double(got.in_sum[v]), double(want.in_sum[v]));
    const bool ecc = integer ? got.eccentricity[v] == want.eccentricity[v]
                             : near(double(got.eccentricity[v]), double(want.eccentricity[v]));
    if (sums && ecc && got.reachable_out[v] == want.reachable_out[v] &&
        got.reachable_in[v] == want.reachable_in[v] && near(got.closeness[v], want.closeness[v]) &&
        near(got.harmonic[v], want.harmonic[v]))
      continue;
    ++bad;
    ADD_FAILURE() << where << " vertex " << v << ": got ecc " << double(got.eccentricity[v])
                  << " reach " << got.reachable_out[v] << "/" << got.reachable_in[v] << " sums "
                  << double(got.out_sum[v]) << "/" << double(got.in_sum[v]) << " closeness "
                  << got.closeness[v] << " harmonic " << got.harmonic[v] << "; want ecc "
                  << double(want.eccentricity[v]) << " reach " << want.reachable_out[v] << "/"
                  << want.reachable_in[v] << " sums " << double(want.out_sum[v]) << "/"
                  << double(want.in_sum[v]) << " closeness " << want.closeness[v] << " harmonic "
                  << want.harmonic[v];
  }
  EXPECT_EQ(got.strongly_connected(), want.strongly_connected()) << where;
  if (integer) {
    EXPECT_EQ(got.total_sum, want.total_sum) << where;
  }
  EXPECT_EQ(got.histogram, want.histogram) << where;
  if (!want.strongly_connected()) return;
  EXPECT_EQ(got.diameter(), want.diameter()) << where;
  EXPECT_EQ(got.radius(), want.radius()) << where;
  EXPECT_EQ(got.center(), want.center()) << where;
  EXPECT_EQ(got.periphery(), want.periphery()) << where;
}

/// The graph is not trivial: some vertex reaches another at a positive distance.
void expect_nontrivial(const Metrics& m, const std::string& where) {
  long double total = 0;
  for (long double s : m.out_sum) total += s;
  if (m.num_vertices > 3) {
    EXPECT_GT(total, 0) << where;
  }
}

const std::int64_t kSizes[] = {1, 2, 63, 65, 257, 1031};

TEST(MetricsEngines, BfsEqualsFwOnUnitAndUniformWeights) {
  std::uint64_t seed = 100;
  for (std::int64_t n : kSizes)
    for (bool directed : {true, false})
      for (bool connected : {true, false})
        for (int w : {1, 3}) {
          Spec s{n, directed, connected, w, w, 0, directed ? 2.0 : 1.2, ++seed};
          const Graph g = make(s);
          const Metrics fw = run(g, MetricsEngine::Fw, true);
          const Metrics bfs = run(g, MetricsEngine::Bfs, true);
          EXPECT_EQ(bfs.engine, "bfs");
          expect_nontrivial(fw, name(s));
          expect_same(bfs, fw, true, name(s));
        }
}

TEST(MetricsEngines, BfsOnLongPathsEqualsFw) {
  // Deep graphs (the probe finds > 64 levels) run batches of one word per vertex.
  for (bool directed : {true, false}) {
    Spec s{1100, directed, true, 2, 2, 0, 0.01, 77};
    const Graph g = make(s);
    const Metrics fw = run(g, MetricsEngine::Fw, true);
    ASSERT_GT(fw.diameter(), 128);
    expect_same(run(g, MetricsEngine::Bfs, true), fw, true, name(s));
  }
}

TEST(MetricsEngines, BfsOnOneThreadAndManyEqualsFw) {
  Spec s{300, true, true, 1, 1, 0, 1.5, 7};
  const Graph g = make(s);
  const Metrics fw = run(g, MetricsEngine::Fw, true);
  expect_same(run(g, MetricsEngine::Bfs, true, 1), fw, true, name(s) + " 1 thread");
  expect_same(run(g, MetricsEngine::Bfs, true, 3), fw, true, name(s) + " 3 threads");
}

TEST(MetricsEngines, DijkstraEqualsFw) {
  std::uint64_t seed = 500;
  for (std::int64_t n : {1, 2, 63, 130, 257})
    for (bool directed : {true, false})
      for (bool connected : {true, false})
        for (double frac : {0.0, 0.25}) {
          Spec s{n, directed, connected, 0, 9, frac, 3, ++seed};
          const Graph g = make(s);
          const Metrics fw = run(g, MetricsEngine::Fw, frac == 0);
          const Metrics dj = run(g, MetricsEngine::Dijkstra, frac == 0);
          expect_nontrivial(fw, name(s));
          expect_same(dj, fw, frac == 0, name(s));
        }
}

TEST(MetricsEngines, DijkstraWithNegativeWeightsEqualsFw) {
  Spec s{90, true, true, 1, 20, 0, 3, 42};
  Graph g = make(s);
  // Potentials keep every cycle's weight (no negative cycle) while making arcs negative.
  std::vector<int> p(90);
  for (int v = 0; v < 90; ++v) p[std::size_t(v)] = (v * 7) % 23;
  for (std::size_t e = 0; e < g.src.size(); ++e)
    g.weight[e] += p[std::size_t(g.src[e])] - p[std::size_t(g.dst[e])];
  ASSERT_LT(g.min_weight(), 0);
  expect_same(run(g, MetricsEngine::Dijkstra, false), run(g, MetricsEngine::Fw, false), true,
              name(s) + " with potentials");
}

TEST(MetricsEngines, BoundsEqualFullOnManyGraphs) {
  for (bool directed : {false, true}) {
    int closed = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      const std::int64_t n = 1 + std::int64_t(seed * 7919 % 150);
      const bool weighted = seed % 3 == 0;
      Spec s{n,   directed, seed % 11 != 0, 1, weighted ? 5 : 1, 0, 1.0 + double(seed % 4) * 0.5,
             seed};
      const Graph g = make(s);
      SolveOptions o;
      o.threads = 1;
      MetricsOptions mo;
      mo.engine = MetricsEngine::Bounds;
      mo.extremes_only = true;
      mo.closeness = mo.harmonic = false;
      const Metrics b = compute_metrics(g, o, mo);
      const Metrics full = run(g, MetricsEngine::Fw, false, 1);
      ASSERT_EQ(b.strongly_connected(), full.strongly_connected()) << name(s);
      if (b.engine == "bounds") ++closed;
      if (!full.strongly_connected()) {
        EXPECT_THROW(b.diameter(), UsageError) << name(s);
        EXPECT_EQ(b.diameter(true), full.diameter(true)) << name(s);
        EXPECT_EQ(b.radius(true), full.radius(true)) << name(s);
        EXPECT_EQ(b.center(true), full.center(true)) << name(s);
        EXPECT_EQ(b.periphery(true), full.periphery(true)) << name(s);
        continue;
      }
      EXPECT_EQ(b.diameter(), full.diameter()) << name(s);
      EXPECT_EQ(b.radius(), full.radius()) << name(s);
      EXPECT_EQ(b.center(), full.center()) << name(s);
      EXPECT_EQ(b.periphery(), full.periphery()) << name(s);
      mo.extremes = {true, false, false, false};  // directed: the in-eccentricity side too
      EXPECT_EQ(compute_metrics(g, o, mo).diameter(), full.diameter()) << name(s) << " alone";
    }
    // The bounds answered most graphs themselves (directed ones close less often).
    EXPECT_GT(closed, directed ? 150 : 200) << (directed ? "directed" : "undirected");
  }
}

/// Directed, not strongly connected: with the diameter alone asked the bounds refuse at once,
/// naming the vertex the fw engine names (the first that misses some other).
TEST(MetricsEngines, DirectedBoundsRefuseAsTheFullEngine) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Spec s{20 + std::int64_t(seed), true, true, 1, 3, 0, 1.5, seed};
    Graph g = make(s);
    // Cut the cycle's arc into vertex seed % n (other arcs may still lead there).
    const auto cut = std::int32_t(seed % std::uint64_t(s.n));
    for (std::size_t e = 0; e < g.src.size(); ++e)
      if (g.dst[e] == cut) g.weight[e] = -1;  // marked
    Graph h;
    h.num_vertices = g.num_vertices;
    h.directed = true;
    for (std::size_t e = 0; e < g.src.size(); ++e)
      if (g.weight[e] >= 0) h.add_edge(g.src[e], g.dst[e], g.weight[e]);
    SolveOptions o;
    MetricsOptions mo;
    mo.extremes_only = true;
    mo.extremes = {true, false, false, false};
    const Metrics b = compute_metrics(h, o, mo);
    const Metrics full = run(h, MetricsEngine::Fw, false, 1);
    ASSERT_FALSE(full.strongly_connected()) << name(s);
    EXPECT_EQ(b.engine, "bounds") << name(s);
    EXPECT_LE(b.extremes->searches, 3) << name(s);
    std::string want, got;
    try {
      (void)full.diameter();
    } catch (const UsageError& e) {
      want = e.what();
    }
    try {
      (void)b.diameter();
    } catch (const UsageError& e) {
      got = e.what();
    }
    EXPECT_EQ(got, want) << name(s);
    EXPECT_EQ(b.diameter(true), full.diameter(true)) << name(s);
  }
}

/// A directed graph with a strongly connected part A (a cycle and chords) that reaches a part B
/// (each B vertex has an arc from an earlier vertex), B's own arcs, sometimes arcs back into A
/// (more of it strongly connected), sometimes a B vertex nobody reaches (then no vertex reaches
/// all), ids shuffled: strongly connected or not, with or without vertices that reach all.
Graph make_source_and_tail(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto below = [&](std::int64_t k) { return std::int64_t(rng() % std::uint64_t(k)); };
  const std::int64_t n = 2 + below(119), a = 1 + below(n);
  const bool weighted = seed % 3 == 0, back_arcs = seed % 4 == 1, orphan = seed % 5 == 2;
  std::vector<std::int32_t> id(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) id[std::size_t(v)] = std::int32_t(v);
  std::shuffle(id.begin(), id.end(), rng);
  Graph g;
  g.num_vertices = n;
  g.directed = true;
  auto arc = [&](std::int64_t u, std::int64_t v) {
    g.add_edge(id[std::size_t(u)], id[std::size_t(v)], weighted ? double(1 + below(5)) : 1.0);
  };
  for (std::int64_t v = 0; v < a && a > 1; ++v) arc(v, (v + 1) % a);
  for (std::int64_t k = 0; k < a; ++k) arc(below(a), below(a));
  const std::int64_t lone = orphan && n > a ? a + below(n - a) : -1;
  for (std::int64_t v = a; v < n; ++v) {
    if (v != lone) arc(below(v), v);
    for (int k = 0; k < 2; ++k) {
      const std::int64_t w = a + below(n - a);
      if (w != lone) arc(v, w);
    }
    if (back_arcs && below(3) == 0) arc(v, below(a));
  }
  return g;
}

/// Issue 34: a directed graph's diameter, radius, center and periphery by the bounds equal the
/// full engines' on graphs that are strongly connected or not (with infinite_ok: NetworkX raises,
/// and so does apsp without it, with the same message as the full engine's).
TEST(MetricsEngines, DirectedBoundsEqualFullWhenNotStronglyConnected) {
  int not_connected = 0, someone_reaches_all = 0, closed = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const Graph g = make_source_and_tail(seed);
    const std::string where =
        "source-and-tail seed=" + std::to_string(seed) + " n=" + std::to_string(g.num_vertices);
    SolveOptions o;
    o.threads = 1;
    MetricsOptions mo;
    mo.extremes_only = true;
    mo.closeness = mo.harmonic = false;
    const Metrics b = compute_metrics(g, o, mo);  // auto: bounds
    const Metrics fw = run(g, MetricsEngine::Fw, false, 1);
    const bool unit = seed % 3 != 0;
    const Metrics search = run(g, unit ? MetricsEngine::Bfs : MetricsEngine::Dijkstra, false, 1);
    ASSERT_EQ(b.strongly_connected(), fw.strongly_connected()) << where;
    if (b.engine == "bounds") ++closed;
    for (const Metrics* full : {&fw, &search}) {
      EXPECT_EQ(b.diameter(true), full->diameter(true)) << where;
      EXPECT_EQ(b.radius(true), full->radius(true)) << where;
      EXPECT_EQ(b.center(true), full->center(true)) << where;
      EXPECT_EQ(b.periphery(true), full->periphery(true)) << where;
    }
    if (fw.strongly_connected()) continue;
    ++not_connected;
    if (fw.radius(true) < std::numeric_limits<double>::infinity()) ++someone_reaches_all;
    auto message = [](auto&& f) {
      try {
        (void)f();
      } catch (const UsageError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    EXPECT_EQ(message([&] { return b.radius(); }), message([&] { return fw.radius(); })) << where;
    EXPECT_EQ(message([&] { return b.center(); }), message([&] { return fw.center(); })) << where;
  }
  // Every kind was met, and the bounds answered nearly all themselves.
  const std::string counts = std::to_string(not_connected) + " not strongly connected, " +
                             std::to_string(someone_reaches_all) + " of them with a vertex that " +
                             "reaches all; the bounds closed on " + std::to_string(closed);
  // (seeds 1..300: 240, 193 and 286)
  EXPECT_GT(not_connected, 150) << counts;
  EXPECT_GT(someone_reaches_all, 100) << counts;
  EXPECT_LT(someone_reaches_all, not_connected - 20) << counts;
  EXPECT_GT(closed, 250) << counts;
}

TEST(MetricsEngines, BoundsOnlyWhatIsAskedAndRefusals) {
  Spec s{200, false, true, 1, 1, 0, 0.1, 3};  // a path and 20 chords: the bounds close
  const Graph g = make(s);
  const Metrics full = run(g, MetricsEngine::Fw, false);
  SolveOptions o;
  MetricsOptions mo;
  mo.engine = MetricsEngine::Auto;
  mo.extremes_only = true;
  mo.extremes = {true, false, false, false};
  const Metrics b = compute_metrics(g, o, mo);
  EXPECT_EQ(b.engine, "bounds");
  EXPECT_EQ(b.diameter(), full.diameter());
  EXPECT_LT(b.extremes->searches, 200);
  EXPECT_THROW(b.average_shortest_path_length(), UsageError);
  EXPECT_THROW(b.wiener_index(), UsageError);
  mo.engine = MetricsEngine::Bounds;
  mo.extremes_only = false;
  EXPECT_THROW(compute_metrics(g, o, mo), UsageError);
  Spec f = s;
  f.frac = 0.5;  // fractional weights: no bounds
  mo.extremes_only = true;
  EXPECT_THROW(compute_metrics(make(f), o, mo), UsageError);
}

TEST(MetricsEngines, HistogramAndEffectiveDiameterOfAPath) {
  Graph g;  // path 0 - 1 - 2 - 3 - 4: pairs at 1, 2, 3, 4 hops: 4, 3, 2, 1
  g.num_vertices = 5;
  g.directed = false;
  for (int v = 0; v < 4; ++v) g.add_edge(v, v + 1, 1);
  for (MetricsEngine e : {MetricsEngine::Fw, MetricsEngine::Bfs, MetricsEngine::Dijkstra}) {
    const Metrics m = run(g, e, true);
    EXPECT_EQ(m.histogram, (std::vector<std::int64_t>{0, 4, 3, 2, 1})) << metrics_engine_name(e);
    // 9 of 10 pairs within 3 hops: exactly 3; 5 of 10 (q = 0.5): 1 + (5 - 4) / 3.
    EXPECT_DOUBLE_EQ(m.effective_diameter(), 3.0);
    EXPECT_DOUBLE_EQ(m.effective_diameter(0.5), 1.0 + 1.0 / 3.0);
  }
}

TEST(MetricsEngines, ForcedEnginesThatCannotRunAreRefused) {
  Spec s{20, true, true, 1, 5, 0, 3, 9};
  const Graph g = make(s);
  EXPECT_THROW(run(g, MetricsEngine::Bfs, false), UsageError);  // unequal weights
  EXPECT_THROW(parse_metrics_engine("fast"), UsageError);
  Spec f = s;
  f.frac = 0.5;
  EXPECT_THROW(run(make(f), MetricsEngine::Dijkstra, true), UsageError);  // histogram of floats
  SolveOptions o;
  o.dtype = Dtype::Float32;
  MetricsOptions mo;
  mo.engine = MetricsEngine::Dijkstra;
  EXPECT_THROW(compute_metrics(g, o, mo), UsageError);
}

/// The depth probe (the cost model's and the bfs engine's batch choice) looks at the largest
/// component, not at vertex 0's: here vertex 0 and 1 form a component of one edge beside a path of
/// 2,000 vertices (a probe from vertex 0 saw 1 level).
TEST(MetricsEngines, ProbeLevelsSeesTheLargestComponentNotVertexZeros) {
  for (bool directed : {false, true}) {
    Graph g;
    g.num_vertices = 2002;
    g.directed = directed;
    g.add_edge(0, 1, 1);
    for (std::int32_t v = 2; v + 1 < 2002; ++v) g.add_edge(v, v + 1, 1);
    const std::int64_t levels = detail::probe_levels(detail::make_hop_graph(g));
    // Undirected: the double sweep finds the path's length; directed: from its hub (vertex 3,
    // the first of degree two) to the end.
    EXPECT_EQ(levels, directed ? 1998 : 1999) << (directed ? "directed" : "undirected");
    // The cost model's figures are those of the same graph with the path first.
    Graph first;
    first.num_vertices = 2002;
    first.directed = directed;
    for (std::int32_t v = 0; v + 1 < 2000; ++v) first.add_edge(v, v + 1, 1);
    first.add_edge(2000, 2001, 1);
    const MetricsPlan plan = plan_metrics(g, SolveOptions{}, {});
    EXPECT_EQ(plan.engine, MetricsEngine::Bfs) << plan.why;
    // The same figures but the sparse engine's, whose prediction holds its measured ordering.
    auto without_sparse = [](const std::string& why) { return why.substr(0, why.find(", sparse")); };
    EXPECT_EQ(without_sparse(plan.why), without_sparse(plan_metrics(first, SolveOptions{}, {}).why));
    const Metrics m = run(g, MetricsEngine::Bfs, false);
    EXPECT_EQ(double(m.eccentricity[2]), std::numeric_limits<double>::infinity());
    EXPECT_EQ(m.reachable_out[2], 1999);
  }
}

/// The facts of an edge list are read in one pass of their own (not Graph::validated_weight_range):
/// a vertex out of range or a non-finite weight is still refused with validate()'s message.
TEST(MetricsEngines, BadEdgesAreRefusedAsValidateRefusesThem) {
  for (int bad = 0; bad < 3; ++bad) {
    Graph g;
    g.num_vertices = 4;
    g.directed = bad == 2;
    for (std::int32_t v = 0; v < 3; ++v) g.add_edge(v, v + 1, 1);
    if (bad == 0) g.dst[1] = 4;
    if (bad == 1) g.src[2] = -1;
    if (bad == 2) g.weight[1] = std::numeric_limits<double>::quiet_NaN();
    std::string want;
    try {
      g.validate();
    } catch (const UsageError& e) {
      want = e.what();
    }
    ASSERT_FALSE(want.empty()) << bad;
    MetricsOptions mo;
    mo.extremes_only = true;
    for (MetricsEngine e : {MetricsEngine::Auto, MetricsEngine::Bfs}) {
      mo.engine = e;
      try {
        (void)compute_metrics(g, SolveOptions{}, mo);
        ADD_FAILURE() << bad << " " << metrics_engine_name(e) << ": no error";
      } catch (const UsageError& err) {
        EXPECT_EQ(std::string(err.what()), want) << bad;
      }
    }
  }
}

TEST(MetricsEngines, AutoPicksBfsForSparseUnitGraphsAndFwForSmallDenseOnes) {
  Spec sparse{3000, false, true, 1, 1, 0, 2, 5};
  SolveOptions o;
  EXPECT_EQ(plan_metrics(make(sparse), o, {}).engine, MetricsEngine::Bfs);
  Spec dense{64, true, true, 1, 50, 0, 30, 5};
  EXPECT_EQ(plan_metrics(make(dense), o, {}).engine, MetricsEngine::Fw);
}

TEST(MetricsEngines, ProgressCountsSourcesAndItsExceptionStopsTheRun) {
  Spec s{700, false, true, 1, 1, 0, 2, 11};
  const Graph g = make(s);
  SolveOptions o;
  o.threads = 2;
  std::int64_t last = 0, total = 0;
  o.progress = [&](std::int64_t done, std::int64_t all) {
    EXPECT_GE(done, last);
    last = done;
    total = all;
  };
  MetricsOptions mo;
  mo.engine = MetricsEngine::Bfs;
  (void)compute_metrics(g, o, mo);
  EXPECT_EQ(total, 700);
  EXPECT_GT(last, 0);
  o.progress = [](std::int64_t, std::int64_t) { throw ResourceError("stop here"); };
  for (MetricsEngine e : {MetricsEngine::Bfs, MetricsEngine::Dijkstra}) {
    mo.engine = e;
    EXPECT_THROW(compute_metrics(g, o, mo), ResourceError) << metrics_engine_name(e);
  }
}

/// A path 0 - 1 - ... - (n-1) as an edge list with a `# vertices` header.
std::string write_path(const test::TempDir& d, std::int64_t n) {
  const std::string f = d / "path.el";
  std::ofstream os(f);
  os << "# vertices " << n << "\n";
  for (std::int64_t v = 0; v + 1 < n; ++v) os << v << ' ' << v + 1 << "\n";
  return f;
}

TEST(MetricsCli, ProgressShowsSourcesAndTimeLeftOnATerminal) {
  // `script` gives the CLI a terminal on stderr; APSP_PROGRESS_DELAY=0 shows progress at once.
  const std::string script = "/usr/bin/script", env = "/usr/bin/env";
  if (!std::filesystem::exists(script) || !std::filesystem::exists(env))
    GTEST_SKIP() << "no /usr/bin/script (bsdutils): terminal progress not checked";
  test::TempDir d;
  const std::string in = write_path(d, 6000);  // bfs, one search per source: 94 batches
  const std::string cmd = env + " APSP_PROGRESS_DELAY=0 " + APSP_CLI + " metrics " + in + " " +
                          (d / "t.csv") + " --undirected --threads 1 --metrics closeness";
  auto r = test::run_program(script, {"-qec", cmd, "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("apsp: metrics 6000/6000 (100%)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" left"), std::string::npos) << r.out;  // an estimate on the way
  r = test::run_program(script, {"-qec", cmd + " -q", "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("apsp: metrics"), std::string::npos) << r.out;
}

TEST(MetricsCli, InterruptLeavesNoOutput) {
  const std::string timeout = "/usr/bin/timeout";
  if (!std::filesystem::exists(timeout)) GTEST_SKIP() << "no /usr/bin/timeout";
  test::TempDir d;
  const std::string in = write_path(d, 200000);  // minutes of searches: stopped after 1 s
  const auto r = test::run_program(
      timeout, {"-s", "INT", "1", APSP_CLI, "metrics", in, d / "t.csv", "--undirected", "-q"});
  EXPECT_EQ(r.exit_code, 124) << r.err;  // timeout's code: the command was stopped
  EXPECT_FALSE(std::filesystem::exists(d / "t.csv"));
  EXPECT_TRUE(test::temps_in(d.path()).empty());
}

}  // namespace
}  // namespace apsp
