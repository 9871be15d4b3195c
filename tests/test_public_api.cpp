// tests/test_public_api.cpp — the public API the CLI and the Python bindings use instead of the
// library's internals (issue 32, "Rooms"): output targets and path checks (apsp/output.hpp), the
// text helpers (apsp/text.hpp), the settings (apsp/config.hpp), the bounds (apsp/limits.hpp), the
// per-source solver (apsp/paths.hpp), the labels file and the launcher (apsp/pipeline.hpp), a
// bounded matrix read (apsp/io.hpp) and order=auto's cpu plan (apsp/order_plan.hpp). Only public
// headers here, as in apps/ and python/src/.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/config.hpp"
#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/limits.hpp"
#include "apsp/order_plan.hpp"
#include "apsp/output.hpp"
#include "apsp/paths.hpp"
#include "apsp/pipeline.hpp"
#include "apsp/solve.hpp"
#include "apsp/text.hpp"
#include "support.hpp"

namespace {

using apsp::test::ScopedEnv;
using apsp::test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(PublicOutput, TargetsAndPathChecks) {
  TempDir dir;
  EXPECT_EQ(apsp::io::resolve_output("-").stream_fd, 1);
  EXPECT_EQ(apsp::io::resolve_output("/dev/stderr").stream_fd, 2);
  const std::string out = dir / "out.bin";
  const apsp::io::OutputTarget t = apsp::io::resolve_output(out);
  EXPECT_EQ(t.stream_fd, -1);
  EXPECT_FALSE(t.exists);
  EXPECT_NO_THROW(apsp::io::check_output_path(out));
  EXPECT_THROW(apsp::io::check_output_path(dir / "no/such/folder/out.bin"), apsp::Error);
  EXPECT_TRUE(apsp::io::same_output("-", "/dev/stdout"));
  EXPECT_FALSE(apsp::io::same_output(out, dir / "other.bin"));
  EXPECT_TRUE(apsp::io::is_null_device("/dev/null"));
  EXPECT_FALSE(apsp::io::is_null_device(out));
  ASSERT_EQ(::symlink(out.c_str(), (dir / "link.bin").c_str()), 0);
  apsp::io::write_output(out, "x", 1);
  EXPECT_TRUE(apsp::io::same_file(out, dir / "link.bin"));
  EXPECT_TRUE(apsp::io::same_output(out, dir / "link.bin"));
}

TEST(PublicOutput, WriteOutputReplacesAtOnceAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string out = dir / "stats.json";
  const std::string text = "{\"a\": 1}\n";
  apsp::io::write_output(out, text.data(), text.size());
  EXPECT_EQ(slurp(out), text);
  apsp::io::write_output(out, "new\n", 4);
  EXPECT_EQ(slurp(out), "new\n");
  EXPECT_EQ(apsp::test::temps_in(dir.path()).size(), 0u);
  EXPECT_THROW(apsp::io::write_output(dir / "no/such/folder/x", "x", 1), apsp::Error);
}

TEST(PublicOutput, WriteFullyAppendsAtThePosition) {
  TempDir dir;
  const std::string path = dir / "log";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  int err = -1;
  EXPECT_EQ(apsp::io::write_fully(fd, "abc", 3, err), 3u);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(apsp::io::write_fully(fd, "de", 2, err), 2u);
  ::close(fd);
  EXPECT_EQ(slurp(path), "abcde");
  EXPECT_EQ(apsp::io::write_fully(-1, "x", 1, err), 0u);
  EXPECT_EQ(err, EBADF);
}

TEST(PublicOutput, CommitTimeGivesOutputsOneModificationTime) {
  TempDir dir;
  struct stat a {}, b{};
  {
    const apsp::io::CommitTime same_time;
    apsp::io::write_output(dir / "a", "1", 1);
    ::usleep(20000);
    apsp::io::write_output(dir / "b", "2", 1);
  }
  ASSERT_EQ(::stat((dir / "a").c_str(), &a), 0);
  ASSERT_EQ(::stat((dir / "b").c_str(), &b), 0);
  EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
  EXPECT_EQ(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
}

TEST(PublicText, CountsNumbersAndErrno) {
  EXPECT_EQ(apsp::io::count_of(1, "round", "rounds"), "1 round");
  EXPECT_EQ(apsp::io::count_of(3, "round", "rounds"), "3 rounds");
  EXPECT_EQ(apsp::io::shortest_text(0.1), "0.1");
  EXPECT_EQ(apsp::io::errno_text(ENOENT), std::string(std::strerror(ENOENT)));
  std::int64_t v = 0;
  EXPECT_TRUE(apsp::io::parse_int("+42", v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(apsp::io::parse_int("-7", v));
  EXPECT_EQ(v, -7);
  EXPECT_FALSE(apsp::io::parse_int("+-7", v));
  EXPECT_FALSE(apsp::io::parse_int("4x", v));
  EXPECT_FALSE(apsp::io::parse_int("99999999999999999999", v));
}

TEST(PublicConfig, KnobsByNameAndCheck) {
  using apsp::config::Knob;
  EXPECT_STREQ(apsp::config::name(Knob::ProgressDelay), "APSP_PROGRESS_DELAY");
  EXPECT_NE(apsp::config::describe(true).find("APSP_PROGRESS_DELAY"), std::string::npos);
  {
    ScopedEnv e("APSP_PROGRESS_DELAY", "2.5");
    EXPECT_EQ(apsp::config::get_double(Knob::ProgressDelay), 2.5);
    EXPECT_NO_THROW(apsp::config::check_all());
  }
  ScopedEnv bad("APSP_PROGRESS_DELAY", "soon");
  EXPECT_THROW(apsp::config::check_all(), apsp::UsageError);
}

TEST(PublicLimits, BoundsAndHostMemory) {
  EXPECT_EQ(apsp::kMaxBlock, 16384);
  EXPECT_EQ(apsp::kMaxThreadsOption, 4096);
  EXPECT_GE(apsp::thread_cap(), 1);
  EXPECT_GT(apsp::host_memory_limit_bytes(), 0u);
  {
    ScopedEnv e("APSP_HOST_MEMORY", "123456789");
    EXPECT_EQ(apsp::host_memory_limit_bytes(), 123456789u);
  }
  ScopedEnv bad("APSP_HOST_MEMORY", "-3");
  EXPECT_THROW(apsp::host_memory_limit_bytes(), apsp::UsageError);
}

TEST(PublicPaths, ShortestPathsFromSourcesMatchSolve) {
  apsp::Graph g;
  g.num_vertices = 5;
  g.add_edge(0, 1, 2);
  g.add_edge(1, 2, -1);
  g.add_edge(0, 2, 4);
  g.add_edge(2, 3, 3);
  g.add_edge(4, 0, 1);
  apsp::SolveOptions so;
  so.backend = apsp::Backend::Cpu;
  const apsp::Result r = apsp::solve(g, so);
  const std::vector<std::int32_t> sources = {0, 4};
  std::vector<double> d(2 * 5);
  std::vector<std::int32_t> pred(2 * 5);
  ASSERT_TRUE(apsp::shortest_paths_from_sources(g, sources, {}, d.data(), pred.data(), nullptr));
  for (std::size_t k = 0; k < sources.size(); ++k)
    for (std::int64_t v = 0; v < 5; ++v) {
      const double want = r.dist.at<std::int32_t>(sources[k], v);
      const double got = d[k * 5 + std::size_t(v)];
      if (want >= double(apsp::unreachable<std::int32_t>()))
        EXPECT_TRUE(std::isinf(got)) << k << "," << v;
      else
        EXPECT_EQ(got, want) << k << "," << v;
    }
  EXPECT_EQ(pred[2], 1);  // 0 -> 1 -> 2
  EXPECT_EQ(pred[0], apsp::kNoPredecessor);
  apsp::SourcePathsOptions o;
  o.min_only = true;
  std::vector<double> nearest(5);
  std::vector<std::int32_t> from(5);
  ASSERT_TRUE(apsp::shortest_paths_from_sources(g, sources, o, nearest.data(), nullptr,
                                                from.data()));
  EXPECT_EQ(nearest[0], 0);
  EXPECT_EQ(from[0], 0);
  EXPECT_EQ(nearest[3], 4);
}

TEST(PublicPipeline, LabelsRoundTripAndLauncher) {
  TempDir dir;
  const std::string out = dir / "d.bin";
  apsp::write_labels(out, {"a", "b c", "d"});
  EXPECT_EQ(apsp::read_labels(apsp::labels_path_for(out)),
            (std::vector<std::string>{"a", "b c", "d"}));
  EXPECT_THROW(apsp::read_labels(dir / "none.labels"), apsp::InputError);
  {
    ScopedEnv r("OMPI_COMM_WORLD_RANK", "1");
    EXPECT_FALSE(apsp::launcher_rank_is_zero());
  }
  {
    ScopedEnv r("OMPI_COMM_WORLD_RANK", nullptr);
    ScopedEnv p("PMI_RANK", nullptr);
    EXPECT_TRUE(apsp::launcher_rank_is_zero());
  }
  EXPECT_FALSE(apsp::gpu_solve_possible("cpu"));
  EXPECT_FALSE(apsp::gpu_solve_possible("mpi"));
}

TEST(PublicIo, ReadMatrixAtMostRefusesALargerInput) {
  TempDir dir;
  const std::string path = dir / "m.bin";
  apsp::Matrix m(3, 3, apsp::Dtype::Int32);
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 3; ++j) m.at<std::int32_t>(i, j) = std::int32_t(i * 3 + j);
  apsp::write_matrix(path, m);
  const apsp::Matrix back =
      apsp::io::read_matrix_at_most(path, apsp::OutputFormat::Auto, 1 << 20, "of a test");
  EXPECT_EQ(apsp::test::compare(back, m), "");
  EXPECT_THROW(apsp::io::read_matrix_at_most(path, apsp::OutputFormat::Auto, 8, "of a test"),
               apsp::InputError);
}

TEST(PublicOrderPlan, CpuOrderPlanOfAPathAndADenseGraph) {
  apsp::Graph path;
  path.num_vertices = 64;
  for (std::int32_t v = 0; v + 1 < 64; ++v) path.add_edge(v, v + 1, 1);
  const apsp::CpuOrderPlan p = apsp::cpu_order_plan(path, apsp::Dtype::Float64, 0);
  EXPECT_FALSE(p.label.empty());
  EXPECT_GT(p.work_fraction, 0);
  EXPECT_GE(p.seconds, 0);
  apsp::Graph dense;
  dense.num_vertices = 32;
  for (std::int32_t u = 0; u < 32; ++u)
    for (std::int32_t v = 0; v < 32; ++v)
      if (u != v) dense.add_edge(u, v, 1 + (u * v) % 7);
  const apsp::CpuOrderPlan d = apsp::cpu_order_plan(dense, apsp::Dtype::Int32, 0);
  EXPECT_EQ(d.label.rfind("sn", 0), std::string::npos) << d.label;  // too small for the engine
  EXPECT_GT(d.work_fraction, 0) << d.label;
  EXPECT_LE(d.work_fraction, 1.0) << d.label;
}

}  // namespace
