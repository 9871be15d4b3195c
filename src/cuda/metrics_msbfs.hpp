// src/cuda/metrics_msbfs.hpp — the bfs metrics engine on one GPU (issue 34): bit-parallel
// multi-source BFS from every vertex, 1,024 sources a batch (kernels/metrics_msbfs.cuh), giving
// per-target sums over all sources. NOT wired into apsp::compute_metrics yet (that needs an entry
// in the cuda plugin's table, src/plugin/plugin_abi.hpp), and not yet run on a GPU: written and
// compile-checked on a machine without one; tests/test_metrics_gpu.cpp checks it against the CPU
// engine where a GPU exists. Plain C++ header (no CUDA), for the tests and the plugin.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "metrics/gpu_engine.hpp"

namespace apsp::detail::cuda_metrics {

/// The per-target sums (metrics/gpu_engine.hpp).
using TargetSums = MsbfsSums;

/// The sums of the BFS from every vertex of an n-vertex graph given by its in-arcs (v's are
/// in_adj[in_start[v] .. in_start[v + 1]), the vertices with an arc into v), on GPU `device`.
/// For an undirected graph in-arcs = out-arcs and the sums are per source too; for a directed one,
/// the same call with the out-arcs gives per-source sums (d(v, s): searches along reversed arcs).
/// `progress(done, n)` after each batch; what it throws stops the run. Device memory:
/// 3 x 128 bytes + 30 bytes a vertex, 4 bytes an arc. Throws apsp::Error on CUDA errors.
TargetSums msbfs_target_sums(std::int64_t n, const std::vector<std::int64_t>& in_start,
                             const std::vector<std::int32_t>& in_adj, int device,
                             const std::function<void(std::int64_t, std::int64_t)>& progress = {});

}  // namespace apsp::detail::cuda_metrics
