// tests/test_batch_gpu_plan.cpp — the GPU batch path's host side (src/batch/gpu_batch.cpp: which
// graphs go where, the arcs laid out for the device, next hops from the device's distances, the
// output written by the device, host graphs copied in, the unfit-value report) run against a
// host emulation of the GPU engine (gpu_engine.hpp: plain Floyd-Warshall per graph, as the
// kernel), compared byte for byte with the cpu engine. Runs everywhere; the real GPU engine is
// tests/test_batch_gpu.cpp's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"
#include "batch/batch_detail.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;
using detail::batch::GpuEngine;
using detail::batch::SmallGraphsJob;

int emulated_cap(Dtype t) { return t == Dtype::Int32 ? 128 : 64; }

// Graph k of the job closed as the kernel closes it: arcs by minimum, then n k-steps.
template <class T>
std::vector<T> close_one(const SmallGraphsJob& job, i64 k) {
  const i64 n = job.sizes[k];
  std::vector<T> d(std::size_t(n * n), unreachable<T>());
  for (i64 i = 0; i < n; ++i) d[std::size_t(i * n + i)] = T(0);
  const T* w = static_cast<const T*>(job.weight);
  for (i64 e = job.arc_ptr[k]; e < job.arc_ptr[k + 1]; ++e) {
    T& c = d[std::size_t(job.src[e] * n + job.dst[e])];
    c = std::min(c, w[e]);
  }
  for (i64 m = 0; m < n; ++m)
    for (i64 i = 0; i < n; ++i)
      for (i64 j = 0; j < n; ++j) {
        const T s = d[std::size_t(i * n + m)] + d[std::size_t(m * n + j)];
        if (s < d[std::size_t(i * n + j)]) d[std::size_t(i * n + j)] = s;
      }
  return d;
}

void emulated_close(const SmallGraphsJob& job) {
  visit_dtype(job.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (i64 k = 0; k < job.count; ++k) {
      const std::vector<T> d = close_one<T>(job, k);
      std::copy(d.begin(), d.end(), static_cast<T*>(job.out) + job.out_offset[k]);
    }
  });
}

// Graph k written where out_offset[k] says: the batch index is found back from the offset.
i64 emulated_into(const SmallGraphsJob& job, const BatchOutput& out, int out_device) {
  EXPECT_LT(out_device, 1);  // the emulation's "device memory" is host memory
  i64 bad = -1;
  visit_dtype(job.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (i64 k = 0; k < job.count; ++k) {
      const i64 n = job.sizes[k];
      const std::vector<T> d = close_one<T>(job, k);
      const Matrix view = Matrix::view(d.data(), n, n, n, job.dtype);
      i64 b = 0;
      if (out.n_max > 0) {
        b = job.out_offset[k] / (out.n_max * out.n_max);
      } else {
        while (out.offsets[b] != job.out_offset[k] || out.offsets[b + 1] - out.offsets[b] != n * n)
          ++b;
      }
      try {
        write_distances({b, &view, nullptr}, out);
      } catch (const UsageError&) {
        if (bad < 0) bad = k;
      }
    }
  });
  return bad;
}

void emulated_copy(void* dst, const void* src, std::size_t bytes, int) {
  std::memcpy(dst, src, bytes);
}

const GpuEngine kEmulated{&emulated_cap, &emulated_close, &emulated_into, &emulated_copy};

using Packed = test::PackedBatch;

Packed mixed(bool directed, bool fractional, std::uint64_t seed) {
  Packed p;
  p.directed = directed;
  for (i64 V : {1, 2, 3, 17, 33, 64, 65, 100, 128, 129, 200, 300, 0, 40}) {
    if (V == 0) {
      p.add(Graph{});
      continue;
    }
    test::RandomGraphSpec s;
    s.V = V;
    s.E = 3 * V;
    s.wmax = fractional ? 6.7 : 9;
    s.integer = !fractional;
    s.self_loops = true;
    s.components = V > 8 ? 2 : 1;
    s.directed = directed;
    s.seed = seed + std::uint64_t(V);
    Graph g = test::random_graph(s);
    if (V == 40 && directed) g = test::with_potentials(std::move(g), seed);  // negative: host
    p.add(g);
  }
  return p;
}

