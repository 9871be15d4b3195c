// src/cuda/device_solver_next.cuh — DeviceFw's next-hop job and int16x2 rounds, defined out of
// the class (device_solver.cuh declares and documents them): the next-hop kernel on its own
// stream after the rounds, and the packed rounds with their band check and widening.
#pragma once

#include "cuda/device_solver.cuh"

// Internal linkage, as in cuda/kernels/distances.cuh (included from device_solver.cuh only).
namespace apsp::cuda {
namespace {

template <class T>
void DeviceFw<T>::build_s16(const Graph& g) {
  static_assert(std::is_same_v<T, int>, "int16x2 mode is for int32 distances");
  d_ = DeviceBuffer<T>();
  if (d16_.size() == 0) d16_ = DeviceBuffer<unsigned>(std::size_t(n_pad_) * ld16());
  if (flag_.size() == 0) flag_ = DeviceBuffer<int>(1);
  if (g.is_dense()) {  // the packed words as 2 * ld16 int16 columns (the even column in the low
                       // half)
    upload_dense<std::int16_t>(g, std::int16_t(kInf16), n_pad_, {}, 2 * ld16(), {},
                               reinterpret_cast<std::int16_t*>(d16_.get()), 2 * ld16(), stream_);
    return;
  }
  launch_init_s16(d16_.get(), n_pad_, ld16(), stream_);
  upload_edges(
      g, [&](const std::int32_t* src, const std::int32_t* dst, const double* w, std::int64_t m) {
        launch_scatter_edges_s16(d16_.get(), ld16(), src, dst, w, m, !g.directed, stream_);
      });
}

template <class T>
bool DeviceFw<T>::rounds_packed(const ProgressFn& progress, int band_lo,
                                const std::function<bool()>& abandon) {
  Pacer pace(stream_, bool(abandon));
  std::int64_t t = 0;
  const bool done =
      abandon ? run_schedule(
                    progress, [&] { return pace.before_round(t++) && abandon(); },
                    detail::tracing(), true)
              : run_schedule(progress, {}, detail::tracing(), true);
  if (!done) {
    APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    release_s16();
    return false;
  }
  if (s16_in_band(band_lo)) {
    release_s16();
    return false;
  }
  result_in_s16_ = true;
  return true;
}

template <class T>
void DeviceFw<T>::reserve_next(const Graph& g, std::int64_t arcs) {
  if (arcs < 0 && !g.is_dense()) arcs = std::int64_t(g.src.size()) * (g.directed ? 1 : 2);
  const std::size_t a = std::size_t(std::max<std::int64_t>(arcs, 1));
  const bool lists = arcs >= 0;
  std::size_t need = 0;
  if (next_.size() == 0) need += std::size_t(n_pad_) * std::size_t(n_pad_) * 4;
  if (next_job_.row.size() < std::size_t(n_) + 1) need += (std::size_t(n_) + 1) * 8;
  if (lists && next_job_.col.size() < a) need += a * 4;
  if (lists && next_job_.wt.size() < a) need += a * sizeof(T);
  if (need > 0) {
    std::size_t free_b = 0, total_b = 0;
    APSP_CUDA_TRY(gpuMemGetInfo(&free_b, &total_b));
    if (need > free_b)
      throw ResourceError("--paths needs " + std::to_string(need) +
                          " bytes more GPU memory (next-hop matrix and " + std::to_string(a) +
                          " arcs by source); the GPU has " + std::to_string(free_b) + " free");
  }
  if (next_.size() == 0) next_ = DeviceBuffer<std::int32_t>(std::size_t(n_pad_) * n_pad_);
  if (next_job_.row.size() < std::size_t(n_) + 1)
    next_job_.row = DeviceBuffer<std::int64_t>(std::size_t(n_) + 1);
  if (lists && next_job_.col.size() < a) next_job_.col = DeviceBuffer<std::int32_t>(a);
  if (lists && next_job_.wt.size() < a) next_job_.wt = DeviceBuffer<T>(a);
  if (!next_job_.stream)
    APSP_CUDA_TRY(gpuStreamCreateWithFlags(&next_job_.stream, gpuStreamNonBlocking));
  if (!next_job_.after)
    APSP_CUDA_TRY(gpuEventCreateWithFlags(&next_job_.after, gpuEventDisableTiming));
}

template <class T>
void DeviceFw<T>::upload_arcs(const Graph& g, const HostArcs& arcs, int device) {
  if (device >= 0) APSP_CUDA_TRY(gpuSetDevice(device));
  APSP_EXPECTS(std::int64_t(arcs.start.size()) == n_ + 1, "upload_arcs: arcs of another graph");
  reserve_next(
      g,
      arcs.start[n_]);  // allocates only for a dense view (an edge list's lists are reserved)
  gpuStream_t ns = next_job_.stream;
  APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.row.get(), arcs.start.data(), arcs.start.size() * 8,
                               gpuMemcpyHostToDevice, ns));
  APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.col.get(), arcs.to.data(), arcs.to.size() * 4,
                               gpuMemcpyHostToDevice, ns));
  APSP_CUDA_TRY(gpuMemcpyAsync(next_job_.wt.get(), arcs.w.data(), arcs.w.size() * sizeof(T),
                               gpuMemcpyHostToDevice, ns));
  APSP_CUDA_TRY(gpuStreamSynchronize(ns));
  arcs_uploaded_ = true;
}

