// src/multigpu/rounds_paths.cuh — the multi-gpu rounds with next hops (--paths; int32 and
// float32) as LookaheadOps. The tiles are updated as the CPU backend does
// (src/cpu/cpu_backend.cpp): the pivot closed in place (closure_paths) and broadcast as values |
// next hops | hop counts; panels in place from copies of their old values, then broadcast; the rest
// update outside the pivot row and column, a sum replacing c only when strictly smaller (next[i][j]
// = next[i][k]), k in order: results equal `--backend cpu --block 128` bit for bit. Streamed next
// hops of graphs with zero-weight edges compare (distance, hop count) instead (Mode::HopCounts), so
// that every walk ends without solve()'s repair. Kernels: cuda/kernels/paths.cuh.
// With a TilePlan (--order nd, docs/sparse.md; Workers::set_plan) they skip tiles as the distance
// rounds do: the pivot as above; the row panel over the round's local listed columns and the
// column panel over its local listed rows (the pivot's own tile left out, as above), the rest over
// listed rows x listed columns outside the pivot row and column, split for the lookahead as
// dist/local_plan.hpp's rest_parts splits them; each a minplus_paths_listed launch
// (cuda/kernels/paths_listed.cuh: minplus_paths' per-block body, tiles from the lists). A tile
// left out has an all-unreachable operand, so no value, next hop or hop count differs from the
// dense rounds on the same ordered graph. Not listed: the copies of the panel strips (whole,
// cheap) and the whole-panel broadcasts (their other tiles are never read). APSP_MG_PROFILE=1
// adds one line "mgprof paths ..." with the C tiles the next-hop GEMMs updated (listed or dense).
#pragma once

#include <cstdio>

#include "core/rounds.hpp"
#include "cuda/launch.cuh"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

template <class T>
class PathRounds final : public LookaheadOps {
 public:
  static_assert(sizeof(T) == 4, "next hops are kept for 4-byte distances");
  explicit PathRounds(Workers<T>& w) : w_(w) {}

  i64 num_rounds() const override { return w_.num_rounds(); }

