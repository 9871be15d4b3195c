// tests/test_metrics_sparse.cpp — the metrics' sparse engine (issue 31 item 3: the supernodal
// rows reduced block by block, no V x V matrix): every per-vertex metric equal to the fw engine's
// on the sparse engine's test graphs (grids with zero weights, geometric, meshes, disconnected
// directed and undirected graphs) of V in {1, 2, 3, 63, 129, 1000}, integer and fractional
// weights, closeness with and without per-target sums; on the host's threads (CI) and on the GPU
// (skipped without one). Integer sums compare exactly, closeness and harmonic to 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/metrics.hpp"
#include "core/backend.hpp"
#include "order/supernodes.hpp"
#include "sparse/engine.hpp"
#include "support.hpp"

namespace apsp {
namespace {

Metrics metrics_of(const Graph& g, MetricsEngine e, Backend b, const MetricsOptions& base = {}) {
  SolveOptions o;
  o.backend = b;
  o.threads = 2;
  MetricsOptions mo = base;
  mo.engine = e;
  return compute_metrics(g, o, mo);
}

bool near(long double got, long double want) {
  return got == want || std::fabs(double(got - want)) <= 1e-12 * std::fabs(double(want));
}

/// Every per-vertex value and the graph-wide ones; `exact`: sums and eccentricities equal.
void expect_same(const Metrics& got, const Metrics& want, bool exact) {
  ASSERT_EQ(got.num_vertices, want.num_vertices);
  ASSERT_EQ(got.closeness.size(), want.closeness.size());
  ASSERT_EQ(got.harmonic.size(), want.harmonic.size());
  int bad = 0;
  for (std::size_t v = 0; v < std::size_t(want.num_vertices) && bad < 5; ++v) {
    auto same = [&](long double a, long double b) { return exact ? a == b : near(a, b); };
    const bool ok =
        got.reachable_out[v] == want.reachable_out[v] &&
        same(got.eccentricity[v], want.eccentricity[v]) && same(got.out_sum[v], want.out_sum[v]) &&
        (want.closeness.empty() ||
         (got.reachable_in[v] == want.reachable_in[v] && same(got.in_sum[v], want.in_sum[v]) &&
          near(got.closeness[v], want.closeness[v]))) &&
        (want.harmonic.empty() || near(got.harmonic[v], want.harmonic[v]));
    if (ok) continue;
    ++bad;
    ADD_FAILURE() << "vertex " << v << ": ecc " << double(got.eccentricity[v]) << " vs "
                  << double(want.eccentricity[v]) << ", reach " << got.reachable_out[v] << " vs "
                  << want.reachable_out[v] << ", out sum " << double(got.out_sum[v]) << " vs "
                  << double(want.out_sum[v]);
  }
  EXPECT_EQ(got.strongly_connected(), want.strongly_connected());
  if (exact) {
    EXPECT_EQ(got.total_sum, want.total_sum);
  }
  if (want.strongly_connected() && want.num_vertices > 0) {
    EXPECT_EQ(got.diameter(), want.diameter());
    EXPECT_EQ(got.center(), want.center());
    EXPECT_EQ(got.periphery(), want.periphery());
  }
}

/// The engine's graphs of V vertices without negative weights (the sparse engine's metrics need
/// non-negative ones), and a copy of each with fractional weights.
std::vector<test::NamedGraph> cases(std::int64_t V) {
  std::vector<test::NamedGraph> out;
  for (test::NamedGraph& c : test::sparse_cases_with_mesh(V)) {
    if (c.g.num_vertices > 0 && c.g.min_weight() < 0) continue;
    test::NamedGraph f = c;
    f.name += " +0.25";
    f.g.integer_weights = false;
    for (double& w : f.g.weight) w += 0.25;
    out.push_back(std::move(c));
    out.push_back(std::move(f));
  }
  return out;
}

void check_engine(Backend b) {
  for (const std::int64_t V : {1, 2, 3, 63, 129, 1000}) {
    for (const test::NamedGraph& c : cases(V)) {
      SCOPED_TRACE(c.name + " V=" + std::to_string(V));
      const Metrics want = metrics_of(c.g, MetricsEngine::Fw, Backend::Cpu);
      const Metrics got = metrics_of(c.g, MetricsEngine::Sparse, b);
      EXPECT_EQ(got.engine, "sparse");
      EXPECT_EQ(got.backend, b == Backend::Cuda ? "cuda" : "cpu");
      expect_same(got, want, c.g.integer_weights);
    }
  }
}

#define REQUIRE_TREE()                                                     \
  do {                                                                     \
    const std::string why_ = detail::supernode_tree_missing_reason();      \
    if (!why_.empty()) GTEST_SKIP() << "no supernode tree here: " << why_; \
  } while (0)

TEST(MetricsSparse, EqualsFwOnTheHost) {
  REQUIRE_TREE();
  check_engine(Backend::Cpu);
}

TEST(MetricsSparse, EqualsFwOnTheGpu) {
  REQUIRE_TREE();
  REQUIRE_CUDA();
  check_engine(Backend::Cuda);
}

TEST(MetricsSparse, RowsSplitOverTwoSharesOfOneGpuGiveTheSameSums) {
  // The multi-gpu backend's split (a block of sources per GPU in turn), run as "1 of 2" twice on
  // one GPU: the sums equal one GPU's and the host's.
  REQUIRE_TREE();
  REQUIRE_CUDA();
  std::unique_ptr<detail::BackendImpl> cuda = detail::make_cuda_backend();
  for (const test::NamedGraph& c : cases(3001)) {
    SCOPED_TRACE(c.name);
    const Dtype t = c.g.integer_weights ? Dtype::Int32 : Dtype::Float64;
    auto sums = [&](std::vector<int> devices, bool gpu) {
      detail::sparse::RowSums rs;
      rs.targets = true;
      detail::sparse::EngineOptions eo;
      eo.sums = &rs;
      eo.rows_backend = gpu ? cuda.get() : nullptr;
      eo.devices = std::move(devices);
      const detail::sparse::EngineRun run = detail::sparse::solve_supernodal(c.g, t, eo);
      if (eo.devices.size() > 1) {
        EXPECT_NE(run.detail.find("2 GPUs"), std::string::npos) << run.detail;
      }
      return rs;
    };
    const detail::sparse::RowSums host = sums({}, false), one = sums({0}, true),
                                  two = sums({0, 0}, true);
    for (const detail::sparse::RowSums* got : {&one, &two}) {
      EXPECT_EQ(got->out_cnt, host.out_cnt);
      EXPECT_EQ(got->in_cnt, host.in_cnt);
      EXPECT_EQ(got->out_sum_i, host.out_sum_i);
      EXPECT_EQ(got->in_sum_i, host.in_sum_i);
      EXPECT_EQ(got->out_max_i, host.out_max_i);
      EXPECT_EQ(got->out_max_f, host.out_max_f);
      for (std::size_t v = 0; v < host.out_cnt.size(); ++v) {
        ASSERT_TRUE(near(got->out_sum_f[v], host.out_sum_f[v])) << v;
        ASSERT_TRUE(near(got->in_sum_f[v], host.in_sum_f[v])) << v;
        ASSERT_TRUE(near(got->out_harm[v], host.out_harm[v])) << v;
        ASSERT_TRUE(near(got->in_harm[v], host.in_harm[v])) << v;
      }
    }
  }
}

TEST(MetricsSparse, RowSumsOnlyWhenNoTargetMetricIsAsked) {
  REQUIRE_TREE();
  MetricsOptions rows_only;
  rows_only.closeness = rows_only.harmonic = false;
  for (const test::NamedGraph& c : cases(200)) {
    SCOPED_TRACE(c.name);
    const Metrics want = metrics_of(c.g, MetricsEngine::Fw, Backend::Cpu, rows_only);
    const Metrics got = metrics_of(c.g, MetricsEngine::Sparse, Backend::Cpu, rows_only);
    EXPECT_TRUE(got.closeness.empty());
    expect_same(got, want, c.g.integer_weights);
  }
}

TEST(MetricsSparse, AutoTakesItForARoadLikeGraphAndSaysWhy) {
  REQUIRE_TREE();
  const Graph g = generate_geometric(6000, 3, 1000, 5);
  SolveOptions o;
  o.backend = Backend::Cpu;
  const MetricsPlan p = plan_metrics(g, o, MetricsOptions{});
  EXPECT_EQ(p.engine, MetricsEngine::Sparse) << p.why;
  EXPECT_NE(p.why.find("dijkstra predicted"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("sparse"), std::string::npos) << p.why;
}

TEST(MetricsSparse, RefusesWhatItCannotDo) {
  REQUIRE_TREE();
  Graph g = generate_grid(10, 10, 1, 9, 3);
  MetricsOptions hist;
  hist.histogram = true;
  EXPECT_THROW(metrics_of(g, MetricsEngine::Sparse, Backend::Cpu, hist), UsageError);
  g.weight[0] = -1;
  EXPECT_THROW(metrics_of(g, MetricsEngine::Sparse, Backend::Cpu), UsageError);
  const Graph dense = generate_uniform(300, 300 * 100, 1, 9, 4);
  EXPECT_THROW(metrics_of(dense, MetricsEngine::Sparse, Backend::Cpu), UsageError);
  EXPECT_EQ(parse_metrics_engine("sparse"), MetricsEngine::Sparse);
}

}  // namespace
}  // namespace apsp
