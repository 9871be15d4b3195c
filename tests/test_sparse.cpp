// tests/test_sparse.cpp — sparse rounds (issue 21, CPU): --order nd gives byte-identical distances
// to the dense rounds (--order none) on grids, geometric graphs, meshes, random, disconnected,
// directed and negative-weight graphs, V in {1, 2, 63, 65, 129, 1000}, every dtype, with valid
// next-hop walks; the symbolic tile analysis against a brute-force count; the result permutation;
// the geometric and mesh generators; auto's choice; the CLI's --order and --stats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "dist/user_order.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using test::compare;

SolveOptions cpu(Order order, std::optional<Dtype> t = std::nullopt, int block = 0,
                 bool paths = false) {
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.order = order;
  o.dtype = t;
  o.block = block;
  o.paths = paths;
  o.threads = 2;
  return o;
}

using test::with_potentials;

struct Case {
  std::string name;
  Graph g;
};

std::vector<Case> cases_of(std::int64_t V) {
  const auto [rows, cols] = test::grid_shape_of(V);
  std::vector<Case> out;
  out.push_back({"grid", generate_grid(rows, cols, 0, 9, std::uint64_t(V))});  // zero weights too
  out.push_back({"geometric", generate_geometric(V, 4, 10, std::uint64_t(V) + 1)});
  out.push_back({"mesh", generate_mesh(rows, cols, 10, std::uint64_t(V) + 2)});
  test::RandomGraphSpec s;
  s.V = V;
  s.E = 3 * V;
  s.wmin = 1;
  s.wmax = 50;
  s.seed = std::uint64_t(V) + 3;
  out.push_back({"random directed", test::random_graph(s)});
  s.components = std::min<std::int64_t>(V, 3);
  s.directed = false;
  s.seed += 1;
  out.push_back({"disconnected undirected", test::random_graph(s)});
  out.push_back({"negative weights",
                 with_potentials(generate_grid(rows, cols, 0, 20, std::uint64_t(V) + 5), 7)});
  return out;
}

TEST(Sparse, NestedDissectionMatchesDenseRounds) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {1, 2, 63, 65, 129, 1000}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        const int block = V == 1000 ? 0 : 32;  // small tiles: many rounds, many tiles to skip
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t) + " block " +
                     std::to_string(block));
        const Result dense = solve(c.g, cpu(Order::None, t, block));
        const Result nd = solve(c.g, cpu(Order::NestedDissection, t, block));
        ASSERT_EQ(nd.order, "nd");
        if (V >= 63 && c.name != "disconnected undirected") {
          ASSERT_GT(test::finite_off_diagonal(dense.dist), V * (V - 1) / 2)
              << "test graph too trivial";
        }
        EXPECT_EQ(compare(nd.dist, dense.dist), "");
        EXPECT_GT(nd.work_fraction, 0.0);
      }
    }
  }
}

TEST(Sparse, NestedDissectionPathsWalk) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t V : {2, 65, 129, 1000}) {
    for (const Case& c : cases_of(V)) {
      for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + dtype_name(t));
        const int block = V == 1000 ? 0 : 32;
        const Result dense = solve(c.g, cpu(Order::None, t, block, true));
        const Result nd = solve(c.g, cpu(Order::NestedDissection, t, block, true));
        EXPECT_EQ(compare(nd.dist, dense.dist), "");
        EXPECT_EQ(test::check_next_hop_walks(c.g, nd.dist, nd.next), "");
      }
    }
  }
}

TEST(Sparse, CheckedInt32RungWithNestedDissection) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  // Weights large enough that the bound asks int64; the checked int32 rung runs on the order too.
  Graph g = generate_geometric(700, 4, 1e6, 9);
  const Result dense = solve(g, cpu(Order::None, std::nullopt, 32));
  const Result nd = solve(g, cpu(Order::NestedDissection, std::nullopt, 32));
  ASSERT_EQ(nd.dtype(), Dtype::Int64);
  EXPECT_EQ(nd.rounds, dense.rounds);
  EXPECT_EQ(compare(nd.dist, dense.dist), "");
}

