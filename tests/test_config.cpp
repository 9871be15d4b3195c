// tests/test_config.cpp — the APSP_* table (src/core/config.hpp): parsing of every type,
// defaults, bad values as usage errors naming the variable, `apsp info --config`, and
// docs/configuration.md equal to `apsp info --config --markdown` (so the docs cannot drift).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "core/config.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using config::Knob;

std::vector<Knob> all_knobs() {
  std::vector<Knob> v;
  for (int k = 0; k < int(Knob::kCount); ++k) v.push_back(Knob(k));
  return v;
}

using test::ScopedEnv;

/// Every APSP_* variable unset for one test (a developer's shell may set some).
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (Knob k : all_knobs())
      saved_.emplace_back(std::make_unique<ScopedEnv>(config::name(k), nullptr));
  }
  void TearDown() override { saved_.clear(); }

 private:
  std::vector<std::unique_ptr<ScopedEnv>> saved_;
};

/// The message of the UsageError that f throws ("" if none is thrown).
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST_F(ConfigTest, DefaultsWhenUnset) {
  EXPECT_EQ(config::get_int(Knob::HostMemory), std::nullopt);
  EXPECT_EQ(config::get_double(Knob::ProgressDelay), 1.0);
  EXPECT_FALSE(config::get_bool(Knob::Trace));
  EXPECT_EQ(config::get_switch(Knob::DetachExit), std::nullopt);
  EXPECT_EQ(config::get_choice(Knob::CpuIsa), "auto");
  EXPECT_EQ(config::get_choice(Knob::CpuNext), "auto");
  EXPECT_FALSE(config::get_bool(Knob::CpuNextTrace));
  EXPECT_EQ(config::get_switch(Knob::CudaInt16), std::nullopt);
  EXPECT_TRUE(config::get_bool(Knob::CudaInt16Paths));
  EXPECT_EQ(config::get_switch(Knob::CudaGraph), std::nullopt);
  EXPECT_FALSE(config::get_shape(Knob::Grid).has_value());
  EXPECT_FALSE(config::get_bool(Knob::MgProfile));
  EXPECT_EQ(config::get_switch(Knob::MpiGpu), std::nullopt);
  EXPECT_EQ(config::get_int(Knob::WriteThreads), std::nullopt);
  EXPECT_EQ(config::get_switch(Knob::WritePreallocate), std::nullopt);
  EXPECT_EQ(config::get_choice(Knob::WriteMethod), "write");
  EXPECT_EQ(config::get_choice(Knob::WritePrefill), "auto");
  EXPECT_EQ(config::get_int(Knob::WritePrefillThreads), std::nullopt);
  EXPECT_EQ(config::get_text(Knob::BenchPython), "/usr/bin/python3");
  EXPECT_EQ(config::get_text(Knob::BenchScipyScript), "");
  for (Knob k : all_knobs()) EXPECT_FALSE(config::is_set(k)) << config::name(k);
  EXPECT_NO_THROW(config::check_all());
}

TEST_F(ConfigTest, EmptyIsTheDefault) {
  const ScopedEnv a("APSP_CUDA_INT16_PATHS", ""), b("APSP_CUDA_INT16", ""),
      c("APSP_PROGRESS_DELAY", "");
  EXPECT_TRUE(config::get_bool(Knob::CudaInt16Paths));
  EXPECT_EQ(config::get_switch(Knob::CudaInt16), std::nullopt);
  EXPECT_EQ(config::get_double(Knob::ProgressDelay), 1.0);
  EXPECT_FALSE(config::is_set(Knob::CudaInt16));
}

