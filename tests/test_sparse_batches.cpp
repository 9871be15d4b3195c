// tests/test_sparse_batches.cpp — elimination-tree batches of the sparse rounds
// (src/order/batches.hpp), without a GPU: the schedule's shape on real nd plans, and a host
// model of the cuda kernels (closure, panels into scratch at the batch's offsets, rest tasks
// with their contributions, each launch as one phase in which no two tasks may write the same
// place) whose result must equal, bit for bit, the dense blocked rounds' and plain FW's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "apsp/generate.hpp"
#include "order/batches.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

namespace apsp {
namespace {

using detail::BatchLimits;
using detail::BatchRound;
using detail::BatchTask;
using detail::RoundBatches;
using detail::TilePlan;

template <class T>
constexpr T inf() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::infinity();
  } else {
    return T(1) << 40;  // sums of two stay far from overflow
  }
}

/// The padded n x n matrix of g (0 diagonal, min over parallel arcs, inf elsewhere).
template <class T>
std::vector<T> matrix_of(const Graph& g, std::int64_t n) {
  std::vector<T> d(std::size_t(n * n), inf<T>());
  for (std::int64_t i = 0; i < n; ++i) d[std::size_t(i * n + i)] = 0;
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    const T w = T(g.weight[e]);
    for (int dir = 0; dir < (g.directed ? 1 : 2); ++dir) {
      const std::int64_t u = dir ? g.dst[e] : g.src[e], v = dir ? g.src[e] : g.dst[e];
      if (u == v) continue;
      T& x = d[std::size_t(u * n + v)];
      x = std::min(x, w);
    }
  }
  return d;
}

/// The cuda kernels' data flow on the host, tiles of B: column-panel scratch csT / colT and
/// row-panel scratch rowp of (B, R*B) each, P* / P*^T per slot. words: the int16x2 rounds' rest
/// and row panels, whose column unit is a word tile of two tiles (rowp twice as wide).
template <class T>
class KernelModel {
 public:
  KernelModel(std::vector<T> d, std::int64_t n, std::int64_t B, std::int64_t slots,
              bool words = false)
      : d_(std::move(d)), n_(n), B_(B), R_(n / B), ld_(R_ * B), words_(words),
        csT_(std::size_t(B * ld_)), colT_(std::size_t(B * ld_)),
        rowp_(std::size_t(B * ld_ * (words ? 2 : 1))), pS_(std::size_t(slots * B * B)),
        pT_(std::size_t(slots * B * B)) {}

  const std::vector<T>& d() const { return d_; }

  /// Runs batch b of s in three phases (closure, panels, rest), each checked for two tasks
  /// writing the same place.
  void run_batch(const RoundBatches& s, const detail::RoundBatch& b) {
    std::set<std::pair<int, std::int64_t>> written;  // {buffer, tile column or tile}
    auto write_once = [&](int buf, std::int64_t at) {
      ASSERT_TRUE(written.insert({buf, at}).second) << "two tasks of one launch write " << buf
                                                     << ":" << at;
    };
    for (std::int64_t i = 0; i < b.nclosure; ++i) {
      const BatchTask& k = s.closure[std::size_t(b.closure0 + i)];
      const BatchRound& r = s.rounds[std::size_t(k[0])];
      if (k[1] < 0) {
        write_once(0, r.t * R_ + r.t);
        write_once(3, r.slot);
        close(r);
      }
      write_once(1, r.row_at + k[2]);
      transpose(r, k[1] < 0 ? r.t : k[1], k[2]);
    }
    written.clear();
    for (std::int64_t i = 0; i < b.npanel; ++i) {
      const BatchTask& k = s.panels[std::size_t(b.panel0 + i)];
      const BatchRound& r = s.rounds[std::size_t(k[0])];
      if (k[1] == 0) {
        write_once(4, r.col_at + k[3]);
        for (int h = 0; h < (words_ ? 2 : 1); ++h) {
          const std::int64_t J = words_ ? 2 * std::int64_t(k[2]) + h : k[2];
          if (J < R_) row_panel(r, J, word_slot(k[3], h));
        }
      } else {
        write_once(2, r.row_at + k[3]);
        col_panel(r, k[2], k[3]);
      }
    }
    written.clear();
    for (std::int64_t i = 0; i < b.nrest; ++i) {
      const BatchTask& k = s.rest[std::size_t(b.rest0 + i)];
      write_once(0, std::int64_t(k[0]) * R_ + k[1]);
      for (std::int32_t c = 0; c < k[3]; ++c) {
        const BatchTask& e = s.contrib[std::size_t(k[2] + c)];
        for (int h = 0; h < (words_ ? 2 : 1); ++h) {
          const std::int64_t J = words_ ? 2 * std::int64_t(k[1]) + h : k[1];
          if (J < R_) rest(s.rounds[std::size_t(e[0])], k[0], e[1], J, word_slot(e[2], h));
        }
      }
    }
  }