TEST(Sparse, Int32StripesOfAnOrderedSolveComeInTheUsersOrder) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  // A sink that takes int32 stripes (NTHU output) on an int64-bound graph solved in nd order:
  // the stripes hold the user's rows, as the dense solve's matrix.
  Graph g = generate_geometric(700, 4, 1e6, 9);
  const Result dense = solve(g, cpu(Order::None, std::nullopt, 32));
  SolveOptions o = cpu(Order::NestedDissection, std::nullopt, 32);
  o.int32_stripes = true;
  Matrix got(700, 700, Dtype::Int64);
  o.dist_sink = [&](const RowBlock& b) {
    for (std::int64_t i = 0; i < b.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j)
        got.at<std::int64_t>(b.row0 + i, j) =
            b.dtype == Dtype::Int64 ? static_cast<const std::int64_t*>(b.data)[i * b.stride + j]
            : static_cast<const std::int32_t*>(b.data)[i * b.stride + j] ==
                    unreachable<std::int32_t>()
                ? unreachable<std::int64_t>()
                : static_cast<const std::int32_t*>(b.data)[i * b.stride + j];
  };
  const Result nd = solve(g, o);
  EXPECT_EQ(nd.order.rfind("nd", 0), 0u);
  EXPECT_EQ(compare(got, dense.dist), "");
}

TEST(Sparse, SkipsMostTilesOnAGrid) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(64, 64, 1, 9, 3);
  const Result nd = solve(g, cpu(Order::NestedDissection, Dtype::Int32, 64));
  EXPECT_LT(nd.work_fraction, 0.3)
      << "nested dissection on a 64 x 64 grid should skip most tile updates";
  const Result none = solve(g, cpu(Order::None, Dtype::Int32, 64));
  EXPECT_EQ(none.work_fraction, 1.0);
  EXPECT_EQ(none.order, "none");
  EXPECT_EQ(compare(nd.dist, none.dist), "");
}

TEST(Sparse, SymbolicCountMatchesBruteForce) {
  std::vector<Graph> graphs;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    test::RandomGraphSpec s;
    s.V = 40 + std::int64_t(seed) * 37;
    s.E = s.V * std::int64_t(seed);
    s.components = std::int64_t(seed);
    s.seed = seed;
    graphs.push_back(test::random_graph(s));
  }
  graphs.push_back(generate_grid(13, 17, 1, 5, 1));
  graphs.push_back(generate_geometric(300, 3, 10, 2));
  graphs.push_back(Graph{});
  graphs.back().num_vertices = 50;  // no edges: only the pivots
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    for (const std::int64_t B : {8, 32, 64}) {
      Graph g = graphs[k];
      if (detail::metis_available() && k % 2)
        g = detail::relabel(g, detail::nested_dissection(g, 64).perm);
      const std::int64_t n = (g.num_vertices + 31) / 32 * 32;
      const detail::TilePlan p = detail::symbolic_tiles(g, n, B);
      EXPECT_EQ(p.work_fraction, detail::symbolic_fraction_reference(g, n, B))
          << "graph " << k << " B " << B;
      // Every round's lists are increasing, exclude the pivot and hold only tiles of the matrix.
      ASSERT_EQ(std::int64_t(p.row_start.size()), p.R + 1);
      for (std::int64_t T = 0; T < p.R; ++T)
        for (const auto* lst : {&p.rows, &p.cols}) {
          const auto& start = lst == &p.rows ? p.row_start : p.col_start;
          for (std::int64_t x = start[std::size_t(T)]; x < start[std::size_t(T + 1)]; ++x) {
            ASSERT_NE((*lst)[std::size_t(x)], T);
            ASSERT_LT((*lst)[std::size_t(x)], p.R);
            if (x > start[std::size_t(T)]) {
              ASSERT_LT((*lst)[std::size_t(x - 1)], (*lst)[std::size_t(x)]);
            }
          }
        }
    }
  }
}

