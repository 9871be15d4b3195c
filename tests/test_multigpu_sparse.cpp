// tests/test_multigpu_sparse.cpp — sparse (listed) rounds on the multi-gpu backend (issue 21;
// docs/sparse.md). Without a GPU: each worker's share of a TilePlan on 2D block-cyclic grids
// (dist/local_plan.hpp) covers every listed tile of every round exactly once, panels and rest,
// split for the lookahead as the rounds need it, for tiles and for int16x2 word blocks; a plan
// of other tiles is refused. On the GPUs here (1, 2 and up to 4 of them; skipped without a GPU
// or without METIS): `--order nd` on grids, geometric, disconnected, zero- and negative-weight
// graphs of odd sizes gives the cpu backend's dense answer byte for byte in every dtype, the
// int16x2 rung kept and failing over, the checked int32 rung, next hops (valid walks) and
// streamed stripes; the listed next-hop rounds give the dense next-hop rounds' result on the
// ordered graph bit for bit, over fewer GEMM tiles (APSP_MG_PROFILE's "mgprof paths" line).
// (One file of its own: tests/test_multigpu.cpp is long enough.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/rounds.hpp"
#include "dist/block_cyclic.hpp"
#include "dist/local_plan.hpp"
#include "order/choice.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"
#include "support.hpp"

#ifdef APSP_WITH_NCCL
#include <cuda_runtime.h>
#endif

