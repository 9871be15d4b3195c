// tests/test_cli_robust.cpp — the `apsp` command line (APSP_CLI) under conditions its process
// meets outside the happy path: a file-size limit (SIGXFSZ), stop signals other than
// INT/TERM/HUP, stdout that cannot be written (/dev/full, a closed descriptor), a --stats file
// that cannot be written, and `apsp path` given a distance matrix and a next-hop file that were
// not written together (a stale OUT.next, a pair mixed by an interrupted or concurrent solve).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& p) {
  std::ifstream is(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
}

/// Runs the CLI with stdout to `out` ("" = a file of its own, read back), stderr to a file, and
/// `setup` run in the child just before exec (rlimits, closing descriptors).
test::CommandResult run_setup(const std::vector<std::string>& args,
                              const std::function<void()>& setup, const std::string& out = "") {
  test::TempDir io;
  const std::string out_path = out.empty() ? io / "out" : out, err_path = io / "err";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int i = ::open("/dev/null", O_RDONLY);
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (i < 0 || o < 0 || e < 0) ::_exit(127);
    ::dup2(i, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    if (setup) setup();
    std::vector<char*> argv{const_cast<char*>(APSP_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(APSP_CLI, argv.data());
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  test::CommandResult r;
  r.signaled = WIFSIGNALED(st);
  r.exit_code = r.signaled ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
  if (out.empty()) r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

std::string context(const test::CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.signaled ? " (signal)" : "") +
         "\nstdout: " + r.out.substr(0, 300) + "\nstderr: " + r.err;
}

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

/// The one-line failure contract: not a signal, the exit code, one "apsp: error:" line naming
/// `what`.
void expect_one_line(const test::CommandResult& r, int code, const std::string& what) {
  EXPECT_FALSE(r.signaled) << context(r);
  EXPECT_EQ(r.exit_code, code) << context(r);
  EXPECT_EQ(lines(r.err), 1) << context(r);
  EXPECT_EQ(r.err.rfind("apsp: error: ", 0), 0u) << context(r);
  EXPECT_NE(r.err.find(what), std::string::npos) << "does not say '" << what << "': " << context(r);
}

std::string generate(const test::TempDir& d, const std::string& name, int V, int E, int seed) {
  const std::string p = d / name;
  const auto r = test::run_cli({"generate", p, "-V", std::to_string(V), "-E", std::to_string(E),
                                "--seed", std::to_string(seed)});
  if (r.exit_code != 0) throw std::runtime_error("generate failed: " + r.err);
  return p;
}

// ---- a file-size limit --------------------------------------------------------------------------

TEST(CliRobust, FileSizeLimitIsAnErrorNotSigxfsz) {
  // `ulimit -f`: a write past the limit raised SIGXFSZ, which killed the process silently and
  // left its temporary file. Now: one error line, exit 1, no temporary file, no output.
  test::TempDir d;
  const std::string in = generate(d, "g.bin", 300, 3000, 1);  // 360000-byte results
  const fs::path out = d / "out";
  fs::create_directory(out);
  const auto limit = [] {
    const rlimit rl{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &rl);
  };
  const std::vector<std::vector<std::string>> runs{
      {"solve", in, (out / "o.bin").string(), "-q"},
      {"solve", in, (out / "o.txt").string(), "-q"},
      {"solve", in, (out / "o.npy").string(), "--paths", "-q"},
      {"generate", (out / "big.bin").string(), "-V", "2000", "-E", "100000"}};
  for (const auto& args : runs) {
    const std::string target = args[0] == "generate" ? args[1] : args[2];
    SCOPED_TRACE(target);
    const auto r = run_setup(args, limit);
    expect_one_line(r, 1, "File too large");
    EXPECT_NE(r.err.find(target), std::string::npos)
        << "the error does not name the output: " << r.err;
    EXPECT_TRUE(test::temps_in(out).empty()) << "temporary file left: " << test::temps_in(out)[0];
    EXPECT_FALSE(fs::exists(target));
  }
  EXPECT_TRUE(fs::is_empty(out));
}

// ---- stop signals -------------------------------------------------------------------------------

/// Starts a solve of a graph slow enough to be interrupted, waits for its temporary output, and
/// sends `sig`: the process dies of it and leaves no temporary file.
void interrupt_solve(int sig) {
  test::TempDir d, io;
  const std::string in = generate(d, "big.bin", 3000, 200000, 1);
  const fs::path outdir = d / "out";
  fs::create_directory(outdir);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int n = ::open("/dev/null", O_RDWR);
    ::dup2(n, 0);
    ::dup2(n, 1);
    ::dup2(n, 2);
    const rlimit no_core{0, 0};  // SIGQUIT's default action dumps core
    ::setrlimit(RLIMIT_CORE, &no_core);
    const std::string out = (outdir / "out.txt").string();
    ::execl(APSP_CLI, APSP_CLI, in.c_str(), out.c_str(), "-q", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const bool seen = test::wait_for_temp(outdir);
  EXPECT_TRUE(seen) << "no temporary output appeared";
  ::kill(pid, sig);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  EXPECT_TRUE(WIFSIGNALED(st)) << "status " << st;
  if (WIFSIGNALED(st)) {
    EXPECT_EQ(WTERMSIG(st), sig);
  }
  EXPECT_TRUE(test::temps_in(outdir).empty())
      << "temporary file left: " << test::temps_in(outdir)[0];
  EXPECT_FALSE(fs::exists(outdir / "out.txt"));
}

TEST(CliRobust, OtherStopSignalsRemoveTheTemporaryOutput) {
  for (int sig : {SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE}) {
    SCOPED_TRACE(strsignal(sig));
    interrupt_solve(sig);
  }
}

// ---- stdout and side files that cannot be written -----------------------------------------------

TEST(CliRobust, StdoutWriteErrorsAreReported) {
  test::TempDir d;
  const std::string in = generate(d, "g.bin", 60, 400, 1);
  ASSERT_EQ(test::run_cli({"solve", in, d / "p.bin", "--paths", "-q"}).exit_code, 0);
  const std::vector<std::vector<std::string>> runs{
      {"metrics", in, "-q"},
      {"path", d / "p.bin", "0", "5"},
      {"info"},
      {"info", "--config"},
      {"solve", in, d / "o.bin", "-q", "--stats", "-"}};
  for (const auto& args : runs) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    expect_one_line(run_setup(args, nullptr, "/dev/full"), 1, "stdout: No space left on device");
    // A closed stdout (`>&-`): the same, with the reason it has.
    expect_one_line(run_setup(args, [] { ::close(1); }), 1, "stdout: Bad file descriptor");
  }
  // Nothing on stdout, nothing to fail: `generate` and a plain solve with stdout closed.
  const auto r = run_setup({"solve", in, d / "o2.bin", "-q"}, [] { ::close(1); });
  EXPECT_EQ(r.exit_code, 0) << context(r);
  EXPECT_TRUE(fs::exists(d / "o2.bin"));
  // The output of a solve with stdout closed does not go to descriptor 1 (a file opened there
  // would receive the stats): the stats line is refused, the matrix is fine.
  const auto s = run_setup({"solve", in, d / "o3.bin", "-q", "--stats", "-"}, [] { ::close(1); });
  expect_one_line(s, 1, "stdout: Bad file descriptor");
  EXPECT_EQ(fs::file_size(d / "o3.bin"), 60u * 60u * 4u);
}

TEST(CliRobust, StatsFileWriteErrorsAreReported) {
  test::TempDir d;
  const std::string in = generate(d, "g.bin", 60, 400, 1);
  expect_one_line(test::run_cli({"solve", in, d / "o.bin", "-q", "--stats", "/dev/full"}), 1,
                  "/dev/full: write failed after 0 bytes");
  // A regular stats file is appended to, one JSON line per solve.
  for (int k = 0; k < 2; ++k) {
    const auto r = test::run_cli({"solve", in, d / "o.bin", "-q", "--stats", d / "s.json"});
    ASSERT_EQ(r.exit_code, 0) << context(r);
  }
  const std::string s = slurp(d / "s.json");
  EXPECT_EQ(lines(s), 2) << s;
  EXPECT_EQ(s.rfind("{\"input\": ", 0), 0u) << s;
}

TEST(CliRobust, BenchReportsItsOutputErrors) {
  test::TempDir d;
  const std::vector<std::string> bench{"bench", "--sizes",   "32", "--trials",
                                       "1",     "--threads", "1",  "--no-baselines"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = bench;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_one_line(test::run_cli(with({"--csv", "/dev/full"})), 1,
                  "/dev/full: write failed after 0 bytes");
  expect_one_line(run_setup(bench, nullptr, "/dev/full"), 1, "stdout: No space left on device");
  // A CSV file appears whole, at the end.
  const auto r = test::run_cli(with({"--csv", d / "b.csv"}));
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(slurp(d / "b.csv").rfind("V,dtype,variant,", 0), 0u);
  EXPECT_TRUE(test::temps_in(d.path()).empty());
}

// ---- apsp path: which files belong together -----------------------------------------------------

struct Pair {
  test::TempDir d;
  std::string g1, g2;
  explicit Pair(int V = 200)
      : g1(generate(d, "g1.bin", V, 8 * V, 1)), g2(generate(d, "g2.bin", V, 8 * V, 2)) {}
  test::CommandResult solve(const std::string& in, const std::string& out, bool paths) {
    std::vector<std::string> a{"solve", in, out, "-q", "--backend", "cpu"};
    if (paths) a.push_back("--paths");
    return test::run_cli(a);
  }
};

/// A pair of paths through 199 for each graph, as `apsp path` prints them for its own pair.
std::string path_of(const std::string& dist, const std::string& next = "") {
  std::vector<std::string> a{"path", dist, "0", "199"};
  if (!next.empty()) a.insert(a.end(), {"--next", next});
  const auto r = test::run_cli(a);
  return r.exit_code == 0 ? r.out : "rc " + std::to_string(r.exit_code) + ": " + r.err;
}

TEST(CliPathPairs, ASolveWithoutPathsRemovesTheNextHopsOfTheOutputItReplaces) {
  Pair p;
  const std::string out = p.d / "out.bin", next = out + ".next";
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  ASSERT_TRUE(fs::exists(next));
  EXPECT_EQ(path_of(out).rfind("0 -> ", 0), 0u);
  // The old OUT.next belonged to the OUT just replaced: it goes, so no path mixes the two.
  ASSERT_EQ(p.solve(p.g2, out, false).exit_code, 0);
  EXPECT_FALSE(fs::exists(next));
  const auto r = test::run_cli({"path", out, "0", "199"});
  EXPECT_NE(r.exit_code, 0) << context(r);
  EXPECT_NE(r.err.find(next), std::string::npos) << context(r);
}

// Equal whole-second times (FAT, ext3, files unpacked without nanoseconds) are no proof that
// apsp wrote the two files together: such an OUT.next is kept (and `apsp path` would read it
// only as far as those times say).
TEST(CliPathPairs, WholeSecondTimesAreNeverTakenForAPair) {
  Pair p;
  const std::string out = p.d / "out.bin", next = out + ".next";
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  const timespec whole[2] = {{1700000000, 0}, {1700000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, out.c_str(), whole, 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, next.c_str(), whole, 0), 0);
  ASSERT_EQ(p.solve(p.g2, out, false).exit_code, 0);
  EXPECT_TRUE(fs::exists(next)) << "a next-hop file with a whole-second time was removed";
}

TEST(CliPathPairs, ANextHopFileOfAnotherSolveIsKeptButRefused) {
  Pair p;
  const std::string out = p.d / "out.npy", next = p.d / "out.next.npy";
  ASSERT_EQ(p.solve(p.g1, p.d / "a.npy", true).exit_code, 0);
  ASSERT_EQ(p.solve(p.g2, out, false).exit_code, 0);
  fs::copy_file(p.d / "a.next.npy", next);  // a file apsp did not write for this OUT
  ASSERT_EQ(p.solve(p.g2, out, false).exit_code, 0);
  ASSERT_TRUE(fs::exists(next)) << "a next-hop file that did not pair with OUT was removed";
  const auto r = test::run_cli({"path", out, "0", "199"});
  expect_one_line(r, 1, "was not written with");
  EXPECT_NE(r.err.find("--paths"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliPathPairs, AMixedPairIsRefused) {
  // A kill between commit's two renames leaves the new OUT.next beside the old OUT: here made by
  // moving a newer solve's next-hop file (its own time kept, as rename keeps it) over the first.
  Pair p;
  const std::string out = p.d / "out.bin";
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  ASSERT_EQ(p.solve(p.g2, p.d / "b.bin", true).exit_code, 0);
  const std::string own = path_of(out);
  ASSERT_EQ(own.rfind("0 -> ", 0), 0u) << own;
  fs::rename(p.d / "b.bin.next", out + ".next");
  expect_one_line(test::run_cli({"path", out, "0", "199"}), 1, "touch -r");
  // Solving again with --paths makes a pair again.
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  EXPECT_EQ(path_of(out), own);
}

TEST(CliPathPairs, CopiesWithTheirTimesStillPair) {
  Pair p;
  const std::string out = p.d / "out.bin";
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  const std::string own = path_of(out);
  ASSERT_EQ(own.rfind("0 -> ", 0), 0u) << own;
  const fs::path c = p.d / "copy";
  fs::create_directory(c);
  // Copied with their times (cp -p): a pair.
  for (const char* n : {"out.bin", "out.bin.next"}) {
    fs::copy_file(p.d / n, c / n);
    fs::last_write_time(c / n, fs::last_write_time(p.d / n));
  }
  EXPECT_EQ(path_of((c / "out.bin").string()), own);
  EXPECT_EQ(path_of(out, (c / "out.bin.next").string()), own);  // --next: the same rule
  // Copied without (plain cp): refused until `touch -r` gives them one time.
  fs::copy_file(p.d / "out.bin", c / "plain.bin");
  fs::copy_file(p.d / "out.bin.next", c / "plain.bin.next");
  fs::last_write_time(c / "plain.bin.next",
                      fs::last_write_time(c / "plain.bin") - std::chrono::seconds(5));
  const std::string plain = (c / "plain.bin").string();
  EXPECT_NE(path_of(plain).find("was not written with"), std::string::npos) << path_of(plain);
  fs::last_write_time(c / "plain.bin.next", fs::last_write_time(c / "plain.bin"));
  EXPECT_EQ(path_of(plain), own);
}

TEST(CliPathPairs, ReadingDuringReplacementsNeverMixesThePair) {
  // One thread replaces OUT and OUT.next again and again with two graphs' results; `apsp path`
  // meanwhile prints one graph's answer or the other's, never graph 1's path with graph 2's
  // length (8 of 335 answers were mixed before). Large enough that a write takes a while.
  Pair p(1200);
  const std::string out = p.d / "out.bin";
  ASSERT_EQ(p.solve(p.g1, p.d / "a.bin", true).exit_code, 0);
  ASSERT_EQ(p.solve(p.g2, p.d / "b.bin", true).exit_code, 0);
  const std::string a = path_of(p.d / "a.bin"), b = path_of(p.d / "b.bin");
  ASSERT_EQ(a.rfind("0 -> ", 0), 0u) << a;
  ASSERT_EQ(b.rfind("0 -> ", 0), 0u) << b;
  ASSERT_NE(a, b);
  ASSERT_EQ(p.solve(p.g1, out, true).exit_code, 0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int k = 0; k < 8; ++k) {
      p.solve(p.g2, out, true);
      p.solve(p.g1, out, true);
    }
    done = true;
  });
  int answers = 0, mixed = 0;
  while (!done) {
    const std::string got = path_of(out);
    if (got.rfind("rc ", 0) == 0) continue;  // refused (a rare moment): never wrong
    ++answers;
    if (got != a && got != b) ++mixed;
  }
  writer.join();
  EXPECT_EQ(mixed, 0) << "of " << answers;
  EXPECT_GT(answers, 0);
}

}  // namespace
}  // namespace apsp