  /// Round t alone over the given rows and columns (t included): what the listed (or, with
  /// every tile, the dense) rounds do.
  void run_round(std::int32_t t, const std::vector<std::int32_t>& rows,
                 const std::vector<std::int32_t>& cols) {
    const bool words = words_;
    words_ = false;  // a round alone addresses tiles
    const BatchRound r{t, std::int32_t(rows.size()), std::int32_t(cols.size()), 0, 0, 0};
    close(r);
    for (std::size_t i = 0; i < rows.size(); ++i) transpose(r, rows[i], std::int32_t(i));
    for (std::size_t j = 0; j < cols.size(); ++j) row_panel(r, cols[j], std::int32_t(j));
    for (std::size_t i = 0; i < rows.size(); ++i) col_panel(r, rows[i], std::int32_t(i));
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t j = 0; j < cols.size(); ++j)
        rest(r, rows[i], std::int32_t(i), cols[j], std::int32_t(j));
    words_ = words;
  }

 private:
  T& at(std::int64_t i, std::int64_t j) { return d_[std::size_t(i * n_ + j)]; }
  /// The row-panel slot of column position q (with words: half h of word position q).
  std::int64_t word_slot(std::int64_t q, int h) const { return words_ ? 2 * q + h : q; }
  static T relax(T a, T b, T c) { return std::min(a + b, c); }
  T* pS(const BatchRound& r) { return pS_.data() + r.slot * B_ * B_; }
  std::int64_t ldp() const { return std::int64_t(rowp_.size()) / B_; }
  std::int64_t col_base(const BatchRound& r) const { return words_ ? 2 * r.col_at : r.col_at; }
  T* pT(const BatchRound& r) { return pT_.data() + r.slot * B_ * B_; }

  void close(const BatchRound& r) {  // P* = FW closure of D[t,t], in k order
    const std::int64_t t0 = std::int64_t(r.t) * B_;
    for (std::int64_t k = 0; k < B_; ++k)
      for (std::int64_t i = 0; i < B_; ++i)
        for (std::int64_t j = 0; j < B_; ++j)
          at(t0 + i, t0 + j) = relax(at(t0 + i, t0 + k), at(t0 + k, t0 + j), at(t0 + i, t0 + j));
    for (std::int64_t i = 0; i < B_; ++i)
      for (std::int64_t j = 0; j < B_; ++j) {
        pS(r)[i * B_ + j] = at(t0 + i, t0 + j);
        pT(r)[j * B_ + i] = at(t0 + i, t0 + j);
      }
  }
  // csT tile at position p = D[X, t]^T (for X = t: P*^T).
  void transpose(const BatchRound& r, std::int64_t X, std::int64_t p) {
    const std::int64_t c0 = (r.row_at + p) * B_;
    for (std::int64_t m = 0; m < B_; ++m)
      for (std::int64_t i = 0; i < B_; ++i) csT_[std::size_t(m * ld_ + c0 + i)] =
          at(X * B_ + i, std::int64_t(r.t) * B_ + m);
  }
  // rowp tile at position q = min(D[t, J], P* (x) D[t, J]).
  void row_panel(const BatchRound& r, std::int64_t J, std::int64_t q) {
    const std::int64_t t0 = std::int64_t(r.t) * B_, c0 = (col_base(r) + q) * B_;
    for (std::int64_t i = 0; i < B_; ++i)
      for (std::int64_t j = 0; j < B_; ++j) {
        T c = at(t0 + i, J * B_ + j);
        for (std::int64_t m = 0; m < B_; ++m)
          c = relax(pT(r)[m * B_ + i], at(t0 + m, J * B_ + j), c);
        rowp_[std::size_t(i * ldp() + c0 + j)] = c;
      }
  }
  // colT tile at position p = (min(D[I, t], D[I, t] (x) P*))^T, from csT.
  void col_panel(const BatchRound& r, std::int64_t, std::int64_t p) {
    const std::int64_t c0 = (r.row_at + p) * B_;
    for (std::int64_t i = 0; i < B_; ++i)
      for (std::int64_t j = 0; j < B_; ++j) {
        T c = csT_[std::size_t(i * ld_ + c0 + j)];
        for (std::int64_t m = 0; m < B_; ++m)
          c = relax(pS(r)[m * B_ + i], csT_[std::size_t(m * ld_ + c0 + j)], c);
        colT_[std::size_t(i * ld_ + c0 + j)] = c;
      }
  }
  // D[I, J] = min(D[I, J], colT[:, p]^T (x) rowp[:, q]).
  void rest(const BatchRound& r, std::int64_t I, std::int64_t p, std::int64_t J, std::int64_t q) {
    const std::int64_t a0 = (r.row_at + p) * B_, b0 = (col_base(r) + q) * B_;
    for (std::int64_t i = 0; i < B_; ++i)
      for (std::int64_t j = 0; j < B_; ++j) {
        T c = at(I * B_ + i, J * B_ + j);
        for (std::int64_t m = 0; m < B_; ++m)
          c = relax(colT_[std::size_t(m * ld_ + a0 + i)],
                    rowp_[std::size_t(m * ldp() + b0 + j)], c);
        at(I * B_ + i, J * B_ + j) = c;
      }
  }

  std::vector<T> d_;
  std::int64_t n_, B_, R_, ld_;
  bool words_;
  std::vector<T> csT_, colT_, rowp_, pS_, pT_;
};

