// tests/test_generate.cpp — the random graph generators: same seed -> same graph, different
// seed -> different graph, exact edge counts, distinct pairs without self loops (uniform), weight
// ranges, and refusals of impossible requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"

namespace apsp {
namespace {

bool same_graph(const Graph& a, const Graph& b) {
  return a.num_vertices == b.num_vertices && a.src == b.src && a.dst == b.dst &&
         a.weight == b.weight;
}

void expect_weights_in(const Graph& g, double lo, double hi) {
  ASSERT_FALSE(g.weight.empty());
  const auto [mn, mx] = std::minmax_element(g.weight.begin(), g.weight.end());
  EXPECT_GE(*mn, lo);
  EXPECT_LE(*mx, hi);
  for (double w : g.weight) ASSERT_EQ(w, double(std::int64_t(w))) << "non-integer weight";
  EXPECT_TRUE(g.integer_weights);
}

void expect_ids_in_range(const Graph& g) {
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    ASSERT_GE(g.src[e], 0);
    ASSERT_LT(g.src[e], g.num_vertices);
    ASSERT_GE(g.dst[e], 0);
    ASSERT_LT(g.dst[e], g.num_vertices);
  }
}

std::size_t distinct_pairs(const Graph& g) {
  std::unordered_set<std::uint64_t> s;
  for (std::size_t e = 0; e < g.num_edges(); ++e)
    s.insert(std::uint64_t(g.src[e]) << 32 | std::uint32_t(g.dst[e]));
  return s.size();
}

TEST(Generate, UniformIsDeterministicPerSeed) {
  const Graph a = generate_uniform(500, 20000, 0, 1000, 42);
  const Graph b = generate_uniform(500, 20000, 0, 1000, 42);
  const Graph c = generate_uniform(500, 20000, 0, 1000, 43);
  EXPECT_TRUE(same_graph(a, b)) << "seed 42 twice gave different graphs";
  EXPECT_FALSE(same_graph(a, c)) << "seeds 42 and 43 gave the same graph";
}

TEST(Generate, UniformGivesDistinctPairsWithoutSelfLoops) {
  for (const auto& [V, E] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1000, 50000}, {50, 2000}, {50, 2450}, {2, 2}, {1, 0}, {7, 41}}) {
    const std::uint64_t seed = std::uint64_t(V * 31 + E);
    const Graph g = generate_uniform(V, E, 0, 1000, seed);
    EXPECT_EQ(g.num_vertices, V);
    EXPECT_TRUE(g.directed);
    ASSERT_EQ(g.num_edges(), std::size_t(E)) << "V " << V << " seed " << seed;
    expect_ids_in_range(g);
    for (std::size_t e = 0; e < g.num_edges(); ++e)
      ASSERT_NE(g.src[e], g.dst[e]) << "self loop, seed " << seed;
    EXPECT_EQ(distinct_pairs(g), std::size_t(E)) << "repeated pair, V " << V << " seed " << seed;
  }
}

TEST(Generate, UniformCompleteGraphHasEveryPair) {
  const Graph g = generate_uniform(30, 30 * 29, 1, 1, 9);
  EXPECT_EQ(distinct_pairs(g), std::size_t(30 * 29));
  for (double w : g.weight) ASSERT_EQ(w, 1);
}

TEST(Generate, UniformWeightRangeAndSpread) {
  const Graph g = generate_uniform(300, 30000, -7, 12, 3);
  expect_weights_in(g, -7, 12);
  std::set<double> seen(g.weight.begin(), g.weight.end());
  EXPECT_EQ(seen.size(), 20u) << "all 20 values of [-7, 12] should occur in 30000 draws";
  // Sources spread over all vertices (not just a prefix) and the order is shuffled.
  std::set<std::int32_t> srcs(g.src.begin(), g.src.end());
  EXPECT_GT(srcs.size(), 290u);
  EXPECT_FALSE(std::is_sorted(g.src.begin(), g.src.end()));
}

