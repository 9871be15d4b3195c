// src/multigpu/user_order.cuh — a sparse order's result leaves the GPUs in the user's vertex
// order (dist/user_order.hpp): for each stripe of user rows, every GPU gathers its block (its
// user rows x its user columns, next hops renamed to user vertices) with one kernel
// (cuda/kernels/user_blocks.cuh, launched by cuda/launch.cuh). In one process (gather_user) GPU 0
// pulls the other GPUs' blocks, scatters every block into the stripe in the user's order and
// downloads the finished stripe, which goes to the sink as it is; an mpi GPU rank downloads its
// block (UserGather::issue) for rank 0 to merge. No ordered matrix ever reaches the host.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "dist/user_order.hpp"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

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
  /// next_hops: renamed) into `block` (device memory of block_elems entries) on `stream`.
  template <class U>
  void gather(const U* src, bool next_hops, i64 u0, i64 u1, U* block, cudaStream_t stream) {
    APSP_EXPECTS(!next_hops || rename_.get(), "user order: next hops without their renaming");
    const int pr = o_.grid.row_of(rank_), pc = o_.grid.col_of(rank_);
    const TileRange r = o_.rows_in(pr, u0, u1);
    const i64 rows = r.end - r.begin, C = o_.cols(pc);
    if (rows <= 0 || C <= 0) return;
    cuda::launch_gather_user_block<U>(src, ld_, rows_.get() + r.begin, rows, cols_.get(), C,
                                      next_hops ? rename_.get() : nullptr, block, stream);
  }

  /// Sizes the device buffer for blocks of up to `most` entries of U (reserve() before the first
  /// issue() keeps allocations out of a gather).
  template <class U>
  void reserve(i64 most) {
    const std::size_t bytes = std::size_t(std::max<i64>(1, most)) * sizeof(U);
    if (block_.size() >= bytes) return;
    APSP_CUDA_TRY(cudaSetDevice(ordinal_));
    block_ = DeviceBuffer<char>();  // freed before the larger one is allocated
    block_ = DeviceBuffer<char>(bytes);
  }

  /// gather() into this object's device buffer (grown where a block needs more: reserve()) and
  /// the block's download to `host` (block_elems entries) queued on `stream`; the caller waits.
  template <class U>
  void issue(const U* src, bool next_hops, i64 u0, i64 u1, U* host, cudaStream_t stream) {
    const std::size_t bytes = std::size_t(o_.block_elems(rank_, u0, u1)) * sizeof(U);
    if (bytes == 0) return;
    if (block_.size() < bytes) {
      APSP_CUDA_TRY(cudaSetDevice(ordinal_));
      APSP_CUDA_TRY(cudaStreamSynchronize(stream));  // the old buffer's last download
      reserve<U>(o_.block_elems(rank_, u0, u1));
    }
    U* block = reinterpret_cast<U*>(block_.get());
    gather(src, next_hops, u0, u1, block, stream);
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
/// (U = int, R = long: a checked int32 rung's result, the unreachable value mapped on the GPU).
/// Per stripe every GPU gathers its block; GPU 0 pulls the others' blocks (peer copies), scatters
/// all of them into the stripe in the user's order and downloads it, which goes to the sink as
/// it is: stripe s+1 is on the GPUs while the host hands out stripe s. Returns the GPU seconds
/// of GPU 0's part (its gather, the pulls, the scatters: the unpermute).
template <class U, class R = U, class T>
double gather_user(Workers<T>& w, const dist::UserOrder& o, bool next_hops, const RowSink& sink,
                   R* whole, i64 whole_stride, Dtype dtype) {
  APSP_EXPECTS(int(w.gpus_.size()) == w.grid_.P,
               "the in-process gather needs every worker of the grid in this process");
  const i64 n = o.n;
  const auto stripes = o.stripes(i64(sizeof(R)), dist::stripe_bytes(kStripeBytes));
  if (stripes.empty()) return 0;
  const std::size_t P = w.gpus_.size();
  Gpu<T>& a = *w.gpus_.front();  // assembles every stripe
  std::vector<std::unique_ptr<UserGather<T>>> side;
  for (std::size_t x = 0; x < P; ++x)
    side.push_back(std::make_unique<UserGather<T>>(*w.gpus_[x], o, w.ld_, next_hops));
  // On GPU 0: every grid row's user rows and every grid column's user columns, the others'
  // blocks (packed one after the other in recv), the stripe; events: each GPU's gather done,
  // GPU 0's part timed.
  APSP_CUDA_TRY(cudaSetDevice(a.ordinal));
  auto upload = [](const std::vector<std::int32_t>& v) {
    DeviceBuffer<int> d(std::max<std::size_t>(1, v.size()));
    if (!v.empty())
      APSP_CUDA_TRY(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
    return d;
  };
  std::vector<DeviceBuffer<int>> row_users, col_users;
  for (const auto& r : o.row_users) row_users.push_back(upload(r));
  for (const auto& c : o.col_users) col_users.push_back(upload(c));
  i64 most_recv = 1, per = 1;
  for (const TileRange& st : stripes) {
    i64 sum = 0;
    for (std::size_t x = 1; x < P; ++x) sum += o.block_elems(side[x]->rank(), st.begin, st.end);
    most_recv = std::max(most_recv, sum);
    per = std::max(per, st.end - st.begin);
  }
  DeviceBuffer<U> recv(std::size_t(P > 1 ? most_recv : 1));
  DeviceBuffer<R> stripe(std::size_t(per * n));
  i64 most_own = 1;
  for (const TileRange& st : stripes)
    most_own = std::max(most_own, o.block_elems(side[0]->rank(), st.begin, st.end));
  DeviceBuffer<U> own{std::size_t(most_own)};  // GPU 0's own block
  // Events, destroyed on every way out (each on its GPU).
  struct Events {
    std::vector<std::pair<int, cudaEvent_t>> made;
    cudaEvent_t make(int device, unsigned flags) {
      APSP_CUDA_TRY(cudaSetDevice(device));
      cudaEvent_t e = nullptr;
      APSP_CUDA_TRY(cudaEventCreateWithFlags(&e, flags));
      made.push_back({device, e});
      return e;
    }
    ~Events() {
      for (auto [dev, e] : made) {
        cudaSetDevice(dev);
        cudaEventDestroy(e);
      }
    }
  } events;
  cudaEvent_t t_begin = events.make(a.ordinal, cudaEventDefault);
  cudaEvent_t t_end = events.make(a.ordinal, cudaEventDefault);
  cudaEvent_t done[2] = {events.make(a.ordinal, cudaEventDisableTiming),
                         events.make(a.ordinal, cudaEventDisableTiming)};
  std::vector<cudaEvent_t> gathered(P, nullptr);
  std::vector<DeviceBuffer<U>> blocks(P);  // the others' blocks, on their GPUs
  for (std::size_t x = 1; x < P; ++x) {
    Gpu<T>& q = *w.gpus_[x];
    gathered[x] = events.make(q.ordinal, cudaEventDisableTiming);
    i64 most = 1;
    for (const TileRange& st : stripes)
      most = std::max(most, o.block_elems(side[x]->rank(), st.begin, st.end));
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    blocks[x] = DeviceBuffer<U>(std::size_t(most));
    // Direct pulls over NVLink / PCIe where the GPUs allow it (else the copies are staged).
    int can = 0;
    APSP_CUDA_TRY(cudaDeviceCanAccessPeer(&can, a.ordinal, q.ordinal));
    if (can) {
      APSP_CUDA_TRY(cudaSetDevice(a.ordinal));
      const cudaError_t e = cudaDeviceEnablePeerAccess(q.ordinal, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();
      else
        APSP_CUDA_TRY(e);
    }
  }
  PinnedArray<R> stage[2];
  for (auto& st : stage) st.resize(per * n);

  float gpu_ms = 0;
  auto issue = [&](std::size_t s) {
    const i64 u0 = stripes[s].begin, u1 = stripes[s].end;
    for (std::size_t x = 1; x < P; ++x) {  // the others gather theirs
      Gpu<T>& q = *w.gpus_[x];
      APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
      const U* src =
          next_hops ? reinterpret_cast<const U*>(q.N.get()) : reinterpret_cast<const U*>(q.D.get());
      side[x]->gather(src, next_hops, u0, u1, blocks[x].get(), q.main);
      APSP_CUDA_TRY(cudaEventRecord(gathered[x], q.main));
    }
    APSP_CUDA_TRY(cudaSetDevice(a.ordinal));
    APSP_CUDA_TRY(cudaEventRecord(t_begin, a.main));
    const U* a_src =
        next_hops ? reinterpret_cast<const U*>(a.N.get()) : reinterpret_cast<const U*>(a.D.get());
    side[0]->gather(a_src, next_hops, u0, u1, own.get(), a.main);
    i64 at = 0;
    for (std::size_t x = 0; x < P; ++x) {
      const int rank = side[x]->rank();
      const int pr = o.grid.row_of(rank), pc = o.grid.col_of(rank);
      const TileRange r = o.rows_in(pr, u0, u1);
      const i64 rows = r.end - r.begin, C = o.cols(pc);
      if (rows <= 0 || C <= 0) continue;
      const U* block = own.get();
      if (x > 0) {
        APSP_CUDA_TRY(cudaStreamWaitEvent(a.main, gathered[x], 0));
        APSP_CUDA_TRY(cudaMemcpyPeerAsync(recv.get() + at, a.ordinal, blocks[x].get(),
                                          w.gpus_[x]->ordinal, std::size_t(rows * C) * sizeof(U),
                                          a.main));
        block = recv.get() + at;
        at += rows * C;
      }
      cuda::launch_scatter_user_block<U, R>(block, rows, row_users[std::size_t(pr)].get() + r.begin,
                                            u0, col_users[std::size_t(pc)].get(), C, stripe.get(),
                                            n, a.main);
    }
    APSP_CUDA_TRY(cudaEventRecord(t_end, a.main));
    APSP_CUDA_TRY(cudaMemcpyAsync(stage[s % 2].p, stripe.get(),
                                  std::size_t((u1 - u0) * n) * sizeof(R), cudaMemcpyDeviceToHost,
                                  a.main));
    APSP_CUDA_TRY(cudaEventRecord(done[s % 2], a.main));
  };
  std::exception_ptr failed;
  issue(0);
  for (std::size_t s = 0; s < stripes.size(); ++s) {
    APSP_CUDA_TRY(cudaEventSynchronize(done[s % 2]));
    float ms = 0;
    APSP_CUDA_TRY(cudaEventElapsedTime(&ms, t_begin, t_end));
    gpu_ms += ms;
    if (s + 1 < stripes.size()) issue(s + 1);
    const i64 u0 = stripes[s].begin, rows = stripes[s].end - u0;
    const R* got = stage[s % 2].p;
    if (!sink) {
      parallel_rows(rows, [&](i64 r) {
        std::memcpy(whole + (u0 + r) * whole_stride, got + r * n, std::size_t(n) * sizeof(R));
      });
      continue;
    }
    try {
      sink(RowBlock{u0, rows, n, n, dtype, got});
    } catch (...) {
      failed = std::current_exception();
      break;
    }
  }
  w.synchronize();
  if (failed) std::rethrow_exception(failed);
  return gpu_ms / 1000;
}

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
