// src/cuda/backend_rules.hpp — the cuda backend's decisions before it runs (internal, included
// by cuda_backend.cu only): whether the int16x2 rung fits beside --paths on this GPU (whether to
// try the rung at all is the ladder's, core/ladder.hpp), whether the rounds go into one captured
// CUDA graph, and whether next hops by the edges rule need no repair. Each rule names its APSP_
// knob (core/config.hpp) and its measurement (docs/).
#pragma once

#include "gpu/runtime.hpp"

#include <cstddef>
#include <cstdint>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/types.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/ladder.hpp"
#include "core/reference.hpp"
#include "cuda/kernels/int16x2.cuh"

namespace apsp::detail {
namespace {

/// int16x2 rounds with --paths (then widened to int32 for the next-hop kernel): at V = 16384 the
/// int32 rounds take ~290 ms against ~160 ms packed, most of what --paths added to the compute
/// (bench/results/paths-gpu-2026-11-21.md; outputs byte-identical, scripts/gpu_check.sh paths).
/// On wherever int16_try() (core/ladder.hpp) is (APSP_CUDA_INT16_PATHS=0 turns it off). Needs the
/// packed, the int32 and the next-hop matrices at once, so only where the GPU has room for them.
bool int16_with_paths(const Graph& g) {
  if (!config::get_bool(config::Knob::CudaInt16Paths)) return false;
  std::size_t free_b = 0, total_b = 0;
  if (gpuMemGetInfo(&free_b, &total_b) != gpuSuccess) return false;
  const double np = double(round_up(g.num_vertices, cuda::kTile));
  const double arcs = double(g.num_edges()) * (g.directed ? 1 : 2);
  const double need = np * np * (2 + 4 + 4) + arcs * 12 + np * cuda::kTile * 4 * 8;
  return need < 0.9 * double(free_b);
}

/// Rounds <= this many use one captured CUDA graph (V <= 32 * 128 = 4096); APSP_CUDA_GRAPH=0/1
/// overrides. Measured gain: see docs/cuda-notes.md.
constexpr std::int64_t kGraphMaxRounds = 32;

bool use_graph_for(std::int64_t rounds) {
  if (const auto on = config::get_switch(config::Knob::CudaGraph)) return *on;
  return rounds <= kGraphMaxRounds;
}

/// Next hops by the edges rule (start_next) are tight: d(i,j) = w(i,v) + d(v,j) for v =
/// next[i][j], so d falls strictly along a walk except across zero-weight arcs, and only a
/// zero-weight cycle can trap one. With int32 (exact sums) and no zero-weight cycle every walk
/// ends, and the next hops need no repair (float32 sums can absorb a small weight).
bool next_hops_loop_free(const Graph& g, Dtype t) {
  return is_integer(t) && !may_have_zero_weight_cycle(g);
}

}  // namespace
}  // namespace apsp::detail