TEST_F(ConfigTest, BoolWords) {
  for (const char* yes : {"1", "true", "TRUE", "On", "yes", "YES"}) {
    const ScopedEnv e("APSP_TRACE", yes);
    EXPECT_TRUE(config::get_bool(Knob::Trace)) << yes;
  }
  for (const char* no : {"0", "false", "False", "off", "no", "NO"}) {
    const ScopedEnv e("APSP_CUDA_INT16_PATHS", no);
    EXPECT_FALSE(config::get_bool(Knob::CudaInt16Paths)) << no;
  }
  for (const char* bad : {"2", "10", "tru", "yes please", " 1", "auto"}) {
    const ScopedEnv e("APSP_MG_PROFILE", bad);
    const std::string what = usage_error([] { (void)config::get_bool(Knob::MgProfile); });
    EXPECT_NE(what.find(std::string("APSP_MG_PROFILE='") + bad + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("expected 1/0/true/false/on/off/yes/no"), std::string::npos) << what;
  }
}

TEST_F(ConfigTest, SwitchIsABoolOrAuto) {
  {
    const ScopedEnv e("APSP_CUDA_INT16", "1");
    EXPECT_EQ(config::get_switch(Knob::CudaInt16), std::optional<bool>(true));
  }
  {
    // Before the table, "true" read as off (only a leading '1' forced int16x2).
    const ScopedEnv e("APSP_CUDA_INT16", "true");
    EXPECT_EQ(config::get_switch(Knob::CudaInt16), std::optional<bool>(true));
  }
  {
    const ScopedEnv e("APSP_MPI_GPU", "off");
    EXPECT_EQ(config::get_switch(Knob::MpiGpu), std::optional<bool>(false));
  }
  {
    const ScopedEnv e("APSP_WRITE_PREALLOCATE", "AUTO");
    EXPECT_EQ(config::get_switch(Knob::WritePreallocate), std::nullopt);
  }
  const ScopedEnv e("APSP_DETACH_EXIT", "sometimes");
  const std::string what = usage_error([] { (void)config::get_switch(Knob::DetachExit); });
  EXPECT_NE(
      what.find("APSP_DETACH_EXIT='sometimes': expected 1/0/true/false/on/off/yes/no or auto"),
      std::string::npos)
      << what;
}

TEST_F(ConfigTest, IntegersWithLowerBoundsAndAuto) {
  {
    const ScopedEnv e("APSP_HOST_MEMORY", "4096");
    EXPECT_EQ(config::get_int(Knob::HostMemory), std::optional<std::int64_t>(4096));
  }
  {
    const ScopedEnv e("APSP_HOST_MEMORY", "9223372036854775807");
    EXPECT_EQ(config::get_int(Knob::HostMemory), std::optional<std::int64_t>(INT64_MAX));
  }
  {
    const ScopedEnv e("APSP_WRITE_THREADS", "0");  // 0 is allowed here (one write at a time)
    EXPECT_EQ(config::get_int(Knob::WriteThreads), std::optional<std::int64_t>(0));
  }
  {
    const ScopedEnv e("APSP_WRITE_THREADS", "auto");
    EXPECT_EQ(config::get_int(Knob::WriteThreads), std::nullopt);
  }
  {
    const ScopedEnv e("APSP_WRITE_PREFILL_THREADS", "0");  // at least 1 here
    const std::string what = usage_error([] { (void)config::get_int(Knob::WritePrefillThreads); });
    EXPECT_NE(
        what.find("APSP_WRITE_PREFILL_THREADS='0': expected an integer >= 1 (threads) or auto"),
        std::string::npos)
        << what;
  }
  for (const char* bad : {"0", "-1", "1.5", "abc", "12k", " 5", "+5", "9223372036854775808",
                          "99999999999999999999"}) {
    const ScopedEnv e("APSP_HOST_MEMORY", bad);
    const std::string what = usage_error([] { (void)config::get_int(Knob::HostMemory); });
    EXPECT_NE(what.find(std::string("APSP_HOST_MEMORY='") + bad + "'"), std::string::npos)
        << bad << ": " << what;
    EXPECT_NE(what.find("(bytes)"), std::string::npos) << what;
  }
}

TEST_F(ConfigTest, Doubles) {
  for (const auto& [text, want] :
       std::vector<std::pair<const char*, double>>{{"0", 0}, {"2.5", 2.5}, {"-1", -1}}) {
    const ScopedEnv e("APSP_PROGRESS_DELAY", text);
    EXPECT_EQ(config::get_double(Knob::ProgressDelay), want) << text;
  }
  for (const char* bad : {"abc", "1s", "inf", "nan", "1e999"}) {
    const ScopedEnv e("APSP_PROGRESS_DELAY", bad);
    const std::string what = usage_error([] { (void)config::get_double(Knob::ProgressDelay); });
    EXPECT_NE(
        what.find(std::string("APSP_PROGRESS_DELAY='") + bad + "': expected a number (seconds)"),
        std::string::npos)
        << what;
  }
}

TEST_F(ConfigTest, ChoicesAreCaseInsensitiveWords) {
  {
    const ScopedEnv e("APSP_WRITE_METHOD", "MMAP");
    EXPECT_EQ(config::get_choice(Knob::WriteMethod), "mmap");
  }
  {
    const ScopedEnv e("APSP_WRITE_PREFILL", "0");
    EXPECT_EQ(config::get_choice(Knob::WritePrefill), "0");
  }
  {
    const ScopedEnv e("APSP_CPU_NEXT", "tracked");
    EXPECT_EQ(config::get_choice(Knob::CpuNext), "tracked");
    EXPECT_TRUE(config::is_set(Knob::CpuNext));
  }
  // "auto" only where the default is auto; a prefix of a word is not the word.
  for (const auto& [var, bad] :
       std::vector<std::pair<const char*, const char*>>{{"APSP_WRITE_METHOD", "auto"},
                                                        {"APSP_WRITE_METHOD", "splice"},
                                                        {"APSP_CPU_ISA", "avx"},
                                                        {"APSP_CPU_ISA", "avx5122"},
                                                        {"APSP_WRITE_METHOD", "write|mmap"},
                                                        {"APSP_WRITE_PREFILL", "yes"}}) {
    const ScopedEnv e(var, bad);
    const std::string what = usage_error([] { config::check_all(); });
    EXPECT_NE(what.find(std::string(var) + "='" + bad + "': expected one of "), std::string::npos)
        << what;
  }
}

TEST_F(ConfigTest, TextIsKeptAsWritten) {
  const ScopedEnv e("APSP_PYTHON", "/opt/Python 3/bin/python3");
  EXPECT_EQ(config::get_text(Knob::BenchPython), "/opt/Python 3/bin/python3");
}

TEST_F(ConfigTest, GridShapes) {
  {
    const ScopedEnv e("APSP_GRID", "4x1");
    const auto s = config::get_shape(Knob::Grid);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->rows * 10 + s->cols, 41);
  }
  {
    const ScopedEnv e("APSP_GRID", "2X3");
    const auto s = config::get_shape(Knob::Grid);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->rows * 10 + s->cols, 23);
  }
  for (const char* bad : {"2x", "x2", "0x4", "2x2x1", "two", "2x2 ", "-1x-4", "3000000000x1"}) {
    const ScopedEnv e("APSP_GRID", bad);
    const std::string what = usage_error([] { (void)config::get_shape(Knob::Grid); });
    EXPECT_NE(what.find(std::string("APSP_GRID='") + bad + "': expected RxC"), std::string::npos)
        << what;
  }
}

