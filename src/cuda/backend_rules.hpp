// src/cuda/backend_rules.hpp — the cuda backend's decisions before it runs (internal, included
// by cuda_backend.cu only): whether to try the int16x2 rung (with or without --paths), whether
// the rounds go into one captured CUDA graph, and whether next hops by the edges rule need no
// repair. Each rule names its APSP_ knob (core/config.hpp) and its measurement (docs/).
#pragma once

#include "gpu/runtime.hpp"

#include <cstddef>
#include <cstdint>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/types.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/reference.hpp"
#include "cuda/kernels/int16x2.cuh"

namespace apsp::detail {
namespace {

/// The int16x2 rung (int32 distances in two int16 halves of a word, capped at kInf16): worth a
/// try when the graph is big enough for the rounds to dominate (below, the packed pass and the
/// checks gain little: lab, 4096 -> 1.3x) and its weights lie below the cap. The result check
/// (band [kInf16 - W, kInf16), kernels/int16x2.cuh) decides whether it is kept; sampled Dijkstra
/// (evidence) skips it where a distance already reaches that band.
/// APSP_CUDA_INT16=0 never tries, =1 always tries where the weights allow (no evidence asked).
enum class Int16Try { No, IfNoEvidence, Forced };
Int16Try int16_try(const Graph& g, double max_w, double min_w) {
  if (!rung_applicable(max_w, min_w, cuda::kInf16)) return Int16Try::No;
  if (const auto on = config::get_switch(config::Knob::CudaInt16))
    return *on ? Int16Try::Forced : Int16Try::No;
  return g.num_vertices >= 6144 ? Int16Try::IfNoEvidence : Int16Try::No;
}

/// int16x2 rounds with --paths (then widened to int32 for the next-hop kernel): at V = 16384 the
/// int32 rounds take ~290 ms against ~160 ms packed, most of what --paths added to the compute
/// (bench/results/paths-gpu-2026-11-21.md; outputs byte-identical, scripts/gpu_check.sh paths).
/// On wherever int16_try() is (APSP_CUDA_INT16_PATHS=0 turns it off). Needs the packed, the
/// int32 and the next-hop matrices at once, so only where the GPU has room for them.
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