namespace apsp {
namespace {

using detail::TilePlan;
using detail::TileSet;
using detail::dist::Grid;
using detail::dist::Layout;
using detail::dist::ListRect;
using detail::dist::LocalPlan;
using test::compare;

// ---- without a GPU: each worker's share of a plan ----------------------------------------------

Grid grid_of(int r, int c) {
  Grid g;
  g.P = r * c;
  g.Pr = r;
  g.Pc = c;
  return g;
}

/// Round t's global list of `list` with t inserted.
std::vector<std::int64_t> with_t(const std::vector<std::int32_t>& list, std::int64_t b,
                                 std::int64_t e, std::int64_t t) {
  std::vector<std::int64_t> out(list.begin() + b, list.begin() + e);
  out.insert(std::lower_bound(out.begin(), out.end(), t), t);
  return out;
}

using Pair = std::pair<std::int64_t, std::int64_t>;

/// The (global row, global column or word-block key) pairs of rectangles `rects` of worker L.
/// words: columns are word blocks (local block b: key = global tile of its first column).
void add_pairs(const LocalPlan& p, const Layout& L, const std::vector<ListRect>& rects, bool words,
               std::vector<Pair>& out) {
  for (const ListRect& x : rects)
    for (int i = 0; i < x.rows.count; ++i)
      for (int j = 0; j < x.cols.count; ++j) {
        const std::int64_t r = p.tiles[std::size_t(x.rows.at + i)];
        const std::int64_t c = p.tiles[std::size_t(x.cols.at + j)];
        out.push_back({L.global_row(r), words ? L.global_col(2 * c) : L.global_col(c)});
      }
}

/// Checks every worker's lists of grid g against `plan`: panels, rest (All, and Ahead + Behind
/// disjoint with Ahead exactly row / column t+1), tiles and word blocks. "" when right.
std::string check_shares(const TilePlan& plan, const Grid& g) {
  std::vector<LocalPlan> shares;
  std::vector<Layout> lays;
  for (int w = 0; w < g.P; ++w) {
    lays.emplace_back(g, w, plan.n, 128);
    shares.push_back(LocalPlan::of(plan, lays.back(), "test"));
  }
  for (std::int64_t t = 0; t < plan.R; ++t) {
    const std::size_t T = std::size_t(t);
    const auto rows = with_t(plan.rows, plan.row_start[T], plan.row_start[T + 1], t);
    const auto cols = with_t(plan.cols, plan.col_start[T], plan.col_start[T + 1], t);
    const std::string at = " (round " + std::to_string(t) + ")";
    for (const bool words : {false, true}) {
      std::vector<Pair> all, ahead, behind;
      std::set<Pair> want, want_ahead;
      for (int w = 0; w < g.P; ++w) {
        const LocalPlan& p = shares[std::size_t(w)];
        const Layout& L = lays[std::size_t(w)];
        const LocalPlan::Round& l = p.rounds[T];
        // The local lists: exactly the owned tiles of the global ones, increasing.
        std::vector<std::int64_t> mine_r, mine_c, mine_w;
        for (const std::int64_t I : rows)
          if (L.owns_row(I)) mine_r.push_back(L.local_row(I));
        for (const std::int64_t J : cols)
          if (L.owns_col(J)) mine_c.push_back(L.local_col(J));
        for (const std::int64_t c : mine_c)
          if (mine_w.empty() || mine_w.back() != c / 2) mine_w.push_back(c / 2);
        auto list = [&](detail::dist::ListSpan s) {
          return std::vector<std::int64_t>(p.tiles.begin() + s.at,
                                           p.tiles.begin() + s.at + s.count);
        };
        if (list(l.rows) != mine_r) return "rows of worker " + std::to_string(w) + at;
        if (list(l.cols) != mine_c) return "columns of worker " + std::to_string(w) + at;
        if (list(l.words) != mine_w) return "word blocks of worker " + std::to_string(w) + at;
        const detail::dist::ListSpan cs = words ? l.words : l.cols;
        const std::int64_t r1 = t + 1 < plan.R && L.owns_row(t + 1) ? L.local_row(t + 1) : -1;
        std::int64_t c1 = t + 1 < plan.R && L.owns_col(t + 1) ? L.local_col(t + 1) : -1;
        if (words && c1 >= 0) c1 /= 2;
        add_pairs(p, L, p.rest_parts(l.rows, cs, -1, -1, TileSet::All), words, all);
        add_pairs(p, L, p.rest_parts(l.rows, cs, r1, c1, TileSet::Ahead), words, ahead);
        add_pairs(p, L, p.rest_parts(l.rows, cs, r1, c1, TileSet::Behind), words, behind);
        for (const std::int64_t li : mine_r)
          for (const std::int64_t c : words ? mine_w : mine_c) {
            const std::int64_t I = L.global_row(li);
            const std::int64_t J = L.global_col(words ? 2 * c : c);
            want.insert({I, J});
            // Ahead: row t+1, or the tile (word block) holding column t+1.
            const bool col1 = words ? c1 == c : J == t + 1;
            if (I == t + 1 || (col1 && c1 >= 0)) want_ahead.insert({I, J});
          }
      }
      const std::string kind = words ? " (word blocks)" : "";
      auto as_set = [](const std::vector<Pair>& v) { return std::set<Pair>(v.begin(), v.end()); };
      if (as_set(all) != want || all.size() != want.size()) return "rest All" + kind + at;
      std::vector<Pair> both = ahead;
      both.insert(both.end(), behind.begin(), behind.end());
      if (as_set(both) != want || both.size() != want.size())
        return "rest Ahead + Behind" + kind + at;
      if (as_set(ahead) != want_ahead) return "rest Ahead" + kind + at;
      if (!words) {
        // Every listed pair is a tile of the global lists' product.
        for (const Pair& x : all)
          if (!std::binary_search(rows.begin(), rows.end(), x.first) ||
              !std::binary_search(cols.begin(), cols.end(), x.second))
            return "a rest tile outside the lists" + at;
        if (all.size() != rows.size() * cols.size()) return "rest tiles missing" + at;
      }
    }
  }
  return "";
}

TEST(MultiGpuPlan, SharesCoverEveryListedTileOnEveryGrid) {
  // Natural order: a grid graph (banded: lists with gaps, most work skipped) and a geometric one
  // (points in random order: the closure fills up, every tile listed in the late rounds).
  const std::int64_t V = 1500, n = 1536;
  const Graph grid = generate_grid(30, 50, 0, 9, 1), geo = generate_geometric(V, 4, 10, 2);
  for (const Graph* g : {&grid, &geo}) {
    const TilePlan plan = detail::symbolic_tiles(*g, n, 128);
    ASSERT_EQ(plan.R, 12);
    if (g == &grid) {
      ASSERT_LT(plan.work_fraction, 0.5);
    }
    for (const auto& [r, c] : std::vector<std::pair<int, int>>{
             {1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {2, 3}, {3, 2}, {4, 4}, {5, 3}}) {
      SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c));
      EXPECT_EQ(check_shares(plan, grid_of(r, c)), "");
    }
  }
}

TEST(MultiGpuPlan, NdPlansOnEveryGrid) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {703, 1501}) {
    const auto [rows, cols] = test::grid_shape_of(V);
    for (const Graph& g : {generate_grid(rows, cols, 0, 9, 3), generate_geometric(V, 4, 10, 4)}) {
      const detail::OrderChoice o =
          detail::choose_order(g, Order::NestedDissection, true, "multi-gpu", (V + 127) / 128 * 128,
                               128, {128, detail::kGpuLeaf});
      ASSERT_TRUE(o.plan);
      ASSERT_GE(o.plan->R, 6);
      for (const auto& [r, c] :
           std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}}) {
        SCOPED_TRACE("V=" + std::to_string(V) + " " + std::to_string(r) + "x" + std::to_string(c));
        EXPECT_EQ(check_shares(*o.plan, grid_of(r, c)), "");
      }
    }
  }
}