TEST(Generate, UniformRefusesImpossibleRequests) {
  EXPECT_THROW(generate_uniform(10, 91, 0, 1, 1), UsageError);  // > V(V-1) = 90
  EXPECT_NO_THROW(generate_uniform(10, 90, 0, 1, 1));
  EXPECT_THROW(generate_uniform(1, 1, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_uniform(0, 0, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_uniform(10, -1, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_uniform(10, 5, 3, 2, 1), UsageError);  // empty weight range
  EXPECT_THROW(generate_uniform(std::int64_t{1} << 32, 5, 0, 1, 1),
               UsageError);  // ids beyond int32
}

TEST(Generate, RmatIsDeterministicAndSkewed) {
  const Graph a = generate_rmat(12, 40000, 1, 100, 7);
  const Graph b = generate_rmat(12, 40000, 1, 100, 7);
  const Graph c = generate_rmat(12, 40000, 1, 100, 8);
  EXPECT_TRUE(same_graph(a, b));
  EXPECT_FALSE(same_graph(a, c));
  EXPECT_EQ(a.num_vertices, 4096);
  ASSERT_EQ(a.num_edges(), 40000u);
  expect_ids_in_range(a);
  expect_weights_in(a, 1, 100);
  for (std::size_t e = 0; e < a.num_edges(); ++e) ASSERT_NE(a.src[e], a.dst[e]) << "self loop";
  // Power-law-ish: the busiest source has far more than the mean out-degree (~10).
  std::vector<int> deg(4096, 0);
  for (std::int32_t s : a.src) ++deg[std::size_t(s)];
  EXPECT_GT(*std::max_element(deg.begin(), deg.end()), 200);
  // Scrambled ids: the busiest vertex is not simply vertex 0.
  EXPECT_NE(std::max_element(deg.begin(), deg.end()) - deg.begin(), 0);
}

TEST(Generate, RmatRefusesImpossibleRequests) {
  EXPECT_THROW(generate_rmat(31, 10, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_rmat(-1, 10, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_rmat(0, 1, 0, 1, 1), UsageError);  // one vertex: only self loops
  EXPECT_THROW(generate_rmat(4, -3, 0, 1, 1), UsageError);
  EXPECT_NO_THROW(generate_rmat(0, 0, 0, 1, 1));
}

TEST(Generate, GridShapeAndDeterminism) {
  const Graph g = generate_grid(4, 5, 2, 9, 1);
  EXPECT_EQ(g.num_vertices, 20);
  // 4 rows of 4 horizontal links + 5 columns of 3 vertical links, each both ways.
  ASSERT_EQ(g.num_edges(), std::size_t(2 * (4 * 4 + 5 * 3)));
  expect_ids_in_range(g);
  expect_weights_in(g, 2, 9);
  EXPECT_EQ(distinct_pairs(g), g.num_edges());
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    const int du = std::abs(g.src[e] - g.dst[e]);
    ASSERT_TRUE(du == 1 || du == 5) << g.src[e] << " -> " << g.dst[e];
    if (du == 1) {
      ASSERT_EQ(std::min(g.src[e], g.dst[e]) / 5, std::max(g.src[e], g.dst[e]) / 5)
          << "wraps a row";
    }
  }
  EXPECT_TRUE(same_graph(g, generate_grid(4, 5, 2, 9, 1)));
  EXPECT_FALSE(same_graph(g, generate_grid(4, 5, 2, 9, 2)));
  EXPECT_EQ(generate_grid(1, 1, 0, 1, 1).num_edges(), 0u);
  EXPECT_THROW(generate_grid(0, 5, 0, 1, 1), UsageError);
  EXPECT_THROW(generate_grid(100000, 100000, 0, 1, 1), UsageError);
}

std::uint64_t fingerprint(const Graph& g) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over V and every (src, dst, weight)
  auto mix = [&h](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  mix(&g.num_vertices, 8);
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    const auto w = std::int64_t(g.weight[e]);
    mix(&g.src[e], 4);
    mix(&g.dst[e], 4);
    mix(&w, 8);
  }
  return h;
}

TEST(Generate, SameGraphOnEveryMachine) {
  // Pinned outputs: a seed must give these exact graphs on any compiler, machine and thread
  // count (the generators use no std:: distributions). A deliberate change of a generator
  // updates these values and says so in its commit.
  EXPECT_EQ(fingerprint(generate_uniform(100, 1000, 0, 100, 1)), 0x519c8fa936bfd29dull);
  EXPECT_EQ(fingerprint(generate_uniform(40, 1500, -5, 5, 2)),
            0xd1c33fe58ecfb371ull);  // dense: complement path
  EXPECT_EQ(fingerprint(generate_rmat(10, 5000, 1, 1000, 3)), 0x612822d675783805ull);
  EXPECT_EQ(fingerprint(generate_grid(7, 9, 0, 9, 4)), 0x737381092312dc1eull);
}

TEST(Generate, CourseSizedUniformIsQuick) {
  // The course's largest inputs: 5M edges. Must be practical to generate for benchmarks.
  const Graph g = generate_uniform(30000, 5000000, 0, 1000, 2026);
  ASSERT_EQ(g.num_edges(), 5000000u);
  EXPECT_EQ(g.num_vertices, 30000);
}

}  // namespace
}  // namespace apsp
