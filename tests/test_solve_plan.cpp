// tests/test_solve_plan.cpp — solve()'s plan (src/core/solve_plan.hpp): one Capabilities value
// per backend, the plan as apsp::explain() and Result::plan give it, and the early memory stage
// of every backend (issue 36: a V that cannot be held is refused before Johnson's per-vertex
// work). The GPU backends' cases skip, saying so, without a usable GPU; the mpi backend's are in
// test_mpi.cpp (collective).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "cpu/blocked_fw.hpp"
#include "order/ordering.hpp"
#include "support.hpp"

namespace {

using apsp::Backend;
using apsp::Dtype;
using apsp::Graph;
using apsp::PlanItem;
using apsp::SolveOptions;

std::string value_of(const std::vector<PlanItem>& items, const std::string& key) {
  for (const PlanItem& i : items)
    if (i.key == key) return i.value;
  return "(no " + key + ")";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

SolveOptions on(Backend b) {
  SolveOptions o;
  o.backend = b;
  return o;
}

/// Two vertices, each edge -1: a negative cycle, on a graph of V = n vertices.
Graph negative_cycle_on(std::int64_t n) {
  Graph g;
  g.num_vertices = n;
  g.src = {0, 1};
  g.dst = {1, 0};
  g.weight = {-1, -1};
  return g;
}

TEST(SolvePlan, CpuCapabilitiesAreOneValue) {
  const auto b = apsp::detail::make_cpu_backend();
  const apsp::detail::Capabilities c = b->capabilities();
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
    EXPECT_TRUE(c.supports(t)) << apsp::dtype_name(t);
  EXPECT_EQ(c.pad_multiple, apsp::detail::cpu::kPadMultiple);
  EXPECT_FALSE(c.builds_matrix);
  EXPECT_FALSE(c.unpermutes);
  EXPECT_TRUE(c.skips_tiles);
  EXPECT_TRUE(c.receives_result);
  EXPECT_EQ(c.sparse_rows, apsp::detail::Capabilities::SparseRows::Host);
}

TEST(SolvePlan, EveryBuiltBackendSaysWhatItRuns) {
  using apsp::detail::Capabilities;
  for (auto make : {apsp::detail::make_cuda_backend, apsp::detail::make_multigpu_backend,
                    apsp::detail::make_hip_backend}) {
    const auto b = make();
    if (!b) continue;  // not built here
    const Capabilities c = b->capabilities();
    EXPECT_TRUE(c.builds_matrix && c.streams_paths && c.unpermutes && c.uniform_tiles) << b->name();
    EXPECT_EQ(c.pad_multiple, 1) << b->name();
    EXPECT_TRUE(c.supports(Dtype::Int32) && c.supports(Dtype::Float32)) << b->name();
    EXPECT_EQ(c.sparse_rows == Capabilities::SparseRows::Device, b->name() == "cuda") << b->name();
  }
}

TEST(SolvePlan, ExplainIsTheSolvesPlan) {
  apsp::test::RandomGraphSpec s;
  s.V = 150;
  s.E = 900;
  const Graph g = apsp::test::random_graph(s);
  for (const bool paths : {false, true}) {
    SolveOptions o = on(Backend::Cpu);
    o.paths = paths;
    const std::vector<PlanItem> plan = apsp::explain(g, o);
    const apsp::Result r = apsp::solve(g, o);
    ASSERT_FALSE(r.plan.empty());
    ASSERT_GE(plan.size(), r.plan.size());
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
      EXPECT_EQ(plan[i].key, r.plan[i].key);
      EXPECT_EQ(plan[i].value, r.plan[i].value) << plan[i].key;
    }
    std::vector<std::string> keys;
    for (const PlanItem& i : r.plan) keys.push_back(i.key);
    const std::vector<std::string> want = {"input",  "johnson", "backend", "dtype",
                                           "rungs",  "engine",  "order",   "matrix",
                                           "memory", "sinks",   "paths"};
    EXPECT_EQ(keys, want);
    EXPECT_EQ(value_of(r.plan, "backend"), "cpu");
    EXPECT_TRUE(starts_with(value_of(r.plan, "dtype"), "int32 (")) << value_of(r.plan, "dtype");
    EXPECT_TRUE(starts_with(value_of(r.plan, "engine"), "blocked Floyd-Warshall rounds, tile "));
    EXPECT_EQ(value_of(r.plan, "matrix"), "160 x 160 (V = 150 padded for the rounds)");
    EXPECT_TRUE(starts_with(value_of(r.plan, "memory"), "host: ")) << value_of(r.plan, "memory");
    EXPECT_EQ(value_of(r.plan, "sinks"), "none: the whole result is returned");
    EXPECT_EQ(starts_with(value_of(r.plan, "paths"), "next hops in the whole matrix"), paths);
  }
}

TEST(SolvePlan, DecisionsSayWhy) {
  apsp::test::RandomGraphSpec s;
  s.V = 120;
  s.E = 700;
  s.wmax = 1e8;  // (V-1)*max|w| reaches 2^30-1: int64, with the checked int32 rung first
  const std::vector<PlanItem> wide = apsp::explain(apsp::test::random_graph(s), on(Backend::Cpu));
  EXPECT_TRUE(starts_with(value_of(wide, "dtype"), "int64 (")) << value_of(wide, "dtype");
  EXPECT_TRUE(starts_with(value_of(wide, "rungs"), "checked int32 rounds first"));
  EXPECT_EQ(value_of(wide, "note"), "distances computed in int64: (V-1)*max|w| reaches 2^30-1");

  s.wmax = 100;
  const Graph negative = apsp::test::with_potentials(apsp::test::random_graph(s), 5);
  const std::vector<PlanItem> johnson = apsp::explain(negative, on(Backend::Cpu));
  EXPECT_TRUE(starts_with(value_of(johnson, "johnson"), "potentials h by Bellman-Ford"));
  SolveOptions f = on(Backend::Cpu);
  f.dtype = Dtype::Float64;
  EXPECT_TRUE(starts_with(value_of(apsp::explain(negative, f), "johnson"), "none: negative"));

  SolveOptions sunk = on(Backend::Cpu);
  sunk.dist_sink = [](const apsp::RowBlock&) {};
  EXPECT_EQ(value_of(apsp::explain(apsp::test::random_graph(s), sunk), "sinks"),
            "the whole result is handed to the sink after the solve");
}

TEST(SolvePlan, SparseEnginesAndOrders) {
  if (!apsp::detail::metis_available()) GTEST_SKIP() << apsp::detail::metis_missing_reason();
  const Graph grid = apsp::generate_grid(40, 40, 1, 9, 3);
  SolveOptions o = on(Backend::Cpu);
  o.order = apsp::Order::Supernodal;
  const std::vector<PlanItem> sn = apsp::explain(grid, o);
  EXPECT_TRUE(starts_with(value_of(sn, "engine"), "sparse direct engine"))
      << value_of(sn, "engine");
  EXPECT_EQ(value_of(sn, "order"), "sn (the engine's own nested dissection)");
  const apsp::Result r = apsp::solve(grid, o);
  EXPECT_EQ(r.order, "sn");
  EXPECT_EQ(value_of(r.plan, "engine"), value_of(sn, "engine"));
  o.order = apsp::Order::NestedDissection;
  const std::vector<PlanItem> nd = apsp::explain(grid, o);
  EXPECT_TRUE(starts_with(value_of(nd, "order"), "nd")) << value_of(nd, "order");
  EXPECT_NE(value_of(nd, "order").find("solve() puts the whole result back"), std::string::npos);
}

TEST(SolvePlan, ExplainThrowsWhatSolveWould) {
  EXPECT_THROW((void)apsp::explain(negative_cycle_on(3), on(Backend::Cpu)),
               apsp::NegativeCycleError);
  SolveOptions o = on(Backend::Cpu);
  o.block = -1;
  EXPECT_THROW((void)apsp::explain(apsp::test::random_graph({}), o), apsp::UsageError);
  apsp::test::RandomGraphSpec s;
  s.integer = false;
  o.block = 0;
  o.dtype = Dtype::Int32;
  EXPECT_THROW((void)apsp::explain(apsp::test::random_graph(s), o), apsp::UsageError);
}

// `apsp solve --stats --verbose`: the plan after the timings, one decision a line (text), or a
// "plan" object in the JSON line; without --verbose neither.
TEST(SolvePlan, CliPrintsThePlanWithStatsVerbose) {
  apsp::test::TempDir d;
  const std::string text = "0 1 5\n1 2 -2\n2 0 4\n";
  apsp::test::write_bytes(d / "g.txt", text.data(), text.size());
  auto r = apsp::test::run_cli({"solve", d / "g.txt", d / "o.txt", "--stats", "--verbose", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\n  plan:\n    input    V = 3, an edge list of 3 arcs\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\n    johnson  potentials h by Bellman-Ford"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n    sinks    "), std::string::npos) << r.err;
  r = apsp::test::run_cli({"solve", d / "g.txt", d / "o.txt", "--stats", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("plan:"), std::string::npos) << r.err;
  r = apsp::test::run_cli({"solve", d / "g.txt", d / "o.txt", "--stats", "-", "-v", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(", \"plan\": {\"input\": \"V = 3, an edge list of 3 arcs\", "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one JSON line";
}

// Issue 36: a backend that cannot run here is named before any per-vertex work (Johnson's
// potentials would name the negative cycle first, after minutes on a huge V).
TEST(EarlyMemory, UnavailableBackendBeforeJohnson) {
  int ran = 0;
  for (const apsp::BackendInfo& info : apsp::backends()) {
    if (info.usable) continue;
    ++ran;
    const Backend b = apsp::parse_backend(info.name);
    EXPECT_THROW((void)apsp::solve(negative_cycle_on(3), on(b)), apsp::BackendUnavailable)
        << info.name;
    EXPECT_THROW((void)apsp::explain(negative_cycle_on(3), on(b)), apsp::BackendUnavailable)
        << info.name;
  }
  if (ran == 0) GTEST_SKIP() << "every backend of this build can run here";
}

// Issue 36: a negative cycle on V = 2^24 vertices whose result cannot be held: the memory stage
// refuses it (ResourceError) before Johnson's potentials would name the cycle.
TEST(EarlyMemory, CpuRefusesBeforeJohnson) {
  apsp::test::ScopedEnv mem("APSP_HOST_MEMORY", "100000000");
  const Graph g = negative_cycle_on(std::int64_t{1} << 24);
  EXPECT_THROW((void)apsp::solve(g, on(Backend::Cpu)), apsp::ResourceError);
  EXPECT_THROW((void)apsp::explain(g, on(Backend::Cpu)), apsp::ResourceError);
}

/// The GPU backends (cuda, multi-gpu) usable here.
std::vector<Backend> usable_gpu_backends() {
  std::vector<Backend> out;
  if (apsp::detail::cuda_backend_info().usable) out.push_back(Backend::Cuda);
  if (apsp::detail::multigpu_backend_info().usable) out.push_back(Backend::MultiGpu);
  return out;
}

// The same on one GPU and on the GPUs of this host: their device memory (and this host's, for a
// result that comes back whole) refuses it; a streamed result still needs the GPUs'.
TEST(EarlyMemory, GpuBackendsRefuseBeforeJohnson) {
  const Graph g = negative_cycle_on(std::int64_t{1} << 24);
  const std::vector<Backend> gpus = usable_gpu_backends();
  for (const Backend b : gpus) {
    SolveOptions o = on(b);
    EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << apsp::backend_name(b);
    o.dist_sink = [](const apsp::RowBlock&) {};
    EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << apsp::backend_name(b);
  }
  if (gpus.empty()) GTEST_SKIP() << "no usable GPU: the cuda and multi-gpu cases need one";
}

// Where the result comes back whole to this host, the GPU backends ask this host's memory too.
TEST(EarlyMemory, GpuBackendsCountTheHostResult) {
  apsp::test::ScopedEnv mem("APSP_HOST_MEMORY", "1000000");
  const Graph g = negative_cycle_on(20000);  // 1.6 GB of int32 result: fits an H200, not 1 MB
  const std::vector<Backend> gpus = usable_gpu_backends();
  for (const Backend b : gpus) {
    SolveOptions o = on(b);
    EXPECT_THROW((void)apsp::solve(g, o), apsp::ResourceError) << apsp::backend_name(b);
    o.dist_sink = [](const apsp::RowBlock&) {};  // streamed: Johnson runs and names the cycle
    EXPECT_THROW((void)apsp::solve(g, o), apsp::NegativeCycleError) << apsp::backend_name(b);
  }
  if (gpus.empty()) GTEST_SKIP() << "no usable GPU: the cuda and multi-gpu cases need one";
}

}  // namespace