TEST(Sparse, SymbolicIsSoundAgainstTheDistances) {
  // After the last round, every tile holding a finite distance must have been written by some
  // round or hold an arc: so the final F covers the finite tiles. Checked through the rows lists:
  // a finite d(i,j) in tile (I,J), I != J, needs a round T with I in rows(T) and J in cols(T) or
  // T == I / T == J (panels), or an arc in the tile.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    test::RandomGraphSpec s;
    s.V = 150;
    s.E = 200;
    s.components = 2;
    s.seed = seed;
    const Graph g = test::random_graph(s);
    const std::int64_t B = 16, n = 160;
    const detail::TilePlan p = detail::symbolic_tiles(g, n, B);
    std::vector<char> touched(std::size_t(p.R * p.R), 0);
    for (std::int64_t I = 0; I < p.R; ++I) touched[std::size_t(I * p.R + I)] = 1;
    for (std::size_t e = 0; e < g.src.size(); ++e) {
      touched[std::size_t(g.src[e] / B * p.R + g.dst[e] / B)] = 1;
      if (!g.directed) touched[std::size_t(g.dst[e] / B * p.R + g.src[e] / B)] = 1;
    }
    for (std::int64_t T = 0; T < p.R; ++T)
      for (std::int64_t x = p.row_start[std::size_t(T)]; x < p.row_start[std::size_t(T + 1)]; ++x)
        for (std::int64_t y = p.col_start[std::size_t(T)]; y < p.col_start[std::size_t(T + 1)]; ++y)
          touched[std::size_t(p.rows[std::size_t(x)] * p.R + p.cols[std::size_t(y)])] = 1;
    const Result r = solve(g, cpu(Order::None, Dtype::Int32, 16));
    for (std::int64_t i = 0; i < s.V; ++i)
      for (std::int64_t j = 0; j < s.V; ++j)
        if (r.dist.at<std::int32_t>(i, j) < unreachable<std::int32_t>()) {
          ASSERT_TRUE(touched[std::size_t(i / B * p.R + j / B)])
              << "seed " << seed << " (" << i << "," << j << ")";
        }
  }
}

TEST(Sparse, UnpermutedRestoresRowsColumnsAndVertexValues) {
  // 37 user vertices at positions among 64 (the others padding), in a scrambled order.
  const std::int64_t n = 37, positions = 64;
  detail::Permutation p;
  p.old_of_new.assign(positions, -1);
  p.new_of_old.resize(n);
  for (std::int64_t v = 0; v < n; ++v) {
    p.new_of_old[std::size_t(v)] = std::int32_t((v * 29 + 5) % positions);  // 29 is odd: distinct
    p.old_of_new[std::size_t(p.new_of_old[std::size_t(v)])] = std::int32_t(v);
  }
  // m[a][b] (new order) = a * 1000 + b; next: the new id b, or -1 on the diagonal.
  Matrix m(positions, positions, positions, positions, Dtype::Int32, Memory::Host);
  Matrix next(positions, positions, positions, positions, Dtype::Int32, Memory::Host);
  for (std::int64_t a = 0; a < positions; ++a)
    for (std::int64_t b = 0; b < positions; ++b) {
      m.at<std::int32_t>(a, b) = std::int32_t(a * 1000 + b);
      next.at<std::int32_t>(a, b) =
          a == b || p.old_of_new[std::size_t(b)] < 0 ? -1 : std::int32_t(b);
    }
  const Matrix d = detail::unpermuted(m, p, false, 64, Memory::Host);
  const Matrix x = detail::unpermuted(next, p, true, 64, Memory::Host);
  ASSERT_EQ(d.rows(), n);
  ASSERT_EQ(d.cols(), n);
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t v = 0; v < n; ++v) {
      const std::int64_t a = p.new_of_old[std::size_t(u)], b = p.new_of_old[std::size_t(v)];
      ASSERT_EQ(d.at<std::int32_t>(u, v), a * 1000 + b) << "(" << u << "," << v << ")";
      ASSERT_EQ(x.at<std::int32_t>(u, v), u == v ? -1 : v) << "(" << u << "," << v << ")";
    }
}