TEST(MultiGpuPlan, RefusesAPlanOfOtherTiles) {
  const Graph g = generate_grid(20, 30, 1, 9, 5);
  const Layout L(grid_of(1, 2), 1, 640, 128);
  auto refused = [&](const TilePlan& p, const char* what) {
    try {
      (void)LocalPlan::of(p, L, "multi-gpu");
      return std::string("accepted");
    } catch (const Error& e) {
      const std::string m = e.what();
      return m.find("multi-gpu: tile plan") != std::string::npos &&
                     m.find(what) != std::string::npos
                 ? std::string()
                 : m;
    }
  };
  EXPECT_EQ(refused(detail::symbolic_tiles(g, 768, 128), "another matrix"), "");
  EXPECT_EQ(refused(detail::symbolic_tiles(g, 640, 64), "another matrix"), "");
  TilePlan odd = detail::symbolic_tiles(g, 640, 128);
  odd.bounds[2] = 224;  // 5 tiles still, one of them not 128 wide
  EXPECT_EQ(refused(odd, "uniform 128-wide"), "");
  EXPECT_NO_THROW((void)LocalPlan::of(detail::symbolic_tiles(g, 640, 128), L, "multi-gpu"));
}

// ---- on the GPUs here
// ----------------------------------------------------------------------------

int gpu_count() {
#ifdef APSP_WITH_NCCL
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

#define REQUIRE_GPU_AND_METIS()                                                     \
  do {                                                                              \
    for (const auto& b : backends())                                                \
      if (b.name == "multi-gpu" && !b.usable)                                       \
        GTEST_SKIP() << "multi-gpu backend not usable: " << b.detail;               \
    if (gpu_count() < 1) GTEST_SKIP() << "no GPU here";                             \
    if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason(); \
  } while (0)

/// Device lists to run on: 1, 2 and all (up to 4) GPUs here.
std::vector<std::vector<int>> device_sets() {
  std::vector<std::vector<int>> out;
  for (const int k : {1, 2, std::min(gpu_count(), 4)}) {
    if (k > gpu_count() || (!out.empty() && int(out.back().size()) >= k)) continue;
    std::vector<int> d;
    for (int i = 0; i < k; ++i) d.push_back(i);
    out.push_back(d);
  }
  return out;
}

SolveOptions opts(Backend b, Order order, std::optional<Dtype> t = std::nullopt,
                  bool paths = false) {
  SolveOptions o;
  o.backend = b;
  o.order = order;
  o.dtype = t;
  o.paths = paths;
  return o;
}

using Case = test::NamedGraph;
/// As tests/test_sparse_gpu.cpp.
std::vector<Case> cases_of(std::int64_t V) { return test::sparse_cases(V); }

std::string devices_name(const std::vector<int>& d) { return std::to_string(d.size()) + " GPUs"; }

TEST(MultiGpuSparse, NdMatchesCpuDenseEveryType) {
  REQUIRE_GPU_AND_METIS();
  for (const std::int64_t V : {703, 1501}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        const Result cpu = solve(c.g, opts(Backend::Cpu, Order::None, t));
        ASSERT_GT(test::finite_off_diagonal(cpu.dist), V) << "trivial test input";
        for (const std::vector<int>& devs : device_sets()) {
          SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t) + " " +
                       devices_name(devs));
          SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection, t);
          o.devices = devs;
          const Result nd = solve(c.g, o);
          ASSERT_EQ(nd.order, "nd");
          ASSERT_EQ(nd.backend, "multi-gpu");
          EXPECT_EQ(compare(nd.dist, cpu.dist), "");
          if (t == Dtype::Int64 || t == Dtype::Float32) continue;
          // Streamed (the CLI's way): stripes in the user's order, gathered and scattered on the
          // GPUs; stripes of a few rows each here (APSP_GATHER_STRIPE), so that many go through
          // the double-buffered stage.
          const test::ScopedEnv stripe("APSP_GATHER_STRIPE", "40000");
          test::StripeCollector got;
          o.dist_sink = got.sink();
          const Result streamed = solve(c.g, o);
          EXPECT_TRUE(streamed.dist.empty());
          EXPECT_EQ(got.check(), "");
          EXPECT_EQ(compare(got.m, cpu.dist), "");
        }
      }
    }
  }
}

