// src/cuda/batch_small.cuh — the GPU batch engine for small graphs (issue 35; NOT wired into
// apsp::solve_batch yet, and never run: written and compile-checked on a machine without a GPU).
//
// One thread block per graph closes it in shared memory: the block builds the graph's n x n
// matrix there (0 diagonal, unreachable elsewhere, the lightest arc per pair by a shared-memory
// atomic min), runs the n k-steps of plain Floyd-Warshall with a barrier between steps (row and
// column k do not change in step k, weights being >= 0), and writes the n x n result to its place
// in the flat output (BatchResult's layout). Plain FW is what the cpu backend's pivot closure
// runs up to 64 vertices, so float results are those of solve() there; integer results are exact
// at any size. Graphs above the cap (64 vertices for floats, 128 for integers) and graphs with
// negative weights stay with the cpu engine. Next hops are not kept on the device yet.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "apsp/batch.hpp"

namespace apsp::detail::cuda_batch {

/// Largest graph the kernel takes for element type T.
template <class T>
constexpr int small_cap() {
  return sizeof(T) == 4 && std::is_integral_v<T> ? 128 : 64;  // 64 KiB / 32 KiB of shared memory
}

/// Solves on GPU `device` every graph of p with 1..small_cap<T>() vertices and no negative
/// weight, writing graph b's n_b x n_b distances (row-major) to out + offsets[b] (host memory).
/// Returns the graphs it left for the cpu engine. Throws apsp::Error / ResourceError on CUDA
/// errors.
template <class T>
std::vector<std::int64_t> solve_small_graphs(const PackedGraphs& p,
                                             const std::vector<std::int64_t>& offsets, T* out,
                                             int device);

}  // namespace apsp::detail::cuda_batch
