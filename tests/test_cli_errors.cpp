// tests/test_cli_errors.cpp — bad input through the `apsp` command line (APSP_CLI), one test per
// case: a non-zero exit that is not a signal, exactly one line on stderr that names the input file
// (and the offset or line where there is one), and nothing left in the output directory — no
// output file and no temporary file. Both the NTHU drop-in `apsp IN OUT` and `apsp solve IN OUT`
// are run.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>

#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& s) {
  test::write_bytes(path, s.data(), s.size());
}

void write_nthu(const std::string& path, std::int32_t V, std::int32_t E,
                const std::vector<std::int32_t>& triples, std::size_t cut = 0) {
  std::vector<char> b(8 + 4 * triples.size());
  std::memcpy(b.data(), &V, 4);
  std::memcpy(b.data() + 4, &E, 4);
  if (!triples.empty()) std::memcpy(b.data() + 8, triples.data(), 4 * triples.size());
  b.resize(b.size() - cut);
  test::write_bytes(path, b.data(), b.size());
}

std::vector<std::string> dir_entries(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// Runs the drop-in and the solve form on `in` (a file in `dir`), writing to dir/out.bin, and
/// checks the contract. `where` is the location the message must contain ("" = none required),
/// `also` another piece it must contain.
void expect_clean_failure(const test::TempDir& dir, const std::string& in, const std::string& where,
                          const std::string& also = "") {
  const std::vector<std::string> before = dir_entries(dir.path());
  const std::string out = dir / "out.bin";
  const std::vector<std::vector<std::string>> forms{{in, out}, {"solve", in, out, "--quiet"}};
  for (const auto& args : forms) {
    const std::string form = args[0] == "solve" ? "apsp solve IN OUT" : "apsp IN OUT";
    const auto t0 = std::chrono::steady_clock::now();
    const test::CommandResult r = test::run_cli(args);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    SCOPED_TRACE(form + " on " + in + "; stderr: " + r.err);
    EXPECT_FALSE(r.signaled) << "killed by a signal (exit " << r.exit_code << ")";
    EXPECT_NE(r.exit_code, 0);
    EXPECT_LT(r.exit_code, 128);
    ASSERT_FALSE(r.err.empty()) << "nothing on stderr";
    EXPECT_EQ(r.err.back(), '\n');
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not exactly one line";
    EXPECT_EQ(r.err.rfind("apsp: error: ", 0), 0u);
    EXPECT_NE(r.err.find(in), std::string::npos) << "does not name the input file";
    if (!where.empty()) {
      EXPECT_NE(r.err.find(where), std::string::npos) << "does not say '" << where << "'";
    }
    if (!also.empty()) {
      EXPECT_NE(r.err.find(also), std::string::npos) << "does not say '" << also << "'";
    }
    EXPECT_EQ(dir_entries(dir.path()), before) << "output or temporary file left behind";
    EXPECT_LT(secs, 20.0) << "bad input should be refused at once";
  }
}

TEST(CliErrors, EmptyFile) {
  test::TempDir dir;
  write_text(dir / "in.bin", "");
  expect_clean_failure(dir, dir / "in.bin", "offset 0");
}

TEST(CliErrors, ShortHeader) {
  test::TempDir dir;
  write_text(dir / "in.bin", std::string("\x04\x00\x00\x00\x02\x00", 6));
  expect_clean_failure(dir, dir / "in.bin", "offset 4");
}

TEST(CliErrors, TruncatedEdgeList) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 4, 2, {0, 1, 5, 1, 2, 7}, 5);
  expect_clean_failure(dir, dir / "in.bin", "offset 27", "truncated");
}

TEST(CliErrors, EdgeCountDisagreesWithFileSize) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 4, 1, {0, 1, 5, 1, 2, 7});
  expect_clean_failure(dir, dir / "in.bin", "offset 20", "E = 1");
}

TEST(CliErrors, VertexCountNotPositive) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 0, 0, {});
  expect_clean_failure(dir, dir / "in.bin", "offset 0", "V = 0");
}

TEST(CliErrors, MatrixTooLargeToAllocate) {
  // V = 2^31-1 with one edge: the reader accepts it; the CLI must refuse before allocating V^2,
  // saying how many bytes it would need.
  test::TempDir dir;
  const std::int32_t V = std::numeric_limits<std::int32_t>::max();
  write_nthu(dir / "in.bin", V, 1, {0, V - 1, 1});
  expect_clean_failure(dir, dir / "in.bin", "", "bytes");
}