TEST(MultiGpuSparse, Int16x2KeptAndFailingOverToInt32) {
  REQUIRE_GPU_AND_METIS();
  const test::ScopedEnv force("APSP_CUDA_INT16", "1");
  // Short distances: the packed rounds keep their result.
  const Graph small = generate_grid(33, 31, 0, 9, 5);
  const Result cpu_small = solve(small, opts(Backend::Cpu, Order::None, Dtype::Int32));
  // Distances far past 2^14: the band check drops the packed rounds, int32 rounds follow.
  const Graph far = generate_geometric(1501, 4, 1000, 6);
  const Result cpu_far = solve(far, opts(Backend::Cpu, Order::None, Dtype::Int32));
  for (const std::vector<int>& devs : device_sets()) {
    SCOPED_TRACE(devices_name(devs));
    SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection, Dtype::Int32);
    o.devices = devs;
    const Result kept = solve(small, o);
    EXPECT_EQ(kept.rounds, "int16x2");
    EXPECT_EQ(compare(kept.dist, cpu_small.dist), "");
    const Result dropped = solve(far, o);
    EXPECT_EQ(dropped.rounds, "int16x2 -> int32");
    EXPECT_EQ(compare(dropped.dist, cpu_far.dist), "");
  }
}

TEST(MultiGpuSparse, CheckedInt32RungAndInt64) {
  REQUIRE_GPU_AND_METIS();
  // Weights that make the bound ask int64: checked int32 rounds kept on the order; a chain of
  // heavy edges drops them for int64 rounds.
  const Graph g = generate_geometric(700, 4, 1e6, 9);  // as tests/test_sparse_gpu.cpp
  Graph chain;
  chain.num_vertices = 900;
  for (std::int32_t v = 0; v + 1 < 900; ++v) chain.add_edge(v, v + 1, 1e8);
  const Result cpu = solve(g, opts(Backend::Cpu, Order::None));
  const Result cpu_chain = solve(chain, opts(Backend::Cpu, Order::None));
  for (const std::vector<int>& devs : device_sets()) {
    SCOPED_TRACE(devices_name(devs));
    SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection);
    o.devices = devs;
    const Result nd = solve(g, o);
    ASSERT_EQ(nd.dtype(), Dtype::Int64);
    EXPECT_EQ(nd.rounds, "int32 (checked; bound asked int64)");
    EXPECT_EQ(compare(nd.dist, cpu.dist), "");
    const Result nd_chain = solve(chain, o);
    ASSERT_EQ(nd_chain.order, "nd");
    EXPECT_EQ(nd_chain.rounds, "int64 (int32 rounds checked: a distance may reach 2^30-1)");
    EXPECT_EQ(compare(nd_chain.dist, cpu_chain.dist), "");
  }
}

