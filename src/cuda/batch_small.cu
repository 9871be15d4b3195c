// src/cuda/batch_small.cu — one thread block per small graph, closed in shared memory
// (batch_small.cuh says what and why). Layers: solve_small_graphs (host: arrays, upload, launch,
// download) -> launch.cuh -> kernels/batch_small.cuh (one block = one graph).
#include <algorithm>
#include <cmath>
#include <memory>

#include "core/reference.hpp"
#include "cuda/batch_small.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.cuh"

namespace apsp::detail::cuda_batch {

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

struct DeviceFree {
  void operator()(void* p) const { gpuFree(p); }
};
using DeviceBuffer = std::unique_ptr<void, DeviceFree>;

template <class V>
DeviceBuffer upload(const std::vector<V>& v) {
  void* p = nullptr;
  APSP_CUDA_TRY(gpuMalloc(&p, std::max<std::size_t>(v.size(), 1) * sizeof(V)));
  DeviceBuffer d(p);
  APSP_CUDA_TRY(gpuMemcpy(p, v.data(), v.size() * sizeof(V), gpuMemcpyHostToDevice));
  return d;
}

// The arcs the kernel reads: local ids, self loops dropped, undirected edges both ways, weights
// as build_matrix converts them (+0 for -0); graphs it does not take get none.
template <class T>
struct Arcs {
  std::vector<i64> ptr{0};
  std::vector<i32> src, dst;
  std::vector<T> w;
};

template <class T>
Arcs<T> arcs_of(const PackedGraphs& p, const std::vector<char>& taken) {
  Arcs<T> a;
  for (i64 b = 0; b < p.num_graphs; ++b) {
    const i64 base = p.node_ptr[b];
    for (i64 e = p.edge_ptr[b]; taken[std::size_t(b)] && e < p.edge_ptr[b + 1]; ++e) {
      const i32 u = i32(p.src[e] - base), v = i32(p.dst[e] - base);
      if (u == v) continue;
      const T x = weight_as<T>(p.weight ? p.weight[e] + 0.0 : 1.0);
      a.src.push_back(u), a.dst.push_back(v), a.w.push_back(x);
      if (!p.directed) a.src.push_back(v), a.dst.push_back(u), a.w.push_back(x);
    }
    a.ptr.push_back(i64(a.src.size()));
  }
  return a;
}

}  // namespace

template <class T>
std::vector<std::int64_t> solve_small_graphs(const PackedGraphs& p,
                                             const std::vector<std::int64_t>& offsets, T* out,
                                             int device) {
  const int cap = small_cap<T>();
  std::vector<char> taken(std::size_t(p.num_graphs), 0);
  std::vector<i64> left;
  for (i64 b = 0; b < p.num_graphs; ++b) {
    const i64 n = p.node_ptr[b + 1] - p.node_ptr[b];
    bool negative = false;
    for (i64 e = p.edge_ptr[b]; p.weight && e < p.edge_ptr[b + 1]; ++e)
      negative = negative || p.weight[e] < 0;
    taken[std::size_t(b)] = n <= cap && !negative;
    if (!taken[std::size_t(b)]) left.push_back(b);
  }
  if (p.num_graphs == 0) return left;
  APSP_CUDA_TRY(gpuSetDevice(device));
  const Arcs<T> a = arcs_of<T>(p, taken);
  const std::vector<i64> nodes(p.node_ptr, p.node_ptr + p.num_graphs + 1);
  DeviceBuffer d_nodes = upload(nodes), d_ptr = upload(a.ptr), d_src = upload(a.src),
               d_dst = upload(a.dst), d_w = upload(a.w), d_off = upload(offsets);
  const std::size_t total = std::size_t(offsets.back());
  void* d_out = nullptr;
  APSP_CUDA_TRY(gpuMalloc(&d_out, std::max<std::size_t>(total, 1) * sizeof(T)));
  DeviceBuffer out_buffer(d_out);
  const int shared = cap * cap * int(sizeof(T));
  cuda::launch_close_small_graphs<T>(
      static_cast<const i64*>(d_nodes.get()), static_cast<const i64*>(d_ptr.get()),
      static_cast<const i32*>(d_src.get()), static_cast<const i32*>(d_dst.get()),
      static_cast<const T*>(d_w.get()), static_cast<const i64*>(d_off.get()),
      static_cast<T*>(d_out), cap, p.num_graphs, shared, gpuStreamLegacy);
  // Graphs left to the cpu engine are copied too (unwritten); the caller overwrites them.
  APSP_CUDA_TRY(gpuMemcpy(out, d_out, total * sizeof(T), gpuMemcpyDeviceToHost));
  return left;
}

template std::vector<i64> solve_small_graphs(const PackedGraphs&, const std::vector<i64>&, i32*,
                                             int);
template std::vector<i64> solve_small_graphs(const PackedGraphs&, const std::vector<i64>&, i64*,
                                             int);
template std::vector<i64> solve_small_graphs(const PackedGraphs&, const std::vector<i64>&, float*,
                                             int);
template std::vector<i64> solve_small_graphs(const PackedGraphs&, const std::vector<i64>&, double*,
                                             int);

}  // namespace apsp::detail::cuda_batch
