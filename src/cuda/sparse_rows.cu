// src/cuda/sparse_rows.cu — the sparse direct engine's rows on one GPU (src/sparse/rows_job.hpp).
//
// The host factors (sparse/factor.hpp) go up once as they are; the kernels read D, L and U as
// D^T, L^T and U^T, so each sweep step is C rows = B (x) A rows over the vertex-major block X^T
// (kernels/sparse_rows.cuh). Blocks of R consecutive ordered sources: X^T set up where the sweeps
// read before they write (a supernode's rows at its subtree's sources; the down sweep writes
// the rest, unreachable included); up sweep over
// the sources' tree ancestors by height (copy X^T[K] to a scratch, X^T[K] = D_K^T (x) scratch,
// then X^T[S_K] lowered by U_K^T (x) X^T[K] with atomic minima, rows restricted to the sources in
// K's subtree); down sweep over every supernode by depth from the roots (X^T[K] lowered by
// L_K^T (x) X^T[S_K]: nodes of one depth write disjoint rows and read only their ancestors'); then
// the block is written transposed into the n x n device result in the user's order, which stays
// on the GPU or leaves in stripes, or reduced to the metrics' sums (RowsJob::sums).
#include "gpu/runtime.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "core/config.hpp"
#include "cuda/device_memory.cuh"
#include "cuda/launch.cuh"
#include "cuda/sparse_tasks.cuh"
#include "sparse/factor.hpp"
#include "sparse/rows_job.hpp"

