// tests/test_cli_options.cpp — numbers from the user never crash the process (issue 15): every
// numeric option of the `apsp` command line out of range is a usage error (exit 2, one line,
// nothing written); the library's SolveOptions are checked the same way (UsageError, which
// Python raises as ValueError) and the thread count is clamped to what OpenMP will create. Also
// the host memory limit (cgroup v1/v2, MemAvailable, APSP_HOST_MEMORY) and `apsp path`'s exit
// code for "no path".
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/memory_limit.hpp"
#include "core/options_check.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

void write_graph(const std::string& path, std::int32_t V,
                 const std::vector<std::int32_t>& triples) {
  std::vector<std::int32_t> w{V, std::int32_t(triples.size() / 3)};
  w.insert(w.end(), triples.begin(), triples.end());
  test::write_bytes(path, w.data(), w.size() * 4);
}

TEST(CliOptions, OutOfRangeNumbersAreUsageErrors) {
  test::TempDir d;
  write_graph(d / "in.bin", 4, {0, 1, 5, 1, 2, 7, 2, 3, 1});
  const std::string in = d / "in.bin", out = d / "out.bin";
  const std::vector<std::vector<std::string>> cases{
      {"solve", in, out, "--threads", "0"},
      {"solve", in, out, "--threads", "-3"},
      {"solve", in, out, "--threads", "100000"},
      {"solve", in, out, "--threads", "lots"},
      {"solve", in, out, "--block", "0"},
      {"solve", in, out, "--block", "-8"},
      {"solve", in, out, "--block", "2147483647"},
      {"solve", in, out, "--devices", "0,-1"},
      {"generate", out, "-V", "0"},
      {"generate", out, "-V", "-5"},
      {"generate", out, "-E", "-1"},
      {"generate", out, "--kind", "rmat", "--scale", "64"},
      {"generate", out, "--kind", "grid", "--rows", "0", "--cols", "3"},
      {"path", in, "-1", "0"},
      {"bench", "--sizes", "0"},
      {"bench", "--sizes", "64,-64"},
      {"bench", "--trials", "0"},
      {"bench", "--threads", "0"},
      {"bench", "--block", "0"},
      {"bench", "--edge-factor", "-1"},
  };
  for (const auto& args : cases) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    const auto r = test::run_cli(args);
    EXPECT_FALSE(r.signaled) << shown;
    EXPECT_EQ(r.exit_code, 2) << shown << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << shown << ": " << r.err;
    EXPECT_EQ(r.err.rfind("apsp: error: ", 0), 0u) << shown << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << shown;
    EXPECT_EQ(std::distance(fs::directory_iterator(d.path()), fs::directory_iterator()), 1)
        << shown << ": left a file";
  }
}

