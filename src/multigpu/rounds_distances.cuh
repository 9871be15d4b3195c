// src/multigpu/rounds_distances.cuh — the distance rounds of the multi-gpu grid (any dtype) as
// LookaheadOps (core/rounds.hpp), on two streams per GPU. look (high priority): the pivot owner
// closes P (closure_and_transpose) and (P*, P*^T) is broadcast along its grid row and column; the
// grid row of t computes the row panel (Panels GEMM), the grid column of t the transposed column
// panel (transpose, then the Panels GEMM in its row form); NCCL broadcasts them down grid columns
// and along grid rows; event ready[t % 2]. main: waits for ready, then the Rest GEMM (every local
// tile, the pivot row and column included: there it writes the panel value). With lookahead tile
// row and column t+1 go first and event a_done lets look start round t+1 meanwhile. Buffers are
// double-buffered by round parity. With a TilePlan (Workers::set_plan, docs/sparse.md) the
// panel GEMMs run over the round's local listed columns / rows only (minplus_gemm_listed in its
// RowPanel form) and the rest over listed rows x listed columns (dist/local_plan.hpp splits them
// for the lookahead); the pivot, the whole-strip transpose and the whole-panel broadcasts stay
// (the panels' unlisted tiles are stale and never read).
// References: Venkataraman et al. (JEA 2003); HPL's lookahead.
#pragma once

#include "core/rounds.hpp"
#include "cuda/launch.cuh"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

template <class T>
class DistanceRounds final : public LookaheadOps {
 public:
  explicit DistanceRounds(Workers<T>& w) : w_(w) {}

  i64 num_rounds() const override { return w_.num_rounds(); }

