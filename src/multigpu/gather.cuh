// src/multigpu/gather.cuh — the multi-gpu result to the host: stripes of whole tile rows copied
// device -> pinned host from every GPU (stripe s+1 in flight while stripe s is reassembled from
// the block-cyclic tiles by host threads and handed to SolveOptions' sink), or written into the
// caller's whole matrix without a sink. Needs every worker of the grid in this process (an mpi
// GPU rank hands its rows out through GpuRank::rows_to_host instead: src/mpi/gather.hpp).
#pragma once

#include <cstring>
#include <exception>
#include <type_traits>
#include <vector>

#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

/// Hands out the distances (U = T) or next hops (U = int, next_hops) in stripes of tile rows:
/// to `sink` if set, else into `whole`, as R (U = int, R = long: a checked int32 rung's result,
/// the unreachable value mapped).
template <class U, class R = U, class T>
void gather(Workers<T>& w, bool next_hops, const RowSink& sink, R* whole, i64 whole_stride,
            Dtype dtype) {
  APSP_EXPECTS(int(w.gpus_.size()) == w.grid_.P,
               "the in-process gather needs every worker of the grid in this process");
  auto source = [&](Gpu<T>& q) -> const U* {
    return next_hops ? reinterpret_cast<const U*>(q.N.get())
                     : reinterpret_cast<const U*>(q.D.get());
  };
  const Layout& L0 = w.gpus_.front()->L;
  const i64 n = L0.n, B = kTile;
  const auto stripes = dist::output_stripes(L0.R, B, L0.n_pad(), i64(sizeof(T)), kStripeBytes);
  if (stripes.empty() || n == 0) return;
  const i64 per = stripes.front().end - stripes.front().begin;
  std::vector<PinnedArray<U>> stage[2];
  for (auto& s : stage) {
    s = std::vector<PinnedArray<U>>(w.gpus_.size());
    for (std::size_t x = 0; x < w.gpus_.size(); ++x)
      s[x].resize(Layout::tiles_of(per, w.grid_.Pr, 0) * B * w.ld_);
  }
  auto issue = [&](std::size_t s) {
    for (std::size_t x = 0; x < w.gpus_.size(); ++x) {
      Gpu<T>& q = *w.gpus_[x];
      const TileRange lr = q.L.local_rows_in(stripes[s].begin, stripes[s].end);
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      if (!lr.empty())
        APSP_CUDA_TRY(cudaMemcpyAsync(stage[s % 2][x].p, source(q) + lr.begin * B * w.ld_,
                                      std::size_t((lr.end - lr.begin) * B * w.ld_) * sizeof(U),
                                      cudaMemcpyDeviceToHost, q.main));
      APSP_CUDA_TRY(cudaEventRecord(q.copied[s % 2], q.main));
    }
  };
  std::vector<R> out(sink ? std::size_t(per * B * n) : 0);
  std::exception_ptr failed;
  issue(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    for (auto& p : w.gpus_) APSP_CUDA_TRY(cudaEventSynchronize(p->copied[s % 2]));
    if (s + 1 < stripes.size()) issue(s + 1);
    const i64 row0 = stripes[s].begin * B, rows = std::min(stripes[s].end * B, n) - row0;
    R* dst = sink ? out.data() : whole + row0 * whole_stride;
    const i64 dst_ld = sink ? n : whole_stride;
    parallel_rows(rows, [&](i64 r) {
      const i64 gi = row0 + r, I = gi / B;
      const int qr = int(I % w.grid_.Pr);
      for (int qc = 0; qc < w.grid_.Pc; ++qc) {
        const int x = w.grid_.rank_of(qr, qc);
        const Layout& L = w.gpus_[std::size_t(x)]->L;
        const TileRange lr = L.local_rows_in(stripes[s].begin, stripes[s].end);
        const U* src =
            stage[s % 2][std::size_t(x)].p + ((L.local_row(I) - lr.begin) * B + gi % B) * w.ld_;
        for (i64 lj = 0; lj < L.lc; ++lj) {
          const i64 j0 = L.global_col(lj) * B;
          if (j0 >= n) break;
          const i64 w = std::min(B, n - j0);
          if constexpr (std::is_same_v<U, R>) {
            std::memcpy(dst + r * dst_ld + j0, src + lj * B, std::size_t(w) * sizeof(U));
          } else {
            R* o = dst + r * dst_ld + j0;
            const U* in = src + lj * B;
            for (i64 k = 0; k < w; ++k) o[k] = widen_value<R>(in[k]);
          }
        }
      }
    });
    if (sink && !failed) {
      try {
        sink(RowBlock{row0, rows, n, n, dtype, out.data()});
      } catch (...) {
        failed = std::current_exception();
        break;
      }
    }
  }
  w.synchronize();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