// The block-cyclic backends' user order (dist/user_order.hpp, as the multi-gpu and mpi backends
// hand an ordered result out): every worker's blocks of stripes of user rows, merged, equal the
// unpermuted matrix, on every grid shape, with stripes of one row and of several, next hops
// renamed.
TEST(Sparse, UserOrderBlocksMergeToTheUnpermutedMatrix) {
  const std::int64_t B = 8, n = 45, positions = 64;  // 8 tiles of 8; 19 padding positions
  detail::Permutation p;
  p.old_of_new.assign(positions, -1);
  p.new_of_old.resize(n);
  for (std::int64_t v = 0; v < n; ++v) {
    p.new_of_old[std::size_t(v)] = std::int32_t((v * 37 + 11) % positions);
    p.old_of_new[std::size_t(p.new_of_old[std::size_t(v)])] = std::int32_t(v);
  }
  // Ordered entry (a, b) = a * 1000 + b; next hop: the position b, -1 on the diagonal.
  auto value = [](std::int64_t a, std::int64_t b) { return std::int32_t(a * 1000 + b); };
  for (const auto& [pr_count, pc_count] :
       std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 1}}) {
    detail::dist::Grid grid;
    grid.Pr = pr_count;
    grid.Pc = pc_count;
    grid.P = pr_count * pc_count;
    SCOPED_TRACE(std::to_string(grid.Pr) + " x " + std::to_string(grid.Pc));
    const detail::dist::UserOrder o =
        detail::dist::UserOrder::of(grid, B, p.new_of_old, p.old_of_new);
    // Each worker's local matrices (distances and next hops), laid out block-cyclically.
    std::vector<std::vector<std::int32_t>> local(std::size_t(grid.P)), hops(std::size_t(grid.P));
    std::vector<std::int64_t> ld(std::size_t(grid.P));
    for (int q = 0; q < grid.P; ++q) {
      const detail::dist::Layout L(grid, q, positions, B);
      ld[std::size_t(q)] = L.local_cols();
      local[std::size_t(q)].assign(std::size_t(L.local_rows() * L.local_cols()), 0);
      hops[std::size_t(q)] = local[std::size_t(q)];
      for (std::int64_t r = 0; r < L.local_rows(); ++r)
        for (std::int64_t c = 0; c < L.local_cols(); ++c) {
          const std::int64_t a = L.global_row(r / B) * B + r % B;
          const std::int64_t b = L.global_col(c / B) * B + c % B;
          local[std::size_t(q)][std::size_t(r * ld[std::size_t(q)] + c)] = value(a, b);
          hops[std::size_t(q)][std::size_t(r * ld[std::size_t(q)] + c)] =
              a == b ? -1 : std::int32_t(b);
        }
    }
    for (const std::int64_t per : {1, 7, 45}) {
      std::vector<std::int32_t> dist(std::size_t(n * n), -7);
      std::vector<std::int32_t> next(std::size_t(n * n), -7);
      for (std::int64_t u0 = 0; u0 < n; u0 += per) {
        const std::int64_t u1 = std::min(n, u0 + per);
        std::vector<std::vector<std::int32_t>> dist_blocks(std::size_t(grid.P)),
            next_blocks(std::size_t(grid.P));
        for (int q = 0; q < grid.P; ++q) {
          const detail::dist::TileRange r = o.rows_in(grid.row_of(q), u0, u1);
          const std::int64_t C = o.cols(grid.col_of(q));
          ASSERT_EQ(o.block_elems(q, u0, u1), (r.end - r.begin) * C);
          dist_blocks[std::size_t(q)].resize(std::size_t((r.end - r.begin) * C + 1));
          next_blocks[std::size_t(q)].resize(std::size_t((r.end - r.begin) * C + 1));
          for (std::int64_t k = r.begin; k < r.end; ++k) {
            detail::dist::user_block_row(o, q, k, local[std::size_t(q)].data(),
                                         ld[std::size_t(q)], false,
                                         dist_blocks[std::size_t(q)].data() + (k - r.begin) * C);
            detail::dist::user_block_row(o, q, k, hops[std::size_t(q)].data(),
                                         ld[std::size_t(q)], true,
                                         next_blocks[std::size_t(q)].data() + (k - r.begin) * C);
          }
        }
        const std::vector<std::int64_t> firsts = detail::dist::stripe_firsts(o, u0, u1);
        for (std::int64_t u = u0; u < u1; ++u) {
          detail::dist::merge_user_row(
              o, u, firsts, [&](int q) { return dist_blocks[std::size_t(q)].data(); },
              dist.data() + u * n);
          detail::dist::merge_user_row(
              o, u, firsts, [&](int q) { return next_blocks[std::size_t(q)].data(); },
              next.data() + u * n);
        }
      }
      for (std::int64_t u = 0; u < n; ++u)
        for (std::int64_t v = 0; v < n; ++v) {
          const std::int64_t a = p.new_of_old[std::size_t(u)], b = p.new_of_old[std::size_t(v)];
          ASSERT_EQ(dist[std::size_t(u * n + v)], value(a, b))
              << "per " << per << " (" << u << "," << v << ")";
          ASSERT_EQ(next[std::size_t(u * n + v)], u == v ? -1 : v)
              << "per " << per << " (" << u << "," << v << ")";
        }
    }
  }
}