struct Case {
  Graph g;          // the ordered graph
  TilePlan plan;
  std::int64_t n;   // padded
};

/// g in nested-dissection order with tiles of B (leaf: vertices a subdomain), and its plan.
Case nd_case(const Graph& g, std::int64_t B, std::int64_t leaf) {
  detail::TiledOrder o = detail::nested_dissection(g, B, {B, leaf});
  Case c;
  c.g = detail::relabel(g, o.perm);
  c.n = std::int64_t(o.perm.old_of_new.size());
  c.plan = detail::symbolic_tiles(c.g, std::move(o.bounds), c.n);
  return c;
}

template <class T>
void expect_batches_equal_rounds(const Case& c, BatchLimits lim, const char* what) {
  SCOPED_TRACE(what);
  const TilePlan& p = c.plan;
  // The scratch holds R tile columns (as on the GPU: the dense rounds' panel buffers).
  lim.row_tiles = std::min(lim.row_tiles, p.R);
  lim.col_tiles = std::min(lim.col_tiles, p.R);
  const std::int64_t B = p.B;
  ASSERT_EQ(c.n % B, 0);
  const RoundBatches s = detail::batch_rounds(p, lim);
  ASSERT_TRUE(s.ok);
  EXPECT_GT(s.batched_rounds, 0) << "nothing batched: the test would test nothing";
  // The dense blocked rounds (every tile), the plan's rounds in order, and the batches.
  std::vector<std::int32_t> all(std::size_t(p.R));
  for (std::int64_t i = 0; i < p.R; ++i) all[std::size_t(i)] = std::int32_t(i);
  KernelModel<T> dense(matrix_of<T>(c.g, c.n), c.n, B, 1), seq = dense;
  for (std::int64_t t = 0; t < p.R; ++t) {
    dense.run_round(std::int32_t(t), all, all);
    seq.run_round(std::int32_t(t), p.rows_with_pivot(t), p.cols_with_pivot(t));
  }
  KernelModel<T> batched(matrix_of<T>(c.g, c.n), c.n, B, lim.slots, lim.words);
  for (const detail::BatchItem& it : s.items) {
    if (it.batch >= 0) {
      batched.run_batch(s, s.batches[std::size_t(it.batch)]);
      if (testing::Test::HasFatalFailure()) return;
    } else {
      batched.run_round(std::int32_t(it.round), p.rows_with_pivot(it.round),
                        p.cols_with_pivot(it.round));
    }
  }
  // Bit for bit (memcmp semantics through the values' bytes).
  const auto same_bits = [](const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](T x, T y) {
             return std::memcmp(&x, &y, sizeof(T)) == 0;
           });
  };
  EXPECT_TRUE(same_bits(seq.d(), dense.d()));
  EXPECT_TRUE(same_bits(batched.d(), dense.d()));
  // And plain FW (exact for integers; the checks above cover floating point).
  if constexpr (!std::is_floating_point_v<T>) {
    std::vector<T> f = matrix_of<T>(c.g, c.n);
    const std::int64_t n = c.n;
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          f[std::size_t(i * n + j)] = std::min(
              f[std::size_t(i * n + j)], f[std::size_t(i * n + k)] + f[std::size_t(k * n + j)]);
    EXPECT_EQ(batched.d(), f);
  }
}