TEST_F(ConfigTest, FollowsTheEnvironmentAsItChanges) {
  // Tests (and Python programs) set variables between solves: each change is seen.
  ::setenv("APSP_CUDA_GRAPH", "1", 1);
  EXPECT_EQ(config::get_switch(Knob::CudaGraph), std::optional<bool>(true));
  ::setenv("APSP_CUDA_GRAPH", "0", 1);
  EXPECT_EQ(config::get_switch(Knob::CudaGraph), std::optional<bool>(false));
  ::setenv("APSP_CUDA_GRAPH", "bad", 1);
  EXPECT_THROW((void)config::get_switch(Knob::CudaGraph), UsageError);
  EXPECT_THROW(config::check_all(), UsageError);
  ::unsetenv("APSP_CUDA_GRAPH");
  EXPECT_EQ(config::get_switch(Knob::CudaGraph), std::nullopt);
  EXPECT_NO_THROW(config::check_all());
}

TEST_F(ConfigTest, ConcurrentReaders) {
  const ScopedEnv e("APSP_WRITE_THREADS", "7");
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 2000; ++i)
        wrong[t] += config::get_int(Knob::WriteThreads) != std::optional<std::int64_t>(7);
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST_F(ConfigTest, ReadingAsTheWrongTypeIsAProgrammingError) {
  EXPECT_THROW((void)config::get_bool(Knob::CudaInt16), std::logic_error);
  EXPECT_THROW((void)config::get_int(Knob::ProgressDelay), std::logic_error);
}

