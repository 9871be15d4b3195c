// src/multigpu/rounds.cuh — which rounds run on a Workers: the distance rounds of the dtype or,
// with next hops, the path rounds, each through run_rounds_lookahead (core/rounds.hpp: round t's
// rest does tile row and column t+1 first, then round t+1's pivot and panels start on the look
// stream while the main stream does the rest of round t); the int16x2 rung (rounds_int16x2.cuh)
// is tried by the callers where the cuda backend would try it.
#pragma once

#include "core/rounds.hpp"
#include "multigpu/rounds_distances.cuh"
#include "multigpu/rounds_int16x2.cuh"
#include "multigpu/rounds_paths.cuh"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

/// Every round in T on `w` (distances, or next hops for 4-byte T).
template <class T>
void run_lookahead(Workers<T>& w, const ProgressFn& progress) {
  if (w.mode_ == Mode::Distances) {
    DistanceRounds<T> ops(w);
    run_rounds_lookahead(ops, progress);
  } else if constexpr (sizeof(T) == 4) {
    PathRounds<T> ops(w);
    run_rounds_lookahead(ops, progress);
  }
}

/// The int16x2 rung on `w` (built int32 distances): true when its result is kept (then in every
/// int32 matrix), false when the int32 rounds must follow (the int32 matrices as built).
/// `agree`: as PackedRounds::end.
inline bool run_packed(Workers<int>& w, const ProgressFn& progress, int band_lo,
                       const std::function<bool(bool)>& agree = {}) {
  PackedRounds ops(w);
  ops.begin();
  run_rounds_lookahead(ops, progress);
  return ops.end(band_lo, agree);
}

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
