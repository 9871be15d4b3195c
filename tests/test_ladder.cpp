// tests/test_ladder.cpp — the type ladder (README.md "Types"): when (V-1)*max|w| asks for
// int64, int32 rounds capped at 2^30-1 run first and are kept only when no cell lies in the band
// [2^30-1 - max w, 2^30-1) (core/ladder.hpp proves that enough); sampled Dijkstra skips
// a rung its band already shows. The cpu backend (CI), the cuda and the multi-gpu backends
// (skipped without a GPU; multi-gpu on every GPU here, not with --paths) must keep the rung
// exactly where that is safe and fall back otherwise, with the same int64 answer as the
// reference either way. Chains are placed on vertices that are not among the
// sampled sources (0, 8, 16, ... for V = 64), so the band check, not the evidence, decides.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/distance_evidence.hpp"
#include "core/reference.hpp"
#include "support.hpp"

namespace apsp {
namespace {

constexpr std::int64_t kCap = (std::int64_t{1} << 30) - 1;
constexpr std::int64_t kW = 153391690;  // 7 * kW = 2^30 + 6: seven such edges pass the cap

/// V = 64; a chain over vertices `chain` with the given weights (chain[k] -> chain[k+1] weighs
/// w[k]), plus small random edges among vertices 32..63 (so the rest is non-trivial).
Graph chain_graph(const std::vector<std::int32_t>& chain, const std::vector<std::int64_t>& w) {
  Graph g;
  g.num_vertices = 64;
  for (std::size_t k = 0; k + 1 < chain.size(); ++k)
    g.add_edge(chain[k], chain[k + 1], double(w[k]));
  std::uint64_t x = 12345;
  for (int e = 0; e < 200; ++e) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto u = std::int32_t(32 + (x >> 33) % 32), v = std::int32_t(32 + (x >> 17) % 32);
    g.add_edge(u, v, double((x >> 5) % 50));
  }
  return g;
}

const std::vector<std::int32_t> kChain8 = {1, 2, 3, 4, 5, 6, 7, 9};  // no sampled source among them

Matrix reference_int64(const Graph& g) {
  Matrix m = detail::build_matrix(g, Dtype::Int64, g.num_vertices, g.num_vertices);
  detail::reference_floyd_warshall(m);
  return m;
}

Result solve_on(const Graph& g, Backend b, bool paths = false) {
  SolveOptions o;
  o.backend = b;
  o.paths = paths;
  return solve(g, o);
}

/// cpu, and cuda / multi-gpu where usable (multi-gpu: not with --paths, whose int64 it refuses).
std::vector<Backend> backends_here(bool paths = false) {
  std::vector<Backend> b = {Backend::Cpu};
  if (test::cuda_unavailable().empty()) b.push_back(Backend::Cuda);
  for (const BackendInfo& i : backends())
    if (i.name == "multi-gpu" && i.usable && !paths) b.push_back(Backend::MultiGpu);
  return b;
}

TEST(Ladder, CheckedInt32KeptJustBelowTheBand) {
  // Largest distance 2^30-1 - kW - 1: one below the band, so the int32 rung is kept.
  const std::int64_t last = kCap - kW - 1 - 5 * kW;
  ASSERT_GT(last, 0);
  const Graph g = chain_graph({1, 2, 3, 4, 5, 6, 7}, {kW, kW, kW, kW, kW, last});
  ASSERT_GE(double(g.num_vertices - 1) * g.max_abs_weight(), double(kCap))
      << "the bound must ask for int64";
  const Matrix want = reference_int64(g);
  ASSERT_EQ(want.at<std::int64_t>(1, 7), kCap - kW - 1);
  for (Backend b : backends_here()) {
    const Result r = solve_on(g, b);
    ASSERT_EQ(r.dtype(), Dtype::Int64) << backend_name(b);
    EXPECT_EQ(r.rounds, "int32 (checked; bound asked int64)") << backend_name(b);
    EXPECT_EQ(test::compare(r.dist, want), "") << backend_name(b);
  }
}

TEST(Ladder, CheckedInt32FallsBackJustAboveTheCap) {
  // Seven edges of kW: d(1, 9) = 2^30 + 6, past what int32 holds; the prefix d(1, 7) lies in the
  // band, so the int32 rounds are thrown away and int64 rounds give the exact answer.
  const Graph g = chain_graph(kChain8, std::vector<std::int64_t>(7, kW));
  const Matrix want = reference_int64(g);
  ASSERT_EQ(want.at<std::int64_t>(1, 9), 7 * kW);
  ASSERT_GT(want.at<std::int64_t>(1, 9), kCap);
  ASSERT_LT(detail::sampled_distance_lower_bound(g, 8), double(kCap - kW))
      << "the chain must hide from the samples";
  for (Backend b : backends_here()) {
    const Result r = solve_on(g, b);
    ASSERT_EQ(r.dtype(), Dtype::Int64) << backend_name(b);
    EXPECT_EQ(r.rounds, "int64 (int32 rounds checked: a distance may reach 2^30-1)")
        << backend_name(b);
    EXPECT_EQ(test::compare(r.dist, want), "") << backend_name(b);
  }
}

/// Solves with int32_stripes on: the stripes' dtypes and the assembled int64 answer.
struct Striped {
  Result r;
  std::vector<Dtype> dtypes;
  Matrix whole;
};
Striped solve_striped(const Graph& g, Backend b, bool paths = false) {
  Striped s;
  const std::int64_t n = g.num_vertices;
  s.whole = Matrix(n, n, Dtype::Int64);
  SolveOptions o;
  o.backend = b;
  o.paths = paths;
  o.int32_stripes = true;
  o.dist_sink = [&](const RowBlock& blk) {
    s.dtypes.push_back(blk.dtype);
    for (std::int64_t i = 0; i < blk.rows; ++i)
      for (std::int64_t j = 0; j < blk.cols; ++j) {
        std::int64_t v;
        if (blk.dtype == Dtype::Int32) {
          const std::int32_t x = static_cast<const std::int32_t*>(blk.data)[i * blk.stride + j];
          v = x == unreachable<std::int32_t>() ? unreachable<std::int64_t>() : x;
        } else {
          v = static_cast<const std::int64_t*>(blk.data)[i * blk.stride + j];
        }
        s.whole.at<std::int64_t>(blk.row0 + i, j) = v;
      }
  };
  if (paths) o.next_sink = [](const RowBlock&) {};
  s.r = solve(g, o);
  return s;
}

TEST(Ladder, KeptCheckedInt32GoesOutAsInt32StripesWhenTheSinkTakesThem) {
  const std::int64_t last = kCap - kW - 1 - 5 * kW;
  const Graph g = chain_graph({1, 2, 3, 4, 5, 6, 7}, {kW, kW, kW, kW, kW, last});
  const Matrix want = reference_int64(g);
  for (Backend b : backends_here()) {
    const Striped s = solve_striped(g, b);
    EXPECT_EQ(s.r.rounds, "int32 (checked; bound asked int64)") << backend_name(b);
    EXPECT_EQ(s.r.dtype(), Dtype::Int64) << backend_name(b);
    ASSERT_FALSE(s.dtypes.empty()) << backend_name(b);
    if (b != Backend::MultiGpu) {  // a permission: multi-gpu widens as before
      for (Dtype d : s.dtypes) EXPECT_EQ(d, Dtype::Int32) << backend_name(b);
    }
    EXPECT_EQ(test::compare(s.whole, want), "") << backend_name(b);
  }
}

TEST(Ladder, Int64StripesWhereTheRungFailsOrCannotApply) {
  // The rung falls back: int64 rounds, int64 stripes.
  const Graph over = chain_graph(kChain8, std::vector<std::int64_t>(7, kW));
  for (Backend b : backends_here()) {
    const Striped s = solve_striped(over, b);
    ASSERT_FALSE(s.dtypes.empty());
    for (Dtype d : s.dtypes) EXPECT_EQ(d, Dtype::Int64) << backend_name(b);
    EXPECT_EQ(test::compare(s.whole, reference_int64(over)), "") << backend_name(b);
  }
  // Negative weights: Johnson's restored distances are bounded by the original graph; int64 out.
  Graph neg = chain_graph({1, 2, 3, 4, 5, 6, 7}, {kW, kW, kW, kW, kW, kW});
  neg.add_edge(40, 41, -3.0);
  const Striped s = solve_striped(neg, Backend::Cpu);
  for (Dtype d : s.dtypes) EXPECT_EQ(d, Dtype::Int64);
  EXPECT_EQ(test::compare(s.whole, reference_int64(neg)), "");
}

TEST(Ladder, EvidenceSkipsTheRung) {
  // The same chain from vertex 0, a sampled source: Dijkstra sees 2^30+6 and no int32 pass runs.
  std::vector<std::int32_t> chain = kChain8;
  chain[0] = 0;
  const Graph g = chain_graph(chain, std::vector<std::int64_t>(7, kW));
  EXPECT_GE(detail::sampled_distance_lower_bound(g, 8), double(7 * kW));
  const Matrix want = reference_int64(g);
  for (Backend b : backends_here()) {
    const Result r = solve_on(g, b);
    // The cpu backend asks first; the cuda backend asks beside its rounds, and at V = 64 (one
    // round) the band check on the result usually answers before the samples do.
    if (b == Backend::Cpu)
      EXPECT_EQ(r.rounds, "int64 (a sampled distance reaches 2^30-1 - max w)");
    else
      EXPECT_EQ(r.rounds.rfind("int64 (", 0), 0u) << r.rounds;
    EXPECT_EQ(test::compare(r.dist, want), "") << backend_name(b);
  }
}

TEST(Ladder, EvidenceSkipsThePackedRungOnMultiGpu) {
  // An 80 x 80 grid, weights 500..1000: distances pass int16x2's band (2^14-1 - 1000) within a few
  // dozen edges of vertex 0, a sampled source. The multi-gpu backend asks the evidence before the
  // packed rung (it pays here on up to 4 GPUs) and runs int32 rounds at once.
  bool usable = false;
  for (const BackendInfo& i : backends()) usable |= i.name == "multi-gpu" && i.usable;
  if (!usable) GTEST_SKIP() << "the multi-gpu backend is not usable here";
  const Graph g = generate_grid(80, 80, 500, 1000, 7);
  EXPECT_GE(detail::sampled_distance_lower_bound(g, 8), double((1 << 14) - 1 - 1000));
  SolveOptions o;
  o.dtype = Dtype::Int32;
  o.backend = Backend::Cpu;
  const Result want = solve(g, o);
  o.backend = Backend::MultiGpu;
  const Result r = solve(g, o);
  EXPECT_EQ(r.rounds, "int16x2 skipped: a sampled distance reaches 2^14-1 - max w; int32");
  EXPECT_EQ(test::compare(r.dist, want.dist), "");
}

TEST(Ladder, WithPathsAndNegativeWeights) {
  // Large weights (bound asks int64) but short distances, with --paths and with a negative edge
  // (Johnson: the rung is judged on the reweighted graph the kernels see).
  Graph g = chain_graph({1, 2, 3}, {kW, kW});
  g.add_edge(3, 40, -7);
  const Matrix want = reference_int64(g);
  for (Backend b : backends_here(true)) {
    const Result r = solve_on(g, b, true);
    ASSERT_EQ(r.dtype(), Dtype::Int64);
    EXPECT_EQ(r.rounds, "int32 (checked; bound asked int64)") << backend_name(b);
    EXPECT_EQ(test::compare(r.dist, want), "") << backend_name(b);
    EXPECT_EQ(test::check_next_hop_walks(g, r.dist, r.next), "") << backend_name(b);
  }
}

TEST(Ladder, WeightsAtTheCapSkipTheRung) {
  const Graph g = chain_graph({1, 2}, {kCap});
  for (Backend b : backends_here()) {
    const Result r = solve_on(g, b);
    EXPECT_EQ(r.rounds, "int64 (weights reach 2^30-1)") << backend_name(b);
    EXPECT_EQ(r.dist.at<std::int64_t>(1, 2), kCap);
  }
}

TEST(Ladder, ExplicitInt64UsesTheRungToo) {
  test::RandomGraphSpec s;
  s.V = 150;
  s.E = 1500;
  s.wmax = 1000;
  s.seed = 77;
  const Graph g = test::random_graph(s);
  for (Backend b : backends_here()) {
    SolveOptions o;
    o.backend = b;
    o.dtype = Dtype::Int64;
    const Result r = solve(g, o);
    EXPECT_EQ(r.rounds, "int32 (checked; bound asked int64)") << backend_name(b);
    EXPECT_EQ(test::compare(r.dist, reference_int64(g)), "") << backend_name(b);
    o.dtype = Dtype::Int32;
    EXPECT_EQ(solve(g, o).rounds, "int32") << backend_name(b);
  }
}

// sampled_distance_lower_bound: the bucket queue (integer weights, small stop_at) and the heap
// agree with the reference Dijkstra's largest finite distance from the same sources.
TEST(DistanceEvidence, MatchesReferenceDijkstra) {
  for (std::uint64_t seed : {1, 2, 3}) {
    test::RandomGraphSpec s;
    s.V = 300;
    s.E = 900;
    s.wmax = 40;
    s.components = 2;
    s.seed = seed;
    const Graph g = test::random_graph(s);
    double want = 0;
    for (int q = 0; q < 8; ++q) {
      const std::vector<double> d = detail::reference_dijkstra(g, std::int64_t(q) * 300 / 8);
      for (double x : d)
        if (x < std::numeric_limits<double>::infinity()) want = std::max(want, x);
    }
    ASSERT_GT(want, 0);
    EXPECT_EQ(detail::sampled_distance_lower_bound(g, 8), want) << "heap, seed " << seed;
    EXPECT_EQ(detail::sampled_distance_lower_bound(g, 8, 100000), want) << "buckets, seed " << seed;
    // Stopping early: some final distance >= stop_at is reported as soon as it is known.
    EXPECT_GE(detail::sampled_distance_lower_bound(g, 8, want), want) << "seed " << seed;
    EXPECT_GE(detail::sampled_distance_lower_bound(g, 8, want - 1), want - 1) << "seed " << seed;
  }
  Graph neg;
  neg.num_vertices = 3;
  neg.add_edge(0, 1, -1);
  EXPECT_EQ(detail::sampled_distance_lower_bound(neg, 8), 0.0)
      << "no Dijkstra with negative weights";
}

}  // namespace
}  // namespace apsp
