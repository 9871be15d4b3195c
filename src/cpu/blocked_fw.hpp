// src/cpu/blocked_fw.hpp — the CPU backend's solver on a ready matrix (internal; used by the
// backend, `apsp bench --backend cpu`, the kernel lab and the tests).
#pragma once

#include <cstdint>

#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"
#include "cpu/kernels.hpp"

namespace apsp::detail {
struct TilePlan;
}

namespace apsp::detail::cpu {

/// The CPU backend pads matrices to a multiple of this (the widest micro-tile column count);
/// tiles (rounds) are multiples of it too, and the last round may be narrower than the block.
inline constexpr int kPadMultiple = 32;
/// Default tile size per element type (the inner depth of every min-plus GEMM).
int default_block(Dtype t);
/// The tile size actually used for a requested one (0 = default): rounded up to kPadMultiple.
int effective_block(Dtype t, int block);

/// Blocked Floyd-Warshall in place on the n_pad x n_pad matrix `dist` (n_pad = dist.stride(), a
/// multiple of kPadMultiple, dist.alloc_rows() >= n_pad, padding vertices 0 on the diagonal and
/// unreachable elsewhere, no negative weights). With `next` (int32, same shape, next[i][j] = j
/// for an edge, -1 otherwise) keeps next hops. Next hops need hop counts as a tie-breaker when
/// zero-weight edges exist; `positive_weights` = the caller knows there are none, which skips them.
/// `plan` (order/symbolic.hpp, for this n_pad and the tile size used) restricts every round to
/// its active tiles; the others must hold only "unreachable" (and next hop -1), as the plan says.
void blocked_floyd_warshall(Matrix& dist, Matrix* next, int block, int threads, Isa isa,
                            const ProgressFn& progress = {}, bool positive_weights = false,
                            const TilePlan* plan = nullptr);

/// True when every edge of g (self loops aside) has a weight > 0 that cannot vanish in a sum of
/// type t (for floats: larger than the rounding unit of the largest possible distance).
bool positive_weights(const Graph& g, Dtype t);

}  // namespace apsp::detail::cpu
