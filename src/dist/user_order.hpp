// src/dist/user_order.hpp — a sparse order's result handed out in the user's vertex order by the
// 2D block-cyclic backends (multi-gpu, mpi), stripe by stripe, without a whole ordered matrix.
//
// The rounds run on the ordered graph (user vertex v at position new(v)); the user's entry (u, v)
// is the ordered (new(u), new(v)), which lives on worker (row_owner(new(u)), col_owner(new(v))).
// For a stripe of user rows [u0, u1), worker (pr, pc) gathers the block of its user rows (those u
// whose ordered row it holds, ascending) x its user columns (ascending v), densely: every worker
// reads only its own tiles, with the index lists below (on the GPU: a gather kernel before the
// download). Whoever hands the stripe out then merges the Pc blocks of each row into the user's
// columns (merge_user_row: one pass, each block read in order; a plain copy on a Pr x 1 grid).
// Header only, no MPI or CUDA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "dist/block_cyclic.hpp"
#include "order/ordering.hpp"

namespace apsp::detail::dist {

/// Where the user's rows and columns live in the ordered block-cyclic layout (tile B).
struct UserOrder {
  Grid grid;
  i64 n = 0;  ///< user vertices
  /// Per grid row pr: the user rows it holds, ascending, and their local rows there.
  std::vector<std::vector<std::int32_t>> row_users, row_local;
  /// Per grid column pc: the user columns it holds, ascending, and their local columns there.
  std::vector<std::vector<std::int32_t>> col_users, col_local;
  /// Per user row: its grid row, and its index in that grid row's row_users.
  std::vector<std::int32_t> row_grid, row_index;
  /// Per position of the ordered graph: its user vertex (-1: padding); next hops are renamed
  /// through it.
  std::vector<std::int32_t> old_of_new;

  /// new_of_old: the user vertex v's position (size n); old_of_new: its inverse over the ordered
  /// graph's positions (-1 for padding).
  static UserOrder of(const Grid& grid, i64 B, const std::vector<std::int32_t>& new_of_old,
                      const std::vector<std::int32_t>& old_of_new) {
    UserOrder o;
    o.grid = grid;
    o.n = i64(new_of_old.size());
    o.old_of_new = old_of_new;
    o.row_users.resize(std::size_t(grid.Pr));
    o.row_local.resize(std::size_t(grid.Pr));
    o.col_users.resize(std::size_t(grid.Pc));
    o.col_local.resize(std::size_t(grid.Pc));
    o.row_grid.resize(new_of_old.size());
    o.row_index.resize(new_of_old.size());
    for (i64 v = 0; v < o.n; ++v) {
      const i64 p = new_of_old[std::size_t(v)], I = p / B;
      APSP_EXPECTS(p >= 0 && p < i64(old_of_new.size()), "user order: a position out of range");
      const int pr = int(I % grid.Pr), pc = int(I % grid.Pc);
      o.row_grid[std::size_t(v)] = pr;
      o.row_index[std::size_t(v)] = std::int32_t(o.row_users[std::size_t(pr)].size());
      o.row_users[std::size_t(pr)].push_back(std::int32_t(v));
      o.row_local[std::size_t(pr)].push_back(std::int32_t(I / grid.Pr * B + p % B));
      o.col_users[std::size_t(pc)].push_back(std::int32_t(v));
      o.col_local[std::size_t(pc)].push_back(std::int32_t(I / grid.Pc * B + p % B));
    }
    return o;
  }

