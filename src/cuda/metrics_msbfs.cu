// src/cuda/metrics_msbfs.cu — the bfs metrics engine on one GPU (metrics_msbfs.hpp says what).
// Layers: msbfs_target_sums (host: upload the arcs once, then per batch of 1,024 sources a start
// and one launch per level until a level finds no new pair; download the sums at the end) ->
// launch.cuh -> kernels/metrics_msbfs.cuh.
#include "cuda/metrics_msbfs.hpp"

#include <algorithm>
#include <memory>

#include "apsp/errors.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.cuh"

namespace apsp::detail::cuda_metrics {

namespace {

struct DeviceFree {
  void operator()(void* p) const { gpuFree(p); }
};
using DeviceBuffer = std::unique_ptr<void, DeviceFree>;

template <class V>
V* device_zeros(std::size_t count, DeviceBuffer& keep) {
  void* p = nullptr;
  APSP_CUDA_TRY(gpuMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(V)));
  keep.reset(p);
  APSP_CUDA_TRY(gpuMemsetAsync(p, 0, std::max<std::size_t>(count, 1) * sizeof(V), gpuStreamLegacy));
  return static_cast<V*>(p);
}

template <class V>
V* device_copy(const std::vector<V>& v, DeviceBuffer& keep) {
  V* p = device_zeros<V>(v.size(), keep);
  APSP_CUDA_TRY(gpuMemcpy(p, v.data(), v.size() * sizeof(V), gpuMemcpyHostToDevice));
  return p;
}

template <class V>
std::vector<V> download(const V* p, std::size_t count) {
  std::vector<V> v(count);
  APSP_CUDA_TRY(gpuMemcpy(v.data(), p, count * sizeof(V), gpuMemcpyDeviceToHost));
  return v;
}

}  // namespace

TargetSums msbfs_target_sums(std::int64_t n, const std::vector<std::int64_t>& in_start,
                             const std::vector<std::int32_t>& in_adj, int device,
                             const std::function<void(std::int64_t, std::int64_t)>& progress) {
  APSP_EXPECTS(n >= 1 && in_start.size() == std::size_t(n) + 1 &&
                   std::int64_t(in_adj.size()) == in_start.back(),
               "msbfs_target_sums: in_start must hold n + 1 offsets, the last one in_adj's size");
  APSP_CUDA_TRY(gpuSetDevice(device));
  const auto vn = std::size_t(n), words = vn * cuda::kMsbfsLanes;
  DeviceBuffer b_start, b_adj, b_seen, b_cur, b_nxt, b_cur_any, b_nxt_any, b_reached, b_sum, b_harm,
      b_far, b_pairs;
  const std::int64_t* start = device_copy(in_start, b_start);
  const std::int32_t* adj = device_copy(in_adj, b_adj);
  std::uint32_t* seen = device_zeros<std::uint32_t>(words, b_seen);
  std::uint32_t* cur = device_zeros<std::uint32_t>(words, b_cur);
  std::uint32_t* nxt = device_zeros<std::uint32_t>(words, b_nxt);
  unsigned char* cur_any = device_zeros<unsigned char>(vn, b_cur_any);
  unsigned char* nxt_any = device_zeros<unsigned char>(vn, b_nxt_any);
  std::int64_t* reached = device_zeros<std::int64_t>(vn, b_reached);
  std::int64_t* hop_sum = device_zeros<std::int64_t>(vn, b_sum);
  double* harmonic = device_zeros<double>(vn, b_harm);
  std::int32_t* farthest = device_zeros<std::int32_t>(vn, b_far);
  // pairs[d] for d < n (a BFS has at most n - 1 levels), plus one slot the last level may read.
  unsigned long long* pairs = device_zeros<unsigned long long>(vn + 1, b_pairs);
  constexpr std::int64_t kBatch = 32 * cuda::kMsbfsLanes;
  std::int64_t levels_seen = 0;
  std::vector<unsigned long long> known(vn + 1, 0);  // pairs[] as last read
  for (std::int64_t s0 = 0; s0 < n; s0 += kBatch) {
    const int k = int(std::min(kBatch, n - s0));
    cuda::launch_msbfs_start(n, s0, k, seen, cur, cur_any, reached, gpuStreamLegacy);
    std::uint32_t *c = cur, *x = nxt;
    unsigned char *ca = cur_any, *xa = nxt_any;
    for (int level = 1; level < n; ++level) {
      cuda::launch_msbfs_level(n, start, adj, k, level, seen, c, ca, x, xa, reached, hop_sum,
                               harmonic, farthest, pairs, gpuStreamLegacy);
      // pairs[] sums over the batches: this batch's new pairs are the growth of pairs[level].
      unsigned long long total = 0;
      APSP_CUDA_TRY(gpuMemcpy(&total, pairs + level, sizeof total, gpuMemcpyDeviceToHost));
      const unsigned long long found = total - known[std::size_t(level)];
      known[std::size_t(level)] = total;
      levels_seen = std::max<std::int64_t>(levels_seen, level);
      if (found == 0) break;
      std::swap(c, x);
      std::swap(ca, xa);
    }
    if (progress) progress(s0 + k, n);
  }
  TargetSums t;
  t.reached = download(reached, vn);
  t.hop_sum = download(hop_sum, vn);
  t.harmonic = download(harmonic, vn);
  t.farthest = download(farthest, vn);
  const std::vector<unsigned long long> p = download(pairs, std::size_t(levels_seen) + 1);
  t.histogram.assign(p.begin(), p.end());
  t.histogram[0] = n;  // each vertex from itself
  while (t.histogram.size() > 1 && t.histogram.back() == 0) t.histogram.pop_back();
  return t;
}

}  // namespace apsp::detail::cuda_metrics

namespace apsp::detail {
const MetricsGpuEngine* metrics_gpu_engine() {
  static const MetricsGpuEngine engine{&cuda_metrics::msbfs_target_sums};
  return &engine;
}
}  // namespace apsp::detail
