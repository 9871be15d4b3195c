// src/mpi/gather.hpp — rank 0 gathers a result matrix from the 2D block-cyclic tiles of every
// rank (CPU and GPU ranks alike), in stripes of whole tile rows of about 32 MiB: the other ranks
// send their rows of every stripe with MPI_Isend (GPU ranks copy stripe s+1 to pinned memory
// while stripe s is sent), rank 0 receives stripe s+1 while it hands stripe s to the sink, or
// assembles the whole matrix without one. A sparse order's result is gathered in the user's order
// instead (gather_user_to_root): stripes of user rows, each rank sending its block of a stripe
// (dist/user_order.hpp), rank 0 merging the blocks of each row.
#pragma once

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "dist/user_order.hpp"
#include "mpi/mpi_common.hpp"

namespace apsp::detail::mpi {

inline constexpr i64 kStripeBytes = i64(32) << 20;

/// One rank's side of gathering a result matrix to rank 0 (gather_to_root).
template <class U>
struct StripeSource {
  Grid grid;
  int rank = 0;
  i64 n = 0, R = 0, B = 0;
  /// Local row stride (elements) of rank q.
  std::function<i64(int q)> ld_of;
  /// This rank's local tile rows `lr` (contiguous, ld_of(rank) elements a row) in host memory,
  /// valid until the next call with the same slot (0 or 1).
  std::function<const U*(TileRange lr, int slot)> rows;
  /// rows() copies into one buffer per slot (GPU ranks): a slot's send must end before it is
  /// refilled.
  bool copies = false;
};

/// Rank 0's receiving side of a stripe gather: two sets of buffers by stripe parity, so that
/// stripe s+1's receives are posted (post) while stripe s, waited for (wait), is handed out.
template <class U>
class StripeReceiver {
 public:
  StripeReceiver(MPI_Comm world, int P, int tag0) : world_(world), P_(P), tag0_(tag0) {
    for (auto& r : recv_) r.resize(std::size_t(P));
  }
  /// Posts the receives of stripe s: count(q) entries from every rank q > 0, none where count(q)
  /// < 0 (that rank sends no message for it; a message of 0 entries is received).
  template <class Count>
  void post(std::size_t s, const Count& count) {
    const int b = int(s % 2);
    reqs_[b].clear();
    for (int q = 1; q < P_; ++q) {
      const i64 c = count(q);
      if (c < 0) continue;
      if (recv_[b][std::size_t(q)].size() < c) recv_[b][std::size_t(q)].resize(c);
      reqs_[b].emplace_back();
      APSP_MPI_TRY(MPI_Irecv(recv_[b][std::size_t(q)].get(), mpi_count(c), mpi_type<U>(), q,
                             tag0_ + int(s), world_, &reqs_[b].back()));
    }
  }
  void wait(std::size_t s) {
    std::vector<MPI_Request>& r = reqs_[s % 2];
    APSP_MPI_TRY(MPI_Waitall(int(r.size()), r.data(), MPI_STATUSES_IGNORE));
  }
  /// What rank q sent of stripe s (after wait(s)).
  const U* from(std::size_t s, int q) const { return recv_[s % 2][std::size_t(q)].get(); }

