// tests/test_nthu.cpp — the NTHU course cases (../shared/nthu-testcases), byte-exact through the
// CLI drop-in `apsp IN OUT` and through the library. Skips, saying so, when the folder is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "support.hpp"

namespace apsp {
namespace {

std::vector<std::string> cases() {
  std::vector<std::string> v;
  const std::string dir = test::nthu_cases_dir();
  if (dir.empty()) return v;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const auto p = e.path();
    if (p.extension() != ".out" && p.filename() != "README.md" &&
        std::filesystem::exists(p.string() + ".out"))
      v.push_back(p.string());
  }
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Nthu, EveryCourseCaseByteExactThroughTheCli) {
  const auto cs = cases();
  if (cs.empty()) GTEST_SKIP() << "../shared/nthu-testcases not found: course cases not checked";
  ASSERT_GE(cs.size(), 10u);
  test::TempDir tmp;
  for (const auto& in : cs) {
    for (const char* backend : {"", "cpu"}) {
      const std::string out = tmp / "out";
      std::vector<std::string> args{in, out};
      if (*backend) args = {"solve", in, out, "--backend", backend, "--quiet"};
      const auto r = test::run_cli(args);
      ASSERT_EQ(r.exit_code, 0) << in << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << "the drop-in must print nothing: " << r.out;
      EXPECT_EQ(test::read_bytes(out), test::read_bytes(in + ".out"))
          << in << " backend '" << backend << "'";
    }
  }
}

TEST(Nthu, EveryCourseCaseThroughTheLibraryWithEveryDtype) {
  const auto cs = cases();
  if (cs.empty()) GTEST_SKIP() << "../shared/nthu-testcases not found: course cases not checked";
  test::TempDir tmp;
  for (const auto& in : cs) {
    const Graph g = read_graph(in);
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
      SolveOptions o;
      o.backend = Backend::Cpu;
      o.dtype = t;
      const Result r = solve(g, o);
      write_matrix(tmp / "out", r.dist, OutputFormat::Nthu);
      EXPECT_EQ(test::read_bytes(tmp / "out"), test::read_bytes(in + ".out"))
          << in << " " << dtype_name(t);
    }
  }
}

}  // namespace
}  // namespace apsp
