// tests/test_graph.cpp — the host graph layer (src/graph): the one Csr and its builder (order,
// self loops, undirected edges, dense views, edge index, reverse, memory check, cancel) and the
// one Dijkstra (single source against Bellman-Ford, multi-source, limit, stop, settle hook,
// negative weights through Johnson's potentials). Seeds are fixed and printed on failure.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "apsp/errors.hpp"
#include "core/reference.hpp"
#include "graph/csr.hpp"
#include "graph/dijkstra.hpp"
#include "support.hpp"

namespace {

using apsp::Graph;
using apsp::detail::Csr;
constexpr double kInf = std::numeric_limits<double>::infinity();

Graph small_graph(bool directed) {
  Graph g;
  g.num_vertices = 4;
  g.directed = directed;
  g.add_edge(2, 0, 5);
  g.add_edge(0, 1, 3);
  g.add_edge(1, 1, 7);  // a self loop: dropped
  g.add_edge(0, 3, 2);
  g.add_edge(2, 1, 4);
  return g;
}

TEST(GraphCsr, EdgeListInInputOrderWithoutSelfLoops) {
  apsp::detail::BuildOptions o;
  o.edge_index = true;
  const Csr<double> c = apsp::detail::build_csr<double>(small_graph(true), o);
  EXPECT_EQ(c.n, 4);
  EXPECT_EQ(c.start, (std::vector<std::int64_t>{0, 2, 2, 4, 4}));
  EXPECT_EQ(c.to, (std::vector<std::int32_t>{1, 3, 0, 1}));
  EXPECT_EQ(c.w, (std::vector<double>{3, 2, 5, 4}));
  EXPECT_EQ(c.edge, (std::vector<std::int64_t>{1, 3, 0, 4}));
  EXPECT_EQ(c.arcs(), 4);
  EXPECT_EQ(c.degree(0), 2);
}

TEST(GraphCsr, UndirectedEdgesGiveBothArcs) {
  const Csr<std::int32_t> c = apsp::detail::build_csr<std::int32_t>(small_graph(false));
  EXPECT_EQ(c.start, (std::vector<std::int64_t>{0, 3, 5, 7, 8}));
  EXPECT_EQ(c.to, (std::vector<std::int32_t>{2, 1, 3, 0, 2, 0, 1, 0}));
  EXPECT_EQ(c.w, (std::vector<std::int32_t>{5, 3, 2, 3, 4, 5, 4, 2}));
  EXPECT_TRUE(c.edge.empty());
}

TEST(GraphCsr, DenseViewReadInPlaceAsItsEdgeList) {
  for (const bool directed : {true, false}) {
    SCOPED_TRACE(directed ? "directed" : "undirected");
    std::vector<double> m = {0, 3, 0, kInf, 1, 0, 2, 0, 7, 0, 0, 4, 0, 6, 0, 0};
    apsp::DenseAdjacency a;
    a.data = m.data();
    a.row_stride = 4 * sizeof(double);
    a.col_stride = sizeof(double);
    const Graph dense = Graph::from_dense(4, a, directed);
    const auto from_view = apsp::detail::build_csr<double>(dense);
    const auto from_edges = apsp::detail::build_csr<double>(dense.edges_from_dense());
    EXPECT_EQ(from_view.start, from_edges.start);
    EXPECT_EQ(from_view.to, from_edges.to);
    EXPECT_EQ(from_view.w, from_edges.w);
  }
}

TEST(GraphCsr, ReversedAndUnweighted) {
  const auto c = apsp::detail::build_csr<apsp::detail::NoWeight>(small_graph(true));
  EXPECT_TRUE(c.w.empty());
  const auto r = apsp::detail::reversed(c);
  EXPECT_EQ(r.start, (std::vector<std::int64_t>{0, 1, 3, 3, 4}));
  EXPECT_EQ(r.to, (std::vector<std::int32_t>{2, 0, 2, 0}));
  const auto rw = apsp::detail::reversed(apsp::detail::build_csr<double>(small_graph(true)));
  EXPECT_EQ(rw.w, (std::vector<double>{5, 3, 4, 2}));
  const auto back = apsp::detail::reversed(rw);
  EXPECT_EQ(back.to, (std::vector<std::int32_t>{1, 3, 0, 1}));
}

TEST(GraphCsr, MemoryLimitAndCancel) {
  apsp::detail::BuildOptions o;
  o.memory_limit = 16;
  EXPECT_THROW(apsp::detail::build_csr<double>(small_graph(true), o), apsp::ResourceError);
  std::atomic<bool> cancel{true};
  apsp::detail::BuildOptions c;
  c.parts = 8;
  c.cancel = &cancel;
  EXPECT_TRUE(apsp::detail::build_csr<double>(small_graph(true), c).start.empty());
}

apsp::test::RandomGraphSpec spec(std::uint64_t seed, bool directed) {
  apsp::test::RandomGraphSpec s;
  s.V = 300;
  s.E = 1500;
  s.wmin = 0;
  s.wmax = 20;
  s.self_loops = true;
  s.components = 2;
  s.directed = directed;
  s.seed = seed;
  return s;
}

TEST(GraphDijkstra, MatchesBellmanFordFromEverySampledSource) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    for (const bool directed : {true, false}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + (directed ? " directed" : " undirected"));
      const Graph g = apsp::test::random_graph(spec(seed, directed));
      const auto sg = apsp::detail::make_search_graph(g);
      const std::vector<std::int32_t> sources = {0, 7, 150, 299};
      std::vector<double> dist(sources.size() * 300);
      std::vector<std::int32_t> pred(dist.size());
      ASSERT_TRUE(
          apsp::detail::shortest_paths_from(sg, sources, {}, dist.data(), pred.data(), nullptr));
      int finite = 0;
      for (std::size_t k = 0; k < sources.size(); ++k) {
        std::vector<double> want;
        ASSERT_TRUE(apsp::detail::reference_bellman_ford(g, sources[k], want));
        for (std::int64_t v = 0; v < 300; ++v) {
          const double got = dist[k * 300 + std::size_t(v)];
          ASSERT_EQ(got, want[std::size_t(v)]) << "(" << sources[k] << "," << v << ")";
          finite += got < kInf && got > 0;
          const std::int32_t p = pred[k * 300 + std::size_t(v)];
          if (v == sources[k] || !(got < kInf)) {
            EXPECT_EQ(p, apsp::kNoPredecessor);
          } else {
            EXPECT_GE(p, 0);
          }
        }
      }
      EXPECT_GT(finite, 100);  // not a trivial, all-unreachable answer
    }
  }
}

