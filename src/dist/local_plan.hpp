// src/dist/local_plan.hpp — one worker's share of a TilePlan (src/order/symbolic.hpp) on the 2D
// block-cyclic grid with uniform 128-wide tiles: the listed (sparse) rounds of the multi-gpu
// backend and of the mpi backend's GPU ranks (docs/sparse.md). Round t's lists are the plan's
// active tile rows and columns with t inserted (as the cuda backend's set_order: the rest update
// over them writes the pivot row and column panels back; tile (t, t) stays as closed), filtered
// to the tiles this worker owns and turned into local tile indices; for the int16x2 rung also the
// word blocks (128 words: local tile columns 2b and 2b+1) that hold the listed columns. Every
// round's lists lie in one int array (uploaded once by src/multigpu/workers.cuh); a ListSpan is a
// stretch of it. rest_parts() splits round t's rest update for the lookahead driver
// (core/rounds.hpp). Header only, no CUDA: tests/test_multigpu.cpp checks it without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "core/rounds.hpp"
#include "dist/block_cyclic.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail::dist {

/// `count` local tile indices from position `at` of LocalPlan::tiles (increasing).
struct ListSpan {
  i64 at = 0;
  int count = 0;
  bool empty() const { return count <= 0; }
};

/// A rectangle of round t's rest update: every listed row of `rows` x every listed column (or
/// word block) of `cols`.
struct ListRect {
  ListSpan rows, cols;
};

/// One worker's lists of every round of a plan.
struct LocalPlan {
  struct Round {
    ListSpan rows, cols, words;
  };
  std::vector<int> tiles;     ///< every round's lists, as uploaded
  std::vector<Round> rounds;  ///< by round

  /// The lists of worker L for `plan`, whose tiles must be L's (uniform, L.B wide, L.R a side,
  /// n = L.n vertices). `who` names the backend in the error.
  static LocalPlan of(const TilePlan& plan, const Layout& L, const std::string& who) {
    const std::string bad = who + ": tile plan ";
    if (plan.n != L.n || plan.R != L.R || plan.n != L.R * L.B)
      throw Error(bad + "for another matrix (n=" + std::to_string(plan.n) + ", " +
                  std::to_string(plan.R) + " tiles; this solve: n=" + std::to_string(L.n) + ", " +
                  std::to_string(L.R) + " tiles of " + std::to_string(L.B) + ")");
    if (std::int64_t(plan.bounds.size()) != L.R + 1 ||
        std::int64_t(plan.row_start.size()) != L.R + 1 ||
        std::int64_t(plan.col_start.size()) != L.R + 1)
      throw Error(bad + "with malformed bounds or list offsets");
    for (i64 I = 0; I <= L.R; ++I)
      if (plan.bounds[std::size_t(I)] != I * L.B)
        throw Error(bad + "without uniform " + std::to_string(L.B) + "-wide tiles (bound " +
                    std::to_string(I) + " is " + std::to_string(plan.bounds[std::size_t(I)]) + ")");
    LocalPlan p;
    p.rounds.resize(std::size_t(L.R));
    std::vector<int> rows, cols, words;
    for (i64 t = 0; t < L.R; ++t) {
      // Round t's global list (t inserted), filtered to what L owns, local.
      auto local = [&](const std::vector<std::int32_t>& global, bool row, std::vector<int>& out) {
        out.clear();
        for (const i64 x : global) {
          if (x < 0 || x >= L.R) throw Error(bad + "lists a tile outside the matrix");
          if (row ? L.owns_row(x) : L.owns_col(x))
            out.push_back(int(row ? L.local_row(x) : L.local_col(x)));
        }
        // Increasing global tiles owned by one worker have increasing local indices; a repeated
        // tile (t listed in its own round) would be updated twice in one launch.
        for (std::size_t k = 1; k < out.size(); ++k)
          if (out[k] <= out[k - 1]) throw Error(bad + "with unsorted or repeated tiles");
      };
      const std::size_t T = std::size_t(t);
      local(plan.rows_with_pivot(t), true, rows);
      local(plan.cols_with_pivot(t), false, cols);
      words = word_tiles(cols);  // local word blocks: local columns 2w and 2w + 1
      Round& r = p.rounds[T];
      r.rows = p.append(rows);
      r.cols = p.append(cols);
      r.words = p.append(words);
    }
    return p;
  }

  bool empty() const { return rounds.empty(); }

  /// The position of local tile x in s, or -1 (x < 0: -1).
  int find(ListSpan s, i64 x) const {
    if (x < 0 || s.empty()) return -1;
    const auto b = tiles.begin() + s.at, e = b + s.count;
    const auto it = std::lower_bound(b, e, int(x));
    return it != e && *it == int(x) ? int(it - b) : -1;
  }

  /// Round t's rest update as rectangles of `rows` x `cols` (the round's listed rows, and its
  /// listed columns or word blocks), r1 / c1 = the local tile row / column (or word block) of
  /// tile t+1 where this worker owns it, else -1. Ahead: row r1 x every listed column, then the
  /// other listed rows x column c1 (each part only where r1 / c1 is listed); Behind: every other
  /// listed pair; All: every listed pair. Empty rectangles are left out.
  std::vector<ListRect> rest_parts(ListSpan rows, ListSpan cols, i64 r1, i64 c1,
                                   TileSet set) const {
    std::vector<ListRect> out;
    auto add = [&](ListSpan r, ListSpan c) {
      if (!r.empty() && !c.empty()) out.push_back({r, c});
    };
    if (set == TileSet::All) {
      add(rows, cols);
      return out;
    }
    const int pr = find(rows, r1), pc = find(cols, c1);
    if (set == TileSet::Ahead) {
      if (pr >= 0) add(ListSpan{rows.at + pr, 1}, cols);
      if (pc >= 0)
        for (const ListSpan& r : without(rows, pr)) add(r, ListSpan{cols.at + pc, 1});
      return out;
    }
    for (const ListSpan& r : without(rows, pr))
      for (const ListSpan& c : without(cols, pc)) add(r, c);
    return out;
  }

  /// s without its element at position p (p = -1: s itself): up to two spans.
  static std::vector<ListSpan> without(ListSpan s, int p) {
    if (p < 0) return {s};
    std::vector<ListSpan> out;
    if (p > 0) out.push_back({s.at, p});
    if (p + 1 < s.count) out.push_back({s.at + p + 1, s.count - p - 1});
    return out;
  }

 private:
  ListSpan append(const std::vector<int>& v) {
    const ListSpan s{i64(tiles.size()), int(v.size())};
    tiles.insert(tiles.end(), v.begin(), v.end());
    return s;
  }
};

}  // namespace apsp::detail::dist
