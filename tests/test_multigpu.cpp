// tests/test_multigpu.cpp — the multi-gpu backend against the single-device result.
//
// Every test needs the backend built (CUDA + NCCL) and at least 2 GPUs; otherwise it skips and
// says why. Results must equal the cuda backend's (the same kernels, the same arithmetic per tile)
// and, for small V, the cpu backend's. Seeds are fixed and printed on failure.
//
// MultiGpuBench.DISABLED_Scaling is the scaling benchmark of scripts/multigpu_check.sh: run it with
// --gtest_also_run_disabled_tests and APSP_SCALING="V:GPUS,V:GPUS,...". It prints one line per run
// (compute seconds, T updates/s = V^3 / compute seconds) and checks sampled rows against Dijkstra.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "support.hpp"

#ifdef APSP_WITH_NCCL
#include <cuda_runtime.h>
#endif

namespace {

using apsp::Dtype;
using apsp::Matrix;
using apsp::test::RandomGraphSpec;

int gpu_count() {
#ifdef APSP_WITH_NCCL
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

#define REQUIRE_GPUS(k)                                                                               \
  do {                                                                                                \
    const auto info = apsp::backends();                                                               \
    for (const auto& b : info)                                                                        \
      if (b.name == "multi-gpu" && !b.usable) GTEST_SKIP() << "multi-gpu backend not usable: " << b.detail; \
    if (gpu_count() < (k)) GTEST_SKIP() << "needs " << (k) << " GPUs, this machine has " << gpu_count(); \
  } while (0)

using Collector = apsp::test::StripeCollector;

// The --paths reference: the cpu backend with next hops tracked in its kernels (the arithmetic the
// multi-gpu backend repeats), not derived from the edges afterwards (src/cpu/next_hops.hpp).
[[maybe_unused]] const int kTrackedNextHops = setenv("APSP_CPU_NEXT", "tracked", 1);

apsp::Backend single_device() {
  for (const auto& b : apsp::backends())
    if (b.name == "cuda" && b.usable) return apsp::Backend::Cuda;
  return apsp::Backend::Cpu;
}

void check_case(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t, const std::vector<int>& devices,
                bool undirected = false) {
  std::ostringstream what;
  what << "V=" << V << " E=" << E << " seed=" << seed << " dtype=" << apsp::dtype_name(t) << " gpus=" << devices.size();
  SCOPED_TRACE(what.str());
  RandomGraphSpec s;
  s.V = V;
  s.E = E;
  s.seed = seed;
  s.directed = !undirected;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.dtype = t;
  o.backend = apsp::Backend::MultiGpu;
  o.devices = devices;
  Collector got;
  o.dist_sink = got.sink();
  const apsp::Result r = apsp::solve(g, o);
  EXPECT_EQ(r.backend, "multi-gpu");
  EXPECT_TRUE(r.dist.empty());
  ASSERT_EQ(got.check(), "");
  apsp::SolveOptions ref;
  ref.dtype = t;
  ref.backend = single_device();
  const apsp::Result want = apsp::solve(g, ref);
  if (V > 1) {
    ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), 0) << "trivial test input";
  }
  EXPECT_EQ(apsp::test::compare(got.m, want.dist), "") << "vs " << want.backend;
  if (V <= 700 && ref.backend != apsp::Backend::Cpu) {
    ref.backend = apsp::Backend::Cpu;
    EXPECT_EQ(apsp::test::compare(got.m, apsp::solve(g, ref).dist), "") << "vs cpu";
  }
}

std::vector<int> first(int k) {
  std::vector<int> d;
  for (int i = 0; i < k; ++i) d.push_back(i);
  return d;
}

TEST(MultiGpu, TwoGpusMatchSingleDevice) {
  REQUIRE_GPUS(2);
  for (std::int64_t V : {1, 5, 127, 128, 129, 300, 1000, 2049})
    for (Dtype t : {Dtype::Int32, Dtype::Float32}) check_case(V, 4 * V, 1000 + std::uint64_t(V), t, first(2));
}

