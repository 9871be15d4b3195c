// src/metrics/gpu_engine.hpp — what the bfs metrics engine asks of a GPU (internal): the sums of
// a breadth-first search from every vertex, per target, by bit-parallel multi-source BFS.
//
// The GPU side is src/cuda/metrics_msbfs.cu. The metrics engine (engine.cpp) reaches it through
// metrics_gpu_engine(), defined at link time as batch::gpu_engine() is: by metrics_msbfs.cu in
// apsp_lib with CUDA, by plugin/loader.cpp in the Python package (libapsp_cuda.so's table), and
// as a stand-in returning nullptr by gpu_engine.cpp without CUDA.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace apsp::detail {

/// Sums over every source s that reaches v, per target v, in hops.
struct MsbfsSums {
  std::vector<std::int64_t> reached;    ///< sources that reach v, v itself included
  std::vector<std::int64_t> hop_sum;    ///< sum of d(s, v)
  std::vector<double> harmonic;         ///< sum of 1 / d(s, v), s != v
  std::vector<std::int32_t> farthest;   ///< max d(s, v)
  std::vector<std::int64_t> histogram;  ///< ordered pairs (s, v) per distance, 0 included
};

struct MetricsGpuEngine {
  /// The sums of the BFS from every vertex of an n-vertex graph given by its in-arcs (v's are
  /// in_adj[in_start[v] .. in_start[v + 1])), on GPU `device`; with the out-arcs instead, the
  /// per-source sums (searches along reversed arcs). progress(done, n) after each batch; what it
  /// throws stops the run. Throws apsp::Error on CUDA errors.
  MsbfsSums (*target_sums)(std::int64_t n, const std::vector<std::int64_t>& in_start,
                           const std::vector<std::int32_t>& in_adj, int device,
                           const std::function<void(std::int64_t, std::int64_t)>& progress);
};

/// The GPU engine; nullptr where CUDA is not built or its plugin did not load. Whether a GPU is
/// usable is cuda_backend_info()'s question (core/backend.hpp).
const MetricsGpuEngine* metrics_gpu_engine();

}  // namespace apsp::detail
