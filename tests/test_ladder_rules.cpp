// tests/test_ladder_rules.cpp — the type ladder's rules on their own (core/ladder.hpp,
// core/sentinel.hpp; CPU only): one sentinel per dtype (the values the formats, the GPU kernels
// and the int16x2 rung rely on), the relax rule at the sentinel edges, the band check and the
// widening, which rung applies for representative weight ranges and dtypes, and the notes the
// rungs leave in Result::rounds. The rungs run end to end: tests/test_ladder.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/types.hpp"
#include "core/ladder.hpp"
#include "core/sentinel.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using detail::sentinel;
constexpr std::int32_t kS32 = 1073741823;           // 2^30-1
constexpr std::int64_t kS64 = 4611686018427387903;  // 2^62-1
constexpr std::int16_t kS16 = 16383;                // 2^14-1, the int16x2 rung's kInf16

TEST(LadderRules, OneSentinelPerDtype) {
  static_assert(sentinel<std::int16_t>() == kS16);
  static_assert(sentinel<std::int32_t>() == kS32);
  static_assert(sentinel<std::int64_t>() == kS64);
  static_assert(sentinel<std::int32_t>() == unreachable<std::int32_t>());
  static_assert(sentinel<std::int64_t>() == unreachable<std::int64_t>());
  static_assert(sentinel<std::int32_t>() == kNthuInf);
  EXPECT_TRUE(std::isinf(sentinel<float>()) && sentinel<float>() > 0);
  EXPECT_TRUE(std::isinf(sentinel<double>()) && sentinel<double>() > 0);
  EXPECT_EQ(sentinel<float>(), unreachable<float>());
  EXPECT_EQ(sentinel<double>(), unreachable<double>());
  // The caps the rungs run under are those sentinels.
  EXPECT_EQ(detail::kInt16x2Cap, 16383.0);
  EXPECT_EQ(detail::kInt32Cap, 1073741823.0);
  EXPECT_EQ(detail::kInt64Cap, double(kS64));
}

template <class T>
void expect_relax_edges() {
  const T s = sentinel<T>();
  EXPECT_EQ(detail::relax<T>(3, 4, 10), T(7));
  EXPECT_EQ(detail::relax<T>(3, 4, 7), T(7));  // a tie keeps c
  EXPECT_EQ(detail::relax<T>(3, 4, 5), T(5));
  EXPECT_EQ(detail::relax<T>(s, s, s), s);  // 2 * sentinel stays inside T
  EXPECT_EQ(detail::relax<T>(s, s, 5), T(5));
  EXPECT_EQ(detail::relax<T>(s, 0, s), s);  // unreachable + 0 never lowers the sentinel
  EXPECT_EQ(detail::relax<T>(0, s, s), s);
  EXPECT_EQ(detail::relax<T>(s - 1, 1, s), s);  // a sum at the cap stays "unreachable or more"
  EXPECT_EQ(detail::relax<T>(1, 2, s), T(3));
  EXPECT_FALSE(detail::reachable(s));
  EXPECT_TRUE(detail::reachable(T(s - 1)));
  // With a negative operand only the guarded rule keeps an unreachable pair unreachable.
  EXPECT_EQ(detail::relax_guarded<T>(s, -5, s), s);
  EXPECT_EQ(detail::relax_guarded<T>(-5, s, s), s);
  EXPECT_EQ(detail::relax_guarded<T>(10, -5, s), T(5));
}

TEST(LadderRules, RelaxAtTheSentinelEdges) {
  expect_relax_edges<std::int16_t>();
  expect_relax_edges<std::int32_t>();
  expect_relax_edges<std::int64_t>();
  // int16x2's halves: a sum of two capped values never wraps.
  EXPECT_EQ(detail::relax<std::int16_t>(kS16, kS16, kS16), kS16);
  const float fi = sentinel<float>();
  const double di = sentinel<double>();
  EXPECT_EQ(detail::relax(fi, 1.0f, fi), fi);
  EXPECT_EQ(detail::relax(fi, fi, 2.5f), 2.5f);
  EXPECT_EQ(detail::relax(1.5f, 1.0f, fi), 2.5f);
  EXPECT_EQ(detail::relax(di, 1.0, di), di);
  EXPECT_EQ(detail::relax(0.25, 0.5, 1.0), 0.75);
  EXPECT_EQ(detail::relax_guarded(di, -1.0, di), di);
  EXPECT_FALSE(detail::reachable(fi));
  EXPECT_FALSE(detail::reachable(std::numeric_limits<double>::quiet_NaN()));
}