TEST(CliOptions, CountsAndVertexIdsSayWhatTheyMustBe) {
  // "Value -1 not in range 0.000000 to 179769313486231570814527423731704356798070567525844996..."
  test::TempDir d;
  write_graph(d / "in.bin", 4, {0, 1, 5, 1, 2, 7, 2, 3, 1});
  const std::string in = d / "in.bin";
  const std::vector<std::vector<std::string>> cases{
      {"path", in, "-1", "2"},
      {"path", in, "0", "x"},
      {"path", in, "1.5", "2"},
      {"generate", d / "o.bin", "-E", "-1"},
      {"generate", d / "o.bin", "-E", "ten"},
  };
  for (const auto& args : cases) {
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[3] << ": " << r.err;
    EXPECT_NE(r.err.find("must be a non-negative integer, got '"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("179769"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 160u) << r.err;
  }
}

// `generate --kind rmat -V 100` wrote 1024 vertices: an option the kind ignores is an error
// naming both, and grid / mesh without a shape name --rows / --cols ("mesh 0 x 0 needs ...").
TEST(CliOptions, GenerateRefusesOptionsItsKindDoesNotUse) {
  test::TempDir d;
  const std::string out = d / "g.bin";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--kind", "rmat", "-V", "100"}, "--kind rmat does not use -V/--vertices"},
      {{"--kind", "rmat", "--unit", "5"}, "--kind rmat does not use --unit"},
      {{"--kind", "grid", "--rows", "3", "--cols", "3", "-E", "10"},
       "grid does not use -E/--edges"},
      {{"--kind", "uniform", "--rows", "5"}, "--kind uniform does not use --rows"},
      {{"-k", "3"}, "--kind uniform does not use -k/--neighbors"},
      {{"--kind", "geometric", "--wmin", "1"}, "--kind geometric does not use --wmin"},
      {{"--kind", "geometric", "--scale", "4"}, "--kind geometric does not use --scale"},
      {{"--kind", "mesh", "--rows", "3", "--cols", "3", "--wmax", "9"}, "mesh does not use --wmax"},
      {{"--kind", "mesh", "-V", "100"}, "--kind mesh does not use -V/--vertices"},
      {{"--kind", "mesh"}, "--kind mesh needs --rows and --cols"},
      {{"--kind", "grid", "--cols", "4"}, "--kind grid needs --rows and --cols"},
  };
  for (const auto& [extra, want] : cases) {
    std::vector<std::string> args{"generate", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << want << ": " << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << want;
  }
  // Every option a kind reads, given explicitly, still works.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--kind", "uniform", "-V", "30", "-E", "60", "--wmin", "1",
                                 "--wmax", "9"},
        {"--kind", "rmat", "--scale", "5", "-E", "100", "--wmin", "1", "--wmax", "9"},
        {"--kind", "grid", "--rows", "4", "--cols", "5", "--wmin", "1", "--wmax", "9"},
        {"--kind", "geometric", "-V", "40", "-k", "3", "--unit", "10"},
        {"--kind", "mesh", "--rows", "4", "--cols", "5", "--unit", "10"}}) {
    std::vector<std::string> args{"generate", out, "--seed", "3", "--format", "nthu"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << extra[1] << ": " << r.err;
    EXPECT_TRUE(fs::exists(out)) << extra[1];
    fs::remove(out);
  }
  // The help says what each kind reads and rmat's own -E default.
  const auto h = test::run_cli({"generate", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("rmat (--scale, -E, --wmin, --wmax)"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("rmat 16 * 2^scale"), std::string::npos) << h.out;
}

TEST(CliOptions, ManyThreadsAreClampedNotACrash) {
  test::TempDir d;
  write_graph(d / "in.bin", 4, {0, 1, 5, 1, 2, 7, 2, 3, 1});
  const auto r = test::run_cli(
      {"solve", d / "in.bin", d / "out.bin", "--threads", "4096", "--block", "16384", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto b = test::read_bytes(d / "out.bin");
  ASSERT_EQ(b.size(), 64u);
  std::int32_t d03 = 0;
  std::memcpy(&d03, b.data() + 12, 4);
  EXPECT_EQ(d03, 13);
}

TEST(LibraryOptions, BadNumbersThrowUsageErrorAndThreadsAreClamped) {
  Graph g;
  g.num_vertices = 300;
  for (std::int32_t v = 0; v + 1 < 300; ++v) g.add_edge(v, v + 1, 2);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.threads = 100000;  // killed the interpreter before: a stack overflow inside GOMP_parallel
  const Result r = solve(g, o);
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 299), 598);
  for (const int t : {-1, -100000}) {
    o.threads = t;
    EXPECT_THROW(solve(g, o), UsageError) << "threads " << t;
  }
  o.threads = 0;
  for (const int b : {-1, detail::kMaxBlock + 1, 2147483647}) {
    o.block = b;
    EXPECT_THROW(solve(g, o), UsageError) << "block " << b;
  }
  o.block = 0;
  o.devices = {-2};
  EXPECT_THROW(solve(g, o), UsageError);
  EXPECT_GE(detail::thread_cap(), 1);
  SolveOptions big;
  big.threads = 1 << 30;
  EXPECT_EQ(detail::checked_options(big).threads, detail::thread_cap());
}

// ---- host memory limit --------------------------------------------------------------------------

void put(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s;
}

TEST(MemoryLimit, CgroupV2LimitMinusUsageCountsInactiveCacheAsFree) {
  test::TempDir d;
  put(d.path() / "meminfo", "MemTotal:       16000000 kB\nMemAvailable:   8000000 kB\n");
  put(d.path() / "cgroup", "0::/job/step\n");
  put(d.path() / "cg/job/step/memory.max", "max\n");
  put(d.path() / "cg/job/memory.max", "1073741824\n");     // 1 GiB on the parent
  put(d.path() / "cg/job/memory.current", "536870912\n");  // 512 MiB used,
  put(d.path() / "cg/job/memory.stat",
      "anon 1\ninactive_file 268435456\n");  // 256 MiB of it reclaimable
  const detail::MemoryFiles f{(d.path() / "meminfo").string(), (d.path() / "cgroup").string(),
                              (d.path() / "cg").string()};
  const detail::MemoryLimit m = detail::memory_limit_from(f, std::uint64_t(16) << 30);
  EXPECT_EQ(m.bytes, (std::uint64_t(1) << 30) - (std::uint64_t(256) << 20));
  EXPECT_NE(m.source.find("/job"), std::string::npos) << m.source;
  EXPECT_NE(m.source.find("memory.max"), std::string::npos) << m.source;
}

TEST(MemoryLimit, CgroupV1AndMemAvailable) {
  test::TempDir d;
  put(d.path() / "meminfo", "MemTotal:       16000000 kB\nMemAvailable:   8000000 kB\n");
  put(d.path() / "cgroup", "5:cpu,cpuacct:/x\n4:memory:/box\n");
  put(d.path() / "cg/memory/box/memory.limit_in_bytes", "2147483648\n");
  put(d.path() / "cg/memory/box/memory.usage_in_bytes", "1073741824\n");
  put(d.path() / "cg/memory/box/memory.stat", "cache 5\ntotal_inactive_file 0\n");
  put(d.path() / "cg/memory/memory.limit_in_bytes", "9223372036854771712\n");  // the root: no limit
  detail::MemoryFiles f{(d.path() / "meminfo").string(), (d.path() / "cgroup").string(),
                        (d.path() / "cg").string()};
  detail::MemoryLimit m = detail::memory_limit_from(f, std::uint64_t(16) << 30);
  EXPECT_EQ(m.bytes, std::uint64_t(1) << 30);
  EXPECT_NE(m.source.find("memory.limit_in_bytes"), std::string::npos) << m.source;
  // Without the cgroup limit, MemAvailable (kB) is the smaller one; without either, RAM.
  put(d.path() / "cg/memory/box/memory.limit_in_bytes", "9223372036854771712\n");
  m = detail::memory_limit_from(f, std::uint64_t(16) << 30);
  EXPECT_EQ(m.bytes, std::uint64_t(8000000) * 1024);
  EXPECT_EQ(m.source, "MemAvailable");
  f.meminfo = (d.path() / "none").string();
  f.self_cgroup = (d.path() / "none").string();
  m = detail::memory_limit_from(f, 12345);
  EXPECT_EQ(m.bytes, 12345u);
  EXPECT_EQ(m.source, "physical RAM");
}

TEST(MemoryLimit, EnvironmentOverridesAndBadValuesAreUsageErrors) {
  ::setenv("APSP_HOST_MEMORY", "4096", 1);
  EXPECT_EQ(detail::host_memory_limit().bytes, 4096u);
  Graph g;
  g.num_vertices = 100;
  g.add_edge(0, 1, 1);
  SolveOptions o;
  o.backend = Backend::Cpu;
  EXPECT_THROW(solve(g, o), ResourceError);
  ::setenv("APSP_HOST_MEMORY", "lots", 1);
  EXPECT_THROW(detail::host_memory_limit(), UsageError);
  ::unsetenv("APSP_HOST_MEMORY");
  EXPECT_GT(detail::host_memory_limit().bytes, 0u);
}

TEST(MemoryLimit, TheRealLimitIsNoMoreThanMemAvailable) {
  // Before, the check compared against physical RAM only.
  ::unsetenv("APSP_HOST_MEMORY");
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  bool found = false;
  for (std::string unit; f >> key >> kb >> unit;)
    if (key == "MemAvailable:") {
      found = true;
      break;
    }
  if (!found) GTEST_SKIP() << "no MemAvailable in /proc/meminfo";
  // MemAvailable moves a little between the two reads: allow 5%.
  EXPECT_LE(double(detail::host_memory_limit().bytes), double(kb) * 1024 * 1.05);
}

// ---- apsp path ----------------------------------------------------------------------------------

TEST(CliOptions, PathWithoutAPathHasItsOwnExitCode) {
  test::TempDir d;
  write_graph(d / "in.bin", 3, {0, 1, 5});
  ASSERT_EQ(
      test::run_cli({"solve", d / "in.bin", d / "out.bin", "--paths", "-q", "--backend", "cpu"})
          .exit_code,
      0);
  auto r = test::run_cli({"path", d / "out.bin", "0", "2"});
  EXPECT_EQ(r.exit_code, 8) << r.out << r.err;
  EXPECT_NE(r.out.find("no path"), std::string::npos) << r.out;
  r = test::run_cli({"path", d / "out.bin", "0", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A general error (no such file) stays 1... or 3 for a bad input: never 8.
  r = test::run_cli({"path", d / "missing.bin", "0", "1"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 8);
}

}  // namespace
}  // namespace apsp
