// src/cuda/batch_small.cu — the batch engine's GPU side (src/batch/gpu_engine.hpp): many small
// graphs closed in one launch, one thread block per graph in shared memory. Layers: the table
// (gpu_engine) -> close_small_graphs (upload, launch, download) -> launch.cuh ->
// kernels/batch_small.cuh (one block = one graph).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "batch/gpu_engine.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.cuh"

namespace apsp::detail::batch {

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

// Shared memory per block: 64 KiB for int32 (128^2), 32 KiB for the 8-byte types (64^2); float32
// stops at 64 too, where the cpu backend's pivot closure stops being plain Floyd-Warshall (so
// float sums round as solve()'s do).
int cap_of(Dtype t) { return t == Dtype::Int32 ? 128 : 64; }

// Device memory freed on every path out (an exception included).
class DeviceArena {
 public:
  explicit DeviceArena(int device) { APSP_CUDA_TRY(gpuSetDevice(device)); }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;
  ~DeviceArena() {
    for (void* p : blocks_) (void)gpuFree(p);
  }
  void* alloc(std::size_t bytes) {
    void* p = nullptr;
    APSP_CUDA_TRY(gpuMalloc(&p, std::max<std::size_t>(bytes, 1)));
    blocks_[used_++] = p;
    return p;
  }
  template <class V>
  V* upload(const V* host, i64 count) {
    V* d = static_cast<V*>(alloc(std::size_t(count) * sizeof(V)));
    if (count > 0)
      APSP_CUDA_TRY(gpuMemcpy(d, host, std::size_t(count) * sizeof(V), gpuMemcpyHostToDevice));
    return d;
  }

 private:
  void* blocks_[10] = {};
  int used_ = 0;
};

// The job's arrays on the device.
template <class T>
struct DeviceJob {
  const i32* sizes;
  const i64* arc_ptr;
  const i32* src;
  const i32* dst;
  const T* w;
  const i64* out_offset;
  int n_max;  // the largest graph
};

template <class T>
DeviceJob<T> upload_job(DeviceArena& arena, const SmallGraphsJob& job) {
  const int cap = cap_of(job.dtype);
  const int n_max = job.count ? *std::max_element(job.sizes, job.sizes + job.count) : 0;
  APSP_EXPECTS(n_max <= cap, "small graphs: a graph above the GPU engine's cap");
  const i64 arcs = job.arc_ptr[job.count];
  return {arena.upload(job.sizes, job.count),
          arena.upload(job.arc_ptr, job.count + 1),
          arena.upload(job.src, arcs),
          arena.upload(job.dst, arcs),
          arena.upload(static_cast<const T*>(job.weight), arcs),
          arena.upload(job.out_offset, job.count),
          n_max};
}

template <class T>
void close_typed(const SmallGraphsJob& job) {
  if (job.count == 0) return;
  DeviceArena arena(job.device);
  const DeviceJob<T> d = upload_job<T>(arena, job);
  T* d_out = job.out_on_device
                 ? static_cast<T*>(job.out)
                 : static_cast<T*>(arena.alloc(std::size_t(job.out_cells) * sizeof(T)));
  cuda::launch_close_small_graphs<T>(d.sizes, d.arc_ptr, d.src, d.dst, d.w, d.out_offset, d_out,
                                     job.count, d.n_max, gpuStreamLegacy);
  if (job.out_on_device) {
    APSP_CUDA_TRY(gpuDeviceSynchronize());
    return;
  }
  APSP_CUDA_TRY(
      gpuMemcpy(job.out, d_out, std::size_t(job.out_cells) * sizeof(T), gpuMemcpyDeviceToHost));
}

void close_small_graphs(const SmallGraphsJob& job) {
  visit_dtype(job.dtype, [&](auto tag) { close_typed<decltype(tag)>(job); });
}

// floor(x) as long long, saturated (x >= 0: max_dist was checked).
long long floor_saturated(double x) {
  return x >= 9223372036854775807.0 ? 9223372036854775807LL : (long long)(std::floor(x));
}

template <class T, class O>
i64 close_into_typed(const SmallGraphsJob& job, const BatchOutput& out, int out_device) {
  if (job.count == 0) return -1;
  DeviceArena arena(out_device >= 0 ? out_device : job.device);
  const DeviceJob<T> d = upload_job<T>(arena, job);
  cuda::SmallOut<O> p{};
  p.none = O(out.unreachable);  // exact: check_batch_output
  p.pad = O(out.pad);
  p.clip = out.max_dist.has_value();
  p.max_dist = out.max_dist.value_or(0);
  p.clipped = O(p.max_dist);
  p.max_dist_floor = floor_saturated(p.max_dist);
  p.n_max = int(out.n_max);
  APSP_EXPECTS(out.n_max < (i64(1) << 15), "small graphs: n_max too large for one block");
  O* d_out = out_device >= 0 ? static_cast<O*>(out.data)
                             : static_cast<O*>(arena.alloc(std::size_t(job.out_cells) * sizeof(O)));
  long long* d_bad = static_cast<long long*>(arena.alloc(sizeof(long long)));
  const long long none = std::numeric_limits<long long>::max();
  APSP_CUDA_TRY(gpuMemcpy(d_bad, &none, sizeof none, gpuMemcpyHostToDevice));
  cuda::launch_close_small_graphs_into<T, O>(d.sizes, d.arc_ptr, d.src, d.dst, d.w, d.out_offset,
                                             d_out, p, d_bad, job.count, d.n_max, gpuStreamLegacy);
  long long bad = none;
  APSP_CUDA_TRY(gpuMemcpy(&bad, d_bad, sizeof bad, gpuMemcpyDeviceToHost));
  if (out_device < 0)
    APSP_CUDA_TRY(
        gpuMemcpy(out.data, d_out, std::size_t(job.out_cells) * sizeof(O), gpuMemcpyDeviceToHost));
  return bad == none ? -1 : i64(bad);
}

i64 close_small_graphs_into(const SmallGraphsJob& job, const BatchOutput& out, int out_device) {
  return visit_dtype(job.dtype, [&](auto t) {
    return visit_out(out.type, [&](auto o) {
      return close_into_typed<decltype(t), decltype(o)>(job, out, out_device);
    });
  });
}

void copy_to_device(void* dst, const void* src, std::size_t bytes, int device) {
  APSP_CUDA_TRY(gpuSetDevice(device));
  APSP_CUDA_TRY(gpuMemcpy(dst, src, bytes, gpuMemcpyHostToDevice));
}

}  // namespace

const GpuEngine* gpu_engine() {
  static const GpuEngine engine{&cap_of, &close_small_graphs, &close_small_graphs_into,
                                &copy_to_device};
  return &engine;
}

}  // namespace apsp::detail::batch