TEST(MultiGpuSparse, PathsWalkInTheUsersOrder) {
  REQUIRE_GPU_AND_METIS();
  // The next-hop rounds run listed on the ordered graph: distances equal, every walk shortest.
  for (const std::int64_t V : {703, 1501}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Float32}) {
        const Result cpu = solve(c.g, opts(Backend::Cpu, Order::None, t));
        for (const std::vector<int>& devs : device_sets()) {
          for (const bool streamed : {false, true}) {
            SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t) + " " +
                         devices_name(devs) + (streamed ? " streamed" : " whole"));
            SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection, t, true);
            o.devices = devs;
            test::StripeCollector dist, next;
            if (streamed) {
              o.dist_sink = dist.sink();
              o.next_sink = next.sink();
            }
            const Result nd = solve(c.g, o);
            ASSERT_EQ(nd.order, "nd");
            const Matrix& d = streamed ? dist.m : nd.dist;
            const Matrix& nx = streamed ? next.m : nd.next;
            EXPECT_EQ(compare(d, cpu.dist), "");
            EXPECT_EQ(test::check_next_hop_walks(c.g, d, nx), "");
          }
        }
      }
    }
  }
}

/// What the next-hop rounds of one solve said on stderr (APSP_MG_PROFILE=1): the "mgprof paths"
/// lines (one per process), whether they ran listed (-1: lines disagree or none), and the C tiles
/// their GEMMs were launched over, summed.
struct PathsProfile {
  int lines = 0, listed = -1;
  long long tiles = 0;
};

PathsProfile paths_profile(const std::string& err) {
  PathsProfile p;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("mgprof paths ", 0) != 0) continue;
    int listed = -1;
    long long tiles = -1;
    for (std::istringstream words(line); words;) {
      std::string w;
      words >> w;
      if (w.rfind("listed=", 0) == 0) listed = std::stoi(w.substr(7));
      if (w.rfind("gemm_tiles=", 0) == 0) tiles = std::stoll(w.substr(11));
    }
    if (listed < 0 || tiles < 0) return PathsProfile{};  // malformed: lines = 0
    p.listed = p.lines == 0 || p.listed == listed ? listed : -1;
    p.tiles += tiles;
    ++p.lines;
  }
  return p;
}

/// solve(g, o) with APSP_MG_PROFILE=1, its stderr read into `p`.
Result solve_profiled(const Graph& g, const SolveOptions& o, PathsProfile& p) {
  const test::ScopedEnv profile("APSP_MG_PROFILE", "1");
  testing::internal::CaptureStderr();
  Result r;
  try {
    r = solve(g, o);
  } catch (...) {
    (void)testing::internal::GetCapturedStderr();
    throw;
  }
  p = paths_profile(testing::internal::GetCapturedStderr());
  return r;
}