TEST_F(ConfigTest, DescribeListsEveryKnobWithItsSource) {
  const ScopedEnv a("APSP_WRITE_METHOD", "mmap"), b("APSP_GRID", "two");
  const std::string text = config::describe(false);
  std::istringstream lines(text);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    const std::string name = line.substr(0, line.find(' '));
    if (name == "APSP_WRITE_METHOD")
      EXPECT_NE(line.find("mmap (env)"), std::string::npos) << line;
    else if (name == "APSP_GRID")
      EXPECT_NE(line.find("'two' (env, invalid)"), std::string::npos) << line;
    else
      EXPECT_NE(line.find("(default)"), std::string::npos) << line;
  }
  EXPECT_EQ(n, int(Knob::kCount));
  for (Knob k : all_knobs())
    EXPECT_NE(text.find(std::string(config::name(k)) + " "), std::string::npos);
}

// ---- the CLI ---------------------------------------------------------------------------------

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST_F(ConfigTest, DocsAreTheTable) {
  const auto r = test::run_cli({"info", "--config", "--markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string doc = std::string(APSP_SOURCE_DIR) + "/docs/configuration.md";
  EXPECT_EQ(read_text(doc), r.out) << doc << " is out of date: regenerate it with\n"
                                   << "  apsp info --config --markdown > docs/configuration.md";
  for (Knob k : all_knobs())
    EXPECT_NE(r.out.find(std::string("| `") + config::name(k) + "` |"), std::string::npos);
}

TEST_F(ConfigTest, InfoConfigListsEveryKnob) {
  const ScopedEnv e("APSP_TRACE", "yes");
  const auto r = test::run_cli({"info", "--config"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (Knob k : all_knobs())
    EXPECT_NE(r.out.find(std::string(config::name(k)) + " "), std::string::npos);
  EXPECT_NE(r.out.find("yes (env)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("write (default)"), std::string::npos) << r.out;
}

TEST_F(ConfigTest, InfoConfigMarksABadValueAndFails) {
  const ScopedEnv e("APSP_CPU_NEXT", "fast");
  const auto r = test::run_cli({"info", "--config"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("'fast' (env, invalid)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "apsp: error: APSP_CPU_NEXT='fast': expected one of auto|edges|tracked\n");
}

TEST_F(ConfigTest, CliRefusesABadValueUpFront) {
  // Each bad value stops `apsp solve` before it reads or writes anything: one line, exit 2. Some
  // of these were read only on some paths before (or silently taken as off).
  test::TempDir dir;
  const std::int32_t nthu[] = {3, 2, 0, 1, 5, 1, 2, 7};
  test::write_bytes(dir / "in.bin", nthu, sizeof nthu);
  for (const auto& [var, bad] :
       std::vector<std::pair<const char*, const char*>>{{"APSP_WRITE_THREADS", "abc"},
                                                        {"APSP_CUDA_INT16", "maybe"},
                                                        {"APSP_PROGRESS_DELAY", "soon"},
                                                        {"APSP_GRID", "2by2"},
                                                        {"APSP_HOST_MEMORY", "-5"}}) {
    const ScopedEnv e(var, bad);
    const auto r = test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--backend", "cpu"});
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(r.exit_code, 2) << var << ": " << r.err;
    EXPECT_EQ(r.err.rfind("apsp: error: " + std::string(var) + "='" + bad + "': expected ", 0), 0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out.bin")) << var;
  }
  // The control: the same run with good values writes the output.
  const ScopedEnv t("APSP_WRITE_THREADS", "2"), g("APSP_CUDA_INT16", "off");
  const auto ok = test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--backend", "cpu"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(std::filesystem::file_size(dir / "out.bin"), 9u * 4u);
}

}  // namespace
}  // namespace apsp
