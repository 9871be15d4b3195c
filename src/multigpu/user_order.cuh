// src/multigpu/user_order.cuh — a sparse order's result leaves the GPUs in the user's vertex
// order (dist/user_order.hpp): for each stripe of user rows, every GPU gathers its block (its
// user rows x its user columns, next hops renamed to user vertices) with one kernel and
// downloads only that; the host merges each row's Pc blocks into the user's columns. No ordered
// matrix ever reaches the host. UserGather is one GPU's side (the multi-gpu backend has one per
// GPU, an mpi GPU rank one); gather_user hands a whole in-process grid's result out.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <type_traits>
#include <vector>

#include "dist/user_order.hpp"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

/// out[k][j] = src[rows[k]][cols[j]] (ld elements a source row), for k < nrows, j < ncols; with
/// `rename`, an entry x >= 0 (a next hop: an ordered position) becomes rename[x].
template <class U>
__global__ void gather_user_block(const U* __restrict__ src, i64 ld,
                                  const int* __restrict__ rows, i64 nrows,
                                  const int* __restrict__ cols, i64 ncols,
                                  const int* __restrict__ rename, U* __restrict__ out) {
  for (i64 k = blockIdx.y; k < nrows; k += gridDim.y) {
    const U* row = src + i64(rows[k]) * ld;
    U* dst = out + k * ncols;
    for (i64 j = i64(blockIdx.x) * blockDim.x + threadIdx.x; j < ncols;
         j += i64(gridDim.x) * blockDim.x) {
      U x = row[cols[j]];
      if constexpr (std::is_integral_v<U>)
        if (rename && x >= 0) x = U(rename[x]);
      dst[j] = x;
    }
  }
}

