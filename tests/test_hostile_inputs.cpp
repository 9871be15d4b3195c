// tests/test_hostile_inputs.cpp — issue 36's hostile inputs through the CLI: tiny files that
// promise huge graphs answer at once in little memory (peak RSS of the child from wait4), a
// misplaced Matrix Market banner is refused, `apsp path` bounds and cross-checks its next-hop
// file, --help/--version report write errors, a plain solve removes a dead OUT.next temp.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/formats.hpp"
#include "support.hpp"

namespace {

using apsp::test::TempDir;
using apsp::test::write_bytes;

struct Measured {
  int exit_code = -1;
  long peak_kb = 0;  // the child's ru_maxrss
  double seconds = 0;
  std::string err;
};

/// Runs the CLI with `env` added (NAME=VALUE), stdout to /dev/null, stderr kept.
Measured run_measured(const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  TempDir io;
  const std::string err_path = io / "err";
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen(err_path.c_str(), "w", stderr))
      _exit(127);
    std::vector<char*> argv{const_cast<char*>(APSP_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(APSP_CLI, argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  Measured r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_kb = ru.ru_maxrss;
  const auto bytes = apsp::test::read_bytes(err_path);
  r.err.assign(bytes.begin(), bytes.end());
  return r;
}

constexpr long kTinyPeakKb = 100 * 1024;  // a tiny input answers under 100 MB

void expect_one_line(const Measured& r, const std::string& part) {
  EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("apsp: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

void write_nthu(const std::string& path, const std::vector<std::int32_t>& words) {
  write_bytes(path, words.data(), words.size() * 4);
}

// Finding 1: the header's V = 65536 (a 16 GiB matrix) was faulted in before the edge check.
TEST(HostileInputs, NthuEdgeOutsideVAnswersInLittleMemory) {
  TempDir d;
  write_nthu(d / "bad.bin", {65536, 1, 0, 262144, 1});
  const Measured r = run_measured({"solve", d / "bad.bin", d / "o.bin"});
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line(r, "dst = 262144 is outside 0..65535");
  EXPECT_LT(r.peak_kb, kTinyPeakKb);
  EXPECT_LT(r.seconds, 5.0);
}

// Finding 1: a header refused by APSP_HOST_MEMORY still peaked at the matrix's 1.6 GB.
TEST(HostileInputs, NthuHeaderOverHostMemoryIsNotFaultedIn) {
  TempDir d;
  write_nthu(d / "h.bin", {20000, 0});
  const Measured r =
      run_measured({"solve", d / "h.bin", d / "o.bin"}, {"APSP_HOST_MEMORY=200000000"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_line(r, "V = 20000 needs 1600000000 bytes (1.5 GiB)");
  EXPECT_LT(r.peak_kb, kTinyPeakKb);
}

// Finding 1: Johnson's per-vertex work ran before the matrix-size check (5.4 GB, 5.7 s).
TEST(HostileInputs, NegativeWeightWithHugeIdRefusedBeforeJohnson) {
  TempDir d;
  const std::string text = "0 1 -1\n1 134217727 5\n";
  write_bytes(d / "n.txt", text.data(), text.size());
  const Measured r = run_measured({"solve", d / "n.txt", d / "o.bin"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_line(r, "V = 134217728 needs");
  EXPECT_LT(r.peak_kb, kTinyPeakKb);
  EXPECT_LT(r.seconds, 5.0);
}

// Finding 8: "needs 36192256 bytes (0 GiB)".
TEST(HostileInputs, MemoryMessageSaysMiBBelowOneGiB) {
  TempDir d;
  write_nthu(d / "g.bin", {3000, 0});
  const Measured r =
      run_measured({"solve", d / "g.bin", d / "o.bin"}, {"APSP_HOST_MEMORY=1000000"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_line(r, "needs 36000000 bytes (34.3 MiB)");
}

// Finding 1: gzip inflates at most half the memory, and the edges parsed count too.
TEST(HostileInputs, GzipEdgesCountAgainstTheMemoryRule) {
  TempDir d;
  std::string text;
  for (int k = 0; k < 200000; ++k) text += "0 1 1\n";  // 1.2 MB -> 200000 edges (6.4 MB read)
  const auto gz = apsp::io::gzip_compress(text.data(), text.size(), "g.txt.gz");
  write_bytes(d / "g.txt.gz", gz.data(), gz.size());
  Measured r = run_measured({"solve", d / "g.txt.gz", d / "o.bin"}, {"APSP_HOST_MEMORY=4000000"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_line(r, "lines of edges so far may need");  // stopped while inflating
  r = run_measured({"solve", d / "g.txt.gz", d / "o.bin"}, {"APSP_HOST_MEMORY=2000000"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_line(r, "half of APSP_HOST_MEMORY");
  r = run_measured({"solve", d / "g.txt.gz", d / "o.bin"}, {"APSP_HOST_MEMORY=100000000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Finding 3: Matrix Market text behind a blank line, a comment, blanks or byte-order marks was
// read as an edge list (its size line an edge, every vertex shifted).
TEST(HostileInputs, MisplacedMatrixMarketBannerIsRefused) {
  const std::string body =
      "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 5\n2 3 7\n3 1 3\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"g.txt", "\n" + body},
      {"g.txt", "% made by a tool\n" + body},
      {"g", "% made by a tool\n" + body},
      {"g.el", "  " + body},
      {"g", "\xEF\xBB\xBF\xEF\xBB\xBF" + body},
      {"g.txt", "\xFF\xFE" + body},
  };
  for (const auto& [name, text] : cases) {
    TempDir d;
    write_bytes(d / name, text.data(), text.size());
    const Measured r = run_measured({"solve", d / name, d / "o.txt"});
    EXPECT_EQ(r.exit_code, 3) << name << ": " << r.err;
    expect_one_line(r, "Matrix Market banner");
    EXPECT_FALSE(std::filesystem::exists(d / "o.txt"));
  }
  TempDir d;  // the banner where it belongs: read as Matrix Market
  write_bytes(d / "g.txt", body.data(), body.size());
  const Measured r = run_measured({"solve", d / "g.txt", d / "o.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto out = apsp::test::read_bytes(d / "o.txt");
  EXPECT_EQ(std::string(out.begin(), out.end()), "0 5 12\n10 0 7\n3 8 0\n");
}

/// d.bin and d.bin.next of a 6-vertex path 0 -> 1 -> ... -> 5 (weight 1 each).
void solve_path_graph(const TempDir& d) {
  std::vector<std::int32_t> g{6, 5};
  for (int v = 0; v < 5; ++v) g.insert(g.end(), {v, v + 1, 1});
  write_nthu(d / "g.bin", g);
  ASSERT_EQ(apsp::test::run_cli({"solve", d / "g.bin", d / "d.bin", "--paths"}).exit_code, 0);
}

// Finding 1: `--next /dev/zero` grew toward all of MemAvailable.
TEST(HostileInputs, PathNextFromEndlessDeviceIsBounded) {
  TempDir d;
  solve_path_graph(d);
  const Measured r = run_measured({"path", d / "d.bin", "0", "5", "--next", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line(r, "larger than the 65968 bytes that a next-hop matrix");
  EXPECT_LT(r.peak_kb, kTinyPeakKb);
}

// Finding 6: the next-hop file given as DIST too, and next hops that contradict the distances.
TEST(HostileInputs, PathRefusesMismatchedPair) {
  TempDir d;
  solve_path_graph(d);
  const std::string next = d / "d.bin.next";
  Measured r = run_measured({"path", next, "0", "5", "--next", next});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_line(r, "is the distance matrix");

  auto bytes = apsp::test::read_bytes(next);  // next[0][5] = -1 where d(0,5) = 5
  const std::int32_t none = -1;
  std::memcpy(bytes.data() + 4 * 5, &none, 4);
  write_bytes(d / "bad.next", bytes.data(), bytes.size());
  std::filesystem::last_write_time(d / "bad.next", std::filesystem::last_write_time(d / "d.bin"));
  r = run_measured({"path", d / "d.bin", "0", "5", "--next", d / "bad.next"});
  EXPECT_EQ(r.exit_code, 1);
  expect_one_line(r, "d(0,5) is finite but the next hops give none");
  r = run_measured({"path", d / "d.bin", "0", "5"});  // the real pair still answers
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Finding 7: --help / --version into /dev/full or a closed stdout exited 0 silently.
TEST(HostileInputs, HelpAndVersionReportWriteErrors) {
  for (const std::string flag : {"--help", "--version"})
    for (const std::string redirect : {" > /dev/full", " >&-"}) {
      const auto r =
          apsp::test::run_program("/bin/sh", {"-c", std::string(APSP_CLI) + " " + flag + redirect});
      EXPECT_EQ(r.exit_code, 1) << flag << redirect;
      EXPECT_NE(r.err.find("apsp: error: stdout: "), std::string::npos) << r.err;
    }
  EXPECT_EQ(apsp::test::run_cli({"--version"}).exit_code, 0);
}

// Finding 5: the next-hop temp of a killed `solve --paths` survived a later plain solve.
TEST(HostileInputs, PlainSolveRemovesDeadNextHopTemp) {
  TempDir d;
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string temp = d / (".o.bin.next.tmp." + std::to_string(dead) + ".1");
  write_bytes(temp, "x", 1);
  write_nthu(d / "g.bin", {2, 1, 0, 1, 3});
  ASSERT_EQ(apsp::test::run_cli({"solve", d / "g.bin", d / "o.bin"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_TRUE(apsp::test::temps_in(d.path()).empty());
}

}  // namespace

// Finding 8: a .npy under a text name or with --input-format nthu is named as a matrix (it got a
// parse error); weights whose sums overflow float64 are not told to use --type float64 (which
// was then refused); a trailing comma in --metrics is an empty name, as ",," is.
TEST(HostileInputs, MessagesNameWhatIsWrong) {
  TempDir d;
  // A 2 x 2 int32 .npy (format 1.0): magic, version, header length, header padded to 64 bytes.
  std::string npy("\x93NUMPY\x01\x00", 8);
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  npy.push_back(char(header.size() & 0xff));
  npy.push_back(char(header.size() >> 8));
  npy += header;
  npy.append(16, '\0');
  for (const char* name : {"m.txt", "m.gr", "m.mtx", "m.npy"}) {
    write_bytes(d / name, npy.data(), npy.size());
    const Measured r = run_measured({"solve", d / name, d / "o.bin"});
    EXPECT_EQ(r.exit_code, 3) << name;
    expect_one_line(r, "holds a matrix, not a graph");
  }
  const Measured forced =
      run_measured({"solve", d / "m.npy", d / "o.bin", "--input-format", "nthu"});
  EXPECT_EQ(forced.exit_code, 3);
  expect_one_line(forced, "holds a matrix, not a graph");

  const std::string big = "0 1 1e308\n1 2 1e308\n";
  write_bytes(d / "big.txt", big.data(), big.size());
  const Measured huge = run_measured({"solve", d / "big.txt", d / "o.bin"});
  EXPECT_EQ(huge.exit_code, 2);
  expect_one_line(huge, "scale the weights down");
  EXPECT_EQ(huge.err.find("--type float64"), std::string::npos) << huge.err;

  const std::string tri = "0 1 1\n1 2 1\n2 0 1\n";
  write_bytes(d / "t.txt", tri.data(), tri.size());
  for (const char* list : {"closeness,", "closeness,,harmonic", ",closeness", ""}) {
    const Measured m = run_measured({"metrics", d / "t.txt", "--metrics", list});
    EXPECT_EQ(m.exit_code, 2) << "'" << list << "'";
    expect_one_line(m, "unknown metric ''");
  }
  EXPECT_EQ(run_measured({"metrics", d / "t.txt", "--metrics", "closeness,harmonic"}).exit_code, 0);
}
