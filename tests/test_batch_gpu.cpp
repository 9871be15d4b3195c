// tests/test_batch_gpu.cpp — the GPU small-graph engine (src/cuda/batch_small.cu) against the cpu
// batch engine, byte for byte: every dtype, sizes 1 .. 130 (the caps: 64, and 128 for int32),
// directed and undirected, zero and duplicate edges, self loops, a negative-weight graph (left to
// the cpu). Skips where the build has no CUDA or no usable GPU exists. Not yet run on a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "support.hpp"

#ifdef APSP_WITH_CUDA
#include "cuda/batch_small.cuh"
#endif

namespace apsp {
namespace {

using i64 = std::int64_t;

#ifdef APSP_WITH_CUDA
bool gpu_usable() {
  for (const BackendInfo& b : backends())
    if (b.name == "cuda") return b.usable;
  return false;
}

struct Packed {
  std::vector<i64> node_ptr{0}, edge_ptr{0}, src, dst;
  std::vector<double> w;
};

Packed random_packed(bool directed, bool fractional, std::uint64_t seed) {
  Packed p;
  const i64 sizes[] = {1, 2, 3, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 130, 40};
  for (i64 V : sizes) {
    test::RandomGraphSpec s;
    s.V = V;
    s.E = 3 * V;
    s.wmax = fractional ? 6.7 : 9;
    s.integer = !fractional;
    s.self_loops = true;
    s.components = V > 8 ? 2 : 1;
    s.directed = directed;
    s.seed = seed + std::uint64_t(V);
    Graph g = test::random_graph(s);
    if (V == 40 && directed) g = test::with_potentials(std::move(g), seed);  // negative: cpu
    const i64 base = p.node_ptr.back();
    for (std::size_t e = 0; e < g.src.size(); ++e) {
      p.src.push_back(base + g.src[e]);
      p.dst.push_back(base + g.dst[e]);
      p.w.push_back(g.weight[e]);
    }
    p.node_ptr.push_back(base + V);
    p.edge_ptr.push_back(i64(p.src.size()));
  }
  return p;
}

template <class T>
void check_type(bool directed) {
  const bool fractional = std::is_floating_point_v<T>;
  const Packed p = random_packed(directed, fractional, 31);
  const PackedGraphs pg{i64(p.node_ptr.size()) - 1,
                        p.node_ptr.data(),
                        p.edge_ptr.data(),
                        p.src.data(),
                        p.dst.data(),
                        p.w.data(),
                        directed};
  BatchOptions o;
  o.dtype = DtypeOf<T>::value;
  const BatchResult cpu = solve_batch(BatchGraphs{pg}, o);
  std::vector<T> gpu(std::size_t(cpu.offsets.back()));
  const std::vector<i64> left =
      detail::cuda_batch::solve_small_graphs<T>(pg, cpu.offsets, gpu.data(), 0);
  std::vector<char> is_left(std::size_t(pg.num_graphs), 0);
  for (i64 b : left) is_left[std::size_t(b)] = 1;
  int on_gpu = 0;
  for (i64 b = 0; b < pg.num_graphs; ++b) {
    const i64 n = cpu.sizes[std::size_t(b)];
    const bool expect_left = n > detail::cuda_batch::small_cap<T>() || (directed && n == 40);
    EXPECT_EQ(bool(is_left[std::size_t(b)]), expect_left) << "graph " << b << " n=" << n;
    if (is_left[std::size_t(b)]) continue;
    ++on_gpu;
    const T* want = cpu.dist.data<T>() + cpu.offsets[std::size_t(b)];
    const T* got = gpu.data() + cpu.offsets[std::size_t(b)];
    EXPECT_EQ(std::memcmp(want, got, std::size_t(n * n) * sizeof(T)), 0)
        << dtype_name(o.dtype.value()) << " graph " << b << " n=" << n;
  }
  EXPECT_GE(on_gpu, 9);
}
#endif

TEST(BatchGpu, SmallGraphsEqualTheCpuEngine) {
#ifndef APSP_WITH_CUDA
  GTEST_SKIP() << "built without CUDA: the GPU batch engine is not compiled";
#else
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU here";
  for (bool directed : {true, false}) {
    check_type<std::int32_t>(directed);
    check_type<std::int64_t>(directed);
    check_type<float>(directed);
    check_type<double>(directed);
  }
#endif
}

}  // namespace
}  // namespace apsp
