// tests/test_hip_backend.cpp — the hip backend (AMD GPUs) as the library and CLI see it: listed by
// backends() / `apsp info` with a one-line reason when not usable, refused clearly by
// `--backend hip` then, and, where an AMD GPU is usable, equal to the cpu backend bit for bit
// (int32 and float32, with paths; dense and sparse rounds). Skips, saying why, where no AMD GPU is
// present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "order/ordering.hpp"
#include "support.hpp"

namespace apsp {
namespace {

const void* row_of(const Matrix& m, std::int64_t i) {
  if (m.dtype() == Dtype::Float32) return m.row<float>(i);
  return m.row<std::int32_t>(i);
}

BackendInfo hip_info() {
  for (const auto& b : backends())
    if (b.name == "hip") return b;
  return {};
}

TEST(HipBackend, ListedWithAOneLineReason) {
  const BackendInfo b = hip_info();
  ASSERT_EQ(b.name, "hip");
  EXPECT_FALSE(b.detail.empty());
  EXPECT_EQ(b.detail.find('\n'), std::string::npos) << b.detail;
  if (!b.built) {
    EXPECT_FALSE(b.usable);
  }
  const auto r = test::run_cli({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hip"), std::string::npos) << r.out;
}

TEST(HipBackend, ParsedByName) {
  EXPECT_EQ(parse_backend("hip"), Backend::Hip);
  EXPECT_STREQ(backend_name(Backend::Hip), "hip");
}

TEST(HipBackend, UnusableIsRefusedNamingIt) {
  if (hip_info().usable) GTEST_SKIP() << "an AMD GPU is usable here: nothing to refuse";
  SolveOptions o;
  o.backend = Backend::Hip;
  const Graph g = test::random_graph({});
  try {
    (void)solve(g, o);
    FAIL() << "solve with an unusable hip backend did not throw";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("hip"), std::string::npos) << e.what();
  }
}

TEST(HipBackend, EqualsCpu) {
  const BackendInfo b = hip_info();
  if (!b.usable)
    GTEST_SKIP() << "no usable AMD GPU (hip: " << b.detail
                 << "); the hip backend was compiled only";
  for (const Dtype t : {Dtype::Int32, Dtype::Float32}) {
    for (const std::int64_t V : {1, 127, 128, 129, 300, 1000}) {
      test::RandomGraphSpec spec;
      spec.V = V;
      spec.E = 6 * V;
      spec.seed = std::uint64_t(V) * 7 + 1;
      const Graph g = test::random_graph(spec);
      SolveOptions o;
      o.dtype = t;
      o.paths = true;
      o.backend = Backend::Cpu;
      const Result want = solve(g, o);
      o.backend = Backend::Hip;
      const Result got = solve(g, o);
      ASSERT_EQ(got.backend, "hip");
      const std::size_t bytes = std::size_t(V) * dtype_size(t);
      int bad = 0;
      for (std::int64_t i = 0; i < V && bad < 5; ++i)
        if (std::memcmp(row_of(got.dist, i), row_of(want.dist, i), bytes) != 0) {
          ++bad;
          ADD_FAILURE() << dtype_name(t) << " V=" << V << " seed=" << spec.seed << ": row " << i
                        << " differs";
        }
    }
  }
}

// The sparse rounds (--order nd: listed tiles, the gather into the user's order) give the cpu
// backend's dense answer bit for bit.
TEST(HipBackend, OrderNdEqualsCpu) {
  const BackendInfo b = hip_info();
  if (!b.usable)
    GTEST_SKIP() << "no usable AMD GPU (hip: " << b.detail
                 << "); the hip backend was compiled only";
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const Dtype t : {Dtype::Int32, Dtype::Float32}) {
    for (const Graph& g : {generate_grid(37, 41, 0, 9, 5), generate_geometric(1201, 4, 10, 6)}) {
      SolveOptions o;
      o.dtype = t;
      o.backend = Backend::Cpu;
      const Result want = solve(g, o);
      o.backend = Backend::Hip;
      o.order = Order::NestedDissection;
      const Result got = solve(g, o);
      ASSERT_EQ(got.backend, "hip");
      ASSERT_EQ(got.order, "nd");
      const std::int64_t V = g.num_vertices;
      const std::size_t bytes = std::size_t(V) * dtype_size(t);
      int bad = 0;
      for (std::int64_t i = 0; i < V && bad < 5; ++i)
        if (std::memcmp(row_of(got.dist, i), row_of(want.dist, i), bytes) != 0) {
          ++bad;
          ADD_FAILURE() << dtype_name(t) << " V=" << V << ": row " << i << " differs";
        }
    }
  }
}

}  // namespace
}  // namespace apsp