 private:
  MPI_Comm world_;
  int P_, tag0_;
  std::vector<cpu::AlignedBuffer<U>> recv_[2];
  std::vector<MPI_Request> reqs_[2];
};

/// Hands `b` to `sink` unless an earlier block failed; a throw is kept in `failed` (rank 0 keeps
/// receiving so that no rank is left hanging, then rethrows).
inline void hand_to_sink(const RowSink& sink, const RowBlock& b, std::exception_ptr& failed) {
  if (failed) return;
  try {
    sink(b);
  } catch (...) {
    failed = std::current_exception();
  }
}

/// Local tile rows of rank q (grid) in the stripe of tile rows s.
inline TileRange local_tile_rows(const Grid& grid, int q, const TileRange& s) {
  return TileRange{Layout::first_local(s.begin, grid.Pr, grid.row_of(q)),
                   Layout::first_local(s.end, grid.Pr, grid.row_of(q))};
}

/// gather_to_root's side on a rank other than 0: its local rows of every stripe, sent.
template <class U>
void send_stripes(MPI_Comm world, const StripeSource<U>& src, const std::vector<TileRange>& stripes,
                  int tag0) {
  std::vector<MPI_Request> sends;
  MPI_Request last[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the send that last used each slot
  const i64 ld = src.ld_of(src.rank);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    const TileRange lr = local_tile_rows(src.grid, src.rank, stripes[s]);
    if (lr.empty()) continue;
    const int slot = int(s % 2);
    if (src.copies) APSP_MPI_TRY(MPI_Wait(&last[slot], MPI_STATUS_IGNORE));
    const U* data = src.rows(lr, slot);
    MPI_Request req = MPI_REQUEST_NULL;
    APSP_MPI_TRY(MPI_Isend(data, mpi_count((lr.end - lr.begin) * src.B * ld), mpi_type<U>(), 0,
                           tag0 + int(s), world, &req));
    if (src.copies)
      last[slot] = req;
    else
      sends.push_back(req);
  }
  for (MPI_Request& r : last) sends.push_back(r);
  APSP_MPI_TRY(MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE));
}

/// Gathers a matrix to rank 0 in stripes of whole tile rows (about kStripeBytes each), in row
/// order: the other ranks send their local rows of every stripe (MPI_Isend), rank 0 receives
/// stripe s+1 while it reassembles stripe s and hands it to `sink`, or copies it into `whole`
/// (rows x whole_stride) without one. Only rank 0 calls the sink. If the sink throws, rank 0
/// keeps receiving so that no rank hangs, then rethrows. Collective over `world`.
template <class U>
void gather_to_root(MPI_Comm world, const StripeSource<U>& src, bool next_hops, const RowSink& sink,
                    U* whole, i64 whole_stride, Dtype dtype, int threads) {
  const Grid& grid = src.grid;
  const i64 B = src.B, n = src.n;
  const auto stripes = dist::output_stripes(src.R, B, src.R * B, i64(sizeof(U)), kStripeBytes);
  const int tag0 = next_hops ? 1 << 20 : 0;
  auto rows_of = [&](int q, const TileRange& s) { return local_tile_rows(grid, q, s); };
  if (src.rank != 0) {
    send_stripes(world, src, stripes, tag0);
    return;
  }
  // Rank 0: receive stripe s+1 while stripe s is assembled and handed out.
  StripeReceiver<U> recv(world, grid.P, tag0);
  auto post = [&](std::size_t s) {
    recv.post(s, [&](int q) {
      const TileRange lr = rows_of(q, stripes[s]);
      return lr.empty() ? i64(-1) : (lr.end - lr.begin) * B * src.ld_of(q);
    });
  };
  cpu::AlignedBuffer<U> out;
  if (sink && !stripes.empty()) out.resize(std::min<i64>(stripes.front().end * B, src.R * B) * n);
  std::exception_ptr failed;
  if (!stripes.empty()) post(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    recv.wait(s);
    if (s + 1 < stripes.size()) post(s + 1);
    const i64 row0 = stripes[s].begin * B;
    const i64 rows = std::min(stripes[s].end * B, n) - row0;
    if (rows <= 0) continue;
    const TileRange own = rows_of(0, stripes[s]);
    const U* own_rows = own.empty() ? nullptr : src.rows(own, 0);
    U* dst = sink ? out.get() : whole + row0 * whole_stride;
    const i64 dst_ld = sink ? n : whole_stride;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (i64 r = 0; r < rows; ++r) {
      const i64 gi = row0 + r, I = gi / B;
      const int qr = int(I % grid.Pr);
      for (int qc = 0; qc < grid.Pc; ++qc) {
        const int q = grid.rank_of(qr, qc);
        const TileRange lr = rows_of(q, stripes[s]);
        const i64 q_ld = src.ld_of(q);
        const U* base = q == 0 ? own_rows : recv.from(s, q);
        const U* from = base + ((I / grid.Pr - lr.begin) * B + gi % B) * q_ld;
        for (i64 lj = 0; lj * B < q_ld; ++lj) {
          const i64 j0 = (lj * grid.Pc + qc) * B;
          if (j0 >= n) break;
          std::memcpy(dst + r * dst_ld + j0, from + lj * B,
                      std::size_t(std::min(B, n - j0)) * sizeof(U));
        }
      }
    }
    if (sink) hand_to_sink(sink, RowBlock{row0, rows, n, n, dtype, out.get()}, failed);
  }
  if (failed) std::rethrow_exception(failed);
}