TEST(CliErrors, NegativeEdgeCount) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 4, -3, {});
  expect_clean_failure(dir, dir / "in.bin", "offset 4", "E = -3");
}

TEST(CliErrors, VertexIdsOutOfRange) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 4, 2, {0, 1, 5, 4, 2, 7});  // edge 1's src = V
  expect_clean_failure(dir, dir / "in.bin", "offset 20", "src = 4");
}

TEST(CliErrors, NonNumericText) {
  test::TempDir dir;
  write_text(dir / "in.txt", "# edges\n0 1 5\n1 two 7\n");
  expect_clean_failure(dir, dir / "in.txt", "line 3", "'two'");
}

TEST(CliErrors, IdOverflowsInt32) {
  test::TempDir dir;
  write_text(dir / "in.csv", "0,1,5\n4294967296,0,1\n");
  expect_clean_failure(dir, dir / "in.csv", "line 2", "int32");
}

TEST(CliErrors, MissingHeaderDimacs) {
  test::TempDir dir;
  write_text(dir / "in.gr", "c a comment\na 1 2 3\n");
  expect_clean_failure(dir, dir / "in.gr", "line 2", "p sp");
}

TEST(CliErrors, MissingHeaderMatrixMarket) {
  test::TempDir dir;
  write_text(dir / "in.mtx", "2 2 1\n1 2 3\n");
  expect_clean_failure(dir, dir / "in.mtx", "line 1", "%%MatrixMarket");
}

TEST(CliErrors, UnreadablePath) {
  test::TempDir dir;
  expect_clean_failure(dir, dir / "missing.bin", "", "No such file");
}

TEST(CliErrors, FailedRunKeepsThePreviousOutput) {
  test::TempDir dir;
  write_text(dir / "out.bin", "previous result");
  write_text(dir / "in.bin", "");
  expect_clean_failure(dir, dir / "in.bin", "offset 0");
  const auto b = test::read_bytes(dir / "out.bin");
  EXPECT_EQ(std::string(b.begin(), b.end()), "previous result");
}

TEST(CliErrors, UnwritableOutputDirectory) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", 2, 1, {0, 1, 3});
  const std::string out = dir / "no/such/dir/out.bin";
  const auto r = test::run_cli({dir / "in.bin", out});
  EXPECT_FALSE(r.signaled);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(out), std::string::npos) << "does not name the output path: " << r.err;
  EXPECT_EQ(dir_entries(dir.path()), std::vector<std::string>{"in.bin"});
}

TEST(CliErrors, BadOutputSettingIsOneLineBeforeTheSolve) {
  // APSP_WRITE_PREFILL is read when the writers open (after the input, before the solve): a bad
  // value is a usage error, and nothing is left behind.
  test::TempDir dir;
  write_nthu(dir / "in.bin", 3, 2, {0, 1, 5, 1, 2, 7});
  ::setenv("APSP_WRITE_PREFILL", "sometimes", 1);
  const auto r = test::run_cli({dir / "in.bin", dir / "out.bin"});
  ::unsetenv("APSP_WRITE_PREFILL");
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("APSP_WRITE_PREFILL='sometimes'"), std::string::npos) << r.err;
  EXPECT_EQ(dir_entries(dir.path()), std::vector<std::string>{"in.bin"});
}

TEST(CliErrors, GoodInputStillWorks) {
  // The control: the same harness on a valid file succeeds and leaves exactly the output.
  test::TempDir dir;
  write_nthu(dir / "in.bin", 3, 2, {0, 1, 5, 1, 2, 7});
  const auto r = test::run_cli({dir / "in.bin", dir / "out.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(dir_entries(dir.path()), (std::vector<std::string>{"in.bin", "out.bin"}));
  const auto b = test::read_bytes(dir / "out.bin");
  ASSERT_EQ(b.size(), 36u);
  std::int32_t d[9];
  std::memcpy(d, b.data(), 36);
  const std::int32_t inf = 1073741823;
  EXPECT_EQ(std::vector<std::int32_t>(d, d + 9),
            (std::vector<std::int32_t>{0, 5, 12, inf, 0, 7, inf, inf, 0}));
}

}  // namespace
}  // namespace apsp
