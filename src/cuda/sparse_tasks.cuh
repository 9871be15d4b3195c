// src/cuda/sparse_tasks.cuh — the host side of the sparse rows' launches (sparse_rows.cu): task
// lists cut into the two tile widths' launches, and the GPU time of a block's phases.
#pragma once

#include "gpu/runtime.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "cuda/launch.cuh"

namespace apsp::detail::sparse {

// Internal linkage, as launch.cuh's.
namespace {

/// A launch's tasks: a slice [begin, end) of one task array, their tile width and tile count.
struct Group {
  std::size_t begin = 0, end = 0;
  int bm = 32;
  std::int64_t tiles = 0;
};

template <int BM, class T>
std::int64_t tiles_of(const cuda::SnTask<T>& t) {
  return std::int64_t((t.m + BM - 1) / BM) *
         ((t.r1 - t.r0 + cuda::kSnBN<BM> - 1) / cuda::kSnBN<BM>);
}

/// Appends `batch` to `tasks` as two launches: the narrow products (m <= 16: 16-row tiles) and
/// the wide ones (32-row tiles), each group's first tiles numbered from 0.
template <class T>
std::array<Group, 2> add_products(std::vector<cuda::SnTask<T>>& tasks,
                                  const std::vector<cuda::SnTask<T>>& batch) {
  std::array<Group, 2> g{};
  for (int wide = 0; wide < 2; ++wide) {
    Group& x = g[std::size_t(wide)];
    x.bm = wide ? 32 : 16;
    x.begin = tasks.size();
    for (cuda::SnTask<T> t : batch) {
      if ((t.m > 16) != bool(wide)) continue;
      t.first_tile = int(x.tiles);
      x.tiles += wide ? tiles_of<32>(t) : tiles_of<16>(t);
      tasks.push_back(t);
    }
    x.end = tasks.size();
    APSP_EXPECTS(x.tiles < (std::int64_t(1) << 31), "sparse rows: launch too large");
  }
  return g;
}

/// Launches a group of the task array `tasks` (device memory).
template <class D>
void launch_group(const cuda::SnTask<D>* tasks, const Group& g, std::int64_t q0, gpuStream_t s) {
  if (g.bm == 16)
    cuda::launch_sn_minplus<D, 16>(tasks + g.begin, int(g.end - g.begin), g.tiles, q0, s);
  else
    cuda::launch_sn_minplus<D, 32>(tasks + g.begin, int(g.end - g.begin), g.tiles, q0, s);
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