  // The pivot: closed on its owner, (P*, P*^T) broadcast along its grid row and column.
  void pivot(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 li = q.L.local_row(t), lj = q.L.local_col(t);
      cuda::RoundArgs<T> a = args();
      a.d = q.D.get() + li * kTile * w_.ld_ + lj * kTile;
      a.csT =
          q.csT.get();  // block 0 also writes P*^T here; the transpose below rewrites csT anyway
      a.pS = q.piv[slot].get();
      a.pT = q.piv[slot].get() + kTile * kTile;
      cudaEvent_t c0 = w_.mark(q, q.look);
      cuda::launch_closure<T>(a, 1, q.look);
      w_.span(q, kClosure, c0, q.look);
    }
    w_.broadcast_pivot(t);
  }

  // Row panel on the pivot's grid row, column panel (transposed) on its grid column, then the
  // broadcasts that give every GPU the panels of its own tile rows and columns.
  void panels(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    const auto p0 = w_.mark_all(&Gpu<T>::look);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.pr == tr && q.L.lc > 0) {
        cuda::RoundArgs<T> a = args();
        a.d = q.D.get() +
              q.L.local_row(t) * kTile * w_.ld_;  // row mode reads d + 0 * ld + X0: D[t, X]
        a.rowp = q.rowp[slot].get();
        a.pT = q.piv[slot].get() + kTile * kTile;  // A = P*
        if (!w_.listed_) {
          cuda::launch_gemm<T, GemmMode::Panels>(a, q.L.lc, 1, q.look);
        } else if (const ListSpan c = q.plan.rounds[std::size_t(t)].cols; !c.empty()) {
          // Listed: the round's local columns only (rowp's other columns are never read).
          cuda::launch_gemm_listed<T, GemmMode::RowPanel>(a, tile_lists(q, c, c), q.look);
        }
      }
      if (q.L.pc == tc && q.L.lr > 0) {
        const i64 lj = q.L.local_col(t);
        cuda::launch_transpose_strip<T>(q.D.get() + lj * kTile, w_.ld_, q.L.local_rows(),
                                        q.csT.get(), w_.ldt_, q.look);
        // colT[:, X] = P*^T (x) csT[:, X], through the row-panel form: A = P*^T is passed as pT;
        // its "d" is csT and its "rowp" colT, both B x ldt.
        cuda::RoundArgs<T> a = args();
        a.d = q.csT.get();
        a.ld = w_.ldt_;
        a.rowp = q.colT[slot].get();
        a.ldp = w_.ldt_;
        a.pT = q.piv[slot].get();
        if (!w_.listed_) {
          cuda::launch_gemm<T, GemmMode::Panels>(a, q.L.lr, 1, q.look);
        } else if (const ListSpan r = q.plan.rounds[std::size_t(t)].rows; !r.empty()) {
          // Listed: the round's local rows only (the whole strip was transposed: cheap, and
          // csT's and colT's other rows are never read).
          cuda::launch_gemm_listed<T, GemmMode::RowPanel>(a, tile_lists(q, r, r), q.look);
        }
      }
    }
    w_.span_all(kPanels, p0, &Gpu<T>::look);
    if (w_.grid_.P > 1) {
      const auto b0 = w_.mark_all(&Gpu<T>::look);
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : w_.gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowp[slot].get(), q.rowp[slot].get(),
                                      std::size_t(kTile * w_.ld_), nccl_type<T>(), tr, q.col,
                                      q.look));
        if (q.row)
          APSP_NCCL_TRY(ncclBroadcast(q.colT[slot].get(), q.colT[slot].get(),
                                      std::size_t(kTile * w_.ldt_), nccl_type<T>(), tc, q.row,
                                      q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
      w_.span_all(kPanelBcast, b0, &Gpu<T>::look);
    }
    w_.mark_ready(t);
  }

  void wait(i64 t) override { w_.wait_ready(t); }

  /// Ahead: local tile row t+1 and tile column t+1, then a_done; Behind: the others; All: every
  /// local tile. The profile's rest span runs from the first of them to the last.
  void rest(i64 t, TileSet set) override {
    const int slot = int(t % 2);
    if (set != TileSet::Behind) rest_begin_ = w_.mark_all(&Gpu<T>::main);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      if (w_.listed_) {
        rest_listed(q, t, set);
        continue;
      }
      if (set == TileSet::All) {
        rest_tiles(q, slot, {0, q.L.lr}, {0, q.L.lc});
        continue;
      }
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) : -1;
      if (set == TileSet::Ahead) {
        if (r1 >= 0) rest_tiles(q, slot, {r1, r1 + 1}, {0, q.L.lc});
        if (c1 >= 0)
          for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
            rest_tiles(q, slot, rr, {c1, c1 + 1});
        w_.hand_over(q, true);
      } else {
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
          for (const TileRange& cr : dist::ranges_without(q.L.lc, {c1}))
            rest_tiles(q, slot, rr, cr);
      }
    }
    if (set == TileSet::Ahead) return;
    w_.span_all(kRest, rest_begin_, &Gpu<T>::main);
    w_.sync_for_progress(t);
  }

 private:
  // The strides as the distance kernels read them: d (the local matrix) and rowp (row panels)
  // ld_, csT and colT (transposed column strips, indexed by local rows) ldt_. The column-panel
  // GEMM in panels() runs through the row-panel form and sets its own (ld = ldp = ldt_).
  cuda::RoundArgs<T> args() const {
    cuda::RoundArgs<T> a{};
    a.ld = w_.ld_;
    a.ldp = w_.ld_;
    a.ldc = w_.ldt_;
    return a;
  }

  // Rest GEMM over local tile rows `rr` x local tile columns `cr` on the main stream.
  void rest_tiles(Gpu<T>& q, int slot, TileRange rr, TileRange cr) {
    if (rr.empty() || cr.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cuda::RoundArgs<T> a = args();
    a.d = q.D.get() + rr.begin * kTile * w_.ld_ + cr.begin * kTile;
    a.colT = q.colT[slot].get() + rr.begin * kTile;
    a.rowp = q.rowp[slot].get() + cr.begin * kTile;
    cuda::launch_gemm<T, GemmMode::Rest>(a, cr.end - cr.begin, rr.end - rr.begin, q.main);
  }

  // Listed rounds: round t's rest over the rectangles of q.plan.rest_parts (the round's local
  // listed rows x listed columns, split as the dense rest() splits all of them), one listed
  // Rest launch each (C tile (rows[y], cols[x]) from local tile 0); Ahead then hands over.
  void rest_listed(Gpu<T>& q, i64 t, TileSet set) {
    const LocalPlan::Round& l = q.plan.rounds[std::size_t(t)];
    const i64 r1 = set != TileSet::All && q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
    const i64 c1 = set != TileSet::All && q.L.owns_col(t + 1) ? q.L.local_col(t + 1) : -1;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const int slot = int(t % 2);
    for (const ListRect& x : q.plan.rest_parts(l.rows, l.cols, r1, c1, set)) {
      cuda::RoundArgs<T> a = args();
      a.d = q.D.get();
      a.colT = q.colT[slot].get();
      a.rowp = q.rowp[slot].get();
      cuda::launch_gemm_listed<T, GemmMode::Rest>(a, tile_lists(q, x.rows, x.cols), q.main);
    }
    if (set == TileSet::Ahead) w_.hand_over(q, true);
  }

  Workers<T>& w_;
  std::vector<cudaEvent_t> rest_begin_;  // profile: where this round's rest started, per GPU
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
