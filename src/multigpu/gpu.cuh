// src/multigpu/gpu.cuh — one GPU's share of the multi-gpu grid (Gpu<T>: layout, two streams,
// events, NCCL communicators, device buffers) and the host helpers around it: NCCL's error macro
// and element types, pinned host arrays, a row-parallel loop for the output stripes.
// The grid: src/dist/block_cyclic.hpp; the strides and memory estimate: src/dist/gpu_rank.hpp.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/rounds.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.cuh"
#include "cuda/device_solver.cuh"
#include "cuda/launch.cuh"
#include "dist/block_cyclic.hpp"
#include "dist/gpu_rank.hpp"
#include "dist/local_plan.hpp"

#define APSP_NCCL_TRY(call)                                                                        \
  do {                                                                                             \
    const ncclResult_t apsp_nccl_rc_ = (call);                                                     \
    if (apsp_nccl_rc_ != ncclSuccess)                                                              \
      throw ::apsp::Error(std::string("NCCL error: ") + ncclGetErrorString(apsp_nccl_rc_) + " (" + \
                          #call + " at " + __FILE__ + ":" + std::to_string(__LINE__) + ")");       \
  } while (0)

namespace apsp::detail {

namespace multigpu {

// Internal linkage, as the kernels (cuda/kernels/*.cuh): every .cu file that includes this has
// its own copies, attributes set and kernels launched in that file.
namespace {

using cuda::DeviceBuffer;
using cuda::GemmMode;
using cuda::kTile;
using dist::Grid;
using dist::i64;
using dist::Layout;
using dist::ListRect;
using dist::ListSpan;
using dist::LocalPlan;
using dist::TileRange;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr i64 kStripeBytes = i64(64) << 20;

template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, int>)
    return ncclInt32;
  else if constexpr (std::is_same_v<T, long>)
    return ncclInt64;
  else if constexpr (std::is_same_v<T, float>)
    return ncclFloat32;
  else
    return ncclFloat64;
}

static_assert(kGpuTile == kTile, "gpu_rank.hpp's tile must be the cuda backend's");
static_assert(kGpuEdgeChunk == cuda::kEdgeChunk,
              "gpu_rank.hpp's edge chunk (memory estimate) must be the build's");

/// One GPU's share: its layout, streams, events, communicators and buffers.
template <class T>
struct Gpu {
  int ordinal = 0;
  Layout L;
  cudaStream_t main = nullptr, look = nullptr;
  cudaEvent_t ready[2] = {nullptr, nullptr}, a_done = nullptr, copied[2] = {nullptr, nullptr};
  ncclComm_t row = nullptr,
             col = nullptr;  // this GPU's grid row / grid column (null when of size 1)
  // D: local_rows x ld; rowp: B x ld; csT, colT: B x ldt (transposed: indexed by local rows);
  // piv: (P*, P*^T), 2 B^2. ld / ldt: Workers::ld_ / ldt_.
  DeviceBuffer<T> D, csT, rowp[2], colT[2], piv[2];
  // With next hops (4-byte words; values, next hops and hop counts side by side):
  DeviceBuffer<int> N, H;              // local next hops / hop counts, like D (stride ld)
  DeviceBuffer<int> pw[2];             // pivot: values | next | hops, B^2 each
  DeviceBuffer<int> rowpw[2], rowold;  // row panel: values | hops, B x ld each
  DeviceBuffer<int> colpw[2], colold;  // column panel: values | next | hops, local_rows x B each
  // The int16x2 rung (T = int, distances): D16 (local_rows x ld16 words), row panels likewise
  // (B x ld16); the column panel is colT holding replicated words, the pivot piv (P* int32 |
  // P*^T replicated words). flag: a band check's answer.
  DeviceBuffer<unsigned> D16, rowp16[2];
  DeviceBuffer<int> flag;
  // Listed rounds (a TilePlan; Workers::set_plan): this GPU's tile lists of every round, on the
  // host (plan: the spans, the lookahead split) and in device memory (lists, as plan.tiles).
  LocalPlan plan;
  DeviceBuffer<int> lists;
  // APSP_MG_PROFILE=1: timed events bracketing each phase (phase, begin, end), read after the run.
  struct Span {
    int phase;
    cudaEvent_t begin, end;
  };
  std::vector<Span> spans;
  std::vector<cudaEvent_t> marks;

  Gpu() = default;
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;
  ~Gpu() {
    cudaSetDevice(ordinal);
    if (row) ncclCommDestroy(row);
    if (col) ncclCommDestroy(col);
    for (cudaEvent_t e : {ready[0], ready[1], a_done, copied[0], copied[1]})
      if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : marks) cudaEventDestroy(e);
    if (main) cudaStreamDestroy(main);
    if (look) cudaStreamDestroy(look);
  }
};

/// Listed rounds: q's device tile lists of rows `r` x columns (or word blocks) `c` (spans of
/// q.plan), as the listed kernels read them (local tile indices).
template <class T>
cuda::TileLists tile_lists(const Gpu<T>& q, ListSpan r, ListSpan c) {
  return cuda::TileLists{q.lists.get() + r.at, q.lists.get() + c.at, r.count, c.count};
}

/// Pinned host array, freed on scope exit.
template <class T>
struct PinnedArray {
  T* p = nullptr;
  i64 count = 0;
  void resize(i64 n) {
    if (p) cudaFreeHost(p);
    p = nullptr;
    count = n;
    if (n > 0)
      APSP_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&p), std::size_t(n) * sizeof(T)));
  }
  PinnedArray() = default;
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  ~PinnedArray() {
    if (p) cudaFreeHost(p);
  }
};

std::string gib(double b) {
  std::ostringstream os;
  os.precision(3);
  os << b / double(std::size_t(1) << 30) << " GiB";
  return os.str();
}

/// Runs f(r) for r in [0, rows) on up to 32 host threads (the stripe reassembly is memory-bound).
template <class F>
void parallel_rows(i64 rows, const F& f) {
  const i64 threads =
      std::min<i64>({i64(std::max(1u, std::thread::hardware_concurrency())), 32, (rows + 63) / 64});
  if (threads <= 1) {
    for (i64 r = 0; r < rows; ++r) f(r);
    return;
  }
  std::vector<std::thread> pool;
  for (i64 w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (i64 r = rows * w / threads; r < rows * (w + 1) / threads; ++r) f(r);
    });
  for (auto& th : pool) th.join();
}

/// A GPU of the grid that this process drives: its device ordinal and its worker index in the grid.
struct Member {
  int ordinal = 0;
  int worker = 0;
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