Graph fractional(Graph g) {
  for (double& w : g.weight) w = w * 0.37 + 0.011;
  g.integer_weights = false;
  return g;
}

/// Two copies of g side by side, no arc between them (a disconnected graph).
Graph twice(const Graph& g) {
  Graph h = g;
  h.num_vertices = 2 * g.num_vertices;
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    h.src.push_back(g.src[e] + std::int32_t(g.num_vertices));
    h.dst.push_back(g.dst[e] + std::int32_t(g.num_vertices));
    h.weight.push_back(g.weight[e]);
  }
  return h;
}

TEST(SparseBatches, ModelOfTheKernelsEqualsTheDenseRounds) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const BatchLimits roomy{1 << 20, 1 << 20, 64, 1 << 30};
  Graph grid = generate_grid(19, 23, 0, 9, 3);  // zero weights too
  const Case g8 = nd_case(grid, 8, 24);
  expect_batches_equal_rounds<std::int64_t>(g8, roomy, "grid 19x23, B 8");
  expect_batches_equal_rounds<double>(nd_case(fractional(grid), 8, 24), roomy, "fractional grid");
  expect_batches_equal_rounds<float>(nd_case(fractional(grid), 8, 24), roomy, "float grid");
  // Tight limits: batches split by scratch and slots, big rounds alone.
  expect_batches_equal_rounds<std::int64_t>(g8, {12, 12, 3, 1 << 30}, "scratch of 12 tiles");
  expect_batches_equal_rounds<std::int64_t>(g8, {1 << 20, 1 << 20, 2, 20}, "2 slots, alone >= 20");
  // Word columns (the int16x2 rounds): rounds sharing a word tile are one rest task.
  expect_batches_equal_rounds<std::int64_t>(g8, {1 << 20, 1 << 20, 64, 1 << 30, true}, "words");
  expect_batches_equal_rounds<double>(nd_case(fractional(grid), 8, 24),
                                      {1 << 20, 1 << 20, 64, 1 << 30, true}, "fractional, words");
  const Graph geo = generate_geometric(301, 4, 50, 7);
  expect_batches_equal_rounds<std::int64_t>(nd_case(geo, 8, 16), roomy, "geometric V=301");
  expect_batches_equal_rounds<double>(nd_case(fractional(geo), 8, 16), roomy, "fractional geo");
  expect_batches_equal_rounds<std::int64_t>(nd_case(twice(geo), 8, 32), roomy, "disconnected");
  // A directed mesh: a third of its links one way only (the plan's rows and columns differ).
  const Graph mesh = generate_mesh(13, 17, 10, 5);
  Graph directed;
  directed.num_vertices = mesh.num_vertices;
  directed.directed = true;
  auto arc = [&](std::int32_t u, std::int32_t v, double w) {
    directed.src.push_back(u);
    directed.dst.push_back(v);
    directed.weight.push_back(w);
  };
  for (std::size_t e = 0; e < mesh.src.size(); ++e) {
    if (!mesh.directed) arc(mesh.src[e], mesh.dst[e], mesh.weight[e]);
    if (e % 3) arc(mesh.dst[e], mesh.src[e], mesh.weight[e] + 40);
  }
  expect_batches_equal_rounds<std::int64_t>(nd_case(directed, 8, 16), roomy, "directed mesh");
}

