// src/multigpu/rounds_int16x2.cuh — the int16x2 rung of the multi-gpu grid (int32 distances,
// two capped int16 values a word) as LookaheadOps: round t as rounds_distances.cuh on the packed
// local matrix D16. The pivot is closed by closure_and_transpose_s16 (P* int32 and P*^T
// replicated words, broadcast as 2 B^2 words), the row panel by the packed RowPanel GEMM (rowp16,
// down grid columns), the column panel in int32 from the transposed strip by the ColPanelRep GEMM
// (colT: replicated words, along grid rows), the rest by the packed Rest GEMM over blocks of 128
// words (two local tile columns). begin() packs the built int32 matrices; end() keeps the result
// only when the band check over every GPU passes (core/ladder.hpp). With a TilePlan
// the row panel and the rest run over the word blocks that hold the round's listed columns, the
// column panel and the rest over its listed rows (as rounds_distances.cuh; docs/sparse.md).
#pragma once

#include <functional>

#include "core/rounds.hpp"
#include "cuda/launch.cuh"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

class PackedRounds final : public LookaheadOps {
 public:
  using T = int;
  explicit PackedRounds(Workers<int>& w) : w_(w) {}

  /// Whether every GPU here has the memory for the packed matrix and row panels (with 256 MiB
  /// to spare).
  bool fits() {
    const i64 ld16 = (w_.ld_ / 2 + kTile - 1) / kTile * kTile;
    for (auto& p : w_.gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      std::size_t free_b = 0, total_b = 0;
      APSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
      const std::size_t need = std::size_t(p->L.local_rows() + 2 * kTile) * std::size_t(ld16) * 4;
      if (need + (std::size_t(256) << 20) > free_b) return false;
    }
    return true;
  }

