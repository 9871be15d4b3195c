// tests/test_cli_info.cpp — `apsp info`'s ceilings (issue 32): none shown until `apsp bench` has
// measured them on this machine (then dated, from the cache), and never figures from elsewhere.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support.hpp"

namespace apsp {
namespace {

TEST(CliInfo, CeilingsOnlyOnceMeasuredHere) {
  test::TempDir d;
  test::ScopedEnv cache("XDG_CACHE_HOME", d.path().c_str());
  auto r = test::run_cli({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("none measured on this machine"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("apsp bench --backend cpu"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("H100"), std::string::npos) << r.out;  // no other machine's figures

  r = test::run_cli({"bench", "--backend", "cpu", "--sizes", "64", "--trials", "1",
                     "--no-baselines", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("measured on this machine"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("G updates/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-"), std::string::npos) << r.out;  // dated (YYYY-MM-DD)
  EXPECT_EQ(r.out.find("none measured"), std::string::npos) << r.out;
}

TEST(CliInfo, OtherMachinesLinesAreNotShown) {
  test::TempDir d;
  test::ScopedEnv cache("XDG_CACHE_HOME", d.path().c_str());
  std::filesystem::create_directories(d.path() / "apsp");
  std::ofstream(d / "apsp/ceilings.tsv")
      << "2026-11-21\tother-host, Other CPU\tcuda NVIDIA H100\tint32\t16.6\tT updates/s\n";
  const auto r = test::run_cli({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("none measured on this machine"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace apsp
