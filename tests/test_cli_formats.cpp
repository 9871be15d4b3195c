// tests/test_cli_formats.cpp — the `apsp` tool and file formats (issue 15), end to end: whatever
// `generate` writes, `solve` reads back as the same graph; unknown names are refused before any
// work, or read by content; weights are never rounded; text output says `inf` whatever the type;
// --vertices keeps isolated vertices.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "apsp/io.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& s) {
  test::write_bytes(path, s.data(), s.size());
}

std::string file_text(const std::string& path) {
  const auto b = test::read_bytes(path);
  return std::string(b.begin(), b.end());
}

/// A usage or input error: the exit code, one line on stderr that says `what`, nothing on stdout.
void expect_error(const test::CommandResult& r, int code, const std::string& what) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliFormats, GenerateWritesWhatTheNameSaysAndSolveReadsItBack) {
  // `apsp generate out.gr` wrote NTHU binary, which `apsp solve out.gr` could not parse.
  test::TempDir d;
  const std::vector<std::string> common{"-V", "70",     "-E", "300",    "--seed",
                                        "12", "--wmin", "-5", "--wmax", "90"};
  auto gen = [&](const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"generate", out};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  ASSERT_EQ(gen(d / "ref.bin").exit_code, 0);
  auto r = test::run_cli({"solve", d / "ref.bin", d / "ref.out", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto want = test::read_bytes(d / "ref.out");
  ASSERT_EQ(want.size(), 70u * 70u * 4u);
  EXPECT_GT(test::finite_off_diagonal(read_matrix(d / "ref.out")), 70);
  for (const char* name : {"g.gr", "g.mtx", "g.txt", "g.el", "g.wel", "g.csv", "g.tsv", "g.bin",
                           "g", "g.gr.gz", "g.mtx.gz", "g.txt.gz", "g.bin.gz"}) {
    const std::string in = d / name;
    r = gen(in);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    if (std::string(name) == "g.gr") {
      EXPECT_EQ(file_text(in).find("p sp 70 300"), file_text(in).find('\n') + 1);
    }
    if (std::string(name) == "g.mtx") {
      EXPECT_EQ(file_text(in).rfind("%%MatrixMarket matrix coordinate integer general", 0), 0u);
    }
    r = test::run_cli({"solve", in, d / "o.out", "--backend", "cpu", "-q"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(test::read_bytes(d / "o.out"), want)
        << name << " did not solve to the same distances";
  }
  // An explicit --format still works, and must agree with a name that says a format.
  ASSERT_EQ(gen(d / "x.dat", {"--format", "dimacs"}).exit_code, 0);
  EXPECT_EQ(file_text(d / "x.dat").find("p sp"), file_text(d / "x.dat").find('\n') + 1);
  expect_error(gen(d / "y.gr", {"--format", "edgelist"}), 2, "DIMACS");
  EXPECT_FALSE(fs::exists(d / "y.gr"));
}

TEST(CliFormats, GenerateRefusesNamesItCannotWrite) {
  test::TempDir d;
  expect_error(test::run_cli({"generate", d / "g.npy", "-V", "10", "-E", "20"}), 2,
               "a graph is not a matrix");
  expect_error(test::run_cli({"generate", d / "g.foo", "-V", "10", "-E", "20"}), 2, "--format");
  expect_error(test::run_cli({"generate", d / "g.bin", "--format", "xml"}), 2,
               "unknown graph format");
  EXPECT_TRUE(fs::is_empty(d.path())) << "a refused generate left a file";
}

TEST(CliFormats, EdgeListRoundTripKeepsIsolatedHighVertices) {
  // `apsp generate rt.txt -V 1000 -E 50 --format edgelist; apsp solve rt.txt rt.npy` gave 995 x
  // 995.
  test::TempDir d;
  auto r =
      test::run_cli({"generate", d / "rt.txt", "-V", "1000", "-E", "50", "--format", "edgelist"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"solve", d / "rt.txt", d / "rt.npy", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Matrix m = read_matrix(d / "rt.npy");
  EXPECT_EQ(m.rows(), 1000);
  EXPECT_EQ(m.cols(), 1000);
  // --vertices widens; an id beyond it is an error naming the line.
  write_text(d / "e.txt", "0 1 4\n1 2 5\n");
  r = test::run_cli(
      {"solve", d / "e.txt", d / "e.npy", "--vertices", "6", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_matrix(d / "e.npy").rows(), 6);
  expect_error(
      test::run_cli({"solve", d / "e.txt", d / "f.npy", "--vertices", "2", "--backend", "cpu"}), 3,
      "line 2: vertex id 2 is outside 0..1");
  EXPECT_FALSE(fs::exists(d / "f.npy"));
}

TEST(CliFormats, UnknownOutputExtensionIsRefusedBeforeTheSolve) {
  // `x.csv` silently got NTHU binary; now .csv is text with commas and an unknown name is refused.
  test::TempDir d;
  write_text(d / "g.txt", "0 1 5\n1 2 7\n");
  for (const char* out : {"x.foo", "x.json", "x.gz"}) {
    expect_error(test::run_cli({"solve", d / "g.txt", d / out, "--backend", "cpu"}), 2,
                 "--output-format");
    EXPECT_FALSE(fs::exists(d / out));
  }
  EXPECT_EQ(std::vector<std::string>{}, [&] {
    std::vector<std::string> stray;
    for (const auto& e : fs::directory_iterator(d.path()))
      if (e.path().filename() != "g.txt") stray.push_back(e.path().filename().string());
    return stray;
  }()) << "a refused output left files";
  auto r = test::run_cli({"solve", d / "g.txt", d / "x.csv", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(d / "x.csv"), "0,5,12\ninf,0,7\ninf,inf,0\n");
  r = test::run_cli(
      {"solve", d / "g.txt", d / "x.foo", "--output-format", "npy", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_matrix(d / "x.foo").at<std::int32_t>(0, 2), 12);
}

TEST(CliFormats, InputsAreReadByContentNotByLuck) {
  test::TempDir d;
  // GAPBS .wel was read as NTHU binary: "header says E = 540084789, so the file should be ...".
  write_text(d / "g.wel", "0 1 5\n1 2 7\n");
  auto r = test::run_cli({"solve", d / "g.wel", d / "o.txt", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(d / "o.txt"), "0 5 12\ninf 0 7\ninf inf 0\n");
  write_text(d / "g.data", "p sp 3 2\na 1 2 5\na 2 3 7\n");
  r = test::run_cli({"solve", d / "g.data", d / "o.txt", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(d / "o.txt"), "0 5 12\ninf 0 7\ninf inf 0\n");
  write_text(d / "g.foo", "just some prose\nand more of it\n");
  expect_error(test::run_cli({"solve", d / "g.foo", d / "o.bin", "--backend", "cpu"}), 3,
               "unknown format");
  std::string junk(64, '\x01');
  write_text(d / "j.foo", junk);
  expect_error(test::run_cli({"solve", d / "j.foo", d / "o.bin", "--backend", "cpu"}), 3,
               "--input-format");
  // The CSV cases: an empty field is an error, one header line is fine.
  write_text(d / "c.csv", "0,,5\n");
  expect_error(test::run_cli({"solve", d / "c.csv", d / "o.bin", "--backend", "cpu"}), 3,
               "line 1: column 2 is empty");
  write_text(d / "h.csv", "u,v,w\n0,1,5\n1,2,7\n");
  r = test::run_cli({"solve", d / "h.csv", d / "o.txt", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(d / "o.txt"), "0 5 12\ninf 0 7\ninf inf 0\n");
}

TEST(CliFormats, IntegerWeightsAreNeverRounded) {
  // 9007199254740993 became ...992 through double, even with --type int64.
  test::TempDir d;
  write_text(d / "g.txt", "0 1 9007199254740993\n");
  write_text(d / "g.mtx",
             "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 9007199254740993\n");
  write_text(d / "g.gr", "p sp 2 1\na 1 2 9007199254740993\n");
  for (const char* name : {"g.txt", "g.mtx", "g.gr"})
    expect_error(
        test::run_cli({"solve", d / name, d / "o.npy", "--type", "int64", "--backend", "cpu"}), 3,
        "weight 9007199254740993 is beyond 2^53, which apsp holds exactly");
  EXPECT_FALSE(fs::exists(d / "o.npy"));
}

TEST(CliFormats, TextOutputSaysInfWhateverTheType) {
  // Unreachable was 1073741823, 4611686018427387903 or inf depending on the type.
  test::TempDir d;
  write_text(d / "g.txt", "0 1 5\n1 2 7\n");
  std::string first;
  for (const char* type : {"int32", "int64", "float32", "float64"}) {
    const auto r = test::run_cli(
        {"solve", d / "g.txt", d / "o.txt", "--type", type, "--backend", "cpu", "-q"});
    ASSERT_EQ(r.exit_code, 0) << type << ": " << r.err;
    const std::string t = file_text(d / "o.txt");
    EXPECT_EQ(t, "0 5 12\ninf 0 7\ninf inf 0\n") << type;
  }
}

// solve() calls detail::check_float_weights_fit (src/core/float_bound.hpp) once the dtype is
// chosen.
TEST(CliFormats, FloatSumsThatWouldOverflowAreRefusedBeforeTheSolve) {
  test::TempDir d;
  write_text(d / "g.txt", "0 1 1e308\n1 2 1e308\n2 0 0.5\n");  // d(0,2) = 2e308 became inf
  expect_error(test::run_cli({"solve", d / "g.txt", d / "o.npy", "--backend", "cpu"}), 2,
               "overflow to inf");
  write_text(d / "h.txt", "0 1 1e39\n");  // lost the edge in float32
  expect_error(
      test::run_cli({"solve", d / "h.txt", d / "o.npy", "--type", "float32", "--backend", "cpu"}),
      2, "--type float64");
  EXPECT_FALSE(fs::exists(d / "o.npy"));
}

}  // namespace
}  // namespace apsp
