// tests/test_stages.cpp — solve()'s stages (SolveOptions::on_stage, issue 33): the sequence a
// solve reports on the cpu backend for the dense rounds, nested dissection (--order nd), the
// sparse direct engine (--order sn, with and without paths) and Johnson's reweighting, the
// progress counts inside the rounds and rows stages; the CLI's --progress lines naming them
// (solve and metrics), and -q keeping them off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "order/ordering.hpp"
#include "support.hpp"

namespace apsp {
namespace {

/// What a solve reported: its stages in order, and per stage the last progress (done, total).
struct Seen {
  std::vector<std::string> stages;
  std::vector<std::pair<std::int64_t, std::int64_t>> last;
};

Seen solve_seen(const Graph& g, Order order, bool paths = false, int threads = 2) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.order = order;
  o.paths = paths;
  o.threads = threads;
  Seen s;
  o.on_stage = [&s](std::string_view st) {
    s.stages.emplace_back(st);
    s.last.emplace_back(0, 0);
  };
  o.progress = [&s](std::int64_t done, std::int64_t total) {
    if (!s.last.empty()) s.last.back() = {done, total};
  };
  const Result r = solve(g, o);
  EXPECT_EQ(r.num_vertices(), g.num_vertices);
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

std::int64_t index_of(const Seen& s, const std::string& stage) {
  for (std::size_t i = 0; i < s.stages.size(); ++i)
    if (s.stages[i] == stage) return std::int64_t(i);
  return -1;
}

TEST(Stages, DenseRoundsBuildThenRounds) {
  const Graph g = generate_grid(20, 20, 1, 9, 7);
  const Seen s = solve_seen(g, Order::None);
  EXPECT_EQ(joined(s.stages), "build,rounds");
  ASSERT_EQ(s.last.size(), 2u);
  EXPECT_GT(s.last[1].second, 0);  // the rounds counted inside their stage
  EXPECT_EQ(s.last[1].first, s.last[1].second);
}

TEST(Stages, NestedDissectionOrdersFirst) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(40, 40, 1, 9, 7);
  const Seen s = solve_seen(g, Order::NestedDissection);
  ASSERT_GE(s.stages.size(), 3u) << joined(s.stages);
  EXPECT_EQ(s.stages[0], "order") << joined(s.stages);
  EXPECT_EQ(s.stages[1], "build") << joined(s.stages);
  EXPECT_EQ(s.stages[2], "rounds") << joined(s.stages);
  EXPECT_GT(s.last[2].second, 0);
  // The cpu backend's ordered result goes back to the user's order after the rounds.
  const std::int64_t u = index_of(s, "unpermute");
  if (u >= 0) {
    EXPECT_EQ(u, 3) << joined(s.stages);
  }
}

TEST(Stages, SparseEngineOrdersFactorsThenRows) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(30, 30, 1, 9, 7);
  // One thread: the rows' progress comes from thread 0, which then has every row block.
  Seen s = solve_seen(g, Order::Supernodal, false, 1);
  EXPECT_EQ(joined(s.stages), "order,factor,rows");
  ASSERT_EQ(s.last.size(), 3u);
  EXPECT_EQ(s.last[2].second, g.num_vertices);  // rows counted inside their stage
  EXPECT_EQ(s.last[2].first, g.num_vertices);
  s = solve_seen(g, Order::Supernodal, true);
  EXPECT_EQ(joined(s.stages), "order,factor,rows,paths");
  // A plan given: no ordering inside the solve.
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.order = Order::Supernodal;
  o.sparse_plan = plan_sparse(g);
  std::vector<std::string> seen;
  o.on_stage = [&seen](std::string_view st) { seen.emplace_back(st); };
  (void)solve(g, o);
  EXPECT_EQ(joined(seen), "factor,rows");
}

TEST(Stages, NegativeWeightsReweightFirst) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, -2);
  g.add_edge(1, 2, 3);
  g.add_edge(2, 0, 4);
  const Seen s = solve_seen(g, Order::None);
  EXPECT_EQ(joined(s.stages), "reweight,build,rounds");
}

// ---- the CLI ----

std::string write_grid(const test::TempDir& d, int side) {
  const std::string in = d / "grid.txt";
  write_graph(in, generate_grid(side, side, 1, 9, 3));
  return in;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(StagesCli, ProgressNamesTheOrderStage) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const test::TempDir d;
  const std::string in = write_grid(d, 40), out = d / "d.bin";
  auto r = test::run_cli(
      {"solve", in, out, "--backend", "cpu", "--order", "nd", "--progress", "--block", "32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"apsp: read the input in ", "apsp: ordered the vertices in ", "apsp: built the matrix in ",
        "apsp: ran the rounds in ", "apsp: solved in ", "apsp: done in "})
    EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  EXPECT_LT(r.err.find("ordered the vertices"), r.err.find("ran the rounds")) << r.err;
  EXPECT_LT(r.err.find("ran the rounds"), r.err.find("solved in")) << r.err;
  EXPECT_TRUE(has(r.err, "apsp: round ")) << r.err;  // the rounds' tenths

  // One thread: the rows' progress comes from thread 0 (Stages.SparseEngineOrdersFactorsThenRows).
  r = test::run_cli(
      {"solve", in, out, "--backend", "cpu", "--order", "sn", "--progress", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"apsp: ordered the vertices in ", "apsp: factored in ",
                           "apsp: computed the rows in ", "(1600 rows)", "apsp: row "})
    EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  EXPECT_LT(r.err.find("factored in"), r.err.find("computed the rows")) << r.err;

  r = test::run_cli({"solve", in, out, "--backend", "cpu", "--order", "sn", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = test::run_cli({"solve", in, out, "--backend", "cpu", "--order", "sn"});  // no terminal
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(StagesCli, MetricsProgressNamesTheSolveStages) {
  const test::TempDir d;
  const std::string in = write_grid(d, 12);
  auto r = test::run_cli({"metrics", in, d / "m.csv", "--engine", "fw", "--backend", "cpu",
                          "--order", "none", "--progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"apsp: built the matrix in ", "apsp: ran the rounds in ", "apsp: computed the metrics in "})
    EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  EXPECT_LT(r.err.find("ran the rounds"), r.err.find("computed the metrics")) << r.err;
  if (detail::metis_available()) {  // the sparse engine's stages, through the metrics' engine
    r = test::run_cli(
        {"metrics", in, d / "m.csv", "--engine", "sparse", "--backend", "cpu", "--progress"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* line : {"apsp: ordered the vertices in ", "apsp: factored in ",
                             "apsp: computed the rows in ", "apsp: computed the metrics in "})
      EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  }
  r = test::run_cli({"metrics", in, d / "m.csv", "--engine", "fw", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  if (detail::metis_available()) {  // auto prices the sparse engine (an ordering), then searches
    Graph path;
    path.num_vertices = 3000;
    for (std::int32_t v = 0; v + 1 < 3000; ++v) path.add_edge(v, v + 1, 1);
    const std::string p = d / "path.txt";
    write_graph(p, path);
    r = test::run_cli({"metrics", p, d / "m.csv", "--undirected", "--backend", "cpu",
                       "--metrics", "closeness", "--progress"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.err, "apsp: ordered the vertices in ")) << r.err;  // the pricing's plan
    EXPECT_TRUE(has(r.err, "apsp: metrics 3000/3000 (100%)")) << r.err;  // sources, not rounds
    EXPECT_FALSE(has(r.err, "apsp: round ")) << r.err;
  }
}

}  // namespace
}  // namespace apsp
