// src/core/reference.hpp — plain, obviously-correct solvers for tests and --verify (internal).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::detail {

/// n x n (stride n) matrix of `t` with 0 diagonal, unreachable elsewhere, min weight per edge.
/// Self loops with w >= 0 are ignored; a negative self loop is kept (FW then sees it).
Matrix build_matrix(const Graph& g, Dtype t, std::int64_t stride, std::int64_t alloc_rows,
                    Memory memory = Memory::Host);
/// next[i][j] = j for every edge i -> j (i != j) that is the minimum in `dist`, -1 otherwise.
Matrix build_next(const Matrix& dist);

/// Triple-loop Floyd-Warshall in place on dist (any dtype), with optional next-hop.
void reference_floyd_warshall(Matrix& dist, Matrix* next = nullptr);
/// Dijkstra from `source` (non-negative weights). Distances as double, +inf = unreachable.
std::vector<double> reference_dijkstra(const Graph& g, std::int64_t source);
/// Bellman-Ford from `source`; returns false if a negative cycle is reachable from it.
bool reference_bellman_ford(const Graph& g, std::int64_t source, std::vector<double>& dist);

/// Compares solver output to the reference (full FW for V <= full_limit, else Dijkstra /
/// Bellman-Ford from `samples` seeded sources). Returns "" on agreement, else a short report.
std::string verify(const Graph& g, const Matrix& dist, std::int64_t full_limit = 2048, int samples = 16,
                   std::uint64_t seed = 1);

}  // namespace apsp::detail
