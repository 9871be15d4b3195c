// src/cuda/kernels/metrics_msbfs.cuh — the GPU bfs metrics engine's kernels (issue 34; not wired
// into compute_metrics yet, src/cuda/metrics_msbfs.hpp): bit-parallel multi-source BFS, 1,024
// sources per batch as one 32-lane word of 32 bits per vertex.
//
// Item (v, lane) owns bits [32 lane, 32 lane + 32) of vertex v's state: seen, this level's
// frontier `cur`, the next one `nxt`. A level pulls: each item ORs the frontier words of v's
// in-neighbours (lanes of a vertex read one 128-byte line per neighbour; a neighbour whose
// frontier is empty, a byte flag, is skipped) until every source it still misses is found or the
// arcs end. The new bits are the sources at distance `level`; a block sums their popcounts per
// vertex in shared memory, so per-vertex sums need no atomics. No warp intrinsics: the 32 lanes
// of a vertex are a fixed group of threads, whatever the hardware's warp width.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

// Internal linkage, as in distances.cuh.
namespace apsp::cuda {
namespace {

inline constexpr int kMsbfsLanes = 32;     // 32-bit words per vertex: 1,024 sources a batch
inline constexpr int kMsbfsThreads = 256;  // 8 vertices a block

/// Grid-stride over items [0, n * 32): item = v * 32 + lane. Sources [s0, s0 + k) start the
/// batch: seen = cur = their own bit; reached[v] counts v itself (distance 0).
__global__ void msbfs_start(std::int64_t n, std::int64_t s0, int k, std::uint32_t* seen,
                            std::uint32_t* cur, unsigned char* cur_any, std::int64_t* reached) {
  const std::int64_t items = n * kMsbfsLanes;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < items;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t v = i / kMsbfsLanes;
    const int lane = int(i % kMsbfsLanes);
    const std::int64_t b = v - s0;  // v's bit in the batch, if v is one of its sources
    const bool source = b >= 0 && b < k;
    const std::uint32_t word = source && b / 32 == lane ? std::uint32_t(1) << (b % 32) : 0u;
    seen[i] = word;
    cur[i] = word;
    if (lane == 0) {
      cur_any[v] = source ? 1 : 0;
      if (source) ++reached[v];
    }
  }
}

/// One level: nxt = (OR of the in-neighbours' cur) & ~seen, within the batch's `full` bits;
/// seen |= nxt; per vertex with new bits c: reached += c, hop_sum += level c, harmonic += c /
/// level, farthest = max(farthest, level); pairs[level] += every new bit. Every item writes its nxt
/// word and every vertex its nxt_any flag, so nothing needs clearing between levels.
__global__ void __launch_bounds__(kMsbfsThreads)
    msbfs_level(std::int64_t n, const std::int64_t* in_start, const std::int32_t* in_adj, int k,
                int level, std::uint32_t* seen, const std::uint32_t* cur,
                const unsigned char* cur_any, std::uint32_t* nxt, unsigned char* nxt_any,
                std::int64_t* reached, std::int64_t* hop_sum, double* harmonic,
                std::int32_t* farthest, unsigned long long* pairs) {
  __shared__ int s_count[kMsbfsThreads];
  const std::int64_t items = n * kMsbfsLanes;
  const int group = threadIdx.x / kMsbfsLanes, lane = threadIdx.x % kMsbfsLanes;
  const int bits = min(max(k - 32 * lane, 0), 32);
  const std::uint32_t full = bits == 32 ? ~0u : (std::uint32_t(1) << bits) - 1;
  unsigned long long block_pairs = 0;  // thread 0's
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x; base < items;
       base += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = base + threadIdx.x;
    const std::int64_t v = i / kMsbfsLanes;
    std::uint32_t found = 0;
    if (i < items) {
      const std::uint32_t need = full & ~seen[i];
      if (need) {
        std::uint32_t acc = 0;
        for (std::int64_t e = in_start[v]; e < in_start[v + 1] && (need & ~acc); ++e) {
          const std::int64_t u = in_adj[e];
          if (cur_any[u]) acc |= cur[u * kMsbfsLanes + lane];
        }
        found = acc & need;
        if (found) seen[i] |= found;
      }
      nxt[i] = found;
    }
    s_count[threadIdx.x] = __popc(found);
    __syncthreads();
    if (lane == 0 && i < items) {
      int c = 0;
      for (int l = 0; l < kMsbfsLanes; ++l) c += s_count[group * kMsbfsLanes + l];
      nxt_any[v] = c ? 1 : 0;
      if (c) {
        reached[v] += c;
        hop_sum[v] += std::int64_t(level) * c;
        harmonic[v] += double(c) / double(level);
        farthest[v] = max(farthest[v], level);
      }
      s_count[threadIdx.x] = c;  // the group's total, for thread 0 below
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int g = 0; g < kMsbfsThreads / kMsbfsLanes; ++g)
        block_pairs += unsigned(s_count[g * kMsbfsLanes]) * (base + g * kMsbfsLanes < items);
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_pairs) atomicAdd(&pairs[level], block_pairs);
}

}  // namespace
}  // namespace apsp::cuda
