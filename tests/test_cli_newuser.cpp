// tests/test_cli_newuser.cpp — what a new user types first (issue 33's friction list): a
// misspelt subcommand gets "did you mean solve?" instead of the course mode's file error, options
// before the course's `apsp IN OUT` are solve's options, and `apsp path` says vertex ids are
// 0-based when one is out of range.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "support.hpp"

namespace apsp {
namespace {

/// A 3-vertex NTHU graph 0 -> 1 (2), 1 -> 2 (3).
void write_small_nthu(const std::string& path) {
  const std::vector<std::int32_t> words{3, 2, 0, 1, 2, 1, 2, 3};
  test::write_bytes(path, words.data(), words.size() * sizeof(std::int32_t));
}

TEST(CliNewUser, MisspeltSubcommandIsSuggested) {
  const test::TempDir dir;
  const std::string in = dir / "g.bin";
  write_small_nthu(in);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"solv", "'solve'"}, {"sovle", "'solve'"}, {"metrcs", "'metrics'"}, {"gen", "'generate'"}};
  for (const auto& [typo, want] : cases) {
    const test::CommandResult r = test::run_cli({typo, in, dir / "out.npy"});
    SCOPED_TRACE(typo + ": " + r.err);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "apsp: error: '" + typo +
                         "' is neither a subcommand nor a file; did you mean " + want +
                         "? (see apsp --help)\n");
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out.npy"));
}

TEST(CliNewUser, AFileNamedLikeATypoIsStillTheCourseInput) {
  const test::TempDir dir;
  const std::string in = dir / "solv";  // a real file: `apsp IN OUT` as before
  write_small_nthu(in);
  const test::CommandResult r = test::run_cli({in, dir / "out.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_bytes(dir / "out.txt").empty(), false);
}

TEST(CliNewUser, OptionsBeforeTheCourseFormAreSolveOptions) {
  const test::TempDir dir;
  const std::string in = dir / "g.bin", out = dir / "out.bin";
  write_small_nthu(in);
  const test::CommandResult r = test::run_cli({"-q", in, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<char> bytes = test::read_bytes(out);
  ASSERT_EQ(bytes.size(), 9 * sizeof(std::int32_t));
  std::int32_t d[9];
  std::memcpy(d, bytes.data(), sizeof d);
  EXPECT_EQ(d[1], 2);  // 0 -> 1
  EXPECT_EQ(d[2], 5);  // 0 -> 1 -> 2
  EXPECT_EQ(d[3], 1073741823);
}

TEST(CliNewUser, HelpAndVersionStillNeedNoSubcommand) {
  const test::CommandResult v = test::run_cli({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, "apsp 0.1.0\n");
  const test::CommandResult h = test::run_cli({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("Subcommands:"), std::string::npos) << h.out;
}

TEST(CliNewUser, PathOutOfRangeSaysIdsAreZeroBased) {
  const test::TempDir dir;
  const std::string in = dir / "g.bin", out = dir / "d.bin";
  write_small_nthu(in);
  ASSERT_EQ(test::run_cli({"solve", in, out, "--paths", "-q"}).exit_code, 0);
  const test::CommandResult r = test::run_cli({"path", out, "0", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("vertex ids are 0-based: 0..2"), std::string::npos) << r.err;
  const test::CommandResult h = test::run_cli({"path", "--help"});
  EXPECT_NE(h.out.find("0-based"), std::string::npos) << h.out;
}

TEST(CliNewUser, UnknownSettingsAreWarnedAboutAndStatsShowsItsFile) {
  const test::TempDir dir;
  const std::string in = dir / "g.bin", out = dir / "d.bin";
  write_small_nthu(in);
  test::CommandResult r = test::run_program(
      "/usr/bin/env", {"APSP_PROGRES_DELAY=0", "APSP_THREADS=2", APSP_CLI, "solve", in, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("apsp: warning: APSP_PROGRES_DELAY is no apsp setting, ignored (did you "
                       "mean APSP_PROGRESS_DELAY?"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("apsp: warning: APSP_THREADS is no apsp setting"), std::string::npos)
      << r.err;
  r = test::run_program("/usr/bin/env", {"APSP_TRACE=0", APSP_CLI, "solve", in, out});
  EXPECT_EQ(r.err, "");
  const test::CommandResult h = test::run_cli({"solve", "--help"});
  EXPECT_NE(h.out.find("--stats [FILE]"), std::string::npos) << h.out;
}

}  // namespace
}  // namespace apsp