TEST(SparseBatches, GridAndGeometricPlansAtTheGpuTile) {
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  for (const auto& [name, g] : {std::pair<const char*, Graph>{"grid 128x128",
                                                              generate_grid(128, 128, 1, 100, 1)},
                                {"geometric 16384", generate_geometric(16384, 4, 1000, 1)}}) {
    SCOPED_TRACE(name);
    const Case c = nd_case(g, 128, 512);
    const TilePlan& p = c.plan;
    const BatchLimits lim{p.R, p.R, 64, 512};
    const RoundBatches s = detail::batch_rounds(p, lim);
    ASSERT_TRUE(s.ok);
    // Far fewer steps than rounds, most rounds in batches, every round exactly once.
    EXPECT_LT(s.heights * 4, p.R);
    EXPECT_GT(s.batched_rounds * 2, p.R);
    std::vector<int> seen(std::size_t(p.R), 0);
    for (const detail::BatchItem& it : s.items) {
      if (it.batch < 0) {
        ++seen[std::size_t(it.round)];
        continue;
      }
      const detail::RoundBatch& b = s.batches[std::size_t(it.batch)];
      EXPECT_GE(b.nrounds, 2);
      EXPECT_LE(b.nrounds, lim.slots);
      std::int64_t rows = 0, cols = 0;
      for (std::int64_t r = b.round0; r < b.round0 + b.nrounds; ++r) {
        const BatchRound& br = s.rounds[std::size_t(r)];
        ++seen[std::size_t(br.t)];
        EXPECT_EQ(br.row_at, rows);
        EXPECT_EQ(br.col_at, cols);
        EXPECT_EQ(br.slot, r - b.round0);
        EXPECT_LT(std::int64_t(br.nrows) * br.ncols, lim.alone_tiles);
        rows += br.nrows;
        cols += br.ncols;
      }
      EXPECT_LE(rows, lim.row_tiles);
      EXPECT_LE(cols, lim.col_tiles);
      // Every tile of the rounds' rest comes once, whatever its number of contributions.
      std::int64_t contributions = 0, own_tiles = 0;
      std::set<std::pair<int, int>> tiles;
      for (std::int64_t i = b.rest0; i < b.rest0 + b.nrest; ++i) {
        const BatchTask& k = s.rest[std::size_t(i)];
        EXPECT_TRUE(tiles.insert({k[0], k[1]}).second);
        contributions += k[3];
        own_tiles += k[3] == 1;
      }
      std::int64_t expected = 0;
      for (std::int64_t r = b.round0; r < b.round0 + b.nrounds; ++r)
        expected += std::int64_t(s.rounds[std::size_t(r)].nrows) * s.rounds[std::size_t(r)].ncols;
      EXPECT_EQ(contributions, expected);
    }
    for (std::int64_t t = 0; t < p.R; ++t) EXPECT_EQ(seen[std::size_t(t)], 1) << "round " << t;
    std::printf("%s: %lld rounds in %lld heights, %lld batched in %zu batches\n", name,
                (long long)p.R, (long long)s.heights, (long long)s.batched_rounds,
                s.batches.size());
  }
}

TEST(SparseBatches, PlansThatAreNoTreeRunInOrder) {
  // A natural-order plan of a random graph: its lists hold tiles on both sides that are not in
  // one subtree (or the tree is a chain): nothing is batched, or what is batched is still exact.
  const Graph g = generate_uniform(96, 300, 1, 20, 11);
  std::vector<std::int64_t> bounds;
  for (std::int64_t b = 0; b <= 96; b += 8) bounds.push_back(b);
  Case c;
  c.g = g;
  c.n = 96;
  c.plan = detail::symbolic_tiles(g, bounds, 96);
  const RoundBatches s = detail::batch_rounds(c.plan, {1 << 20, 1 << 20, 64, 1 << 30});
  if (s.ok) {
    EXPECT_EQ(s.batched_rounds, 0) << "a random graph's rounds form a chain";
  }
  // A hand-made plan that is no tree: 0's and 1's parent is 2, yet round 1 lists tile 0 (no
  // descendant of 1) as a column.
  TilePlan p;
  p.n = 24;
  p.B = 8;
  p.R = 3;
  p.bounds = {0, 8, 16, 24};
  p.rows = {2, 2, 0, 1};  // round 0: {2}; round 1: {2}; round 2: {0, 1}
  p.row_start = {0, 1, 2, 4};
  p.cols = {2, 0, 2, 0, 1};  // round 0: {2}; round 1: {0, 2}: 0 is no descendant of 1
  p.col_start = {0, 1, 3, 5};
  EXPECT_FALSE(detail::batch_rounds(p, {1 << 20, 1 << 20, 64, 1 << 30}).ok);
}

}  // namespace
}  // namespace apsp