/// One GPU's side of the user-order gather: its index lists in device memory (uploaded once) and
/// a device block buffer; issue() gathers a stripe's block and queues its download.
template <class T>
class UserGather {
 public:
  /// For GPU q of the grid (its layout q.L), `ld` elements a local row; `next_hops`: the
  /// ordered-to-user renaming is uploaded too.
  UserGather(const Gpu<T>& q, const dist::UserOrder& o, i64 ld, bool next_hops)
      : o_(o), ld_(ld), rank_(o.grid.rank_of(q.L.pr, q.L.pc)), ordinal_(q.ordinal) {
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    auto upload = [](const std::vector<std::int32_t>& v) {
      DeviceBuffer<int> d(std::max<std::size_t>(1, v.size()));
      if (!v.empty())
        APSP_CUDA_TRY(
            cudaMemcpy(d.get(), v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
      return d;
    };
    rows_ = upload(o.row_local[std::size_t(q.L.pr)]);
    cols_ = upload(o.col_local[std::size_t(q.L.pc)]);
    if (next_hops) rename_ = upload(o.old_of_new);
  }
  int rank() const { return rank_; }
  const dist::UserOrder& order() const { return o_; }

  /// Gathers the block of the user rows [u0, u1) from `src` (this GPU's D, or N with
  /// next_hops: renamed) and queues its download to `host` (block_elems entries) on `stream`;
  /// the caller waits. The device block buffer grows on the first call (the largest stripe).
  template <class U>
  void issue(const U* src, bool next_hops, i64 u0, i64 u1, U* host, cudaStream_t stream) {
    APSP_EXPECTS(!next_hops || rename_.get(), "user order: next hops without their renaming");
    const int pr = o_.grid.row_of(rank_), pc = o_.grid.col_of(rank_);
    const TileRange r = o_.rows_in(pr, u0, u1);
    const i64 rows = r.end - r.begin, C = o_.cols(pc);
    if (rows <= 0 || C <= 0) return;
    const std::size_t bytes = std::size_t(rows * C) * sizeof(U);
    if (block_.size() < bytes) {
      APSP_CUDA_TRY(cudaSetDevice(ordinal_));
      APSP_CUDA_TRY(cudaStreamSynchronize(stream));  // the old buffer's last download
      block_ = DeviceBuffer<char>(bytes);
    }
    U* block = reinterpret_cast<U*>(block_.get());
    const unsigned threads = 256;
    const dim3 grid(unsigned(std::min<i64>((C + threads - 1) / threads, 64)),
                    unsigned(std::min<i64>(rows, 65535)));
    gather_user_block<U><<<grid, threads, 0, stream>>>(src, ld_, rows_.get() + r.begin, rows,
                                                       cols_.get(), C,
                                                       next_hops ? rename_.get() : nullptr, block);
    APSP_CUDA_TRY(cudaGetLastError());
    APSP_CUDA_TRY(cudaMemcpyAsync(host, block, bytes, cudaMemcpyDeviceToHost, stream));
  }

 private:
  const dist::UserOrder& o_;
  i64 ld_ = 0;
  int rank_ = 0, ordinal_ = 0;
  DeviceBuffer<int> rows_, cols_, rename_;
  DeviceBuffer<char> block_;
};

/// Hands a whole in-process grid's distances (U = T) or next hops (U = int, next_hops) out in the
/// user's order, stripe by stripe: to `sink` if set, else into `whole` (whole_stride a row), as R
/// (U = int, R = long: a checked int32 rung's result, the unreachable value mapped). The GPUs
/// gather and download stripe s+1 while the host merges stripe s. Returns the host's merge
/// seconds (the unpermute's share).
template <class U, class R = U, class T>
double gather_user(Workers<T>& w, const dist::UserOrder& o, bool next_hops, const RowSink& sink,
                   R* whole, i64 whole_stride, Dtype dtype) {
  APSP_EXPECTS(int(w.gpus_.size()) == w.grid_.P,
               "the in-process gather needs every worker of the grid in this process");
  const i64 n = o.n;
  const auto stripes = o.stripes(i64(sizeof(R)), kStripeBytes);
  if (stripes.empty()) return 0;
  std::vector<std::unique_ptr<UserGather<T>>> side;
  std::vector<PinnedArray<U>> stage[2];
  for (auto& s : stage) s = std::vector<PinnedArray<U>>(w.gpus_.size());
  for (std::size_t x = 0; x < w.gpus_.size(); ++x) {
    side.push_back(std::make_unique<UserGather<T>>(*w.gpus_[x], o, w.ld_, next_hops));
    i64 most = 1;
    for (const TileRange& s : stripes)
      most = std::max(most, o.block_elems(side.back()->rank(), s.begin, s.end));
    for (auto& s : stage) s[x].resize(most);
  }
  // Gpu x's rank in the grid (gpus_ are in rank order: Workers' members).
  std::vector<std::size_t> of_rank(std::size_t(w.grid_.P));
  for (std::size_t x = 0; x < w.gpus_.size(); ++x)
    of_rank[std::size_t(w.grid_.rank_of(w.gpus_[x]->L.pr, w.gpus_[x]->L.pc))] = x;
  auto issue = [&](std::size_t s) {
    for (std::size_t x = 0; x < w.gpus_.size(); ++x) {
      Gpu<T>& q = *w.gpus_[x];
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const U* src = next_hops ? reinterpret_cast<const U*>(q.N.get())
                               : reinterpret_cast<const U*>(q.D.get());
      side[x]->issue(src, next_hops, stripes[s].begin, stripes[s].end, stage[s % 2][x].p, q.main);
      APSP_CUDA_TRY(cudaEventRecord(q.copied[s % 2], q.main));
    }
  };
  const i64 per = stripes.front().end - stripes.front().begin;
  std::vector<R> out(sink && (w.grid_.P > 1 || !std::is_same_v<U, R>) ? std::size_t(per * n) : 0);
  std::exception_ptr failed;
  double merge_s = 0;
  issue(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    for (auto& p : w.gpus_) APSP_CUDA_TRY(cudaEventSynchronize(p->copied[s % 2]));
    if (s + 1 < stripes.size()) issue(s + 1);
    const i64 u0 = stripes[s].begin, u1 = stripes[s].end;
    if constexpr (std::is_same_v<U, R>) {
      if (sink && w.grid_.P == 1) {  // one GPU: its block is the stripe, rows of n in order
        if (!failed) {
          try {
            sink(RowBlock{u0, u1 - u0, n, n, dtype, stage[s % 2][0].p});
          } catch (...) {
            failed = std::current_exception();
            break;
          }
        }
        continue;
      }
    }
    R* dst = sink ? out.data() : whole + u0 * whole_stride;
    const auto t0 = Clock::now();
    const std::vector<i64> firsts = dist::stripe_firsts(o, u0, u1);
    const i64 dst_ld = sink ? n : whole_stride;
    auto block = [&](int rank) -> const U* { return stage[s % 2][of_rank[std::size_t(rank)]].p; };
    auto convert = [](U x) -> R {
      if constexpr (std::is_same_v<U, R>)
        return x;
      else
        return x >= cuda::inf_value<U>() ? cuda::inf_value<R>() : R(x);
    };
    parallel_rows(u1 - u0, [&](i64 r) {
      dist::merge_user_row<R, U>(o, u0 + r, firsts, block, dst + r * dst_ld, convert);
    });
    merge_s += seconds_since(t0);
    if (sink && !failed) {
      try {
        sink(RowBlock{u0, u1 - u0, n, n, dtype, out.data()});
      } catch (...) {
        failed = std::current_exception();
        break;
      }
    }
  }
  w.synchronize();
  if (failed) std::rethrow_exception(failed);
  return merge_s;
}

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
