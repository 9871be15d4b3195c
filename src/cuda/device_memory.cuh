// src/cuda/device_memory.cuh — device and pinned host memory of a solve (internal): DeviceBuffer
// (an owning gpuMalloc'd array), PinnedStage (the two pinned staging buffers the edges go up
// and the result's stripes come down through) and upload_dense (a dense graph's rows converted
// on the host into pinned stripes and copied into a device matrix). Used by the single-GPU
// solver (device_solver.cuh) and the multi-gpu workers.
#pragma once

#include "gpu/runtime.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "core/reference.hpp"
#include "cuda/cuda_check.hpp"

// Internal linkage, as in cuda/kernels/distances.cuh.
namespace apsp::cuda {
namespace {

/// Bytes of each of DeviceFw's two pinned staging buffers (edge uploads, result stripes).
inline constexpr std::size_t kStageBytes = std::size_t(8) << 20;

/// Two pinned host buffers, and an event each, through which DeviceFw's edges go up and its
/// result's stripes come down. Allocated once per solve, before the edges go up: gpuMallocHost
/// costs ~0.4 ms per MiB on the H200 host (dev/cuda/startup_probe), ~6 ms for these two, which the
/// first stripe used to wait for after the rounds. A user of buffer b waits for event b (recorded
/// after the copy that last read or wrote it) before touching it.
class PinnedStage {
 public:
  PinnedStage() = default;
  PinnedStage(const PinnedStage&) = delete;
  PinnedStage& operator=(const PinnedStage&) = delete;
  ~PinnedStage() { release(); }
  /// Both buffers at least `bytes` long; a regrow frees the old ones (no copy may be using them).
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    for (int b = 0; b < 2; ++b) {
      APSP_CUDA_TRY(gpuMallocHost(&buf_[b], bytes));
      APSP_CUDA_TRY(gpuEventCreateWithFlags(&done_[b], gpuEventDisableTiming));
    }
    bytes_ = bytes;
  }
  void* buffer(int b) const { return buf_[b]; }
  gpuEvent_t done(int b) const { return done_[b]; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() {
    for (int b = 0; b < 2; ++b) {
      if (done_[b])
        (void)gpuEventSynchronize(done_[b]);  // no copy may still use a buffer freed here
      if (buf_[b]) (void)gpuFreeHost(buf_[b]);
      if (done_[b]) (void)gpuEventDestroy(done_[b]);
      buf_[b] = nullptr;
      done_[b] = nullptr;
    }
    bytes_ = 0;
  }
  void* buf_[2] = {nullptr, nullptr};
  gpuEvent_t done_[2] = {nullptr, nullptr};
  std::size_t bytes_ = 0;
};

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : n_(count) {
    if (count) APSP_CUDA_TRY(gpuMalloc(&p_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (p_) (void)gpuFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Fills a rows x cols device matrix (row pitch `ld` elements) from a dense graph: local row r /
/// column c hold global entry (row_map(r), col_map(c)) as core/reference.hpp fill_dense_rows
/// converts it (padding included). Stripes of rows are converted by all host cores into two
/// pinned staging buffers (8 MiB each, as download_stripes) and copied on `stream`; the conversion
/// of stripe s+1 overlaps the copy of stripe s. Synchronizes `stream` before it returns.
template <class E>
void upload_dense(const Graph& g, E inf, std::int64_t rows, const detail::TileMap& row_map,
                  std::int64_t cols, const detail::TileMap& col_map, E* dev, std::int64_t ld,
                  gpuStream_t stream, std::size_t stripe_bytes = std::size_t(8) << 20) {
  APSP_EXPECTS(g.is_dense(), "upload_dense needs a dense graph");
  if (rows <= 0 || cols <= 0) return;
  // Whole 64-row tiles of fill_dense_rows per stripe where they fit, so its threads share the
  // stripe evenly.
  std::int64_t rows_per = std::int64_t(stripe_bytes / (std::size_t(cols) * sizeof(E)));
  if (rows_per >= 64) rows_per -= rows_per % 64;
  rows_per = std::clamp<std::int64_t>(rows_per, 1, rows);
  E* stage[2] = {nullptr, nullptr};
  gpuEvent_t done[2] = {nullptr, nullptr};
  struct Cleanup {
    E** stage;
    gpuEvent_t* done;
    gpuStream_t stream;
    ~Cleanup() {
      (void)gpuStreamSynchronize(
          stream);  // on an error, no copy may still read a buffer freed here
      for (int b = 0; b < 2; ++b) {
        if (stage[b]) (void)gpuFreeHost(stage[b]);
        if (done[b]) (void)gpuEventDestroy(done[b]);
      }
    }
  } cleanup{stage, done, stream};
  const std::int64_t stripes = (rows + rows_per - 1) / rows_per;
  for (int b = 0; b < std::min<std::int64_t>(2, stripes); ++b) {
    APSP_CUDA_TRY(gpuMallocHost(&stage[b], std::size_t(rows_per) * std::size_t(cols) * sizeof(E)));
    APSP_CUDA_TRY(gpuEventCreateWithFlags(&done[b], gpuEventDisableTiming));
  }
  for (std::int64_t s = 0; s < stripes; ++s) {
    const int b = int(s % 2);
    if (s >= 2) APSP_CUDA_TRY(gpuEventSynchronize(done[b]));  // the copy of stripe s-2 has left it
    const std::int64_t r0 = s * rows_per, m = std::min(rows_per, rows - r0);
    detail::fill_dense_rows<E>(g, inf, r0, m, row_map, cols, col_map, stage[b], cols);
    APSP_CUDA_TRY(gpuMemcpy2DAsync(dev + r0 * ld, std::size_t(ld) * sizeof(E), stage[b],
                                   std::size_t(cols) * sizeof(E), std::size_t(cols) * sizeof(E),
                                   std::size_t(m), gpuMemcpyHostToDevice, stream));
    APSP_CUDA_TRY(gpuEventRecord(done[b], stream));
  }
  APSP_CUDA_TRY(gpuStreamSynchronize(stream));
}

}  // namespace
}  // namespace apsp::cuda
