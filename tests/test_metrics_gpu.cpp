// tests/test_metrics_gpu.cpp — the GPU bfs metrics engine (src/cuda/metrics_msbfs.cu) against the
// CPU bfs engine (compute_metrics, engine bfs; itself checked against fw and NetworkX): reached
// counts, hop sums, eccentricities and the histogram exactly, harmonic sums to 1e-12 relative.
// V in {1, 2, 31, 1023, 1024, 1025, 3000} (partial and whole batches of 1,024 sources), directed
// (in-arcs: per-target sums; out-arcs: per-source ones) and undirected, connected and not. Skips
// where the build has no CUDA or no usable GPU exists. compute_metrics with --backend cuda (the
// bfs engine on the GPU) against the cpu backend.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/metrics.hpp"
#include "apsp/solve.hpp"
#include "support.hpp"

#ifdef APSP_WITH_CUDA
#include "cuda/metrics_msbfs.hpp"
#include "metrics/engines.hpp"
#endif

namespace apsp {
namespace {

#ifdef APSP_WITH_CUDA
bool gpu_usable() { return test::backend_usable("cuda"); }

/// About 3 n random arcs; connected: a cycle (directed) or path (undirected) through all;
/// else three id ranges without arcs between them.
Graph random_graph(std::int64_t n, bool directed, bool connected, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Graph g;
  g.num_vertices = n;
  g.directed = directed;
  std::uniform_int_distribution<std::int64_t> vert(0, n - 1);
  const std::int64_t parts = connected ? 1 : std::min<std::int64_t>(3, n);
  for (std::int64_t e = 0; e < 3 * n; ++e) {
    const std::int64_t u = vert(rng), v = vert(rng);
    if (u * parts / n == v * parts / n) g.add_edge(std::int32_t(u), std::int32_t(v), 1);
  }
  for (std::int64_t v = 0; connected && n > 1 && v + 1 < n + (directed ? 1 : 0); ++v)
    g.add_edge(std::int32_t(v), std::int32_t((v + 1) % n), 1);
  return g;
}

TEST(MetricsGpu, MsbfsEqualsTheCpuEngine) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable CUDA GPU";
  for (std::int64_t n : {1, 2, 31, 1023, 1024, 1025, 3000})
    for (bool directed : {false, true})
      for (bool connected : {true, false}) {
        const std::uint64_t seed = std::uint64_t(n) * 4 + directed * 2 + connected;
        const std::string where = "n=" + std::to_string(n) + (directed ? " directed" : "") +
                                  (connected ? "" : " disconnected") +
                                  " seed=" + std::to_string(seed);
        const Graph g = random_graph(n, directed, connected, seed);
        SolveOptions o;
        MetricsOptions mo;
        mo.engine = MetricsEngine::Bfs;
        mo.histogram = true;
        const Metrics want = compute_metrics(g, o, mo);
        const detail::HopGraph h = detail::make_hop_graph(g);
        std::int64_t calls = 0;
        const auto in = detail::cuda_metrics::msbfs_target_sums(
            n, h.rstart(), h.radj(), 0, [&](std::int64_t done, std::int64_t total) {
              EXPECT_EQ(total, n);
              EXPECT_LE(done, n);
              ++calls;
            });
        EXPECT_EQ(calls, (n + 1023) / 1024) << where;
        const auto out =
            directed ? detail::cuda_metrics::msbfs_target_sums(n, h.out_start, h.out_adj, 0) : in;
        int bad = 0;
        for (std::size_t v = 0; v < std::size_t(n) && bad < 5; ++v) {
          const bool ok =
              in.reached[v] - 1 == want.reachable_in[v] &&
              static_cast<long double>(in.hop_sum[v]) == want.in_sum[v] &&
              out.reached[v] - 1 == want.reachable_out[v] &&
              static_cast<long double>(out.hop_sum[v]) == want.out_sum[v] &&
              (std::isinf(static_cast<double>(want.eccentricity[v])) ||
               static_cast<long double>(out.farthest[v]) == want.eccentricity[v]) &&
              std::fabs(in.harmonic[v] - want.harmonic[v]) <= 1e-12 * std::fabs(want.harmonic[v]);
          if (!ok) {
            ++bad;
            ADD_FAILURE() << where << " vertex " << v << ": got reached " << in.reached[v] - 1
                          << "/" << out.reached[v] - 1 << " sums " << in.hop_sum[v] << "/"
                          << out.hop_sum[v] << " farthest " << out.farthest[v] << " harmonic "
                          << in.harmonic[v] << "; want " << want.reachable_in[v] << "/"
                          << want.reachable_out[v] << " " << double(want.in_sum[v]) << "/"
                          << double(want.out_sum[v]) << " " << double(want.eccentricity[v]) << " "
                          << want.harmonic[v];
          }
        }
        // The CPU's histogram: pairs u != v, unordered when undirected.
        std::vector<std::int64_t> got = in.histogram;
        got[0] -= n;
        if (!directed)
          for (auto& c : got) c /= 2;
        while (got.size() > 1 && got.back() == 0) got.pop_back();
        EXPECT_EQ(got, want.histogram) << where;
        if (connected && n > 2) {
          EXPECT_GT(want.in_sum[0], 0) << where;  // non-trivial
        }
      }
}

/// compute_metrics on the GPU (--backend cuda: the bfs engine there) against the cpu backend:
/// every per-vertex value, the graph-wide ones and the histogram, weights all 3 (hop sums scaled).
TEST(MetricsGpu, ComputeMetricsOnTheGpuEqualsTheCpu) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable CUDA GPU";
  for (std::int64_t n : {1, 2, 700, 2049})
    for (bool directed : {false, true})
      for (bool connected : {true, false}) {
        Graph g = random_graph(n, directed, connected, std::uint64_t(n) * 7 + directed);
        for (double& w : g.weight) w = 3;
        const std::string where = "n=" + std::to_string(n) + (directed ? " directed" : "") +
                                  (connected ? "" : " disconnected");
        MetricsOptions mo;
        mo.histogram = true;
        SolveOptions cpu, gpu;
        cpu.backend = Backend::Cpu;
        gpu.backend = Backend::Cuda;
        mo.engine = MetricsEngine::Bfs;
        const Metrics want = compute_metrics(g, cpu, mo);
        mo.engine = MetricsEngine::Auto;
        const Metrics got = compute_metrics(g, gpu, mo);
        EXPECT_EQ(got.backend, "cuda") << where << ": " << got.plan;
        EXPECT_EQ(got.engine, "bfs") << where;
        EXPECT_EQ(got.eccentricity, want.eccentricity) << where;
        EXPECT_EQ(got.reachable_out, want.reachable_out) << where;
        EXPECT_EQ(got.reachable_in, want.reachable_in) << where;
        EXPECT_EQ(got.out_sum, want.out_sum) << where;
        EXPECT_EQ(got.in_sum, want.in_sum) << where;
        EXPECT_EQ(got.closeness, want.closeness) << where;
        ASSERT_EQ(got.harmonic.size(), want.harmonic.size()) << where;
        for (std::size_t v = 0; v < got.harmonic.size(); ++v)
          EXPECT_NEAR(got.harmonic[v], want.harmonic[v], 1e-12 * std::fabs(want.harmonic[v]))
              << where << " vertex " << v;
        EXPECT_EQ(got.histogram, want.histogram) << where;
        EXPECT_EQ(double(got.total_sum), double(want.total_sum)) << where;
      }
}