namespace apsp::detail::sparse {

namespace {

using i64 = std::int64_t;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The device type of T (the kernels' inf_value specialisations: int, long, float, double).
template <class T>
using DevT = std::conditional_t<std::is_same_v<T, std::int64_t>, long, T>;

template <class T>
class GpuRows {
  using D = DevT<T>;

 public:
  /// This GPU's share: the blocks b with b % parts == part (the calling thread's device).
  /// `sharing`: shares on this GPU (each takes that part of its free memory).
  GpuRows(const SupernodalPlan& p, const Factors<T>& f, RowsJob& job, int part = 0, int parts = 1,
          int sharing = 1)
      : p_(p), job_(job), part_(part), parts_(parts), sharing_(sharing) {
    n_ = p.n();
    const auto t0 = Clock::now();
    // The factors go up as the factorization left them: the kernels read each block as the
    // transpose of the product's B (kernels/sparse_rows.cuh).
    fac_ = cuda::DeviceBuffer<D>(f.v.size());
    upload(fac_.get(), f.v.data(), f.v.size());
    sidx_ = cuda::DeviceBuffer<int>(p.sidx.size());
    upload(sidx_.get(), p.sidx.data(), p.sidx.size());
    new_of_old_ = cuda::DeviceBuffer<int>(std::size_t(n_));
    old_of_new_ = cuda::DeviceBuffer<int>(std::size_t(n_));
    upload(new_of_old_.get(), p.tree.perm.new_of_old.data(), std::size_t(n_));
    upload(old_of_new_.get(), p.tree.perm.old_of_new.data(), std::size_t(n_));
    const double upload_s = since(t0);
    f_ = &f;
    allocate();
    const double alloc_s = since(t0) - upload_s;
    down_tasks();
    f_ = nullptr;
    job.h2d_s = since(t0);
    char buf[128];
    std::snprintf(buf, sizeof buf, "; set-up %.1f ms: uploads %.1f, allocations %.1f",
                  1e3 * job.h2d_s, 1e3 * upload_s, 1e3 * alloc_s);
    setup_ = buf;
  }

  void run() {
    APSP_CUDA_TRY(gpuDeviceSynchronize());
    const auto t0 = Clock::now();
    const i64 blocks = (n_ + R_ - 1) / R_;
    const i64 mine = std::max<i64>(0, (blocks - part_ + parts_ - 1) / parts_);
    PhaseTimes times(mine);
    for (i64 b = part_, at = 0; b < blocks; b += parts_, ++at) {
      const i64 q0 = b * R_, rows = std::min(R_, n_ - q0);
      times.mark(at, 0, stream_);
      init_block(at, q0);
      times.mark(at, 1, stream_);
      up_sweep(q0, rows);
      times.mark(at, 2, stream_);
      for (const Group& g : down_) launch_group(dtasks_.get(), g, q0, stream_);
      times.mark(at, 3, stream_);
      if (job_.sums)
        cuda::launch_sn_sums<D>(x_.get(), n_, R_, q0, rows, sums_, stream_);
      else
        cuda::launch_sn_write_rows<D>(x_.get(), R_, n_, new_of_old_.get(), old_of_new_.get(), q0,
                                      rows, result_.get(), n_, stream_);
      times.mark(at, 4, stream_);
      if (job_.progress) {
        APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
        job_.progress(std::min(n_, (at + 1) * parts_ * R_), n_);  // all parts alike
      }
    }
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    job_.compute_s = since(t0);
    job_.detail =
        "cuda: " + std::to_string(mine) + " blocks of " + std::to_string(R_) + " rows" +
        (parts_ > 1 ? " (part " + std::to_string(part_ + 1) + " of " + std::to_string(parts_) + ")"
                    : std::string()) +
        "; " + times.summary() + setup_;
  }

  /// The result: kept on the device (job.device_result) or downloaded in stripes, or the sums.
  void hand_out() {
    if (job_.sums) {
      download_sums();
      return;
    }
    if (job_.keep_on_device) {
      auto* owner = new cuda::DeviceBuffer<D>(std::move(result_));
      job_.device_result = std::shared_ptr<void>(owner->get(), [owner](void*) { delete owner; });
      const std::size_t bytes = std::size_t(n_) * std::size_t(n_) * sizeof(T);
      const std::shared_ptr<void> keep = job_.device_result;
      const int device = job_.device;
      job_.download = [keep, bytes, device](void* host) {
        APSP_CUDA_TRY(gpuSetDevice(device));
        APSP_CUDA_TRY(gpuMemcpy(host, keep.get(), bytes, gpuMemcpyDeviceToHost));
      };
      return;
    }
    const auto t0 = Clock::now();
    const i64 rows_per =
        std::max<i64>(1, std::min<i64>(n_, (i64(32) << 20) / (n_ * i64(sizeof(T)))));
    cuda::PinnedStage stage;
    stage.reserve(std::size_t(rows_per * n_) * sizeof(T));
    const i64 stripes = (n_ + rows_per - 1) / rows_per;
    // Two pinned stripes: the next one comes down while this one is handed out.
    auto issue = [&](i64 s) {
      const i64 r0 = s * rows_per, rows = std::min(rows_per, n_ - r0);
      APSP_CUDA_TRY(gpuMemcpyAsync(stage.buffer(int(s % 2)), result_.get() + r0 * n_,
                                   std::size_t(rows * n_) * sizeof(T), gpuMemcpyDeviceToHost,
                                   stream_));
      APSP_CUDA_TRY(gpuEventRecord(stage.done(int(s % 2)), stream_));
    };
    issue(0);
    for (i64 s = 0; s < stripes; ++s) {
      if (s + 1 < stripes) issue(s + 1);
      APSP_CUDA_TRY(gpuEventSynchronize(stage.done(int(s % 2))));
      const i64 r0 = s * rows_per, rows = std::min(rows_per, n_ - r0);
      const T* src = static_cast<const T*>(stage.buffer(int(s % 2)));
      if (job_.dist) {
        Matrix& d = *job_.dist;
#pragma omp parallel for schedule(static)
        for (i64 r = 0; r < rows; ++r)
          std::copy(src + r * n_, src + (r + 1) * n_, d.row<T>(r0 + r));
      } else if (job_.sink) {
        job_.sink(RowBlock{r0, rows, n_, n_, job_.dtype, src});
      }
    }
    job_.d2h_s = since(t0);
  }

  ~GpuRows() {
    for (gpuEvent_t& e : init_done_)
      if (e) (void)gpuEventDestroy(e);
    if (stream_) (void)gpuStreamDestroy(stream_);
  }

 private:
  template <class U, class V>
  static void upload(U* dst, const V* src, std::size_t count) {
    static_assert(sizeof(U) == sizeof(V));
    if (count) APSP_CUDA_TRY(gpuMemcpy(dst, src, count * sizeof(U), gpuMemcpyHostToDevice));
  }

  /// The sums' device accumulators (zeroed), per ordered position.
  void allocate_sums() {
    const std::size_t n = std::size_t(n_);
    sum_words_ = cuda::DeviceBuffer<unsigned long long>(6 * n);
    sum_max_ = cuda::DeviceBuffer<D>(n);
    APSP_CUDA_TRY(gpuMemsetAsync(sum_words_.get(), 0, 6 * n * 8, stream_));
    APSP_CUDA_TRY(gpuMemsetAsync(sum_max_.get(), 0, n * sizeof(D), stream_));
    unsigned long long* w = sum_words_.get();
    auto f = [&](int i) { return reinterpret_cast<double*>(w + i * n); };
    sums_.out_cnt = w;
    sums_.in_cnt = w + n;
    sums_.out_sum_i = w + 2 * n;  // integer dtypes use the sum words as integers,
    sums_.in_sum_i = w + 3 * n;
    sums_.out_sum_f = f(2);  // float ones as doubles
    sums_.in_sum_f = f(3);
    sums_.out_harm = f(4);
    sums_.in_harm = f(5);
    sums_.out_max = sum_max_.get();
    sums_.targets = job_.sums->targets ? 1 : 0;
  }

  /// The accumulators to job.sums, in the user's order.
  void download_sums() {
    const auto t0 = Clock::now();
    const std::size_t n = std::size_t(n_);
    std::vector<unsigned long long> w(6 * n);
    std::vector<T> mx(n);
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    APSP_CUDA_TRY(gpuMemcpy(w.data(), sum_words_.get(), 6 * n * 8, gpuMemcpyDeviceToHost));
    APSP_CUDA_TRY(gpuMemcpy(mx.data(), sum_max_.get(), n * sizeof(T), gpuMemcpyDeviceToHost));
    sums_to_user(w, mx, p_.tree.perm.old_of_new, *job_.sums);
    job_.d2h_s = since(t0);
  }

  /// The result (or the sums' accumulators) and two row blocks (X^T and its scratch), R as large
  /// as memory allows (<= 32768: wide blocks fill the GPU in the few large supernodes near the
  /// roots).
  void allocate() {
    APSP_CUDA_TRY(gpuStreamCreateWithFlags(&stream_, gpuStreamNonBlocking));
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(gpuMemGetInfo(&free_b, &total_b));
    const double result_b =
        job_.sums ? double(n_) * (48.0 + sizeof(T)) : double(n_) * double(n_) * sizeof(T);
    const double reserve = 512.0 * (1 << 20);
    double room = double(free_b) / sharing_ - result_b - reserve;
    const double per_row = 2.0 * double(n_) * sizeof(T);
    if (room < per_row * 128)
      throw ResourceError(std::string("the sparse engine's ") +
                          (job_.sums ? "sums" : "n x n result") + " (" + std::to_string(n_) +
                          " vertices, " + std::to_string(i64(result_b / (1 << 20))) +
                          " MiB) and its row blocks do not fit the GPU's free memory (" +
                          std::to_string(i64(free_b >> 20)) + " MiB)");
    R_ = std::min<i64>(32768, i64(room / per_row) / 128 * 128);
    R_ = std::min<i64>(R_, (n_ + 127) / 128 * 128);
    if (job_.sums)
      allocate_sums();
    else
      result_ = cuda::DeviceBuffer<D>(std::size_t(n_) * std::size_t(n_));
    x_ = cuda::DeviceBuffer<D>(std::size_t(n_ * R_));
    y_ = cuda::DeviceBuffer<D>(std::size_t(n_ * R_));
  }

  /// What the block's sweeps read before they write (the rest of X^T is written by the down
  /// sweep, unreachable included): a supernode's rows at the columns of the sources in its
  /// subtree (the up sweep's and the down sweep's C there), whole rows for supernodes without
  /// structure (no down-sweep product writes them). Two task buffers in turn, each reused once
  /// the launch that read it is done.
  void init_block(i64 b, i64 q0) {
    init_.clear();
    for (i64 k = 0; k < p_.nodes(); ++k) {
      const i64 w = p_.width(k), f = p_.first(k);
      if (w == 0) continue;
      if (p_.struct_size(k) == 0) {
        init_.push_back(int4{int(f), int(w), 0, int(R_)});
        continue;
      }
      const i64 lo = std::max<i64>(0, sub_first_[std::size_t(k)] - q0);
      const i64 hi = std::min<i64>(R_, f + w - q0);
      if (hi > lo) init_.push_back(int4{int(f), int(w), int(lo), int(hi)});
    }
    const int i = int(b % 2);
    if (!init_done_[i])
      APSP_CUDA_TRY(gpuEventCreateWithFlags(&init_done_[i], gpuEventDisableTiming));
    APSP_CUDA_TRY(gpuEventSynchronize(init_done_[i]));
    if (itasks_[i].size() < init_.size()) itasks_[i] = cuda::DeviceBuffer<int4>(2 * init_.size());
    upload(itasks_[i].get(), init_.data(), init_.size());
    cuda::launch_sn_init_rows<D>(x_.get(), R_, q0, itasks_[i].get(), int(init_.size()), stream_);
    APSP_CUDA_TRY(gpuEventRecord(init_done_[i], stream_));
  }

  /// The down sweep's products, grouped by depth from the roots (the same for every block; C is
  /// read only at the columns of the sources in the node's subtree, keep_lo .. keep_hi).
  void down_tasks() {
    const i64 nodes = p_.nodes();
    // The first ordered source of each node's subtree (children come before parents).
    sub_first_.resize(std::size_t(nodes));
    for (i64 k = 0; k < nodes; ++k) sub_first_[std::size_t(k)] = p_.first(k);
    for (i64 k = 0; k < nodes; ++k) {
      const int par = p_.parent[std::size_t(k)];
      if (par >= 0)
        sub_first_[std::size_t(par)] =
            std::min(sub_first_[std::size_t(par)], sub_first_[std::size_t(k)]);
    }
    std::vector<int> depth(std::size_t(nodes), 0);
    int deepest = 0;
    for (i64 k = nodes - 1; k >= 0; --k) {
      const int par = p_.parent[std::size_t(k)];
      depth[std::size_t(k)] = par < 0 ? 0 : depth[std::size_t(par)] + 1;
      deepest = std::max(deepest, depth[std::size_t(k)]);
    }
    std::vector<std::vector<i64>> by_depth(std::size_t(deepest) + 1);
    for (i64 k = 0; k < nodes; ++k)
      if (p_.width(k) > 0 && p_.struct_size(k) > 0)
        by_depth[std::size_t(depth[std::size_t(k)])].push_back(k);
    std::vector<cuda::SnTask<D>> tasks, batch;
    const bool stream = config::get_bool(config::Knob::SnStream);
    for (const std::vector<i64>& level : by_depth) {
      if (level.empty()) continue;
      batch.clear();
      for (const i64 k : level) {
        cuda::SnTask<D> t;
        t.b = fac_.get() + f_->l_at[std::size_t(k)];
        t.m = int(p_.width(k));
        t.k = int(p_.struct_size(k));
        t.a_base = x_.get();
        t.a_rows = sidx_.get() + p_.sptr[std::size_t(k)];
        t.c_base = x_.get();
        t.c0 = p_.first(k);
        t.ld = R_;
        t.r0 = 0;
        t.r1 = int(R_);
        t.keep_lo = sub_first_[std::size_t(k)];
        t.keep_hi = p_.first(k) + p_.width(k);
        batch.push_back(t);
      }
      for (const Group& g : add_products(tasks, batch, stream)) down_.push_back(g);
    }
    dtasks_ = cuda::DeviceBuffer<cuda::SnTask<D>>(tasks.size());
    upload(dtasks_.get(), tasks.data(), tasks.size());
    // What the up sweep needs per node: offsets of D and U.
    dt_ = f_->d_at;
    ut_ = f_->u_at;
    seen_.assign(std::size_t(nodes), -1);
  }

  /// Up sweep of the block's sources: their ancestors by height, three launches a height.
  void up_sweep(i64 q0, i64 rows) {
    std::vector<std::int32_t> path;
    for (i64 q = q0; q < q0 + rows; ++q)
      for (std::int32_t k = p_.node_of[std::size_t(q)]; k >= 0 && seen_[std::size_t(k)] != q0;
           k = p_.parent[std::size_t(k)]) {
        seen_[std::size_t(k)] = q0;
        path.push_back(k);
      }
    std::sort(path.begin(), path.end(), [&](std::int32_t a, std::int32_t b) {
      return p_.height[std::size_t(a)] != p_.height[std::size_t(b)]
                 ? p_.height[std::size_t(a)] < p_.height[std::size_t(b)]
                 : a < b;
    });
    std::vector<int4> copies;
    std::vector<cuda::SnTask<D>> tasks, closes, scatters;
    struct Height {
      std::size_t copy_begin, copy_end;
      std::vector<Group> close, scatter;
    };
    std::vector<Height> heights;
    for (std::size_t a = 0; a < path.size();) {
      std::size_t b = a;
      while (b < path.size() && p_.height[std::size_t(path[b])] == p_.height[std::size_t(path[a])])
        ++b;
      Height h;
      h.copy_begin = copies.size();
      closes.clear();
      scatters.clear();
      for (std::size_t e = a; e < b; ++e) {
        const i64 k = path[e], w = p_.width(k), f = p_.first(k), s = p_.struct_size(k);
        const int r0 = int(std::max<i64>(0, sub_first_[std::size_t(k)] - q0));
        const int r1 = int(std::min<i64>(rows, f + w - q0));
        if (w == 0 || r1 <= r0) continue;
        copies.push_back(int4{int(f), int(w), r0, r1});
        cuda::SnTask<D> t;  // X^T[K] = D_K^T (x) copy of X^T[K]
        t.b = fac_.get() + dt_[std::size_t(k)];
        t.m = int(w);
        t.k = int(w);
        t.a_base = y_.get();
        t.a0 = f;
        t.c_base = x_.get();
        t.c0 = f;
        t.ld = R_;
        t.r0 = r0;
        t.r1 = r1;
        t.keep_lo = 0;  // the up sweep reads C everywhere it writes
        t.keep_hi = n_;
        closes.push_back(t);
        if (s == 0) continue;
        t.b = fac_.get() + ut_[std::size_t(k)];  // X^T[S_K] lowered by U_K^T (x) X^T[K]
        t.m = int(s);
        t.a_base = x_.get();
        t.c_rows = sidx_.get() + p_.sptr[std::size_t(k)];
        t.atomic = 1;
        scatters.push_back(t);
      }
      h.copy_end = copies.size();
      h.close = add_products(tasks, closes);
      h.scatter = add_products(tasks, scatters);
      heights.push_back(h);
      a = b;
    }
    if (tasks.empty()) return;
    // The previous block's launches read the old task lists: done before they are replaced.
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    if (utasks_.size() < tasks.size())
      utasks_ = cuda::DeviceBuffer<cuda::SnTask<D>>(2 * tasks.size());
    if (ucopies_.size() < copies.size()) ucopies_ = cuda::DeviceBuffer<int4>(2 * copies.size());
    upload(utasks_.get(), tasks.data(), tasks.size());
    upload(ucopies_.get(), copies.data(), copies.size());
    for (const Height& h : heights) {
      cuda::launch_sn_copy_rows<D>(x_.get(), y_.get(), R_, ucopies_.get() + h.copy_begin,
                                   int(h.copy_end - h.copy_begin), stream_);
      for (const Group& g : h.close) launch_group(utasks_.get(), g, q0, stream_);
      for (const Group& g : h.scatter) launch_group(utasks_.get(), g, q0, stream_);
    }
  }

  const SupernodalPlan& p_;
  RowsJob& job_;
  int part_ = 0, parts_ = 1, sharing_ = 1;
  const Factors<T>* f_ = nullptr;
  i64 n_ = 0, R_ = 0;
  gpuStream_t stream_ = nullptr;
  cuda::DeviceBuffer<D> fac_, result_, x_, y_;
  cuda::DeviceBuffer<int> sidx_, new_of_old_, old_of_new_;
  cuda::DeviceBuffer<cuda::SnTask<D>> dtasks_, utasks_;
  cuda::DeviceBuffer<int4> ucopies_, itasks_[2];
  gpuEvent_t init_done_[2] = {nullptr, nullptr};
  std::vector<int4> init_;
  std::string setup_;  ///< the set-up's seconds by part, for job.detail
  cuda::DeviceBuffer<unsigned long long> sum_words_;
  cuda::DeviceBuffer<D> sum_max_;
  cuda::SnSums<D> sums_{};
  std::vector<Group> down_;
  std::vector<i64> dt_, ut_, sub_first_, seen_;
};

}  // namespace

/// The sums' rows split over the job's GPUs, a thread each (a GPU may be listed more than once:
/// two shares on one GPU, as the tests run "1 of N" without N GPUs).
template <class T>
void sums_over_gpus(RowsJob& job) {
  const std::size_t parts = job.devices.size();
  std::vector<RowSums> sums(parts);
  std::vector<RowsJob> jobs(parts, job);
  std::vector<std::exception_ptr> failed(parts);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < parts; ++i) {
    jobs[i].sums = &sums[i];
    sums[i].targets = job.sums->targets;
    jobs[i].device = job.devices[i];
    if (i > 0) jobs[i].progress = nullptr;  // the first part reports for all (calling thread's)
    threads.emplace_back([&, i] {
      try {
        APSP_CUDA_TRY(gpuSetDevice(jobs[i].device));
        const auto sharing = std::count(job.devices.begin(), job.devices.end(), jobs[i].device);
        GpuRows<T> rows(*job.plan, *static_cast<const Factors<T>*>(job.factors), jobs[i], int(i),
                        int(parts), int(sharing));
        rows.run();
        rows.hand_out();
      } catch (...) {
        failed[i] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  add_parts(sums, *job.sums);
  for (const RowsJob& j : jobs) {
    job.h2d_s = std::max(job.h2d_s, j.h2d_s);
    job.compute_s = std::max(job.compute_s, j.compute_s);
    job.d2h_s = std::max(job.d2h_s, j.d2h_s);
  }
  job.detail = "cuda: " + std::to_string(parts) + " GPUs; " + jobs[0].detail;
}

/// The cuda backend's run_sparse_rows (cuda_backend.cu); the multi-gpu backend's for the sums.
void run_sparse_rows_cuda(RowsJob& job) {
  if (job.plan->n() == 0) {  // no rows (sums and matrices are empty; nothing stays on a GPU)
    job.detail = "cuda: no rows";
    return;
  }
  if (job.sums && job.devices.size() > 1) {
    visit_dtype(job.dtype, [&](auto tag) { sums_over_gpus<decltype(tag)>(job); });
    return;
  }
  APSP_CUDA_TRY(gpuSetDevice(job.device));
  visit_dtype(job.dtype, [&](auto tag) {
    using T = decltype(tag);
    auto rows = std::make_unique<GpuRows<T>>(*job.plan,
                                             *static_cast<const Factors<T>*>(job.factors), job);
    rows->run();
    rows->hand_out();
    const auto t0 = Clock::now();
    rows.reset();  // the row blocks, factors and task lists freed: timed (part of the call)
    char buf[32];
    std::snprintf(buf, sizeof buf, "; freed in %.1f ms", 1e3 * since(t0));
    job.detail += buf;
  });
}

}  // namespace apsp::detail::sparse