TEST(MultiGpuSparse, PathsListedEqualDense) {
  REQUIRE_GPU_AND_METIS();
  // --order nd with --paths runs the listed next-hop rounds on the ordered graph; the dense
  // next-hop rounds on that same graph (order none) must give the same distances and next hops,
  // and must have launched more GEMM tiles. The next hops compare exactly where no weight is
  // zero: there solve()'s repair (which breaks ties by vertex number, so not alike in the two
  // numberings) has nothing to do; with zero weights the walks are checked. (Whole matrices: the
  // rounds run Mode::NextHops; the streamed hop-count rounds are PathsWalkInTheUsersOrder's.)
  for (const std::int64_t V : {703, 1501}) {
    const auto [rows, cols] = test::grid_shape_of(V);
    std::vector<std::pair<Case, bool>> cases;  // (graph, no zero weight)
    cases.push_back({{"grid 1..9", generate_grid(rows, cols, 1, 9, std::uint64_t(V) + 11)}, true});
    cases.push_back(
        {{"geometric", generate_geometric(V, 4, 10, std::uint64_t(V) + 12)}, true});  // w >= 1
    test::RandomGraphSpec s;
    s.V = V;
    s.E = 2 * V;
    s.wmin = 1;
    s.wmax = 50;
    s.components = 3;
    s.seed = std::uint64_t(V) + 13;
    cases.push_back({{"disconnected directed 1..50", test::random_graph(s)}, true});
    for (const Case& c : test::sparse_cases(V))
      if (c.name == "grid" || c.name == "disconnected undirected")  // zero weights
        cases.push_back({{c.name + " (zero weights)", c.g}, false});
    for (const auto& [c, exact] : cases) {
      const detail::OrderChoice oc =
          detail::choose_order(c.g, Order::NestedDissection, true, "multi-gpu",
                               (V + 127) / 128 * 128, 128, {128, detail::kGpuLeaf});
      ASSERT_TRUE(oc.plan);
      ASSERT_LT(oc.plan->work_fraction, 1.0) << c.name;
      for (const Dtype t : {Dtype::Int32, Dtype::Float32}) {
        if (t == Dtype::Float32 && V > 703) continue;
        const Result cpu = solve(c.g, opts(Backend::Cpu, Order::None, t));
        ASSERT_GT(test::finite_off_diagonal(cpu.dist), V) << "trivial test input";
        for (const std::vector<int>& devs : device_sets()) {
          // Two GPUs: both 1 x 2 and 2 x 1 (which GPU holds the pivot's row and column differs).
          std::vector<std::string> shapes{""};
          if (devs.size() == 2) shapes = {"1x2", "2x1"};
          for (const std::string& shape : shapes) {
            const test::ScopedEnv grid("APSP_GRID", shape.empty() ? nullptr : shape.c_str());
            SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t) + " " +
                         devices_name(devs) + (shape.empty() ? "" : " APSP_GRID=" + shape));
            SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection, t, true);
            o.devices = devs;
            PathsProfile listed, dense;
            const Result nd = solve_profiled(c.g, o, listed);
            ASSERT_EQ(nd.order, "nd");
            o.order = Order::None;
            const Result full = solve_profiled(oc.graph, o, dense);
            ASSERT_EQ(full.order, "none");
            ASSERT_EQ(full.dist.rows(), oc.plan->n);
            // The listed rounds ran, over fewer tiles than the dense ones (same matrix).
            EXPECT_GE(listed.lines, 1);
            EXPECT_EQ(listed.listed, 1);
            EXPECT_EQ(dense.listed, 0);
            EXPECT_GT(listed.tiles, 0);
            EXPECT_LT(listed.tiles, dense.tiles);
            // The dense rounds' result in the user's order.
            const Matrix d =
                detail::unpermuted(full.dist, oc.perm, false, nd.dist.stride(), Memory::Host);
            EXPECT_EQ(compare(nd.dist, d), "");
            EXPECT_EQ(compare(nd.dist, cpu.dist), "");
            if (exact) {
              const Matrix nx =
                  detail::unpermuted(full.next, oc.perm, true, nd.next.stride(), Memory::Host);
              EXPECT_EQ(compare(nd.next, nx), "");
            }
            EXPECT_EQ(test::check_next_hop_walks(c.g, nd.dist, nd.next), "");
          }
        }
      }
    }
  }
}

TEST(MultiGpuSparse, EveryGridShapeOfTheGpusHere) {
  REQUIRE_GPU_AND_METIS();
  if (gpu_count() < 2) GTEST_SKIP() << "needs 2 GPUs for grids other than 1 x 1";
  const std::int64_t V = 1501;
  const std::vector<Case> cases = cases_of(V);
  for (int k = 2; k <= std::min(gpu_count(), 4); ++k)
    for (int r = 1; r <= k; ++r) {
      if (k % r) continue;
      const std::string shape = std::to_string(r) + "x" + std::to_string(k / r);
      const test::ScopedEnv grid("APSP_GRID", shape.c_str());
      std::vector<int> devs;
      for (int i = 0; i < k; ++i) devs.push_back(i);
      for (const Case& c : {cases[0], cases[1], cases[3]})
        for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
          SCOPED_TRACE(c.name + " " + dtype_name(t) + " APSP_GRID=" + shape);
          SolveOptions o = opts(Backend::MultiGpu, Order::NestedDissection, t);
          o.devices = devs;
          EXPECT_EQ(
              compare(solve(c.g, o).dist, solve(c.g, opts(Backend::Cpu, Order::None, t)).dist), "");
        }
    }
}

}  // namespace
}  // namespace apsp
