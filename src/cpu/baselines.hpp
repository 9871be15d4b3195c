// src/cpu/baselines.hpp — the lower rungs of the CPU ladder, kept to measure our gain against:
// the plain triple loop, and blocked FW with OpenMP over rows of tiles and scalar inner loops (the
// shape of the NTHU course reports). Both work in place on an n_pad x n_pad matrix like ours.
#pragma once

#include "apsp/matrix.hpp"

namespace apsp::detail::cpu {

/// Textbook k-i-j Floyd-Warshall, one thread, no intrinsics (the compiler's auto-vectorization
/// for the baseline target only). Runs over dist.rows() x dist.cols().
void baseline_triple_loop(Matrix& dist);
/// Blocked FW (tile `block`) with the three phases; phases 2 and 3 are `omp parallel for` over
/// tile rows; tile updates are plain scalar loops. Works on the dist.stride() square (a multiple
/// of block).
void baseline_blocked_omp_rows(Matrix& dist, int block, int threads);

}  // namespace apsp::detail::cpu