/// One rank's side of gathering a sparse order's result in the user's order (gather_user_to_root).
template <class U>
struct UserSource {
  const dist::UserOrder* order = nullptr;
  int rank = 0;
  /// This rank's block of the user rows [u0, u1) (order->block_elems entries) in host memory,
  /// valid until the next call with the same slot (0 or 1).
  std::function<const U*(i64 u0, i64 u1, int slot)> block;
  /// Optional: allocates what block() needs for blocks of up to `most` entries, before the first
  /// stripe (its failure is agreed on over the ranks).
  std::function<void(i64 most)> prepare;
};

/// gather_user_to_root's side on a rank other than 0: its block of every stripe, sent (a slot's
/// send ends before the slot is refilled).
template <class U>
void send_user_blocks(MPI_Comm world, const UserSource<U>& src,
                      const std::vector<TileRange>& stripes, int tag0) {
  const dist::UserOrder& o = *src.order;
  MPI_Request last[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // each slot's last send
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    const i64 count = o.block_elems(src.rank, stripes[s].begin, stripes[s].end);
    if (count == 0) continue;
    const int slot = int(s % 2);
    APSP_MPI_TRY(MPI_Wait(&last[slot], MPI_STATUS_IGNORE));
    const U* data = src.block(stripes[s].begin, stripes[s].end, slot);
    APSP_MPI_TRY(
        MPI_Isend(data, mpi_count(count), mpi_type<U>(), 0, tag0 + int(s), world, &last[slot]));
  }
  APSP_MPI_TRY(MPI_Waitall(2, last, MPI_STATUSES_IGNORE));
}

