// tests/test_cli_files.cpp — what the `apsp` command line (APSP_CLI) does with the files around a
// solve (issue 15): outputs through symbolic links and streams, the input never overwritten,
// every output path checked before the solve, long names, stdin and /proc inputs, reads from
// pipes and devices bounded, an input that shrinks while mapped, temporary files removed on
// SIGINT/SIGTERM/SIGHUP (also through the forked worker), no fork where no GPU solve can run, and
// an NTHU output that cannot hold the distances refused before the solve.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Spawned {
  pid_t pid = -1;
  std::string out_path, err_path;
};

/// Starts the CLI with `args`, stdin from `in` ("" = /dev/null), stdout/stderr to files in `io`,
/// and `env` ("NAME=value") added to the environment.
Spawned spawn_cli(const test::TempDir& io, const std::vector<std::string>& args,
                  const std::string& in = "", const std::vector<std::string>& env = {}) {
  Spawned s{-1, io / "stdout", io / "stderr"};
  s.pid = ::fork();
  if (s.pid < 0) throw std::runtime_error("fork failed");
  if (s.pid == 0) {
    const int i = ::open(in.empty() ? "/dev/null" : in.c_str(), O_RDONLY);
    const int o = ::open(s.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(s.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (i < 0 || o < 0 || e < 0) ::_exit(127);
    ::dup2(i, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    for (const auto& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> argv{const_cast<char*>(APSP_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(APSP_CLI, argv.data());
    ::_exit(127);
  }
  return s;
}

struct Finished {
  test::CommandResult r;
  double cpu_s = 0;  // user + system time of the waited process itself
};

Finished wait_cli(const Spawned& s) {
  int st = 0;
  rusage ru{};
  while (::wait4(s.pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  Finished f;
  f.r.signaled = WIFSIGNALED(st);
  f.r.exit_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
  auto slurp = [](const std::string& p) {
    std::ifstream is(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  };
  f.r.out = slurp(s.out_path);
  f.r.err = slurp(s.err_path);
  f.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return f;
}

test::CommandResult run_with(const std::vector<std::string>& args, const std::string& in = "",
                             const std::vector<std::string>& env = {}) {
  test::TempDir io;
  return wait_cli(spawn_cli(io, args, in, env)).r;
}

std::string context(const test::CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.signaled ? " (signal)" : "") +
         "\nstderr: " + r.err;
}

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::string slurp(const std::string& p) {
  const auto b = test::read_bytes(p);
  return std::string(b.begin(), b.end());
}

/// A small NTHU graph: 0 -> 1 (5), 1 -> 2 (7), V = 3.
void small_graph(const std::string& path) {
  const std::int32_t w[] = {3, 2, 0, 1, 5, 1, 2, 7};
  test::write_bytes(path, w, sizeof w);
}
const std::string kSmallResult = [] {
  const std::int32_t inf = 1073741823, d[] = {0, 5, 12, inf, 0, 7, inf, inf, 0};
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}();

/// The one-line failure contract: not a signal, the exit code, one "apsp: error:" line naming
/// `what`.
void expect_one_line(const test::CommandResult& r, int code, const std::string& what) {
  EXPECT_FALSE(r.signaled) << context(r);
  EXPECT_EQ(r.exit_code, code) << context(r);
  EXPECT_EQ(lines(r.err), 1) << context(r);
  EXPECT_EQ(r.err.rfind("apsp: error: ", 0), 0u) << context(r);
  EXPECT_NE(r.err.find(what), std::string::npos) << "does not say '" << what << "': " << context(r);
}

// ---- outputs ------------------------------------------------------------------------------------

TEST(CliFiles, OutputThroughASymlinkReplacesItsTarget) {
  test::TempDir d;
  small_graph(d / "in.bin");
  fs::create_directory(d / "real");
  test::write_bytes(d / "real/target.bin", "old", 3);
  fs::create_symlink("real/target.bin", d / "link.bin");
  const auto r = test::run_cli({d / "in.bin", d / "link.bin"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_TRUE(fs::is_symlink(d / "link.bin")) << "the link itself was replaced";
  EXPECT_EQ(slurp(d / "real/target.bin"), kSmallResult);
  EXPECT_EQ(entries(d / "real"), std::vector<std::string>{"target.bin"})
      << "a temporary file was left";
  // A dangling link: the file it names is created.
  fs::create_symlink("real/new.bin", d / "dangling.bin");
  ASSERT_EQ(test::run_cli({d / "in.bin", d / "dangling.bin"}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(d / "dangling.bin"));
  EXPECT_EQ(slurp(d / "real/new.bin"), kSmallResult);
}

TEST(CliFiles, DashAndDevStdoutAreStreamed) {
  test::TempDir d;
  small_graph(d / "in.bin");
  for (const std::string& out : {std::string("-"), std::string("/dev/stdout")}) {
    const auto r = test::run_cli({"solve", d / "in.bin", out, "-q"});
    ASSERT_EQ(r.exit_code, 0) << out << ": " << context(r);
    EXPECT_EQ(r.out, kSmallResult) << out;
  }
  // Text to stdout, and the verdict of --verify kept off the data (on stderr).
  const auto r =
      test::run_cli({"solve", d / "in.bin", "-", "--output-format", "text", "--verify", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(r.out.rfind("0 5 12", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("Verification"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Verification: PASS"), std::string::npos) << r.err;
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"in.bin"});
}

TEST(CliFiles, FifoOutputIsStreamed) {
  test::TempDir d;
  small_graph(d / "in.bin");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream f(d / "fifo", std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  });
  const auto r = test::run_cli({d / "in.bin", d / "fifo"});
  reader.join();
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(got, kSmallResult);
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"fifo", "in.bin"}));
}

TEST(CliFiles, OutputThatIsTheInputIsRefused) {
  test::TempDir d;
  small_graph(d / "in.bin");
  const std::string before = slurp(d / "in.bin");
  fs::create_symlink("in.bin", d / "alias.bin");
  fs::create_hard_link(d / "in.bin", d / "hard.bin");
  for (const std::string& out : {d / "in.bin", d / "alias.bin", d / "hard.bin"}) {
    const auto r = test::run_cli({d / "in.bin", out});
    expect_one_line(r, 2, "overwrite the input");
    EXPECT_EQ(slurp(d / "in.bin"), before);
  }
  // The --paths file and the stats file are outputs too.
  small_graph(d / "g.bin");
  fs::create_symlink("g.bin", d / "o.bin.next");
  auto r = test::run_cli({"solve", d / "g.bin", d / "o.bin", "--paths", "-q"});
  expect_one_line(r, 2, "overwrite the input");
  r = test::run_cli({"solve", d / "g.bin", d / "o2.bin", "--stats", d / "g.bin", "-q"});
  expect_one_line(r, 2, "overwrite the input");
  EXPECT_EQ(slurp(d / "g.bin"), before);
  EXPECT_FALSE(fs::exists(d / "o.bin"));
  EXPECT_FALSE(fs::exists(d / "o2.bin"));
}

TEST(CliFiles, EveryOutputPathIsCheckedBeforeTheSolve) {
  test::TempDir d;
  small_graph(d / "in.bin");
  test::write_bytes(d / "out.bin", "previous", 8);
  // --stats into a folder that does not exist: refused before anything is written.
  auto r =
      test::run_cli({"solve", d / "in.bin", d / "out.bin", "--stats", d / "no/dir/x.json", "-q"});
  expect_one_line(r, 1, "no/dir");
  EXPECT_EQ(slurp(d / "out.bin"), "previous")
      << "the output was replaced before the stats file failed";
  // The output's folder: named, and nothing created.
  r = test::run_cli({"solve", d / "in.bin", d / "missing/out.bin", "-q"});
  expect_one_line(r, 1, "missing/out.bin");
  // A read-only folder (root may write anyway: then there is nothing to check).
  fs::create_directory(d / "ro");
  ::chmod((d / "ro").c_str(), 0555);
  if (::access((d / "ro").c_str(), W_OK) != 0) {
    r = test::run_cli({"solve", d / "in.bin", d / "ro/out.bin", "-q"});
    expect_one_line(r, 1, "ro/out.bin");
  }
  ::chmod((d / "ro").c_str(), 0755);
  // --paths to stdout has no file to put the next hops beside.
  r = test::run_cli({"solve", d / "in.bin", "-", "--paths", "-q"});
  expect_one_line(r, 2, "--paths");
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"in.bin", "out.bin", "ro"}));
}

TEST(CliFiles, LongOutputNameWorks) {
  test::TempDir d;
  small_graph(d / "in.bin");
  const std::string name = std::string(250, 'n') + ".bin";  // 254 characters: valid
  auto r = test::run_cli({d / "in.bin", d / name});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(slurp(d / name), kSmallResult);
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"in.bin", name}));
  // --paths beside it: 254 + ".next" is too long a name, refused before the solve.
  r = test::run_cli({"solve", d / "in.bin", d / name, "--paths", "-q"});
  expect_one_line(r, 1, "too long");
  for (unsigned k : {0u, 7u, 123456u})
    EXPECT_LE(fs::path(io::temp_path_for(d / name, 2147483647L, k)).filename().string().size(),
              255u);
}

TEST(OutputTemps, StaleTemporaryFilesOfAProcessAreFoundAndRemoved) {
  // What the parent of a forked solve does when its worker was killed outright.
  test::TempDir d;
  for (const std::string& name : {std::string("out.bin"), std::string(250, 'm') + ".bin"}) {
    const std::string target = d / name;
    std::vector<std::string> made;
    for (unsigned k : {0u, 1u, 42u}) {
      made.push_back(io::temp_path_for(target, 4242, k));
      test::write_bytes(made.back(), "x", 1);
    }
    const std::string other = io::temp_path_for(target, 4243, 0);  // another process's
    test::write_bytes(other, "x", 1);
    io::remove_stale_temps(target, 4242);
    for (const auto& m : made) EXPECT_FALSE(fs::exists(m)) << m;
    EXPECT_TRUE(fs::exists(other));
    fs::remove(other);
  }
  EXPECT_TRUE(entries(d.path()).empty());
}

// A PID proves a process dead on this host only: on file systems other hosts may write, the
// temporary files of dead-looking PIDs are left alone (remove_dead_temps).
TEST(OutputTemps, NetworkAndClusterFileSystemsAreShared) {
  for (std::uint32_t t :
       {0x6969u, 0x517Bu, 0xFF534D42u, 0xFE534D42u, 0x0BD00BD0u, 0x47504653u, 0x00C36400u,
        0x5346414Fu, 0x6B414653u, 0x19830326u, 0x65735546u, 0x01021997u, 0x7461636Fu, 0x01161970u})
    EXPECT_TRUE(io::shared_filesystem(t)) << std::hex << t;
  // ext4, xfs, btrfs, tmpfs, f2fs, zfs, overlayfs: local.
  for (std::uint32_t t :
       {0xEF53u, 0x58465342u, 0x9123683Eu, 0x01021994u, 0xF2F52010u, 0x2FC12FC1u, 0x794C7630u})
    EXPECT_FALSE(io::shared_filesystem(t)) << std::hex << t;
}

// ---- replacing an output, outputs that collide ----------------------------------------------

TEST(CliFiles, ReplacedOutputKeepsItsModeAndOwner) {
  test::TempDir d;
  small_graph(d / "in.bin");
  const bool root = ::geteuid() == 0;
  // 0751 and 0604: modes that no umask gives a new file.
  for (const auto& [name, mode] : {std::pair<std::string, mode_t>{"out.bin", 0751},
                                   std::pair<std::string, mode_t>{"out.bin.next", 0604}}) {
    test::write_bytes(d / name, "old", 3);
    ASSERT_EQ(::chmod((d / name).c_str(), mode), 0);
    if (root) {
      ASSERT_EQ(::chown((d / name).c_str(), 65534, 65534), 0);
    }
  }
  fs::create_hard_link(d / "out.bin", d / "hard.bin");
  const auto r = test::run_cli({"solve", d / "in.bin", d / "out.bin", "--paths", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(slurp(d / "out.bin"), kSmallResult);
  for (const auto& [name, mode] : {std::pair<std::string, mode_t>{"out.bin", 0751},
                                   std::pair<std::string, mode_t>{"out.bin.next", 0604}}) {
    struct stat st {};
    ASSERT_EQ(::stat((d / name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode) << name;
    if (root) {
      EXPECT_EQ(st.st_uid, 65534u) << name;
      EXPECT_EQ(st.st_gid, 65534u) << name;
    }
  }
  // The output is a new file: a hard link to the old one keeps the old data (docs/io.md).
  EXPECT_EQ(slurp(d / "hard.bin"), "old");
  EXPECT_EQ(entries(d.path()),
            (std::vector<std::string>{"hard.bin", "in.bin", "out.bin", "out.bin.next"}));
}

// Only the permission bits are copied: root replacing a set-uid file (given to its owner by
// fchown) made the new data file set-uid that owner.
TEST(CliFiles, ReplacedSetIdOutputGetsOnlyItsPermissionBits) {
  test::TempDir d;
  small_graph(d / "in.bin");
  const bool root = ::geteuid() == 0;
  test::write_bytes(d / "out.bin", "old", 3);
  if (root) {
    ASSERT_EQ(::chown((d / "out.bin").c_str(), 65534, 65534), 0);
  }
  ASSERT_EQ(::chmod((d / "out.bin").c_str(), 06751), 0);  // after chown, which clears set-id
  struct stat st {};
  ASSERT_EQ(::stat((d / "out.bin").c_str(), &st), 0);
  if ((st.st_mode & 06000) == 0) GTEST_SKIP() << "set-id bits do not stick here";
  const auto r = test::run_cli({"solve", d / "in.bin", d / "out.bin", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(slurp(d / "out.bin"), kSmallResult);
  ASSERT_EQ(::stat((d / "out.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  if (root) {
    EXPECT_EQ(st.st_uid, 65534u);
  }
}

TEST(CliFiles, ReadOnlyOutputIsRefusedBeforeTheSolve) {
  test::TempDir d;
  small_graph(d / "in.bin");
  test::write_bytes(d / "out.bin", "old", 3);
  ASSERT_EQ(::chmod((d / "out.bin").c_str(), 0444), 0);
  // Root may write any file: the CLI then runs as nobody, who owns the folder and the file.
  const std::string setpriv = "/usr/bin/setpriv";
  const bool as_nobody = ::geteuid() == 0;
  auto run = [&](const std::string& out) {
    if (!as_nobody) return test::run_cli({d / "in.bin", out});
    return test::run_program(
        setpriv, {"--reuid=65534", "--regid=65534", "--clear-groups", APSP_CLI, d / "in.bin", out});
  };
  if (as_nobody) {
    if (::access(setpriv.c_str(), X_OK) != 0)
      GTEST_SKIP() << "running as root, and no " << setpriv << " to run the CLI as nobody";
    ASSERT_EQ(::chown(d.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chown((d / "out.bin").c_str(), 65534, 65534), 0);
    const auto ok = run(d / "ok.bin");  // a writable output works for that user
    if (ok.exit_code != 0) GTEST_SKIP() << "the CLI does not run as nobody here: " << ok.err;
    fs::remove(d / "ok.bin");
  }
  const auto r = run(d / "out.bin");
  expect_one_line(r, 1, "out.bin: cannot replace the existing file: Permission denied");
  EXPECT_EQ(slurp(d / "out.bin"), "old");
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"in.bin", "out.bin"}));
}

TEST(CliFiles, OutputsThatNameTheSameFileAreRefused) {
  test::TempDir d, io;
  small_graph(d / "in.bin");
  const std::string in = d / "in.bin";
  auto refused = [](const test::CommandResult& r, const std::string& option) {
    expect_one_line(r, 2, option);
    EXPECT_NE(r.err.find("name the same file"), std::string::npos) << context(r);
  };
  refused(test::run_cli({"solve", in, d / "r.npy", "--stats", d / "r.npy", "-q"}), "--stats");
  refused(test::run_cli({"solve", in, d / "r.bin", "--paths", "--stats", d / "r.bin.next", "-q"}),
          "--paths");
  fs::create_directory_symlink(d.path(), d / "alias");  // the same file through a folder link
  refused(test::run_cli({"solve", in, d / "r.bin", "--stats", d / "alias/r.bin", "-q"}), "--stats");
  // OUT -> OUT.next: the distances would go where the next hops go.
  test::write_bytes(d / "z.next", "keep", 4);
  fs::create_symlink("z.next", d / "z");
  refused(test::run_cli({"solve", in, d / "z", "--paths", "-q"}), "--paths");
  EXPECT_EQ(slurp(d / "z.next"), "keep");
  // Hard links: the same inode.
  test::write_bytes(d / "a.bin", "keep", 4);
  fs::create_hard_link(d / "a.bin", d / "b.json");
  refused(test::run_cli({"solve", in, d / "a.bin", "--stats", d / "b.json", "-q"}), "--stats");
  EXPECT_EQ(slurp(d / "a.bin"), "keep");
  // stdout twice (run in d: the old code made a file named '-' in the working directory).
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path());
  for (const std::string& s : {std::string("-"), std::string("/dev/stdout")}) {
    const auto r = test::run_cli({"solve", in, "-", "--stats", s, "-q"});
    refused(r, "--stats");
    EXPECT_TRUE(r.out.empty()) << s;
  }
  fs::current_path(cwd);
  EXPECT_EQ(entries(d.path()),
            (std::vector<std::string>{"a.bin", "alias", "b.json", "in.bin", "z", "z.next"}));
  // metrics: the .csv table is not where its summary goes (stdout).
  fs::create_symlink(io / "stdout", d / "t.csv");
  const auto m = wait_cli(spawn_cli(io, {"metrics", in, d / "t.csv", "-q"})).r;
  expect_one_line(m, 2, "stdout");
  EXPECT_TRUE(m.out.empty());
}

TEST(CliFiles, PathsIntoDevNullDiscardTheNextHops) {
  test::TempDir d;
  small_graph(d / "in.bin");
  // What the old code made (a regular file in /dev), so that its absence below means something.
  if (fs::is_regular_file("/dev/null.next")) fs::remove("/dev/null.next");
  auto r = test::run_cli({"solve", d / "in.bin", "/dev/null", "--paths", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_FALSE(fs::exists("/dev/null.next"));
  fs::create_symlink("/dev/null", d / "null.bin");
  r = test::run_cli({"solve", d / "in.bin", d / "null.bin", "--paths", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"in.bin", "null.bin"}));
  // Any other device or FIFO has no place for OUT.next.
  fs::create_symlink("/dev/zero", d / "zero.bin");
  r = test::run_cli({"solve", d / "in.bin", d / "zero.bin", "--paths", "-q"});
  expect_one_line(r, 2, "--paths needs an output file");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  const int reader = ::open((d / "fifo").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);  // held open: a writer's open() does not wait
  r = test::run_cli({"solve", d / "in.bin", d / "fifo", "--paths", "-q"});
  ::close(reader);
  expect_one_line(r, 2, "--paths needs an output file");
  EXPECT_EQ(entries(d.path()),
            (std::vector<std::string>{"fifo", "in.bin", "null.bin", "zero.bin"}));
}

TEST(CliFiles, TemporaryOutputsOfDeadProcessesAreRemoved) {
  test::TempDir d;
  struct statfs sfs {};
  ASSERT_EQ(::statfs(d.path().c_str(), &sfs), 0);
  if (io::shared_filesystem(std::uint32_t(sfs.f_type)))
    GTEST_SKIP() << d.path() << " is on a network file system: no cleanup there";
  small_graph(d / "in.bin");
  const pid_t dead = ::fork();  // a PID that no process has once it is reaped
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const std::string out = d / "out.bin", long_out = d / (std::string(250, 'n') + ".bin");
  std::vector<std::string> gone, kept;
  for (const std::string& t : {out, long_out})
    for (unsigned k : {0u, 3u}) gone.push_back(io::temp_path_for(t, long(dead), k));
  kept.push_back(io::temp_path_for(out, long(::getpid()), 0));   // alive: this test
  kept.push_back(io::temp_path_for(out, long(dead), 0) + ".x");  // not the exact pattern
  kept.push_back(io::temp_path_for(out, long(dead), 0) + "x");
  kept.push_back(io::temp_path_for(d / "other.bin", long(dead), 0));  // another output's
  for (const auto& f : gone) test::write_bytes(f, "x", 1);
  for (const auto& f : kept) test::write_bytes(f, "x", 1);
  fs::create_directory(io::temp_path_for(out, long(dead), 5));  // not a regular file
  kept.push_back(io::temp_path_for(out, long(dead), 5));
  if (::geteuid() == 0) {  // another user's
    kept.push_back(io::temp_path_for(out, long(dead), 7));
    test::write_bytes(kept.back(), "x", 1);
    ASSERT_EQ(::chown(kept.back().c_str(), 65534, 65534), 0);
  }
  for (const std::string& t : {out, long_out}) {
    const auto r = test::run_cli({d / "in.bin", t});
    ASSERT_EQ(r.exit_code, 0) << context(r);
    EXPECT_EQ(slurp(t), kSmallResult);
  }
  for (const auto& f : gone) EXPECT_FALSE(fs::exists(f)) << f;
  for (const auto& f : kept) EXPECT_TRUE(fs::exists(f)) << f;
}

TEST(CliFiles, StatsDashIsStdout) {
  test::TempDir d;
  small_graph(d / "in.bin");
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path());  // where a file named '-' would appear
  const auto r = test::run_cli({"solve", "in.bin", "out.bin", "--stats", "-", "-q"});
  fs::current_path(cwd);
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(r.out.rfind("{\"input\": \"in.bin\", \"vertices\": 3", 0), 0u) << r.out;
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_EQ(slurp(d / "out.bin"), kSmallResult);
  EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"in.bin", "out.bin"}));
}

// ---- inputs -------------------------------------------------------------------------------------

TEST(CliFiles, DashIsStdin) {
  test::TempDir d;
  small_graph(d / "in.bin");
  auto r = run_with({"-", d / "out.bin"}, d / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(slurp(d / "out.bin"), kSmallResult);
  test::write_bytes(d / "in.txt", "0 1 5\n1 2 7\n", 12);
  r = run_with({"solve", "-", "-", "--input-format", "edgelist", "-q"}, d / "in.txt");
  ASSERT_EQ(r.exit_code, 0) << context(r);
  EXPECT_EQ(r.out, kSmallResult);
}

TEST(CliFiles, DevZeroFailsAtOnceNamingFileAndOffset) {
  test::TempDir d;
  const auto t0 = Clock::now();
  const auto r = test::run_cli({"solve", "/dev/zero", d / "o.bin"});
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 5.0);
  expect_one_line(r, 3, "/dev/zero: offset 0");
  EXPECT_TRUE(entries(d.path()).empty());
  EXPECT_THROW(read_graph("/dev/zero"), InputError);
}

TEST(CliFiles, PipedInputIsBoundedByItsHeader) {
  // A header that promises one edge, followed by much more: refused at the promised end.
  test::TempDir d;
  std::vector<std::int32_t> w{3, 1, 0, 1, 5};
  w.resize(w.size() + (1 << 20), 7);
  test::write_bytes(d / "in.bin", w.data(), w.size() * 4);
  const auto r = run_with({"-", d / "out.bin"}, d / "in.bin");
  expect_one_line(r, 3, "-: offset 20");
  EXPECT_NE(r.err.find("header"), std::string::npos) << r.err;
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"in.bin"});
}

TEST(CliFiles, ProcFilesAreNotEmpty) {
  // /proc reports size 0 for files that have content; "32768\t60999" is an edge list of one edge.
  const std::string p = "/proc/sys/net/ipv4/ip_local_port_range";
  if (!fs::exists(p)) GTEST_SKIP() << p << " does not exist here";
  ReadOptions ro;
  ro.format = InputFormat::EdgeList;
  const Graph g = read_graph(p, ro);
  EXPECT_EQ(g.num_edges(), 1u);
  EXPECT_GT(g.num_vertices, 1);
}

TEST(CliFiles, InputThatShrinksWhileMappedIsReportedNotSIGBUS) {
  // 120 MB of edges; the test truncates the file as soon as apsp has mapped it (watching
  // /proc/PID/maps). The pages past the new end would raise SIGBUS.
  test::TempDir d;
  const std::int32_t V = 1000, E = 10'000'000;
  std::vector<std::int32_t> whole(2 + 3 * std::size_t(E));
  whole[0] = V;
  whole[1] = E;
  for (std::size_t e = 0; e < std::size_t(E); ++e) {
    whole[2 + 3 * e] = std::int32_t(e % V);
    whole[3 + 3 * e] = std::int32_t((e * 7 + 1) % V);
    whole[4 + 3 * e] = 1 + std::int32_t(e % 100);
  }
  test::write_bytes(d / "in.bin", whole.data(), whole.size() * 4);
  const std::string in = fs::canonical(d / "in.bin").string();
  bool raced = false, judged = false;
  for (int attempt = 0; attempt < 3 && !judged; ++attempt) {
    raced = false;
    test::TempDir io;
    const Spawned s = spawn_cli(io, {"solve", in, d / "out.npy", "-q", "--backend", "cpu"});
    const auto t0 = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - t0).count() < 20) {
      std::ifstream maps("/proc/" + std::to_string(s.pid) + "/maps");
      const std::string m((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
      if (m.find(in) != std::string::npos) {
        ASSERT_EQ(::truncate(in.c_str(), 4096), 0);
        raced = true;
        break;
      }
      if (m.empty()) break;  // the process is gone
    }
    const Finished f = wait_cli(s);
    // It read the whole file (and let go of it) before we looked or cut: try again, on the whole
    // file.
    if (!raced || f.r.exit_code == 0) {
      fs::remove(d / "out.npy");
      test::write_bytes(d / "in.bin", whole.data(), whole.size() * 4);
      continue;
    }
    judged = true;
    expect_one_line(f.r, 3, "changed while being read");
    EXPECT_NE(f.r.err.find(in), std::string::npos) << f.r.err;
    EXPECT_FALSE(fs::exists(d / "out.npy"));
  }
  EXPECT_TRUE(judged) << "never cut the input while it was mapped";
}

TEST(InputGuard, ShrunkMappedFileReadsZerosAndReportsTheChange) {
  // In process and deterministic: map, truncate, touch a page past the new end.
  test::TempDir d;
  const std::string p = d / "in.bin";
  std::vector<char> bytes(1 << 20, 'x');
  test::write_bytes(p, bytes.data(), bytes.size());
  bool threw = false;
  try {
    io::InputFile in(p);
    ASSERT_EQ(in.size(), bytes.size());
    ASSERT_EQ(::truncate(p.c_str(), 100), 0);
    const volatile unsigned char* b = in.bytes();
    EXPECT_EQ(b[50], 'x');
    EXPECT_EQ(b[bytes.size() - 1], 0) << "the missing page should read as zeros";
    EXPECT_THROW(in.check_unchanged(), InputError);
    // A reader's own error about the zeros becomes the real one.
    try {
      io::fail_at_offset(p, 12, "garbage");
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("changed while being read"), std::string::npos)
          << e.what();
    }
  } catch (const InputError& e) {  // from the destructor
    threw = true;
    EXPECT_NE(std::string(e.what()).find(p + ": changed while being read"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(threw);
  // An untouched file reads as before, and its destructor stays quiet.
  test::write_bytes(p, bytes.data(), bytes.size());
  EXPECT_NO_THROW({
    io::InputFile in(p);
    EXPECT_EQ(in.bytes()[bytes.size() - 1], 'x');
  });
}

// ---- signals and the forked worker --------------------------------------------------------------

/// A graph whose auto solve takes long enough to be interrupted, with its writer open (the auto
/// backend opens the output before the solve).
std::string slow_graph(const test::TempDir& d) {
  const std::string in = d / "big.bin";
  const auto r = test::run_cli({"generate", in, "-V", "3000", "-E", "200000"});
  if (r.exit_code != 0) throw std::runtime_error("generate failed: " + r.err);
  return in;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> v;
  for (long c; f >> c;) v.push_back(pid_t(c));
  return v;
}

/// Starts a solve, waits for its temporary output to appear, sends `sig`; checks that the process
/// died of that signal, left no temporary file, and that a forked worker is gone (not <defunct>).
void interrupt_solve(int sig, const std::vector<std::string>& env, bool kill_worker = false) {
  test::TempDir d, io;
  const std::string in = slow_graph(d);
  const fs::path outdir = d / "out";
  fs::create_directory(outdir);
  const Spawned s = spawn_cli(io, {in, (outdir / "out.txt").string(), "-q"}, "", env);
  const bool seen = test::wait_for_temp(outdir);
  ASSERT_TRUE(seen) << "no temporary output appeared";
  const std::vector<pid_t> kids = children_of(s.pid);
  if (kill_worker) {
    ASSERT_EQ(kids.size(), 1u) << "no forked worker";
    ASSERT_EQ(::kill(kids[0], sig), 0);
  } else {
    ASSERT_EQ(::kill(s.pid, sig), 0);
  }
  const Finished f = wait_cli(s);
  EXPECT_TRUE(f.r.signaled) << context(f.r);
  EXPECT_EQ(f.r.exit_code, 128 + sig) << context(f.r);
  EXPECT_TRUE(test::temps_in(outdir).empty())
      << "temporary file left: " << test::temps_in(outdir)[0];
  EXPECT_FALSE(fs::exists(outdir / "out.txt"));
  for (const pid_t k : kids) {
    std::ifstream stat("/proc/" + std::to_string(k) + "/stat");
    std::string pid_s, comm, state;
    if (stat >> pid_s >> comm >> state) {
      EXPECT_NE(state, "Z") << "worker " << k << " left <defunct>";
    }
  }
}

TEST(CliSignals, SigtermRemovesTheTemporaryOutput) { interrupt_solve(SIGTERM, {}); }
TEST(CliSignals, SigintRemovesTheTemporaryOutput) { interrupt_solve(SIGINT, {}); }
TEST(CliSignals, SighupRemovesTheTemporaryOutput) { interrupt_solve(SIGHUP, {}); }
TEST(CliSignals, ForkedWorkerGetsTheSignalAndIsReaped) {
  // APSP_DETACH_EXIT=1 forks whatever the backend: the parent forwards SIGTERM to the worker,
  // whose handler removes the temporary file, and reaps it before it ends itself.
  interrupt_solve(SIGTERM, {"APSP_DETACH_EXIT=1"});
}

TEST(CliSignals, WorkerKilledOutrightLeavesNoTemporaryFile) {
  // SIGKILL (the OOM killer) cannot be caught by the worker: its parent removes what it left and
  // ends the same way.
  interrupt_solve(SIGKILL, {"APSP_DETACH_EXIT=1"}, true);
}

TEST(CliSignals, NoForkWithoutAGpuSolve) {
  // A solve that runs on the CPU runs in the process the shell started: its CPU time is that
  // process's own (a forked worker's time would be lost to wait4).
  test::TempDir d, io;
  const std::string in = slow_graph(d);
  std::vector<std::vector<std::string>> forms{
      {in, d / "o.bin", "--backend", "cpu", "--threads", "1", "-q"}};
  if (!test::cuda_unavailable().empty()) forms.push_back({in, d / "o.bin", "--threads", "1", "-q"});
  for (const auto& args : forms) {
    const Finished f = wait_cli(spawn_cli(io, args));
    ASSERT_EQ(f.r.exit_code, 0) << context(f.r);
    EXPECT_GT(f.cpu_s, 0.05) << "the solve's CPU time is not the process's own: it forked";
  }
}

// ---- NTHU output range --------------------------------------------------------------------------

TEST(CliFiles, NthuOutputThatCannotHoldTheDistancesIsRefusedUpFront) {
  // A chain of 3000 vertices with weights 1e6: d(0, 2999) = 2.999e9 >= 2^30-1.
  test::TempDir d;
  const std::int32_t V = 3000;
  std::vector<std::int32_t> w{V, V - 1};
  for (std::int32_t v = 0; v + 1 < V; ++v) w.insert(w.end(), {v, v + 1, 1000000});
  test::write_bytes(d / "chain.bin", w.data(), w.size() * 4);
  const auto t0 = Clock::now();
  const auto r = test::run_cli({d / "chain.bin", d / "out.bin"});
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  expect_one_line(r, 2, "NTHU output");
  EXPECT_LT(secs, 5.0);
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"chain.bin"});
}

TEST(CliFiles, NthuOutputIsStillCheckedAfterTheSolve) {
  // 1 -> 2 of weight 1.5e9, vertex 1 not among the sampled sources: the evidence misses it, the
  // writer does not.
  test::TempDir d;
  const std::int32_t w[] = {16, 1, 1, 2, 1500000000};
  test::write_bytes(d / "in.bin", w, sizeof w);
  const auto r = test::run_cli({d / "in.bin", d / "out.bin"});
  EXPECT_FALSE(r.signaled);
  EXPECT_NE(r.exit_code, 0) << context(r);
  EXPECT_EQ(lines(r.err), 1) << context(r);
  EXPECT_NE(r.err.find("NTHU"), std::string::npos) << context(r);
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"in.bin"});
  // The same graph into .npy is fine.
  ASSERT_EQ(test::run_cli({d / "in.bin", d / "out.npy"}).exit_code, 0);
}

}  // namespace
}  // namespace apsp