TEST(Sparse, TiledOrderIsAPermutationWithAlignedTiles) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const std::int64_t B : {32, 128, 256}) {
    const Graph g = generate_geometric(3000, 4, 10, 5);
    const detail::TiledOrder t = detail::nested_dissection(g, B);
    ASSERT_EQ(t.perm.new_of_old.size(), 3000u);
    std::vector<int> seen(t.perm.old_of_new.size(), 0);
    for (std::int64_t v = 0; v < 3000; ++v) {
      const std::int32_t at = t.perm.new_of_old[std::size_t(v)];
      ASSERT_GE(at, 0);
      ASSERT_EQ(t.perm.old_of_new[std::size_t(at)], v);
      ASSERT_EQ(seen[std::size_t(at)]++, 0);
    }
    ASSERT_EQ(t.bounds.front(), 0);
    ASSERT_EQ(t.bounds.back(), std::int64_t(t.perm.old_of_new.size()));
    for (std::size_t i = 0; i + 1 < t.bounds.size(); ++i) {
      ASSERT_EQ(t.bounds[i] % 32, 0);
      ASSERT_GT(t.bounds[i + 1], t.bounds[i]);
      ASSERT_LE(t.bounds[i + 1] - t.bounds[i], B);
    }
    EXPECT_LT(double(t.perm.old_of_new.size()), 1.3 * 3000) << "padding for B " << B;
  }
}

TEST(Sparse, AutoKeepsDenseRoundsForRandomGraphs) {
  const Graph g = generate_uniform(1024, 1024 * 1023 / 4, 0, 1000, 5);
  const Result r = solve(g, cpu(Order::Auto));
  EXPECT_EQ(r.order.rfind("none (auto", 0), 0u) << r.order;
  EXPECT_EQ(r.work_fraction, 1.0);
  EXPECT_EQ(r.timings.order, 0.0) << "auto must not order a graph with hundreds of arcs per vertex";
}

TEST(Sparse, AutoTakesTheSparseEngineForLargeSparseMeshes) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(64, 64, 1, 9, 4);
  const Result r = solve(g, cpu(Order::Auto, Dtype::Int32, 64));
  EXPECT_EQ(r.order, "sn (auto)");  // the sparse direct engine (issue 31) before nd's rounds
  EXPECT_LT(r.work_fraction, 0.02);
  EXPECT_EQ(compare(r.dist, solve(g, cpu(Order::None, Dtype::Int32, 64)).dist), "");
}

// solve() unpermutes an nd result into a second matrix: with memory for one matrix but not
// two, nd is refused in one line, before any ordering; auto takes the sparse direct engine, which
// writes the user's order at once (one matrix), and without it keeps the dense rounds.
TEST(Sparse, MemoryForOneMatrixButNotTwo) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const Graph g = generate_grid(64, 64, 1, 9, 4);              // int32: 64 MiB a matrix
  const test::ScopedEnv mem("APSP_HOST_MEMORY", "100663296");  // 96 MiB
  const Result r = solve(g, cpu(Order::Auto, Dtype::Int32, 64));
  EXPECT_EQ(r.order, "sn (auto)");
  try {
    (void)solve(g, cpu(Order::NestedDissection, Dtype::Int32, 64));
    ADD_FAILURE() << "nd accepted without memory for two matrices";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("in the ordered layout and in the user's vertex order"),
              std::string::npos)
        << e.what();
  }
}

TEST(Sparse, ParseOrder) {
  EXPECT_EQ(parse_order("nd"), Order::NestedDissection);
  EXPECT_EQ(parse_order("none"), Order::None);
  EXPECT_EQ(parse_order("auto"), Order::Auto);
  EXPECT_THROW(parse_order("metis"), UsageError);
}

