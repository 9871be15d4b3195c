// src/dist/block_cyclic.hpp — the 2D block-cyclic layout shared by the mpi and multi-gpu backends.
//
// P workers form a Pr x Pc grid (as square as P allows, Pr <= Pc). The padded matrix is cut into
// R x R tiles of B x B; tile (I, J) lives on worker (I mod Pr, J mod Pc), which stores its tiles
// densely as one local matrix: local tile row I / Pr, local tile column J / Pc. Cyclic dealing
// keeps every worker busy to the last rounds (a plain block layout would idle the workers whose
// tiles are finished) and makes every round's pivot row and column panels a contiguous strip of
// local rows and of local columns. Header only, no MPI or CUDA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "core/config.hpp"

namespace apsp::detail::dist {

using i64 = std::int64_t;

/// The Pr x Pc worker grid; rank = pr * Pc + pc.
struct Grid {
  int P = 1, Pr = 1, Pc = 1;
  /// The grid a run of P workers uses: the shape APSP_GRID="RxC" names (R * C must be P; for
  /// experiments with the grid's shape; anything else is a UsageError), else for_workers(P).
  /// Only where a run builds its grid: status lines and estimates use for_workers.
  static Grid for_run(int P) {
    if (const auto shape = config::get_shape(config::Knob::Grid)) {
      const int r = shape->rows, c = shape->cols;
      if (static_cast<long long>(r) * c != P)
        throw UsageError("APSP_GRID=" + std::to_string(r) + "x" + std::to_string(c) +
                         " is not a grid RxC of the " + std::to_string(P) + " workers");
      Grid g;
      g.P = P;
      g.Pr = r;
      g.Pc = c;
      return g;
    }
    return for_workers(P);
  }
  /// The most square factorisation P = Pr * Pc with Pr <= Pc (1 x P for a prime P).
  static Grid for_workers(int P) {
    Grid g;
    g.P = P;
    for (int r = 1; r * r <= P; ++r)
      if (P % r == 0) g.Pr = r;
    g.Pc = P / g.Pr;
    return g;
  }
  int row_of(int rank) const { return rank / Pc; }
  int col_of(int rank) const { return rank % Pc; }
  int rank_of(int pr, int pc) const { return pr * Pc + pc; }
};

/// A half-open range of local tiles [begin, end).
struct TileRange {
  i64 begin = 0, end = 0;
  bool empty() const { return end <= begin; }
};

/// One worker's view of the layout.
struct Layout {
  Grid grid;
  int pr = 0, pc = 0;  ///< this worker's grid position
  i64 n = 0;           ///< logical vertices
  i64 B = 0;           ///< tile size
  i64 R = 0;           ///< tiles per side (= rounds)
  i64 lr = 0, lc = 0;  ///< local tile rows / columns

  Layout() = default;
  Layout(const Grid& g, int rank, i64 vertices, i64 block)
      : grid(g),
        pr(g.row_of(rank)),
        pc(g.col_of(rank)),
        n(vertices),
        B(block),
        R((vertices + block - 1) / block) {
    lr = tiles_of(R, g.Pr, pr);
    lc = tiles_of(R, g.Pc, pc);
  }
  /// Tiles of a side of R dealt cyclically to p workers that worker q gets.
  static i64 tiles_of(i64 R, int p, int q) { return R > q ? (R - q + p - 1) / p : 0; }

  i64 n_pad() const { return R * B; }
  i64 local_rows() const { return lr * B; }
  i64 local_cols() const { return lc * B; }
  bool owns_row(i64 I) const { return I % grid.Pr == pr; }
  bool owns_col(i64 J) const { return J % grid.Pc == pc; }
  i64 local_row(i64 I) const {
    return I / grid.Pr;
  }  ///< local tile row of global tile row I (owned)
  i64 local_col(i64 J) const { return J / grid.Pc; }
  i64 global_row(i64 li) const { return li * grid.Pr + pr; }
  i64 global_col(i64 lj) const { return lj * grid.Pc + pc; }
  int row_owner(i64 I) const { return int(I % grid.Pr); }  ///< grid row holding tile row I
  int col_owner(i64 J) const { return int(J % grid.Pc); }

  /// Local tile rows whose global tile row lies in [I0, I1): contiguous, since dealing is cyclic.
  TileRange local_rows_in(i64 I0, i64 I1) const {
    return {first_local(I0, grid.Pr, pr), first_local(I1, grid.Pr, pr)};
  }
  TileRange local_cols_in(i64 J0, i64 J1) const {
    return {first_local(J0, grid.Pc, pc), first_local(J1, grid.Pc, pc)};
  }
  /// Smallest local index whose global tile is >= I, for worker q of p.
  static i64 first_local(i64 I, int p, int q) { return I > q ? (I - q + p - 1) / p : 0; }
};

/// [0, count) minus the listed local tiles (each -1 or in range), as ascending ranges.
inline std::vector<TileRange> ranges_without(i64 count, std::initializer_list<i64> skip) {
  std::vector<i64> cut(skip);
  cut.erase(std::remove_if(cut.begin(), cut.end(), [&](i64 x) { return x < 0 || x >= count; }),
            cut.end());
  std::sort(cut.begin(), cut.end());
  cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
  std::vector<TileRange> out;
  i64 at = 0;
  for (i64 c : cut) {
    if (c > at) out.push_back({at, c});
    at = c + 1;
  }
  if (count > at) out.push_back({at, count});
  return out;
}

/// Stripes of whole tile rows for gathering the result: about `target_bytes` of output each.
inline std::vector<TileRange> output_stripes(i64 R, i64 B, i64 n_pad, i64 elem_bytes,
                                             i64 target_bytes) {
  const i64 row_bytes = std::max<i64>(1, B * n_pad * elem_bytes);
  const i64 per = std::max<i64>(1, target_bytes / row_bytes);
  std::vector<TileRange> out;
  for (i64 I = 0; I < R; I += per) out.push_back({I, std::min(R, I + per)});
  return out;
}

}  // namespace apsp::detail::dist