template <class T>
void DeviceFw<T>::launch_next() {
  APSP_EXPECTS(arcs_uploaded_, "launch_next before upload_arcs");
  gpuStream_t ns = next_job_.stream;
  APSP_CUDA_TRY(gpuEventRecord(next_job_.after, stream_));  // the rounds
  APSP_CUDA_TRY(gpuStreamWaitEvent(ns, next_job_.after, 0));
  launch_next_hops_from_edges<T>(d_.get(), n_pad_, n_, next_job_.row.get(), next_job_.col.get(),
                                 next_job_.wt.get(), next_.get(), ns);
  next_job_.pending = true;
}

template <class T>
void DeviceFw<T>::finish_next() {
  if (!next_job_.pending) return;
  APSP_CUDA_TRY(gpuStreamSynchronize(next_job_.stream));
  next_job_.pending = false;
  next_job_.row = DeviceBuffer<std::int64_t>();
  next_job_.col = DeviceBuffer<std::int32_t>();
  next_job_.wt = DeviceBuffer<T>();
  arcs_uploaded_ = false;
  detail::trace("cuda: next hops computed");
}

template <class T>
bool DeviceFw<T>::rounds_s16(const ProgressFn& progress, int band_lo) {
  s16_begin();
  PackedRounds ops(*this);
  detail::run_rounds(ops, progress);
  return s16_end(band_lo);
}

template <class T>
void DeviceFw<T>::s16_begin() {
  static_assert(std::is_same_v<T, int>, "int16x2 mode is for int32 distances");
  if (d16_.size() == 0) d16_ = DeviceBuffer<unsigned>(std::size_t(n_pad_) * ld16());
  if (flag_.size() == 0) flag_ = DeviceBuffer<int>(1);
  launch_pack_s16(d_.get(), n_pad_, d16_.get(), ld16(), stream_);
}

template <class T>
void DeviceFw<T>::s16_round_part(std::int64_t t, int part) {
  const std::int64_t l16 = ld16();
  unsigned* rowp16 = reinterpret_cast<unsigned*>(rowp_.get());
  unsigned* colrep = reinterpret_cast<unsigned*>(colT_.get());
  unsigned* prep = reinterpret_cast<unsigned*>(pT_.get());
  const RoundArgs<unsigned> aw{d16_.get(), l16,    rowp16,  l16,  colrep,
                               nullptr,    n_pad_, nullptr, prep, int(t)};
  if (part == 0) {
    const RoundArgsS16 a16{d16_.get(), l16, csT_.get(), n_pad_, pS_.get(), prep, int(t)};
    if (ordered_)
      launch_closure_s16_listed(a16, rows_of(t), lists_at_[std::size_t(t)].nrows, stream_);
    else
      launch_closure_s16(a16, 1 + R_, stream_);
  } else if (part == 1) {
    // The column panel in int32, stored replicated: the A operand of the packed GEMM.
    const RoundArgs<int> ai{d_.get(),   n_pad_, rowp_.get(), n_pad_,    colT_.get(),
                            csT_.get(), n_pad_, pS_.get(),   pT_.get(), int(t)};
    if (ordered_)
      launch_gemm_listed<int, GemmMode::ColPanelRep>(ai, tile_lists(t, true), stream_);
    else
      launch_gemm<int, GemmMode::ColPanelRep>(ai, R_, 1, stream_);
  } else if (part == 2) {
    if (ordered_)
      launch_gemm_listed<unsigned, GemmMode::RowPanel>(aw, tile_lists(t, true), stream_);
    else
      launch_gemm<unsigned, GemmMode::RowPanel>(aw, l16 / kTile, 1, stream_);
  } else {
    if (ordered_)
      launch_gemm_listed<unsigned, GemmMode::Rest>(aw, tile_lists(t, true), stream_);
    else
      launch_gemm<unsigned, GemmMode::Rest>(aw, l16 / kTile, R_, stream_);
  }
}

template <class T>
bool DeviceFw<T>::s16_in_band(int band_lo) {
  APSP_CUDA_TRY(gpuMemsetAsync(flag_.get(), 0, sizeof(int), stream_));
  launch_find_in_band_s16(d16_.get(), ld16(), n_, band_lo, flag_.get(), stream_);
  return read_flag();
}

template <class T>
bool DeviceFw<T>::s16_end(int band_lo) {
  if (s16_in_band(band_lo)) return false;
  launch_unpack_s16(d16_.get(), ld16(), d_.get(), n_pad_, stream_);
  APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
  return true;
}

template <class T>
void DeviceFw<T>::widen_s16() {
  if (!result_in_s16_) return;
  if (d_.size() == 0) d_ = DeviceBuffer<T>(std::size_t(n_pad_) * n_pad_);
  launch_unpack_s16(d16_.get(), ld16(), reinterpret_cast<int*>(d_.get()), n_pad_, stream_);
  APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
  release_s16();
}

}  // namespace
}  // namespace apsp::cuda
