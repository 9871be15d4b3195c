// apsp/graph.hpp — an edge-list graph as read from a file or built in memory.
//
// Vertices are 0..num_vertices-1. Weights are held as double, which is exact for every integer
// of magnitude below 2^53 (far beyond the int32/int64 distance bounds we accept).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace apsp {

struct Graph {
  std::int64_t num_vertices = 0;
  /// false: every edge (u, v, w) also stands for (v, u, w).
  bool directed = true;
  /// true when every weight is an integer (then integer dtypes are exact).
  bool integer_weights = true;
  std::vector<std::int32_t> src, dst;
  std::vector<double> weight;

  std::size_t num_edges() const { return src.size(); }
  void reserve(std::size_t e);
  void add_edge(std::int32_t u, std::int32_t v, double w);

  /// Throws InputError/UsageError for V <= 0, V > kMaxVertices, ids out of range, NaN weights.
  void validate() const;
  /// Largest |w| over all edges (0 for none).
  double max_abs_weight() const;
  /// Smallest weight over all edges (0 for none).
  double min_weight() const;
};

/// Largest vertex count accepted (int32 vertex ids; the V*V matrix limits far earlier).
inline constexpr std::int64_t kMaxVertices = (std::int64_t{1} << 31) - 1;

}  // namespace apsp