TEST(LadderRules, BandAndWidening) {
  constexpr std::int32_t w = 1000, lo = kS32 - w;
  EXPECT_TRUE(detail::in_band(lo, lo, kS32));
  EXPECT_TRUE(detail::in_band(kS32 - 1, lo, kS32));
  EXPECT_FALSE(detail::in_band(lo - 1, lo, kS32));
  EXPECT_FALSE(detail::in_band(kS32, lo, kS32));  // the cap itself: unreachable, not in band
  EXPECT_EQ(detail::widen_value<std::int64_t>(kS32), kS64);
  EXPECT_EQ(detail::widen_value<std::int64_t>(kS32 - 1), std::int64_t(kS32 - 1));
  EXPECT_EQ(detail::widen_value<std::int64_t>(std::int32_t(0)), 0);
  EXPECT_EQ(detail::widen_value<std::int32_t>(kS16), kS32);
  EXPECT_EQ(detail::widen_value<std::int64_t>(kS16), kS64);
  EXPECT_EQ(detail::widen_value<std::int32_t>(std::int16_t(kS16 - 1)), kS16 - 1);
  EXPECT_TRUE(std::isinf(detail::widen_value<double>(sentinel<float>())));
  EXPECT_EQ(detail::widen_value<double>(2.5f), 2.5);

  // The host check and widening of a checked int32 rung's matrix (3 x 3, stride 4).
  Matrix d(3, 3, 4, 3, Dtype::Int32);
  const std::vector<std::int32_t> v = {0, 5, kS32, kS32, 0, lo - 1, 7, kS32, 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d.at<std::int32_t>(i, j) = v[std::size_t(i * 3 + j)];
  EXPECT_FALSE(detail::int32_in_band(d, lo));
  EXPECT_TRUE(detail::int32_in_band(d, lo - 1));
  const Matrix w64 = detail::widen_to_int64(d, Memory::Host);
  ASSERT_EQ(w64.dtype(), Dtype::Int64);
  ASSERT_EQ(w64.stride(), 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const std::int32_t x = v[std::size_t(i * 3 + j)];
      EXPECT_EQ(w64.at<std::int64_t>(i, j), x == kS32 ? kS64 : std::int64_t(x));
    }
}

TEST(LadderRules, WhichCappedRungApplies) {
  using detail::int16x2_rung_applicable;
  using detail::int32_rung_applicable;
  EXPECT_TRUE(int32_rung_applicable(kS32 - 1, 0));
  EXPECT_FALSE(int32_rung_applicable(kS32, 0));  // an edge at the cap breaks the proof
  EXPECT_FALSE(int32_rung_applicable(5, -1));    // negative weights never take a capped rung
  EXPECT_TRUE(int16x2_rung_applicable(kS16 - 1, 0));
  EXPECT_FALSE(int16x2_rung_applicable(kS16, 1));
  EXPECT_FALSE(int16x2_rung_applicable(3, -0.5));
  EXPECT_EQ(detail::int32_band_low(100), double(kS32 - 100));
  EXPECT_EQ(detail::int16x2_band_low(100), double(kS16 - 100));
  EXPECT_TRUE(detail::rung_worth_trying(100, 0, detail::kInt32Cap, kS32 - 101));
  EXPECT_FALSE(detail::rung_worth_trying(100, 0, detail::kInt32Cap, kS32 - 100));
}

TEST(LadderRules, Int16x2TryPolicy) {
  using detail::Int16Try;
  {
    const test::ScopedEnv unset("APSP_CUDA_INT16", nullptr);
    EXPECT_EQ(detail::int16_try(6144, 100, 0), Int16Try::IfNoEvidence);
    EXPECT_EQ(detail::int16_try(6143, 100, 0), Int16Try::No);  // too small to pay
    EXPECT_EQ(detail::int16_try(20000, kS16, 0), Int16Try::No);
    EXPECT_EQ(detail::int16_try(20000, 100, -1), Int16Try::No);
  }
  {
    const test::ScopedEnv on("APSP_CUDA_INT16", "1");
    EXPECT_EQ(detail::int16_try(64, 100, 0), Int16Try::Forced);
    EXPECT_EQ(detail::int16_try(64, kS16, 0), Int16Try::No);  // forced only where it can hold
  }
  {
    const test::ScopedEnv off("APSP_CUDA_INT16", "0");
    EXPECT_EQ(detail::int16_try(20000, 100, 0), Int16Try::No);
  }
}

TEST(LadderRules, ResultDtypeFromTheBound) {
  const SolveOptions o;
  std::string why;
  EXPECT_EQ(detail::choose_dtype_for(kS32 - 1.0, true, o, &why), Dtype::Int32);
  EXPECT_NE(why.find("< 2^30-1"), std::string::npos) << why;
  EXPECT_EQ(detail::choose_dtype_for(kS32, true, o, &why), Dtype::Int64);
  EXPECT_NE(why.find("reaches 2^30-1"), std::string::npos) << why;
  EXPECT_EQ(detail::choose_dtype_for(1.5, false, o, &why), Dtype::Float64);
  EXPECT_EQ(why, "fractional weights");
  EXPECT_THROW(detail::choose_dtype_for(double(kS64), true, o), UsageError);
  EXPECT_THROW(detail::choose_dtype_for(std::numeric_limits<double>::infinity(), true, o),
               UsageError);
  SolveOptions asked;
  asked.dtype = Dtype::Int32;
  EXPECT_THROW(detail::choose_dtype_for(kS32, true, asked), UsageError);
  EXPECT_THROW(detail::choose_dtype_for(10, false, asked), UsageError);
  EXPECT_EQ(detail::choose_dtype_for(kS32 - 1.0, true, asked, &why), Dtype::Int32);
  EXPECT_EQ(why, "asked");
  asked.dtype = Dtype::Float32;
  EXPECT_EQ(detail::choose_dtype_for(1e20, true, asked), Dtype::Float32);
}

/// run_ladder's calls: (rounds type, result type, checked) per call.
struct Call {
  std::string t, r;
  bool checked;
};
template <class T>
std::string name_of() {
  return std::is_same_v<T, int>     ? "int"
         : std::is_same_v<T, long>  ? "long"
         : std::is_same_v<T, float> ? "float"
                                    : "double";
}

std::vector<Call> ladder_calls(Dtype dt, double max_w, bool keep_checked, std::string& rounds,
                               Timings& timings) {
  std::vector<Call> calls;
  detail::run_ladder(dt, max_w, 0, timings, rounds, [&](auto t, auto r, detail::Rung rung) {
    calls.push_back({name_of<typename decltype(t)::type>(), name_of<typename decltype(r)::type>(),
                     rung.checked});
    timings.h2d = 1;
    timings.compute = 2;
    if (rung.checked && !keep_checked) {
      rounds = detail::ladder_note::kInt32BandHit;
      return false;
    }
    return true;
  });
  return calls;
}

TEST(LadderRules, DispatchOnTheResultDtype) {
  std::string rounds;
  Timings t;
  auto calls = ladder_calls(Dtype::Int32, 5, true, rounds, t);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].t + calls[0].r, "intint");
  EXPECT_EQ(ladder_calls(Dtype::Float32, 5, true, rounds, t)[0].t, "float");
  EXPECT_EQ(ladder_calls(Dtype::Float64, 5, true, rounds, t)[0].t, "double");

  rounds.clear();
  calls = ladder_calls(Dtype::Int64, 5, true, rounds, t);  // the checked int32 rung holds
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].t + calls[0].r, "intlong");
  EXPECT_TRUE(calls[0].checked);

  t = Timings{};
  calls = ladder_calls(Dtype::Int64, 5, false, rounds, t);  // it fails its band check
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].t + calls[1].r, "longlong");
  EXPECT_FALSE(calls[1].checked);
  EXPECT_EQ(rounds, "int64 (int32 rounds checked: a distance may reach 2^30-1)");
  EXPECT_EQ(t.h2d, 2);  // the dropped pass counts too
  EXPECT_EQ(t.compute, 4);

  calls = ladder_calls(Dtype::Int64, kS32, true, rounds, t);  // weights at the cap: no rung
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].t + calls[0].r, "longlong");
  EXPECT_EQ(rounds, "int64 (weights reach 2^30-1)");
}

TEST(LadderRules, NotesAsStatsPrintThem) {
  namespace note = detail::ladder_note;
  EXPECT_EQ(std::string("int32") + note::kCheckedInt32, "int32 (checked; bound asked int64)");
  EXPECT_EQ(note::int64_because(note::kEvidenceReachesInt32),
            "int64 (a sampled distance reaches 2^30-1 - max w)");
  EXPECT_EQ(note::int64_because(note::kNoMemoryInt32),
            "int64 (no memory for int32 rounds beside the int64 result)");
  EXPECT_EQ(std::string(note::kInt16x2Fell) + "int32", "int16x2 -> int32");
  EXPECT_EQ(std::string(note::kInt16x2Skipped) + "int32",
            "int16x2 skipped: a sampled distance reaches 2^14-1 - max w; int32");
  EXPECT_EQ(std::string(note::kInt16x2Abandoned) + "int32",
            "int16x2 abandoned: a sampled distance reaches 2^14-1 - max w; int32");
}

}  // namespace
}  // namespace apsp