TEST(MultiGpu, EveryGridUpToAllGpus) {
  REQUIRE_GPUS(2);
  // 3 GPUs: a 1 x 3 grid; 4: 2 x 2; sizes whose tile count does not divide by the grid.
  for (int k = 3; k <= gpu_count(); ++k)
    for (std::int64_t V : {129, 700, 1500, 5003}) check_case(V, 6 * V, 2000 + std::uint64_t(V + k), Dtype::Int32, first(k));
}

TEST(MultiGpu, LargerGraphs) {
  REQUIRE_GPUS(2);
  check_case(9001, 200000, 3001, Dtype::Int32, first(gpu_count()));
  check_case(6000, 100000, 3002, Dtype::Float32, first(2), true);
}

TEST(MultiGpu, DeviceListOrderAndSubset) {
  REQUIRE_GPUS(2);
  check_case(1234, 8000, 4001, Dtype::Int32, {1, 0});
}

TEST(MultiGpu, WithoutSinkResultHoldsTheMatrix) {
  REQUIRE_GPUS(2);
  RandomGraphSpec s;
  s.V = 777;
  s.E = 5000;
  s.seed = 5001;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.backend = apsp::Backend::MultiGpu;
  const apsp::Result r = apsp::solve(g, o);
  o.backend = apsp::Backend::Cpu;
  EXPECT_EQ(apsp::test::compare(r.dist, apsp::solve(g, o).dist), "");
}

TEST(MultiGpu, RefusesWhatItCannotDo) {
  REQUIRE_GPUS(2);
  const apsp::Graph g = apsp::test::random_graph({});
  apsp::SolveOptions o;
  o.backend = apsp::Backend::MultiGpu;
  o.block = 64;
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  o.block = 0;
  o.devices = {0, 0};
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
  o.devices = {gpu_count()};
  EXPECT_THROW((void)apsp::solve(g, o), apsp::UsageError);
}

// With --paths the tiles are updated exactly as the cpu backend does (see multigpu_backend.cu):
// distances and next hops must equal `--backend cpu --block 128` bit for bit, except for streamed
// next hops of graphs with zero-weight edges (hop-count tie rule): there every walk must end at its
// target with the shortest length.
void check_paths(std::int64_t V, std::int64_t E, std::uint64_t seed, Dtype t, double wmin, double wmax,
                 const std::vector<int>& devices, bool streamed) {
  std::ostringstream what;
  what << "paths V=" << V << " E=" << E << " seed=" << seed << " dtype=" << apsp::dtype_name(t) << " w=" << wmin
       << ".." << wmax << " gpus=" << devices.size() << (streamed ? " streamed" : " whole");
  SCOPED_TRACE(what.str());
  RandomGraphSpec s;
  s.V = V;
  s.E = E;
  s.seed = seed;
  s.wmin = wmin;
  s.wmax = wmax;
  const apsp::Graph g = apsp::test::random_graph(s);
  apsp::SolveOptions o;
  o.dtype = t;
  o.paths = true;
  o.backend = apsp::Backend::MultiGpu;
  o.devices = devices;
  Collector dist, next;
  if (streamed) {
    o.dist_sink = dist.sink();
    o.next_sink = next.sink();
  }
  apsp::Result r = apsp::solve(g, o);
  if (streamed) {
    ASSERT_EQ(dist.check(), "");
    ASSERT_EQ(next.check(), "");
  } else {
    dist.m = std::move(r.dist);
    next.m = std::move(r.next);
  }
  apsp::SolveOptions ref;
  ref.dtype = t;
  ref.paths = true;
  ref.block = 128;
  ref.backend = apsp::Backend::Cpu;
  const apsp::Result want = apsp::solve(g, ref);
  ASSERT_GT(apsp::test::finite_off_diagonal(want.dist), 0) << "trivial test input";
  EXPECT_EQ(apsp::test::compare(dist.m, want.dist), "");
  if (streamed && wmin <= 0) {
    EXPECT_EQ(apsp::test::check_next_hop_walks(g, dist.m, next.m), "");
  } else {
    EXPECT_EQ(apsp::test::compare(next.m, want.next), "");
  }
}

