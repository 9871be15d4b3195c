// tests/test_supernodal_gpu.cpp — the sparse direct engine's rows on the cuda backend (issue 31):
// `--backend cuda --order sn` gives the cpu backend's dense distances (integer dtypes byte for
// byte, floats within a path's rounding) on grids, geometric graphs, meshes, disconnected,
// directed and negative-weight graphs of odd sizes, every dtype; whole and streamed results;
// next hops; the distances kept in device memory. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "order/ordering.hpp"
#include "sparse/engine.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using test::compare;

#define REQUIRE_CUDA_AND_METIS()                                                    \
  do {                                                                              \
    REQUIRE_CUDA();                                                                 \
    if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason(); \
  } while (0)

SolveOptions opts(Backend b, Order order, std::optional<Dtype> t = std::nullopt,
                  bool paths = false) {
  SolveOptions o;
  o.backend = b;
  o.order = order;
  o.dtype = t;
  o.paths = paths;
  return o;
}

std::vector<test::NamedGraph> cases_of(std::int64_t V) { return test::sparse_cases_with_mesh(V); }
double tolerance(Dtype t) { return test::path_sum_tolerance(t); }

TEST(SupernodalGpu, MatchesCpuDenseRounds) {
  REQUIRE_CUDA_AND_METIS();
  for (const std::int64_t V : {1, 2, 3, 63, 129, 1000, 5003}) {
    for (const test::NamedGraph& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        if (V == 5003 && t != Dtype::Int32 && t != Dtype::Float64) continue;
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t));
        const Result want = solve(c.g, opts(Backend::Cpu, Order::None, t));
        const Result got = solve(c.g, opts(Backend::Cuda, Order::Supernodal, t));
        ASSERT_EQ(got.order, "sn");
        ASSERT_EQ(got.backend, "cuda");
        EXPECT_EQ(compare(got.dist, want.dist, tolerance(t)), "");
      }
    }
  }
}

TEST(SupernodalGpu, StreamedRowsEqualTheWholeMatrix) {
  REQUIRE_CUDA_AND_METIS();
  for (const test::NamedGraph& c : cases_of(3001)) {
    SCOPED_TRACE(c.name);
    const Result want = solve(c.g, opts(Backend::Cpu, Order::None));
    SolveOptions o = opts(Backend::Cuda, Order::Supernodal);
    Matrix got(want.dist.rows(), want.dist.cols(), want.dtype());
    std::int64_t next_row = 0;
    o.dist_sink = [&](const RowBlock& b) {
      ASSERT_EQ(b.row0, next_row);
      ASSERT_EQ(b.dtype, want.dtype());
      next_row += b.rows;
      const std::size_t e = dtype_size(b.dtype);
      for (std::int64_t i = 0; i < b.rows; ++i)
        std::memcpy(static_cast<char*>(got.raw()) + std::size_t((b.row0 + i) * got.stride()) * e,
                    static_cast<const char*>(b.data) + std::size_t(i * b.stride) * e,
                    std::size_t(b.cols) * e);
    };
    const Result r = solve(c.g, o);
    EXPECT_TRUE(r.dist.empty());
    EXPECT_EQ(next_row, want.dist.rows());
    EXPECT_EQ(compare(got, want.dist), "");
  }
}

TEST(SupernodalGpu, PathsWalk) {
  REQUIRE_CUDA_AND_METIS();
  for (const test::NamedGraph& c : cases_of(777)) {
    SCOPED_TRACE(c.name);
    const Result want = solve(c.g, opts(Backend::Cpu, Order::None));
    const Result got = solve(c.g, opts(Backend::Cuda, Order::Supernodal, std::nullopt, true));
    EXPECT_EQ(compare(got.dist, want.dist), "");
    EXPECT_EQ(test::check_next_hop_walks(c.g, got.dist, got.next), "");
  }
}

TEST(SupernodalGpu, KeepsTheResultOnTheDevice) {
  REQUIRE_CUDA_AND_METIS();
  const Graph g = generate_grid(37, 41, 1, 9, 5);
  const Result want = solve(g, opts(Backend::Cpu, Order::None));
  std::unique_ptr<detail::BackendImpl> cuda = detail::make_cuda_backend();
  detail::sparse::EngineOptions eo;
  eo.rows_backend = cuda.get();
  eo.keep_on_device = true;
  const detail::sparse::EngineRun run = detail::sparse::solve_supernodal(g, Dtype::Int32, eo);
  ASSERT_TRUE(run.device_result);
  EXPECT_TRUE(run.dist.empty());
  // Read back (the device matrix is n x n, rows n apart).
  const std::int64_t n = g.num_vertices;
  Matrix got(n, n, Dtype::Int32);
  ASSERT_TRUE(run.download);
  run.download(got.raw());
  EXPECT_EQ(compare(got, want.dist), "");
}

TEST(SupernodalGpu, SolveKeepsTheDistancesOnTheGpu) {
  REQUIRE_CUDA_AND_METIS();
  for (const test::NamedGraph& c : cases_of(2011)) {
    if (c.g.min_weight() < 0) continue;
    for (const Dtype t : {Dtype::Int32, Dtype::Float32}) {
      for (const Order order : {Order::Auto, Order::Supernodal}) {
        SCOPED_TRACE(c.name + " " + dtype_name(t) + " " + order_name(order));
        const Result want = solve(c.g, opts(Backend::Cpu, Order::None, t));
        SolveOptions o = opts(Backend::Cuda, order, t);
        o.keep_on_device = true;
        const Result got = solve(c.g, o);
        EXPECT_TRUE(got.dist.empty());
        EXPECT_EQ(got.dtype(), t);
        ASSERT_FALSE(got.device_dist.empty());
        EXPECT_EQ(got.num_vertices(), c.g.num_vertices);
        const DeviceMatrix& d = got.device_dist;
        ASSERT_EQ(d.rows, c.g.num_vertices);
        Matrix host(d.rows, d.cols, d.stride, d.stride, d.dtype);
        d.download(host.raw());
        EXPECT_EQ(compare(host, want.dist, tolerance(t)), "");
      }
    }
  }
}

TEST(SupernodalGpu, KeepOnDeviceRefusesWhatStaysOnTheHost) {
  REQUIRE_CUDA_AND_METIS();
  const Graph g = generate_grid(20, 21, 1, 9, 5);
  SolveOptions o = opts(Backend::Cuda, Order::Auto, std::nullopt, true);
  o.keep_on_device = true;
  EXPECT_THROW(solve(g, o), UsageError);  // paths
  o.paths = false;
  o.order = Order::NestedDissection;
  EXPECT_THROW(solve(g, o), UsageError);
  o.order = Order::Auto;
  Graph neg = g;
  neg.weight[0] = -1;
  EXPECT_THROW(solve(neg, o), UsageError);
}

}  // namespace
}  // namespace apsp