/// The GPU target, timed: APSP_TEST_METRICS_GPU_SCALE=20 runs the engine on the undirected
/// RMAT 2^20 (E = 16 V, seed 1, as `apsp generate --kind rmat --scale 20 --wmin 1 --wmax 1`),
/// prints the seconds, and checks a few vertices against a plain BFS on the CPU.
TEST(MetricsGpu, RmatTimed) {
  const char* scale_text = std::getenv("APSP_TEST_METRICS_GPU_SCALE");
  if (!scale_text) GTEST_SKIP() << "set APSP_TEST_METRICS_GPU_SCALE (e.g. 20) to time RMAT";
  if (!gpu_usable()) GTEST_SKIP() << "no usable CUDA GPU";
  const int scale = std::atoi(scale_text);
  Graph g = generate_rmat(scale, std::int64_t(16) << scale, 1, 1, 1);
  g.directed = false;
  const std::int64_t n = g.num_vertices;
  const detail::HopGraph h = detail::make_hop_graph(g);
  const auto t0 = std::chrono::steady_clock::now();
  const auto sums = detail::cuda_metrics::msbfs_target_sums(n, h.out_start, h.out_adj, 0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("RMAT 2^%d undirected: V = %lld, arcs = %lld, all-sources MS-BFS %.3f s\n", scale,
              static_cast<long long>(n), static_cast<long long>(h.arcs()), s);
  for (std::int64_t v : {std::int64_t(0), n / 3, n - 1}) {  // a plain BFS from v
    std::vector<std::int32_t> level(std::size_t(n), -1), queue{std::int32_t(v)};
    level[std::size_t(v)] = 0;
    std::int64_t sum = 0;
    std::int32_t far = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const auto u = std::size_t(queue[head]);
      sum += level[u];
      far = std::max(far, level[u]);
      for (std::int64_t e = h.out_start[u]; e < h.out_start[u + 1]; ++e) {
        const auto w = std::size_t(h.out_adj[std::size_t(e)]);
        if (level[w] < 0) level[w] = level[u] + 1, queue.push_back(std::int32_t(w));
      }
    }
    EXPECT_EQ(sums.reached[std::size_t(v)], std::int64_t(queue.size())) << "vertex " << v;
    EXPECT_EQ(sums.hop_sum[std::size_t(v)], sum) << "vertex " << v;
    EXPECT_EQ(sums.farthest[std::size_t(v)], far) << "vertex " << v;
  }
}
#else
TEST(MetricsGpu, MsbfsEqualsTheCpuEngine) { GTEST_SKIP() << "built without CUDA"; }
#endif

}  // namespace
}  // namespace apsp