  /// The indices into row_users[pr] of the user rows [u0, u1) that grid row pr holds.
  TileRange rows_in(int pr, i64 u0, i64 u1) const {
    const auto& r = row_users[std::size_t(pr)];
    return {i64(std::lower_bound(r.begin(), r.end(), u0) - r.begin()),
            i64(std::lower_bound(r.begin(), r.end(), u1) - r.begin())};
  }
  i64 cols(int pc) const { return i64(col_users[std::size_t(pc)].size()); }
  /// Elements of worker (pr, pc)'s block of the user rows [u0, u1).
  i64 block_elems(int rank, i64 u0, i64 u1) const {
    const TileRange r = rows_in(grid.row_of(rank), u0, u1);
    return (r.end - r.begin) * cols(grid.col_of(rank));
  }
  /// Stripes of user rows of about target_bytes of output each (elem bytes an entry; callers
  /// take target_bytes from stripe_bytes(): every MPI rank must use rank 0's).
  std::vector<TileRange> stripes(i64 elem, i64 target_bytes) const {
    const i64 per = std::max<i64>(1, target_bytes / std::max<i64>(1, n * elem));
    std::vector<TileRange> out;
    for (i64 u = 0; u < n; u += per) out.push_back({u, std::min(n, u + per)});
    return out;
  }
};

/// Where the user's rows and columns of `perm`'s ordered graph live on `grid` (tile B); null
/// without an order (the result is then in the user's order already).
inline std::unique_ptr<UserOrder> user_order_of(const Grid& grid, i64 B, const Permutation* perm) {
  if (!perm || perm->empty()) return nullptr;
  return std::make_unique<UserOrder>(UserOrder::of(grid, B, perm->new_of_old, perm->old_of_new));
}

/// Bytes of output a user-order stripe holds: APSP_GATHER_STRIPE, else `dflt`.
inline i64 stripe_bytes(i64 dflt) {
  return config::get_int(config::Knob::GatherStripe).value_or(dflt);
}

/// Row k of worker `rank`'s blocks (the k-th user row of its grid row, row_users) from its local
/// matrix (`local`, `ld` elements a row) into `out` (cols(pc) entries, ascending user columns);
/// next hops (`rename`) renamed to the user's vertices. What the GPU's gather kernel does, on
/// the host (the mpi CPU ranks); a block of rows [u0, u1) is rows rows_in(pr, u0, u1) of it.
template <class U>
void user_block_row(const UserOrder& o, int rank, i64 k, const U* local, i64 ld, bool rename,
                    U* out) {
  const int pr = o.grid.row_of(rank), pc = o.grid.col_of(rank);
  const U* src = local + i64(o.row_local[std::size_t(pr)][std::size_t(k)]) * ld;
  const std::int32_t* cl = o.col_local[std::size_t(pc)].data();
  const i64 C = o.cols(pc);
  for (i64 j = 0; j < C; ++j) {
    const U x = src[cl[j]];
    if constexpr (std::is_integral_v<U>)
      out[j] = rename && x >= 0 ? U(o.old_of_new[std::size_t(x)]) : x;
    else
      out[j] = x;
  }
}

/// The first index into row_users of each grid row's rows in the stripe [u0, u1).
inline std::vector<i64> stripe_firsts(const UserOrder& o, i64 u0, i64 u1) {
  std::vector<i64> first(std::size_t(o.grid.Pr));
  for (int pr = 0; pr < o.grid.Pr; ++pr) first[std::size_t(pr)] = o.rows_in(pr, u0, u1).begin;
  return first;
}

/// User row u of a stripe into `dst` (column v at v) from the blocks of u's grid row's workers:
/// block(rank) is worker rank's block of the stripe (user_block_row's rows, from row
/// firsts[pr]; stripe_firsts). A Pr x 1 grid's rows are copied whole.
template <class U, class Block>
void merge_user_row(const UserOrder& o, i64 u, const std::vector<i64>& firsts, const Block& block,
                    U* dst) {
  const Grid& g = o.grid;
  const int pr = o.row_grid[std::size_t(u)];
  const i64 k = o.row_index[std::size_t(u)] - firsts[std::size_t(pr)];
  for (int pc = 0; pc < g.Pc; ++pc) {
    const i64 C = o.cols(pc);
    const U* src = block(g.rank_of(pr, pc)) + k * C;
    if (g.Pc == 1) {  // every user column, ascending: 0 .. n-1
      std::memcpy(dst, src, std::size_t(C) * sizeof(U));
      continue;
    }
    const std::int32_t* cu = o.col_users[std::size_t(pc)].data();
    for (i64 j = 0; j < C; ++j) dst[cu[j]] = src[j];
  }
}

}  // namespace apsp::detail::dist