TEST(SparseGenerate, GeometricIsSymmetricKnnAndDeterministic) {
  const Graph a = generate_geometric(2000, 4, 1000, 11), b = generate_geometric(2000, 4, 1000, 11);
  const Graph c = generate_geometric(2000, 4, 1000, 12);
  EXPECT_TRUE(a.src == b.src && a.dst == b.dst && a.weight == b.weight);
  EXPECT_FALSE(a.src == c.src && a.dst == c.dst);
  std::vector<int> degree(2000, 0);
  std::set<std::pair<int, int>> arcs;
  for (std::size_t e = 0; e < a.src.size(); ++e) {
    ASSERT_NE(a.src[e], a.dst[e]);
    ASSERT_GE(a.weight[e], 1);
    ASSERT_TRUE(arcs.insert({a.src[e], a.dst[e]}).second) << "repeated arc";
    ++degree[std::size_t(a.src[e])];
  }
  for (const auto& [u, v] : arcs) ASSERT_TRUE(arcs.count({v, u})) << "arc without its reverse";
  EXPECT_GE(*std::min_element(degree.begin(), degree.end()), 4)
      << "every point links to its 4 nearest";
  EXPECT_LE(a.src.size(), std::size_t(2 * 4 * 2000));
  EXPECT_THROW(generate_geometric(10, 0, 1000, 1), UsageError);
  EXPECT_THROW(generate_geometric(0, 4, 1000, 1), UsageError);
  const Graph one = generate_geometric(1, 4, 1000, 1);
  EXPECT_EQ(one.src.size(), 0u);
}

TEST(SparseGenerate, MeshIsATriangulation) {
  const Graph g = generate_mesh(7, 9, 100, 3);
  EXPECT_EQ(g.num_vertices, 63);
  const std::size_t links = 7 * 8 + 9 * 6 + 6 * 8;  // horizontal, vertical, one diagonal per cell
  EXPECT_EQ(g.src.size(), 2 * links);
  for (double w : g.weight) {
    ASSERT_GE(w, 1);
    ASSERT_LE(w, 100 * 2.4);  // a diagonal of a cell moved by up to 0.3 each way
  }
  EXPECT_THROW(generate_mesh(0, 3, 100, 1), UsageError);
}

TEST(SparseCli, OrderNdWritesTheSameBytesAndStats) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  test::TempDir dir;
  ASSERT_EQ(
      test::run_cli({"generate", dir / "g.bin", "--kind", "geometric", "-V", "700", "-k", "4"})
          .exit_code,
      0);
  const auto nd = test::run_cli({"solve", dir / "g.bin", dir / "nd.bin", "--backend", "cpu",
                                 "--order", "nd", "--block", "32", "--paths", "--stats", "-q"});
  ASSERT_EQ(nd.exit_code, 0) << nd.err;
  EXPECT_NE(nd.err.find("order    nd:"), std::string::npos) << nd.err;
  EXPECT_NE(nd.err.find("% of the dense work"), std::string::npos) << nd.err;
  const auto none = test::run_cli({"solve", dir / "g.bin", dir / "none.bin", "--backend", "cpu",
                                   "--order", "none", "--block", "32", "--paths", "-q"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(test::read_bytes(dir / "nd.bin"), test::read_bytes(dir / "none.bin"));
  const auto path = test::run_cli({"path", dir / "nd.bin", "0", "699"});
  EXPECT_EQ(path.exit_code, 0) << path.err;
  ASSERT_EQ(
      test::run_cli({"generate", dir / "m.bin", "--kind", "mesh", "--rows", "20", "--cols", "30"})
          .exit_code,
      0);
  const auto mesh =
      test::run_cli({"solve", dir / "m.bin", dir / "m.out", "--backend", "cpu", "--stats", "-q"});
  ASSERT_EQ(mesh.exit_code, 0) << mesh.err;
  EXPECT_NE(mesh.err.find("V=600"), std::string::npos) << mesh.err;
  const auto bad = test::run_cli({"solve", dir / "g.bin", dir / "x.bin", "--order", "metis"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("unknown order 'metis'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace apsp