TEST(MultiGpu, PathsMatchCpu) {
  REQUIRE_GPUS(2);
  for (std::int64_t V : {2, 130, 333, 1000}) {
    check_paths(V, 5 * V, 6000 + std::uint64_t(V), Dtype::Int32, 1, 100, first(2), true);   // next hops
    check_paths(V, 5 * V, 6100 + std::uint64_t(V), Dtype::Int32, 0, 3, first(2), true);     // hop counts
    check_paths(V, 5 * V, 6100 + std::uint64_t(V), Dtype::Int32, 0, 3, first(2), false);    // repaired
  }
  check_paths(700, 4000, 6201, Dtype::Float32, 1, 50, first(gpu_count()), true);
  check_paths(701, 9000, 6202, Dtype::Float32, 0, 2, first(gpu_count()), false);
  check_paths(1500, 12000, 6203, Dtype::Int32, 0, 10, first(gpu_count()), true);
}

// ---- the scaling benchmark (scripts/multigpu_check.sh) -------------------------------------------

TEST(MultiGpuBench, DISABLED_Scaling) {
  REQUIRE_GPUS(1);
  const char* spec = std::getenv("APSP_SCALING");
  if (!spec) GTEST_SKIP() << "set APSP_SCALING=V:GPUS,...";
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    const std::int64_t V = std::stoll(item.substr(0, colon));
    const int gpus = std::stoi(item.substr(colon + 1));
    if (gpus > gpu_count()) {
      std::printf("scaling V=%lld gpus=%d skipped (only %d GPUs)\n", (long long)V, gpus, gpu_count());
      continue;
    }
    RandomGraphSpec s;
    s.V = V;
    s.E = std::min<std::int64_t>(5000000, V * (V - 1) / 4);
    s.wmin = 0;
    s.wmax = 1000;
    s.seed = std::uint64_t(V);
    const apsp::Graph g = apsp::test::random_graph(s);
    // Keep three sampled rows for verification; drop the rest (the output would be V^2 * 4 bytes).
    const std::vector<std::int64_t> sample = {0, V / 2, V - 1};
    std::vector<std::vector<std::int32_t>> kept(sample.size());
    std::int64_t rows_seen = 0;
    apsp::SolveOptions o;
    o.backend = apsp::Backend::MultiGpu;
    o.devices = first(gpus);
    o.dtype = Dtype::Int32;
    o.dist_sink = [&](const apsp::RowBlock& b) {
      rows_seen += b.rows;
      for (std::size_t k = 0; k < sample.size(); ++k)
        if (sample[k] >= b.row0 && sample[k] < b.row0 + b.rows) {
          const auto* row = static_cast<const std::int32_t*>(b.data) + (sample[k] - b.row0) * b.stride;
          kept[k].assign(row, row + b.cols);
        }
    };
    const auto t0 = std::chrono::steady_clock::now();
    const apsp::Result r = apsp::solve(g, o);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int bad = 0;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const std::vector<double> want = apsp::detail::reference_dijkstra(g, sample[k]);
      for (std::int64_t j = 0; j < V; ++j) {
        const double w = std::isinf(want[std::size_t(j)]) ? double(apsp::kNthuInf) : want[std::size_t(j)];
        if (double(kept[k][std::size_t(j)]) != w) ++bad;
      }
    }
    const double tups = double(V) * double(V) * double(V) / r.timings.compute / 1e12;
    std::printf("scaling V=%lld gpus=%d build_s=%.3f compute_s=%.3f gather_s=%.3f total_s=%.3f T_updates_per_s=%.3f "
                "verify=%s\n",
                (long long)V, gpus, r.timings.h2d, r.timings.compute, r.timings.d2h, total, tups,
                bad == 0 && rows_seen == V ? "PASS" : "FAIL");
    std::fflush(stdout);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(rows_seen, V);
  }
}

}  // namespace
