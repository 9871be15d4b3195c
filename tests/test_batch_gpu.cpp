// tests/test_batch_gpu.cpp — solve_batch on a GPU (backend cuda / auto: src/batch/gpu_batch.cpp,
// src/cuda/batch_small.cu) against the cpu engine, byte for byte: distances and next hops, every
// dtype, sizes 1 .. 300 (the GPU's caps 64 and 128, one cpu tile 128 / 256, beyond), directed
// and undirected, zero and duplicate edges, self loops, negative weights (left to the host),
// packed and listed graphs, a batch large enough for auto to take the GPU. Skips (and says so)
// where the build has no CUDA or no usable GPU exists.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "batch/batch_detail.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using i64 = std::int64_t;

bool gpu_usable() { return test::backend_usable("cuda"); }

using Packed = test::PackedBatch;

Graph random_case(i64 V, bool directed, bool fractional, std::uint64_t seed, i64 degree = 3) {
  test::RandomGraphSpec s;
  s.V = V;
  s.E = degree * V;
  s.wmax = fractional ? 6.7 : 9;
  s.integer = !fractional;
  s.self_loops = true;
  s.components = V > 8 ? 2 : 1;
  s.directed = directed;
  s.seed = seed;
  return test::random_graph(s);
}

Packed mixed(bool directed, bool fractional, std::uint64_t seed) {
  Packed p;
  p.directed = directed;
  const i64 sizes[] = {1,   2,   3,   17,  31,  32,  33,  63,  64,  65,
                       100, 127, 128, 129, 130, 200, 256, 257, 300, 40};
  for (i64 V : sizes) {
    Graph g = random_case(V, directed, fractional, seed + std::uint64_t(V));
    if (V == 40 && directed) g = test::with_potentials(std::move(g), seed);  // negative: host
    p.add(g);
  }
  p.node_ptr.push_back(p.node_ptr.back());  // an empty graph
  p.edge_ptr.push_back(p.edge_ptr.back());
  return p;
}

void expect_same(const BatchResult& a, const BatchResult& b, const std::string& what) {
  ASSERT_EQ(a.offsets, b.offsets) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  const std::size_t es = dtype_size(a.dtype());
  for (std::size_t g = 0; g + 1 < a.offsets.size(); ++g) {
    const i64 at = a.offsets[g], cells = a.offsets[g + 1] - at;
    EXPECT_EQ(
        std::memcmp(static_cast<const char*>(a.dist.raw()) + at * i64(es),
                    static_cast<const char*>(b.dist.raw()) + at * i64(es), std::size_t(cells) * es),
        0)
        << what << ": graph " << g << " (n=" << a.sizes[g] << ") distances differ";
    if (!a.next.empty()) {
      EXPECT_EQ(std::memcmp(a.next.data<std::int32_t>() + at, b.next.data<std::int32_t>() + at,
                            std::size_t(cells) * 4),
                0)
          << what << ": graph " << g << " (n=" << a.sizes[g] << ") next hops differ";
    }
  }
}

i64 finite_cells(const BatchResult& r) {
  i64 count = 0;
  visit_dtype(r.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* d = r.dist.data<T>();
    for (i64 c = 0; c < r.offsets.back(); ++c) count += d[c] != unreachable<T>();
  });
  return count;
}

TEST(BatchGpu, CudaEqualsTheCpuEngine) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU here (or a build without CUDA)";
  for (bool paths : {false, true})
    for (bool directed : {true, false})
      for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        const Packed p = mixed(directed, !is_integer(t), 31);
        const PackedGraphs pg = p.view();
        BatchOptions o;
        o.dtype = t;
        o.paths = paths;
        const BatchResult cpu = solve_batch(BatchGraphs{pg}, o);
        o.backend = Backend::Cuda;
        ASSERT_NE(detail::batch::gpu_for(BatchGraphs{pg}, o), nullptr);
        const BatchResult gpu = solve_batch(BatchGraphs{pg}, o);
        const std::string what =
            std::string(dtype_name(t)) + (directed ? " directed" : "") + (paths ? " paths" : "");
        expect_same(gpu, cpu, what);
        EXPECT_GT(finite_cells(gpu), 10000) << what << ": too trivial";
      }
}

TEST(BatchGpu, ListedGraphsAndTheDerivedDtype) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU here (or a build without CUDA)";
  std::vector<Graph> gs;
  for (i64 V : {5, 60, 120, 64, 1, 129})
    gs.push_back(random_case(V, V % 2 == 0, false, std::uint64_t(V) * 7));
  std::vector<const Graph*> ptrs;
  for (const Graph& g : gs) ptrs.push_back(&g);
  const BatchGraphs batch{std::span<const Graph* const>(ptrs)};
  BatchOptions o;
  o.paths = true;
  const BatchResult cpu = solve_batch(batch, o);
  o.backend = Backend::Cuda;
  expect_same(solve_batch(batch, o), cpu, "listed");
}

TEST(BatchGpu, AutoTakesTheGpuForManySmallGraphs) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU here (or a build without CUDA)";
  Packed p;
  p.directed = false;
  for (i64 b = 0; b < 3000; ++b)  // molecule-like: 10 .. 60 vertices, degree ~1.5
    p.add(random_case(10 + (b * 7919) % 51, false, false, std::uint64_t(b) + 1, 1));
  const PackedGraphs pg = p.view();
  BatchOptions o;
  o.backend = Backend::Auto;
  ASSERT_NE(detail::batch::gpu_for(BatchGraphs{pg}, o), nullptr);
  const BatchResult gpu = solve_batch(BatchGraphs{pg}, o);
  o.backend = Backend::Cpu;
  expect_same(gpu, solve_batch(BatchGraphs{pg}, o), "auto, 3000 graphs");
  o.paths = true;
  const BatchResult cpu_paths = solve_batch(BatchGraphs{pg}, o);
  o.backend = Backend::Auto;
  expect_same(solve_batch(BatchGraphs{pg}, o), cpu_paths, "auto, 3000 graphs, paths");
}

}  // namespace
}  // namespace apsp
