// apsp/generate.hpp — deterministic random graph generators (fixed seed -> same graph).
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp {

/// Course-like uniform random directed graph: E distinct (src != dst) pairs, weights uniform in
/// [wmin, wmax]. Throws UsageError if E > V*(V-1).
Graph generate_uniform(std::int64_t V, std::int64_t E, std::int64_t wmin, std::int64_t wmax,
                       std::uint64_t seed);
/// R-MAT / Kronecker graph with 2^scale vertices and E edges (a,b,c = 0.57,0.19,0.19).
Graph generate_rmat(int scale, std::int64_t E, std::int64_t wmin, std::int64_t wmax,
                    std::uint64_t seed);
/// rows x cols 4-neighbour grid, both directions, random weights in [wmin, wmax].
Graph generate_grid(std::int64_t rows, std::int64_t cols, std::int64_t wmin, std::int64_t wmax,
                    std::uint64_t seed);
/// Random geometric graph: V points uniform in the unit square, each linked both ways to its k
/// nearest neighbours; weight = Euclidean length / mean spacing (1/sqrt(V)) * unit, rounded,
/// at least 1 (road-network-like). Throws UsageError for k outside 1..64.
Graph generate_geometric(std::int64_t V, int k, double unit, std::uint64_t seed);
/// Planar triangle mesh: a rows x cols lattice with points jittered by up to 0.3 spacing, each
/// cell cut by its shorter diagonal (Delaunay-like); links both ways, weight = length * unit.
Graph generate_mesh(std::int64_t rows, std::int64_t cols, double unit, std::uint64_t seed);

}  // namespace apsp
