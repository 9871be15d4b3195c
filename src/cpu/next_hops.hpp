// src/cpu/next_hops.hpp — how the CPU backend keeps next hops (internal).
//
// Two methods: tracked (next hops inside the blocked FW kernels, about 2.3x the distances-only
// time at V = 4096) and edges (distances only, then one pass over the out-edges, the CUDA
// backend's rule). The backend picks one per solve by a cost model (choose_next_method), or as
// APSP_CPU_NEXT / force_next_method() says. Both, and their tie rules: docs/cpu.md, docs/paths.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "cpu/kernels.hpp"

namespace apsp::detail::cpu {

enum class NextMethod { Edges, Tracked };
const char* next_method_name(NextMethod m);

/// Tests and benchmarks: force a method (nullopt = back to automatic). Wins over APSP_CPU_NEXT.
void force_next_method(std::optional<NextMethod> m);
/// The forced method, else APSP_CPU_NEXT=edges|tracked (UsageError for anything else), else
/// nullopt: the cost model decides.
std::optional<NextMethod> requested_next_method();

/// What the cost model saw and decided (seconds are single-thread estimates).
struct NextChoice {
  NextMethod method = NextMethod::Edges;
  double edges_s = 0, tracked_s = 0;  ///< estimated extra time over the distances-only solve
  double scanned_arcs = 0;            ///< estimated arcs the edges pass scans per row chunk, in all
  int sampled_rows = 0;               ///< rows the estimate sampled (0: the edge count decided)
  std::string why;                    ///< "forced", "APSP_CPU_NEXT", "model"
};

/// Picks the method for graph g whose weight matrix (before the solve: 0 diagonal, min weight
/// per edge, unreachable elsewhere, padded) is `weights`. Honours requested_next_method().
NextChoice choose_next_method(const Graph& g, const Matrix& weights, Isa isa);

/// What the edges pass did (for APSP_CPU_NEXT_TRACE and the benchmarks).
struct NextPassStats {
  double lists_s = 0, pass_s = 0;  ///< building the arc lists; the kernel pass
  std::int64_t arcs = 0;           ///< arcs in the lists (exact types: the tight ones)
};

/// The edges method's pass: fills `next` (int32, stride >= dist's, all dist.stride() rows) from
/// the closed distances `dist` of g (the graph the kernels saw: non-negative weights; integer
/// weights rounded as build_matrix rounds them). OpenMP over column strips x row blocks.
NextPassStats next_hops_from_edges(const Graph& g, const Matrix& dist, Matrix& next, int threads,
                                   Isa isa);

}  // namespace apsp::detail::cpu