/// gather_to_root for a result whose rounds ran on an ordered graph: rank 0 hands it out in the
/// user's order (order->n rows of order->n), in stripes of user rows of about kStripeBytes, each
/// rank sending its block of every stripe (MPI_Isend; a slot's send ends before it is refilled),
/// rank 0 receiving stripe s+1 while it merges stripe s into the user's columns and hands it to
/// `sink`, or into `whole` without one. Collective over `world`.
template <class U>
void gather_user_to_root(MPI_Comm world, const UserSource<U>& src, bool next_hops,
                         const RowSink& sink, U* whole, i64 whole_stride, Dtype dtype,
                         int threads) {
  const dist::UserOrder& o = *src.order;
  const Grid& grid = o.grid;
  const i64 n = o.n;
  // Rank 0's stripe size on every rank (APSP_GATHER_STRIPE may differ between hosts).
  std::int64_t target = dist::stripe_bytes(kStripeBytes);
  APSP_MPI_TRY(MPI_Bcast(&target, 1, MPI_INT64_T, 0, world));
  const auto stripes = o.stripes(i64(sizeof(U)), target);
  // Buffers before the first stripe, agreed on: a rank that cannot get them fails every rank
  // alike instead of leaving the others waiting for its blocks.
  std::string error;
  if (src.prepare) {
    i64 most = 0;
    for (const TileRange& st : stripes)
      most = std::max(most, o.block_elems(src.rank, st.begin, st.end));
    try {
      src.prepare(most);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (const std::string p = first_problem(world, error); !p.empty()) throw ResourceError(p);
  const int tag0 = next_hops ? 1 << 20 : 0;
  if (src.rank != 0) {
    send_user_blocks(world, src, stripes, tag0);
    return;
  }
  StripeReceiver<U> recv(world, grid.P, tag0);
  auto post = [&](std::size_t s) {
    recv.post(s, [&](int q) {
      const i64 count = o.block_elems(q, stripes[s].begin, stripes[s].end);
      return count == 0 ? i64(-1) : count;  // the rank sends nothing (as it does, above)
    });
  };
  cpu::AlignedBuffer<U> out;
  if (sink && grid.P > 1 && !stripes.empty())
    out.resize((stripes.front().end - stripes.front().begin) * n);
  std::exception_ptr failed;
  if (!stripes.empty()) post(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    recv.wait(s);
    if (s + 1 < stripes.size()) post(s + 1);
    const i64 u0 = stripes[s].begin, u1 = stripes[s].end;
    const U* own = o.block_elems(0, u0, u1) > 0 ? src.block(u0, u1, 0) : nullptr;
    if (sink && grid.P == 1) {  // one rank: its block is the stripe, rows of n in order
      hand_to_sink(sink, RowBlock{u0, u1 - u0, n, n, dtype, own}, failed);
      continue;
    }
    const std::vector<i64> firsts = dist::stripe_firsts(o, u0, u1);
    U* dst = sink ? out.get() : whole + u0 * whole_stride;
    const i64 dst_ld = sink ? n : whole_stride;
    auto block = [&](int q) -> const U* { return q == 0 ? own : recv.from(s, q); };
#pragma omp parallel for schedule(static) num_threads(threads)
    for (i64 u = u0; u < u1; ++u)
      dist::merge_user_row(o, u, firsts, block, dst + (u - u0) * dst_ld);
    if (sink) hand_to_sink(sink, RowBlock{u0, u1 - u0, n, n, dtype, out.get()}, failed);
  }
  if (failed) std::rethrow_exception(failed);
}

/// A rank whose local matrix is in host memory (`local`, ld elements a row, the layout L; the
/// CPU ranks) hands it to rank 0: in stripes of tile rows (gather_to_root), or with `user` in
/// the user's order (gather_user_to_root, its blocks gathered on the host). Rank 0 passes each
/// stripe to `sink` or, without one, copies it into `whole` (rows x whole_stride). Collective.
template <class U>
void gather_host_local(MPI_Comm world, const Layout& L, i64 ld, const U* local, bool next_hops,
                       const dist::UserOrder* user, const RowSink& sink, U* whole, i64 whole_stride,
                       Dtype dtype, int threads) {
  const int rank = L.grid.rank_of(L.pr, L.pc);
  if (user) {
    cpu::AlignedBuffer<U> block[2];
    UserSource<U> src;
    src.order = user;
    src.rank = rank;
    src.block = [&](i64 u0, i64 u1, int slot) -> const U* {
      const TileRange r = user->rows_in(L.pr, u0, u1);
      const i64 C = user->cols(L.pc);
      cpu::AlignedBuffer<U>& b = block[slot & 1];
#pragma omp parallel for schedule(static) num_threads(threads)
      for (i64 k = r.begin; k < r.end; ++k)
        dist::user_block_row(*user, rank, k, local, ld, next_hops, b.get() + (k - r.begin) * C);
      return b.get();
    };
    src.prepare = [&](i64 most) {
      for (cpu::AlignedBuffer<U>& b : block) b.resize(std::max<i64>(1, most));
    };
    gather_user_to_root(world, src, next_hops, sink, whole, whole_stride, dtype, threads);
    return;
  }
  StripeSource<U> src;
  src.grid = L.grid;
  src.rank = rank;
  src.n = L.n;
  src.R = L.R;
  src.B = L.B;
  const Grid grid = L.grid;
  const i64 R = L.R, B = L.B;
  src.ld_of = [grid, R, B](int q) { return Layout::tiles_of(R, grid.Pc, grid.col_of(q)) * B; };
  src.rows = [local, B, ld](TileRange lr, int) { return local + lr.begin * B * ld; };
  src.copies = false;
  gather_to_root(world, src, next_hops, sink, whole, whole_stride, dtype, threads);
}

}  // namespace apsp::detail::mpi