  void pivot(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      if (q.L.pr != tr || q.L.pc != tc) continue;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const i64 at = q.L.local_row(t) * kTile * w_.ld_ + q.L.local_col(t) * kTile;
      const bool hops = w_.mode_ == Mode::HopCounts;
      cuda::launch_closure_paths<T>(hops, q.D.get() + at, q.N.get() + at,
                                    hops ? q.H.get() + at : nullptr, w_.ld_, q.pw[slot].get(),
                                    q.look);
    }
    if (w_.grid_.P == 1) return;
    const std::size_t count = std::size_t(3 * kTile * kTile);
    APSP_NCCL_TRY(ncclGroupStart());
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      int* buf = q.pw[slot].get();
      if (q.L.pr == tr && q.row)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, count, ncclInt32, tc, q.row, q.look));
      if (q.L.pc == tc && q.col)
        APSP_NCCL_TRY(ncclBroadcast(buf, buf, count, ncclInt32, tr, q.col, q.look));
    }
    APSP_NCCL_TRY(ncclGroupEnd());
  }

  void panels(i64 t) override {
    const int slot = int(t % 2);
    const int tr = int(t % w_.grid_.Pr), tc = int(t % w_.grid_.Pc);
    const bool hops = w_.mode_ == Mode::HopCounts;
    const i64 BB = kTile * kTile;
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const int* piv = q.pw[slot].get();
      const i64 rows = q.L.local_rows(), strip = kTile * w_.ld_;
      const bool in_row = q.L.pr == tr, in_col = q.L.pc == tc;
      if (in_row && q.L.lc > 0) {
        // D[t, J] = P* (x) old D[t, J], for J outside the pivot column.
        const i64 li = q.L.local_row(t);
        int* old = q.rowold.get();
        APSP_CUDA_TRY(cudaMemcpyAsync(old, q.D.get() + li * strip, strip * 4,
                                      cudaMemcpyDeviceToDevice, q.look));
        if (hops)
          APSP_CUDA_TRY(cudaMemcpyAsync(old + strip, q.H.get() + li * strip, strip * 4,
                                        cudaMemcpyDeviceToDevice, q.look));
        if (!w_.listed_) {
          for (const TileRange& cr : dist::ranges_without(q.L.lc, {in_col ? q.L.local_col(t) : -1}))
            gemm_paths(q, q.look, {li, li + 1}, cr, piv, piv + BB, piv + 2 * BB, kTile,
                       old + cr.begin * kTile, old + strip + cr.begin * kTile, w_.ld_);
        } else {
          // Listed: the round's local columns but the pivot's (its lists hold t where owned).
          const ListSpan c = q.plan.rounds[std::size_t(t)].cols;
          for (const ListSpan& cs :
               LocalPlan::without(c, in_col ? q.plan.find(c, q.L.local_col(t)) : -1))
            gemm_listed(q, q.look, nullptr, &cs, piv, piv + BB, piv + 2 * BB, kTile, old,
                        old + strip, w_.ld_, li * strip);
        }
        int* out = q.rowpw[slot].get();
        APSP_CUDA_TRY(cudaMemcpyAsync(out, q.D.get() + li * strip, strip * 4,
                                      cudaMemcpyDeviceToDevice, q.look));
        if (hops)
          APSP_CUDA_TRY(cudaMemcpyAsync(out + strip, q.H.get() + li * strip, strip * 4,
                                        cudaMemcpyDeviceToDevice, q.look));
      }
      if (in_col && q.L.lr > 0) {
        // D[I, t] = old D[I, t] (x) P*, for I outside the pivot row.
        const i64 lj = q.L.local_col(t);
        int* old = q.colold.get();
        auto strip_copy = [&](int* dst, const void* src) {
          APSP_CUDA_TRY(
              cudaMemcpy2DAsync(dst, kTile * 4, static_cast<const char*>(src) + lj * kTile * 4,
                                w_.ld_ * 4, kTile * 4, rows, cudaMemcpyDeviceToDevice, q.look));
        };
        strip_copy(old, q.D.get());
        strip_copy(old + rows * kTile, q.N.get());
        if (hops) strip_copy(old + 2 * rows * kTile, q.H.get());
        if (!w_.listed_) {
          for (const TileRange& rr :
               dist::ranges_without(q.L.lr, {in_row ? q.L.local_row(t) : -1})) {
            const i64 a0 = rr.begin * BB;
            gemm_paths(q, q.look, rr, {lj, lj + 1}, old + a0, old + rows * kTile + a0,
                       old + 2 * rows * kTile + a0, kTile, piv, piv + 2 * BB, kTile);
          }
        } else {
          // Listed: the round's local rows but the pivot's.
          const ListSpan r = q.plan.rounds[std::size_t(t)].rows;
          for (const ListSpan& rs :
               LocalPlan::without(r, in_row ? q.plan.find(r, q.L.local_row(t)) : -1))
            gemm_listed(q, q.look, &rs, nullptr, old, old + rows * kTile, old + 2 * rows * kTile,
                        kTile, piv, piv + 2 * BB, kTile, lj * kTile);
        }
        int* out = q.colpw[slot].get();
        strip_copy(out, q.D.get());
        strip_copy(out + rows * kTile, q.N.get());
        if (hops) strip_copy(out + 2 * rows * kTile, q.H.get());
      }
    }
    if (w_.grid_.P > 1) {
      APSP_NCCL_TRY(ncclGroupStart());
      for (auto& p : w_.gpus_) {
        Gpu<T>& q = *p;
        if (q.col)
          APSP_NCCL_TRY(ncclBroadcast(q.rowpw[slot].get(), q.rowpw[slot].get(),
                                      std::size_t(2 * kTile * w_.ld_), ncclInt32, tr, q.col,
                                      q.look));
        if (q.row && q.L.lr > 0)
          APSP_NCCL_TRY(ncclBroadcast(q.colpw[slot].get(), q.colpw[slot].get(),
                                      std::size_t(3 * q.L.local_rows() * kTile), ncclInt32, tc,
                                      q.row, q.look));
      }
      APSP_NCCL_TRY(ncclGroupEnd());
    }
    w_.mark_ready(t);
  }

  void wait(i64 t) override { w_.wait_ready(t); }

  /// Outside round t's pivot row and column: Ahead: tile row t+1 and tile column t+1, then
  /// a_done; Behind: the others; All: every such tile. Listed: of those, the listed ones.
  void rest(i64 t, TileSet set) override {
    const int slot = int(t % 2);
    auto skip = [&](const Gpu<T>& q, i64 x, bool row) -> i64 {
      return row ? (q.L.owns_row(x) ? q.L.local_row(x) : -1)
                 : (q.L.owns_col(x) ? q.L.local_col(x) : -1);
    };
    for (auto& p : w_.gpus_) {
      Gpu<T>& q = *p;
      const i64 r0 = skip(q, t, true), c0 = skip(q, t, false);
      if (w_.listed_) {
        const i64 r1 = set == TileSet::All ? -1 : skip(q, t + 1, true);
        const i64 c1 = set == TileSet::All ? -1 : skip(q, t + 1, false);
        rest_listed(q, slot, t, r0, c0, r1, c1, set);
        continue;
      }
      if (set == TileSet::All) {
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r0}))
          for (const TileRange& cr : dist::ranges_without(q.L.lc, {c0}))
            rest_tiles(q, slot, rr, cr);
        continue;
      }
      const i64 r1 = skip(q, t + 1, true), c1 = skip(q, t + 1, false);
      if (set == TileSet::Ahead) {
        if (r1 >= 0)
          for (const TileRange& cr : dist::ranges_without(q.L.lc, {c0}))
            rest_tiles(q, slot, {r1, r1 + 1}, cr);
        if (c1 >= 0)
          for (const TileRange& rr : dist::ranges_without(q.L.lr, {r0, r1}))
            rest_tiles(q, slot, rr, {c1, c1 + 1});
        w_.hand_over(q, false);
      } else {
        for (const TileRange& rr : dist::ranges_without(q.L.lr, {r0, r1}))
          for (const TileRange& cr : dist::ranges_without(q.L.lc, {c0, c1}))
            rest_tiles(q, slot, rr, cr);
      }
    }
    if (set != TileSet::Ahead) w_.sync_for_progress(t);
    if (set == TileSet::All && w_.profiling_) report_tiles();
  }

 private:
  // C (local tiles rr x cr of D, N, H) = min(C, A (x) B) on `stream`, rows of A and columns of B
  // given by the caller.
  void gemm_paths(Gpu<T>& q, cudaStream_t stream, TileRange rr, TileRange cr, const int* a,
                  const int* an, const int* ah, i64 lda, const int* b, const int* bh, i64 ldb) {
    if (rr.empty() || cr.empty()) return;
    const i64 at = rr.begin * kTile * w_.ld_ + cr.begin * kTile;
    const T* av = reinterpret_cast<const T*>(a);
    const T* bv = reinterpret_cast<const T*>(b);
    const bool hops = w_.mode_ == Mode::HopCounts;
    cuda::launch_minplus_paths<T>(hops, rr.end - rr.begin, cr.end - cr.begin, av, an, ah, lda, bv,
                                  bh, ldb, q.D.get() + at, q.N.get() + at,
                                  hops ? q.H.get() + at : nullptr, w_.ld_, stream);
    tiles_ += (rr.end - rr.begin) * (cr.end - cr.begin);
  }

  // Listed rounds: C = min(C, A (x) B) over the tiles of q's lists `rr` x `cr` on `stream` (a null
  // span: the one tile the pointers give, as for a panel's fixed side); A's tile I is its rows
  // [128 I, 128 I + 128), B's tile J its columns likewise; C is D, N, H from element c_at.
  void gemm_listed(Gpu<T>& q, cudaStream_t stream, const ListSpan* rr, const ListSpan* cr,
                   const int* a, const int* an, const int* ah, i64 lda, const int* b, const int* bh,
                   i64 ldb, i64 c_at) {
    if ((rr && rr->empty()) || (cr && cr->empty())) return;
    const cuda::TileLists l{rr ? q.lists.get() + rr->at : nullptr,
                            cr ? q.lists.get() + cr->at : nullptr, rr ? rr->count : 1,
                            cr ? cr->count : 1};
    const bool hops = w_.mode_ == Mode::HopCounts;
    cuda::launch_minplus_paths_listed<T>(
        hops, l, reinterpret_cast<const T*>(a), an, ah, lda, reinterpret_cast<const T*>(b), bh, ldb,
        q.D.get() + c_at, q.N.get() + c_at, hops ? q.H.get() + c_at : nullptr, w_.ld_, stream);
    tiles_ += i64(l.nrows) * l.ncols;
  }

  // Listed rounds: round t's rest on q over its listed rows but r0 x listed columns but c0 (r0 /
  // c0: the local tile row / column of t, or -1), in the rectangles of rest_parts for `set`
  // (r1 / c1: those of t+1, or -1); Ahead then hands over.
  void rest_listed(Gpu<T>& q, int slot, i64 t, i64 r0, i64 c0, i64 r1, i64 c1, TileSet set) {
    const LocalPlan::Round& l = q.plan.rounds[std::size_t(t)];
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const i64 rows = q.L.local_rows();
    const int* cp = q.colpw[slot].get();
    const int* rp = q.rowpw[slot].get();
    for (const ListSpan& rs : LocalPlan::without(l.rows, q.plan.find(l.rows, r0)))
      for (const ListSpan& cs : LocalPlan::without(l.cols, q.plan.find(l.cols, c0)))
        for (const ListRect& x : q.plan.rest_parts(rs, cs, r1, c1, set))
          gemm_listed(q, q.main, &x.rows, &x.cols, cp, cp + rows * kTile, cp + 2 * rows * kTile,
                      kTile, rp, rp + kTile * w_.ld_, w_.ld_, 0);
    if (set == TileSet::Ahead) w_.hand_over(q, false);
  }

  // APSP_MG_PROFILE=1, after the last round is queued: the C tiles (128 x 128) that this
  // process's next-hop GEMMs (panels and rest, every GPU here) were launched over.
  void report_tiles() const {
    std::fprintf(stderr, "mgprof paths grid=%dx%d gpus=%d rounds=%lld listed=%d gemm_tiles=%lld\n",
                 w_.grid_.Pr, w_.grid_.Pc, int(w_.gpus_.size()), (long long)w_.num_rounds(),
                 w_.listed_ ? 1 : 0, (long long)tiles_);
  }

  void rest_tiles(Gpu<T>& q, int slot, TileRange rr, TileRange cr) {
    if (rr.empty() || cr.empty()) return;
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    const i64 rows = q.L.local_rows(), a0 = rr.begin * kTile * kTile, b0 = cr.begin * kTile;
    const int* cp = q.colpw[slot].get();
    const int* rp = q.rowpw[slot].get();
    gemm_paths(q, q.main, rr, cr, cp + a0, cp + rows * kTile + a0, cp + 2 * rows * kTile + a0,
               kTile, rp + b0, rp + kTile * w_.ld_ + b0, w_.ld_);
  }

  Workers<T>& w_;
  i64 tiles_ = 0;  // C tiles the GEMMs were launched over (report_tiles)
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
