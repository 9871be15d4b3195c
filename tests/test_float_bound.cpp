// tests/test_float_bound.cpp — the exactness rule for floats (src/core/float_bound.hpp): a float
// type whose path sums could overflow to inf is refused, as int32/int64 are when (V-1)*max|w|
// reaches their sentinel; what fits is accepted.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "apsp/errors.hpp"
#include "core/float_bound.hpp"

namespace apsp {
namespace {

using detail::check_float_weights_fit;

std::string refusal(std::int64_t v, double w, Dtype t) {
  try {
    check_float_weights_fit(v, w, t);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(FloatBound, SumsThatCouldOverflowToInfAreRefused) {
  // The graph: 0 -> 1 -> 2 of 1e308 each: d(0,2) = 2e308 became inf, "unreachable".
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 1e308);
  g.add_edge(1, 2, 1e308);
  g.add_edge(2, 0, 0.5);
  try {
    check_float_weights_fit(g, Dtype::Float64);
    ADD_FAILURE() << "float64 accepted (V-1)*max|w| = 2e308";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
    EXPECT_NE(msg.find("overflow to inf"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  // 0 1 1e39 with --type float32: the edge itself is beyond float32.
  const std::string f32 = refusal(2, 1e39, Dtype::Float32);
  EXPECT_NE(f32.find("float32"), std::string::npos) << f32;
  EXPECT_NE(f32.find("--type float64"), std::string::npos) << f32;
  EXPECT_NE(refusal(5, 1e38, Dtype::Float32), "") << "4e38 > float32 max";
  EXPECT_NE(refusal(std::int64_t{1} << 31, 1e300, Dtype::Float64), "")
      << "the product itself overflows";
  EXPECT_NE(refusal(2, std::numeric_limits<double>::max(), Dtype::Float64), "");
}

TEST(FloatBound, WhatFitsIsAccepted) {
  EXPECT_EQ(refusal(3, 1e307, Dtype::Float64), "");
  EXPECT_EQ(refusal(2, 1e38, Dtype::Float32), "");
  EXPECT_EQ(refusal(1, 1e308, Dtype::Float64), "") << "one vertex: no path has an edge";
  EXPECT_EQ(refusal(30000, 1000, Dtype::Float32), "");
  // Integer types have their own rule (choose_dtype); nothing to check here.
  EXPECT_EQ(refusal(3, 1e308, Dtype::Int32), "");
  EXPECT_EQ(refusal(3, 1e308, Dtype::Int64), "");
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 1, 2.5);
  EXPECT_NO_THROW(check_float_weights_fit(g, Dtype::Float32));
}

}  // namespace
}  // namespace apsp
