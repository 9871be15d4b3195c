// src/cuda/sparse_tasks.cuh — the host side of the sparse rows' launches (sparse_rows.cu): task
// lists cut into the two tile widths' launches, and the GPU time of a block's phases.
#pragma once

#include "gpu/runtime.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "cuda/launch.cuh"
#include "sparse/row_sums.hpp"

namespace apsp::detail::sparse {

// Internal linkage, as launch.cuh's.
namespace {

/// A launch's tasks: a slice [begin, end) of one task array and how they run: tiles of bm rows
/// (`tiles` blocks in all, first_tile numbered from 0), or streamed (sn_stream, m <= stream, over
/// `cols` columns each).
struct Group {
  std::size_t begin = 0, end = 0;
  int bm = 32;
  int stream = 0;
  std::int64_t tiles = 0, cols = 0;
};

template <int BM, class T>
std::int64_t tiles_of(const cuda::SnTask<T>& t) {
  return std::int64_t((t.m + BM - 1) / BM) *
         ((t.r1 - t.r0 + cuda::kSnBN<BM> - 1) / cuda::kSnBN<BM>);
}

/// How a product runs: streamed when `stream` allows it (m <= 8, 16 or 32: that bound), else
/// in tiles (-16: m <= 16, 16-row tiles; -32: 32-row tiles).
template <class T>
int kind_of(const cuda::SnTask<T>& t, bool stream) {
  if (stream && !t.atomic && t.m <= 32) return t.m <= 8 ? 8 : t.m <= 16 ? 16 : 32;
  return t.m <= 16 ? -16 : -32;
}

/// Appends `batch` to `tasks` as launches, one per kind (kind_of) that occurs, each tiled
/// group's first tiles numbered from 0. `stream`: narrow products go to sn_stream (the down
/// sweep, where every product spans the block's columns; sliced wide ones and the up sweep's
/// closes ran slower streamed on the H200, bench/results/sparse-direct-engine-2026-11-29.md).
template <class T>
std::vector<Group> add_products(std::vector<cuda::SnTask<T>>& tasks,
                                const std::vector<cuda::SnTask<T>>& batch, bool stream = false) {
  std::vector<Group> groups;
  for (const int kind : {8, 16, 32, -16, -32}) {
    Group x;
    x.bm = kind < 0 ? -kind : 32;
    x.stream = kind > 0 ? kind : 0;
    x.begin = tasks.size();
    for (cuda::SnTask<T> t : batch) {
      if (kind_of(t, stream) != kind) continue;
      t.first_tile = int(x.tiles);
      if (x.stream) {
        ++x.tiles;
        x.cols = std::max<std::int64_t>(x.cols, t.r1 - t.r0);
      } else {
        x.tiles += x.bm == 32 ? tiles_of<32>(t) : tiles_of<16>(t);
      }
      tasks.push_back(t);
    }
    x.end = tasks.size();
    APSP_EXPECTS(x.tiles < (std::int64_t(1) << 31), "sparse rows: launch too large");
    if (x.tiles > 0) groups.push_back(x);
  }
  return groups;
}

template <class D>
void launch_stream(const cuda::SnTask<D>* tasks, int n, const Group& g, std::int64_t q0,
                   gpuStream_t s) {
  if (g.stream == 8)
    cuda::launch_sn_stream<D, 8>(tasks, n, g.cols, q0, s);
  else if (g.stream == 16)
    cuda::launch_sn_stream<D, 16>(tasks, n, g.cols, q0, s);
  else
    cuda::launch_sn_stream<D, 32>(tasks, n, g.cols, q0, s);
}

/// Launches a group of the task array `tasks` (device memory).
template <class D>
void launch_group(const cuda::SnTask<D>* tasks, const Group& g, std::int64_t q0, gpuStream_t s) {
  const int n = int(g.end - g.begin);
  if (g.stream)
    launch_stream<D>(tasks + g.begin, n, g, q0, s);
  else if (g.bm == 16)
    cuda::launch_sn_minplus<D, 16>(tasks + g.begin, n, g.tiles, q0, s);
  else
    cuda::launch_sn_minplus<D, 32>(tasks + g.begin, n, g.tiles, q0, s);
}

/// The sums' device accumulators as downloaded (six words and the largest distance per ordered
/// position, GpuRows::allocate_sums) into r, in the user's order (old_of_new).
template <class T>
void sums_to_user(const std::vector<unsigned long long>& w, const std::vector<T>& mx,
                  const std::vector<std::int32_t>& old_of_new, RowSums& r) {
  const std::size_t n = mx.size();
  const bool integer = std::is_integral_v<T>;
  auto as_double = [&](int i, std::size_t q) {
    double d;
    std::memcpy(&d, &w[std::size_t(i) * n + q], sizeof d);
    return d;
  };
  size_sums(r, std::int64_t(n));
  for (std::size_t q = 0; q < n; ++q) {
    const std::size_t u = std::size_t(old_of_new[q]);
    r.out_cnt[u] = std::int64_t(w[q]);
    r.in_cnt[u] = std::int64_t(w[n + q]);
    if (integer) {
      r.out_sum_i[u] = std::int64_t(w[2 * n + q]);
      r.in_sum_i[u] = std::int64_t(w[3 * n + q]);
      r.out_max_i[u] = std::int64_t(mx[q]);
    } else {
      r.out_sum_f[u] = as_double(2, q);
      r.in_sum_f[u] = as_double(3, q);
      r.out_max_f[u] = double(mx[q]);
    }
    r.out_harm[u] = as_double(4, q);
    r.in_harm[u] = as_double(5, q);
  }
}

/// GPU time of the sweeps' phases, summed over blocks (events around each phase).
class PhaseTimes {
 public:
  static constexpr int kPhases = 4;  // init, up, down, write (or sums)
  explicit PhaseTimes(std::int64_t blocks) : ev_(std::size_t(blocks * (kPhases + 1))) {
    for (gpuEvent_t& e : ev_) APSP_CUDA_TRY(gpuEventCreate(&e));
  }
  ~PhaseTimes() {
    for (gpuEvent_t e : ev_) (void)gpuEventDestroy(e);
  }
  void mark(std::int64_t block, int phase, gpuStream_t s) {
    APSP_CUDA_TRY(gpuEventRecord(ev_[std::size_t(block * (kPhases + 1) + phase)], s));
  }
  /// "init a ms, up b ms, down c ms, write d ms" once the stream is done.
  std::string summary() const {
    double ms[kPhases] = {};
    for (std::size_t b = 0; b < ev_.size() / (kPhases + 1); ++b)
      for (int p = 0; p < kPhases; ++p) {
        float x = 0;
        APSP_CUDA_TRY(gpuEventElapsedTime(&x, ev_[b * (kPhases + 1) + std::size_t(p)],
                                          ev_[b * (kPhases + 1) + std::size_t(p) + 1]));
        ms[p] += x;
      }
    char buf[160];
    std::snprintf(buf, sizeof buf, "init %.1f ms, up %.1f ms, down %.1f ms, write %.1f ms", ms[0],
                  ms[1], ms[2], ms[3]);
    return buf;
  }

 private:
  std::vector<gpuEvent_t> ev_;
};

}  // namespace
}  // namespace apsp::detail::sparse