// The emulated GPU path's flat result (solve_batch's BatchResult layout, from the sink).
BatchResult via_gpu_path(const BatchGraphs& graphs, const BatchOptions& o, Dtype t) {
  BatchResult r;
  const i64 count = graphs.size();
  r.sizes.resize(std::size_t(count));
  r.offsets.assign(std::size_t(count) + 1, 0);
  for (i64 b = 0; b < count; ++b) {
    r.sizes[std::size_t(b)] = graphs.num_vertices(b);
    r.offsets[std::size_t(b) + 1] =
        r.offsets[std::size_t(b)] + r.sizes[std::size_t(b)] * r.sizes[std::size_t(b)];
  }
  const i64 cells = std::max<i64>(r.offsets.back(), 1);
  r.dist = Matrix(1, cells, cells, 1, t);
  if (o.paths) r.next = Matrix(1, cells, cells, 1, Dtype::Int32);
  const std::size_t es = dtype_size(t);
  detail::batch::solve_batch_gpu(graphs, o, t, true, kEmulated, [&](const BatchItem& item) {
    const i64 n = item.dist->rows(), at = r.offsets[std::size_t(item.index)];
    for (i64 i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(r.dist.raw()) + (at + i * n) * i64(es),
                  static_cast<const char*>(item.dist->raw()) + i * item.dist->stride() * i64(es),
                  std::size_t(n) * es);
    if (item.next)
      for (i64 i = 0; i < n; ++i)
        std::memcpy(r.next.data<i32>() + at + i * n, item.next->row<i32>(i), std::size_t(n) * 4);
  });
  return r;
}

TEST(BatchGpuPlan, EmulatedGpuPathEqualsTheCpuEngine) {
  for (bool paths : {false, true})
    for (bool directed : {true, false})
      for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
        const Packed p = mixed(directed, !is_integer(t), 17);
        const PackedGraphs pg = p.view();
        const BatchGraphs graphs{pg};
        BatchOptions o;
        o.dtype = t;
        o.paths = paths;
        const BatchResult want = solve_batch(graphs, o);
        const BatchResult got = via_gpu_path(graphs, o, t);
        const std::string what =
            std::string(dtype_name(t)) + (directed ? " directed" : "") + (paths ? " paths" : "");
        const std::size_t es = dtype_size(t);
        EXPECT_EQ(
            std::memcmp(got.dist.raw(), want.dist.raw(), std::size_t(want.offsets.back()) * es), 0)
            << what << " distances";
        if (paths) {
          EXPECT_EQ(
              std::memcmp(got.next.raw(), want.next.raw(), std::size_t(want.offsets.back()) * 4), 0)
              << what << " next hops";
        }
      }
}

TEST(BatchGpuPlan, EmulatedIntoEqualsWriteDistances) {
  const Packed p = mixed(false, false, 5);
  const PackedGraphs pg = p.view();
  const BatchGraphs graphs{pg};
  const i64 count = graphs.size(), n_max = 300;
  std::vector<i64> offsets(std::size_t(count) + 1, 0);
  for (i64 b = 0; b < count; ++b)
    offsets[std::size_t(b) + 1] =
        offsets[std::size_t(b)] + graphs.num_vertices(b) * graphs.num_vertices(b);
  for (int device : {-1, 0})
    for (bool padded : {true, false}) {
      const i64 total = padded ? count * n_max * n_max : offsets.back();
      std::vector<std::int16_t> want(std::size_t(total), 7), got(std::size_t(total), 7);
      BatchOutput out{
          OutType::Int16, want.data(), padded ? n_max : 0, offsets.data(), 510, -3, 20.0};
      BatchOptions o;
      solve_batch(graphs, o, [&](const BatchItem& item) { write_distances(item, out); });
      out.data = got.data();
      detail::batch::solve_batch_gpu_into(graphs, o, Dtype::Int32, true, kEmulated, out, device);
      EXPECT_EQ(got, want) << (padded ? "padded" : "flat") << " device " << device;
    }
}

TEST(BatchGpuPlan, AnUnfitDistanceNamesItsGraph) {
  Packed p;
  p.directed = false;
  Graph small;
  small.num_vertices = 3;
  small.add_edge(0, 1, 1);
  Graph path;  // 0 - 1 - ... - 99, weight 3 a hop: 129 (43 hops) is the first beyond int8
  path.num_vertices = 100;
  path.directed = false;
  for (i32 v = 0; v + 1 < 100; ++v) path.add_edge(v, v + 1, 3);
  p.add(small);
  p.add(path);
  const PackedGraphs pg = p.view();
  std::vector<std::int8_t> cells(2 * 100 * 100);
  const BatchOutput out{OutType::Int8, cells.data(), 100, nullptr, -1, -1, std::nullopt};
  try {
    detail::batch::solve_batch_gpu_into(BatchGraphs{pg}, {}, Dtype::Int32, true, kEmulated, out,
                                        -1);
    FAIL() << "297 written into int8";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("graph 1: distance 129 does not fit int8", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace apsp
