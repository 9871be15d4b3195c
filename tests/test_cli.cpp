// tests/test_cli.cpp — the `apsp` tool end to end: the drop-in, output formats, --paths + `apsp
// path`, --verify, --stats, generate, info, usage errors. Bad-input cases: test_cli_errors.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <fstream>

#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

std::string make_graph(const test::TempDir& d, std::int64_t V, std::int64_t E,
                       std::uint64_t seed = 3) {
  const std::string in = d / "g.bin";
  const auto r = test::run_cli({"generate", in, "-V", std::to_string(V), "-E", std::to_string(E),
                                "--seed", std::to_string(seed), "--wmax", "100"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return in;
}

TEST(Cli, DropInMatchesSolveAndLibrary) {
  test::TempDir d;
  const std::string in = make_graph(d, 300, 3000);
  auto r = test::run_cli({in, d / "a.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  r = test::run_cli({"solve", in, d / "b.bin", "--backend", "cpu", "--block", "32", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_bytes(d / "a.bin"), test::read_bytes(d / "b.bin"));
  const Result lib = solve(read_graph(in));
  const Matrix m = read_matrix(d / "a.bin");
  EXPECT_EQ(test::compare(m, lib.dist), "");
  EXPECT_GT(test::finite_off_diagonal(m), 300);
}

TEST(Cli, NpyAndTextOutputsHoldTheSameDistances) {
  test::TempDir d;
  const std::string in = make_graph(d, 120, 800);
  ASSERT_EQ(test::run_cli({in, d / "a.bin"}).exit_code, 0);
  ASSERT_EQ(test::run_cli({"solve", in, d / "a.npy"}).exit_code, 0);
  ASSERT_EQ(test::run_cli({"solve", in, d / "a.txt"}).exit_code, 0);
  const Matrix a = read_matrix(d / "a.bin"), b = read_matrix(d / "a.npy");
  EXPECT_EQ(test::compare(b, a), "");
  std::ifstream t(d / "a.txt");
  std::int64_t v = 0, count = 0;
  bool same = true;
  while (t >> v) {
    same &= v == a.at<std::int32_t>(count / 120, count % 120);
    ++count;
  }
  EXPECT_EQ(count, 120 * 120);
  EXPECT_TRUE(same);
}

TEST(Cli, PathsWritesNextHopsAndPathPrintsAValidPath) {
  test::TempDir d;
  const std::string in = make_graph(d, 90, 400);
  auto r = test::run_cli({"solve", in, d / "dist.npy", "--paths"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(d / "dist.next.npy"));
  const Graph g = read_graph(in);
  const Matrix dist = read_matrix(d / "dist.npy");
  int checked = 0;
  for (int i = 0; i < 90 && checked < 5; ++i)
    for (int j = 0; j < 90 && checked < 5; ++j) {
      if (i == j || dist.at<std::int32_t>(i, j) >= kNthuInf || dist.at<std::int32_t>(i, j) < 150)
        continue;
      r = test::run_cli({"path", d / "dist.npy", std::to_string(i), std::to_string(j)});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      // "a -> b -> c\nlength: L\n": check the hops are edges whose weights sum to L.
      std::vector<std::int64_t> p;
      std::istringstream is(r.out);
      std::string tok;
      while (is >> tok && tok != "length:")
        if (tok != "->") p.push_back(std::stoll(tok));
      std::int64_t len = -1;
      is >> len;
      ASSERT_GE(p.size(), 2u);
      EXPECT_EQ(p.front(), i);
      EXPECT_EQ(p.back(), j);
      EXPECT_EQ(len, dist.at<std::int32_t>(i, j));
      double sum = 0;
      for (std::size_t k = 0; k + 1 < p.size(); ++k) {
        double best = INFINITY;
        for (std::size_t e = 0; e < g.num_edges(); ++e)
          if (g.src[e] == p[k] && g.dst[e] == p[k + 1]) best = std::min(best, g.weight[e]);
        ASSERT_TRUE(std::isfinite(best)) << "no edge " << p[k] << " -> " << p[k + 1];
        sum += best;
      }
      EXPECT_EQ(sum, double(len));
      ++checked;
    }
  EXPECT_EQ(checked, 5);
  // Raw NTHU output: the next-hop file is OUT.next.
  ASSERT_EQ(test::run_cli({"solve", in, d / "dist.bin", "--paths"}).exit_code, 0);
  EXPECT_TRUE(fs::exists(d / "dist.bin.next"));
  EXPECT_EQ(fs::file_size(d / "dist.bin.next"), 90u * 90u * 4u);
}

TEST(Cli, VerifyAndStats) {
  test::TempDir d;
  const std::string in = make_graph(d, 200, 2000);
  auto r = test::run_cli({"solve", in, d / "o.bin", "--verify", "--stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Verification: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("compute"), std::string::npos) << r.err;
  r = test::run_cli({"solve", in, d / "o.bin", "--stats", d / "stats.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto js = test::read_bytes(d / "stats.json");
  const std::string s(js.begin(), js.end());
  EXPECT_NE(s.find("\"vertices\": 200"), std::string::npos) << s;
  EXPECT_NE(s.find("\"compute_s\""), std::string::npos) << s;
}

TEST(Cli, GenerateIsDeterministicPerSeed) {
  test::TempDir d;
  for (const char* kind : {"uniform", "rmat", "grid"}) {
    std::vector<std::string> extra;
    if (std::string(kind) == "uniform") extra = {"-V", "500", "-E", "4000"};
    if (std::string(kind) == "rmat") extra = {"--scale", "8", "-E", "2000"};
    if (std::string(kind) == "grid") extra = {"--rows", "10", "--cols", "12"};
    for (const char* name : {"x", "y"}) {
      std::vector<std::string> args{"generate", d / name, "--kind", kind, "--seed", "9"};
      args.insert(args.end(), extra.begin(), extra.end());
      const auto r = test::run_cli(args);
      ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
    }
    EXPECT_EQ(test::read_bytes(d / "x"), test::read_bytes(d / "y")) << kind;
    EXPECT_GT(read_graph(d / "x").num_edges(), 100u) << kind;
  }
}

TEST(Cli, ProgressOnATerminalOnlyAndQuietSilencesIt) {
  // `script` gives the CLI a terminal on stderr; APSP_PROGRESS_DELAY=0 shows progress at once.
  const std::string script = "/usr/bin/script", env = "/usr/bin/env";
  if (!fs::exists(script) || !fs::exists(env))
    GTEST_SKIP() << "no /usr/bin/script (bsdutils): terminal progress not checked";
  test::TempDir d;
  const std::string in = make_graph(d, 700, 5000);
  const std::string cmd = env + " APSP_PROGRESS_DELAY=0 " + APSP_CLI + " solve " + in + " " +
                          (d / "o.bin") + " --backend cpu --block 32";
  auto r = test::run_program(script, {"-qec", cmd, "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("apsp: round 22/22 (100%)"), std::string::npos) << r.out;
  r = test::run_program(script, {"-qec", cmd + " --quiet", "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("apsp: round"), std::string::npos) << r.out;
  // Not a terminal: nothing on stderr even with no delay.
  r = test::run_program(
      env, {"APSP_PROGRESS_DELAY=0", APSP_CLI, "solve", in, d / "o.bin", "--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Cli, InfoListsBackends) {
  const auto r = test::run_cli({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu"), std::string::npos);
  EXPECT_NE(r.out.find("cuda"), std::string::npos);
}

TEST(Cli, UsageErrorsAreOneLineWithExitCode2) {
  test::TempDir d;
  const std::string in = make_graph(d, 50, 200);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"solve", in},
                                               {"solve", in, d / "o", "--backend", "tpu"},
                                               {"solve", in, d / "o", "--type", "int8"},
                                               {"solve", in, d / "o", "--bogus"},
                                               {"generate", d / "g", "--kind", "torus"}}) {
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(d / "o"));
  }
}

TEST(Cli, UnavailableBackendIsAClearError) {
  test::TempDir d;
  const std::string in = make_graph(d, 50, 200);
  bool cuda_usable = false;
  for (const auto& b : backends()) cuda_usable |= b.name == "cuda" && b.usable;
  if (cuda_usable) GTEST_SKIP() << "a GPU is usable here: nothing to refuse";
  const auto r = test::run_cli({"solve", in, d / "o", "--backend", "cuda"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("cuda"), std::string::npos);
  EXPECT_FALSE(fs::exists(d / "o"));
}

}  // namespace
}  // namespace apsp