TEST(GraphDijkstra, NearestSourceLimitAndNegativeWeights) {
  const Graph g = apsp::test::with_potentials(apsp::test::random_graph(spec(5, true)), 9);
  ASSERT_LT(g.min_weight(), 0);
  const std::vector<std::int32_t> sources = {4, 40, 200};
  std::vector<double> rows(3 * 300), nearest(300);
  std::vector<std::int32_t> from(300);
  ASSERT_TRUE(
      apsp::detail::per_source_shortest_paths(g, sources, {}, rows.data(), nullptr, nullptr));
  apsp::detail::PerSourceOptions o;
  o.min_only = true;
  ASSERT_TRUE(
      apsp::detail::per_source_shortest_paths(g, sources, o, nearest.data(), nullptr, from.data()));
  for (std::int64_t v = 0; v < 300; ++v) {
    std::vector<double> want;
    double best = kInf;
    for (std::size_t k = 0; k < 3; ++k) {
      ASSERT_TRUE(apsp::detail::reference_bellman_ford(g, sources[k], want));
      EXPECT_EQ(rows[k * 300 + std::size_t(v)], want[std::size_t(v)])
          << "(" << k << "," << v << ")";
      best = std::min(best, want[std::size_t(v)]);
    }
    EXPECT_EQ(nearest[std::size_t(v)], best) << v;
    if (best < kInf) {
      EXPECT_GE(from[std::size_t(v)], 0) << v;
    }
  }
  o.min_only = false;
  o.limit = 10;
  ASSERT_TRUE(
      apsp::detail::per_source_shortest_paths(g, sources, o, rows.data(), nullptr, nullptr));
  for (const double d : rows) EXPECT_TRUE(d <= 10 || d == kInf) << d;
}

TEST(GraphDijkstra, NegativeCycleIsNamed) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 1);
  g.add_edge(1, 2, -3);
  g.add_edge(2, 0, 1);
  EXPECT_THROW(apsp::detail::make_search_graph(g), apsp::NegativeCycleError);
}

TEST(GraphDijkstra, StopAndSettleHook) {
  apsp::test::RandomGraphSpec s = spec(7, true);
  s.V = 9000;
  s.E = 40000;
  s.components = 1;
  const Graph g = apsp::test::random_graph(s);
  const auto c = apsp::detail::build_csr<double>(g);
  std::vector<double> d(9000);
  apsp::detail::DijkstraScratch sc;
  EXPECT_FALSE(apsp::detail::dijkstra_search<false>(c, {{0, 0.0, 0}}, kInf, d.data(), nullptr, sc,
                                                    false, [] { return true; }));
  int settled = 0;
  EXPECT_TRUE(apsp::detail::dijkstra_search<false>(
      c, {{0, 0.0, 0}}, kInf, d.data(), nullptr, sc, true, [] { return false; },
      [&](std::int32_t, double) { return ++settled < 10; }));
  EXPECT_EQ(settled, 10);
  EXPECT_EQ(sc.order.size(), 9u);
  // The interrupted callback of the per-source solver stops it (asked at most every 20 ms).
  apsp::detail::PerSourceOptions o;
  o.threads = 1;
  o.interrupted = [] { return true; };
  std::vector<std::int32_t> sources(300);
  for (std::size_t k = 0; k < sources.size(); ++k) sources[k] = std::int32_t(k);
  std::vector<double> rows(sources.size() * 9000);
  EXPECT_FALSE(
      apsp::detail::per_source_shortest_paths(g, sources, o, rows.data(), nullptr, nullptr));
}

}  // namespace