  /// int16x2 rounds next (distances; fits()): packs every GPU's built int32
  /// matrix, which stays as built for a fall-back.
  void begin() {
    APSP_EXPECTS(w_.mode_ == Mode::Distances, "int16x2 rounds are for distances");
    ld16_ = (w_.ld_ / 2 + kTile - 1) / kTile * kTile;
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      q.D16 = DeviceBuffer<unsigned>(std::size_t(std::max<i64>(1, q.L.local_rows() * ld16_)));
      for (auto& r : q.rowp16) r = DeviceBuffer<unsigned>(std::size_t(kTile * ld16_));
      if (q.flag.size() == 0) q.flag = DeviceBuffer<int>(1);
      cuda::set_s16_attributes();
      if (q.L.local_rows() > 0)
        cuda::launch_pack_local_s16(q.D.get(), w_.ld_, q.L.local_rows(), q.D16.get(), ld16_,
                                    q.main);
    }
    w_.synchronize();
  }

  /// After int16x2 rounds: true when no GPU holds a value in [band_lo, kInf16), and then every
  /// int32 matrix holds the exact result; false when some may, and every int32 matrix is still
  /// as built (the int32 rounds follow). Either way the packed buffers are freed. Synchronizes.
  /// `agree` turns this process's answer ("some GPU here is in the band") into the grid's (an
  /// mpi GPU rank: an OR over the ranks).
  bool end(int band_lo, const std::function<bool(bool)>& agree = {}) {
    APSP_EXPECTS(ld16_ > 0, "PackedRounds::end without begin");
    bool bad = false;
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      APSP_CUDA_TRY(cudaMemsetAsync(q.flag.get(), 0, sizeof(int), q.main));
      if (q.L.local_rows() > 0)
        cuda::launch_find_in_band_local_s16(q.D16.get(), ld16_, q.L.local_rows(), w_.ld_ / 2,
                                            band_lo, q.flag.get(), q.main);
      APSP_CUDA_CHECK_LAUNCH(q.main);
    }
    bad = w_.read_flags();
    if (agree) bad = agree(bad);
    if (!bad)
      for (auto& p : w_.gpus_) {
        Gpu<T>& q = *p;
        if (q.L.local_rows() == 0) continue;
        APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
        cuda::launch_unpack_local_s16(q.D16.get(), ld16_, q.L.local_rows(), q.D.get(), w_.ld_,
                                      q.main);
      }
    w_.synchronize();
    release();
    return !bad;
  }

  i64 num_rounds() const override { return w_.num_rounds(); }

  void pivot(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 li = q.L.local_row(t), lj = q.L.local_col(t);
      // t = 0 with d at the pivot: block 0 closes it in place (csT's first tile gets P*^T; the
      // transpose in panels() rewrites csT).
      const cuda::RoundArgsS16 a{q.D16.get() + li * kTile * ld16_ + lj * (kTile / 2),
                                 ld16_,
                                 q.csT.get(),
                                 w_.ldt_,
                                 q.piv[slot].get(),
                                 reinterpret_cast<unsigned*>(q.piv[slot].get() + kTile * kTile),
                                 0};
      cuda::launch_closure_s16(a, 1, q.look);
    }
    w_.broadcast_pivot(t);
  }

  void panels(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (q.L.pr == tr && q.L.lc > 0) {
        cuda::RoundArgs<unsigned> a{};
        a.d = q.D16.get() + q.L.local_row(t) * kTile * ld16_;
        a.ld = ld16_;
        a.rowp = q.rowp16[slot].get();
        a.ldp = ld16_;
        a.pT = reinterpret_cast<unsigned*>(q.piv[slot].get() + kTile * kTile);
        if (!w_.listed_) {
          cuda::launch_gemm<unsigned, GemmMode::RowPanel>(a, word_blocks(q), 1, q.look);
        } else if (const ListSpan wb = q.plan.rounds[std::size_t(t)].words; !wb.empty()) {
          // Listed: the word blocks holding the round's local columns (both halves of each).
          cuda::launch_gemm_listed<unsigned, GemmMode::RowPanel>(a, tile_lists(q, wb, wb), q.look);
        }
      }
      if (q.L.pc == tc && q.L.lr > 0) {
        cuda::launch_transpose_strip_s16(q.D16.get(), ld16_, q.L.local_rows(),
                                         q.L.local_col(t) * (kTile / 2), q.csT.get(), w_.ldt_,
                                         q.look);
        cuda::RoundArgs<int> a{};
        a.pS = q.piv[slot].get();
        a.csT = q.csT.get();
        a.colT = q.colT[slot].get();
        a.ldc = w_.ldt_;
        if (!w_.listed_) {
          cuda::launch_gemm<int, GemmMode::ColPanelRep>(a, q.L.lr, 1, q.look);
        } else if (const ListSpan r = q.plan.rounds[std::size_t(t)].rows; !r.empty()) {
          // Listed: the round's local rows (the whole strip was transposed; other rows unread).
          cuda::launch_gemm_listed<int, GemmMode::ColPanelRep>(a, tile_lists(q, r, r), q.look);
        }
      }
    }
    if (w_.grid_.P > 1) {
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : w_.gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowp16[slot].get(), q.rowp16[slot].get(),
                                      std::size_t(kTile * ld16_), ncclUint32, tr, q.col, q.look));
        if (q.row)
          APSP_NCCL_TRY(ncclBroadcast(q.colT[slot].get(), q.colT[slot].get(),
                                      std::size_t(kTile * w_.ldt_), ncclInt32, tc, q.row, q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
    }
    w_.mark_ready(t);
  }

  void wait(i64 t) override { w_.wait_ready(t); }

  /// Ahead: local tile row t+1 and the word block holding tile column t+1, then a_done; Behind:
  /// the others; All: everything.
  void rest(i64 t, TileSet set) override {
    const int slot = int(t % 2);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      if (w_.listed_) {
        rest_listed(q, t, set);
        continue;
      }
      if (set == TileSet::All) {
        rest_tiles(q, slot, {0, q.L.lr}, {0, word_blocks(q)});
        continue;
      }
      const i64 r1 = q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
      const i64 c1 = q.L.owns_col(t + 1) ? q.L.local_col(t + 1) / 2 : -1;
      if (set == TileSet::Ahead) {
        if (r1 >= 0) rest_tiles(q, slot, {r1, r1 + 1}, {0, word_blocks(q)});
        if (c1 >= 0)
          for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
            rest_tiles(q, slot, rr, {c1, c1 + 1});
        w_.hand_over(q, false);
      } else {
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r1}))
          for (const TileRange& cb : dist::ranges_without(word_blocks(q), {c1}))
            rest_tiles(q, slot, rr, cb);
      }
    }
    if (set != TileSet::Ahead) w_.sync_for_progress(t);
  }

 private:
  /// Word blocks (128 words: two local tile columns) that hold this GPU's local columns.
  static i64 word_blocks(const Gpu<T>& q) { return (q.L.lc + 1) / 2; }

  // Packed Rest GEMM over local tile rows `rr` x word blocks `cb` on the main stream.
  void rest_tiles(Gpu<T>& q, int slot, TileRange rr, TileRange cb) {
    if (rr.empty() || cb.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    cuda::RoundArgs<unsigned> a{};
    a.d = q.D16.get() + rr.begin * kTile * ld16_ + cb.begin * kTile;
    a.ld = ld16_;
    a.colT = reinterpret_cast<unsigned*>(q.colT[slot].get()) + rr.begin * kTile;
    a.ldc = w_.ldt_;
    a.rowp = q.rowp16[slot].get() + cb.begin * kTile;
    a.ldp = ld16_;
    cuda::launch_gemm<unsigned, GemmMode::Rest>(a, cb.end - cb.begin, rr.end - rr.begin, q.main);
  }

  // Listed rounds: round t's rest over the round's local listed rows x the word blocks holding
  // its listed columns (a word block's unlisted half gets a valid relaxation too: its row panel
  // words were computed whole), split as rest() splits all of them: Ahead has row t+1 and the
  // word block holding column t+1, which round t+1's pivot and panels read.
  void rest_listed(Gpu<T>& q, i64 t, TileSet set) {
    const LocalPlan::Round& l = q.plan.rounds[std::size_t(t)];
    const i64 r1 = set != TileSet::All && q.L.owns_row(t + 1) ? q.L.local_row(t + 1) : -1;
    const i64 c1 = set != TileSet::All && q.L.owns_col(t + 1) ? q.L.local_col(t + 1) / 2 : -1;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const int slot = int(t % 2);
    for (const ListRect& x : q.plan.rest_parts(l.rows, l.words, r1, c1, set)) {
      cuda::RoundArgs<unsigned> a{};
      a.d = q.D16.get();
      a.ld = ld16_;
      a.colT = reinterpret_cast<unsigned*>(q.colT[slot].get());
      a.ldc = w_.ldt_;
      a.rowp = q.rowp16[slot].get();
      a.ldp = ld16_;
      cuda::launch_gemm_listed<unsigned, GemmMode::Rest>(a, tile_lists(q, x.rows, x.cols), q.main);
    }
    if (set == TileSet::Ahead) w_.hand_over(q, false);
  }

  void release() {
    for (auto& p : w_.gpus_) {
      APSP_CUDA_TRY(cudaSetDevice(p->ordinal));
      p->D16 = DeviceBuffer<unsigned>();
      for (auto& r : p->rowp16) r = DeviceBuffer<unsigned>();
    }
  }

  Workers<int>& w_;
  i64 ld16_ = 0;  // D16's and rowp16's row stride in words
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
