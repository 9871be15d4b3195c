// apsp/graph.hpp — a graph as read from a file or built in memory: an edge list, or a view of a
// caller's dense V x V adjacency matrix.
//
// Vertices are 0..num_vertices-1; weights are doubles (exact for integers below 2^53). A dense
// graph (Graph::from_dense) reads the caller's matrix in place, as SciPy's csgraph does: (i, j) is
// an edge unless the entry is 0 or +inf. It is copied into an edge list only where edges are
// needed (see edges_from_dense); the answers are the same either way.
// Formats: docs/io.md; layers: docs/architecture.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "apsp/types.hpp"

namespace apsp {

/// A non-owning view of a dense V x V adjacency matrix. Entry (i, j) lies at
/// `data + i*row_stride + j*col_stride` bytes (strides of any sign; elements need no alignment),
/// so a transposed or otherwise strided NumPy array is viewed as it is. 0 and +inf mean "no
/// edge"; NaN and -inf are errors (Graph::validate names the entry).
struct DenseAdjacency {
  const void* data = nullptr;
  Dtype kind = Dtype::Float64;                  ///< element type of the entries
  std::int64_t row_stride = 0, col_stride = 0;  ///< bytes from (i, j) to (i+1, j) / (i, j+1)
  bool unweighted = false;  ///< every edge weighs 1 (the entry only says "edge")

  /// Storage order: the matrix is read as lines (rows when the row stride is the larger, as in C
  /// order; else columns), each line entry by entry, so that a line-by-line walk reads memory in
  /// order. Entry k of line o is at data + o * line_stride() + k * entry_stride().
  bool rows_are_lines() const { return std::llabs(row_stride) >= std::llabs(col_stride); }
  std::int64_t line_stride() const { return rows_are_lines() ? row_stride : col_stride; }
  std::int64_t entry_stride() const { return rows_are_lines() ? col_stride : row_stride; }
};

struct Graph {
  std::int64_t num_vertices = 0;
  /// false: every edge (u, v, w) also stands for (v, u, w).
  bool directed = true;
  /// true when every weight is an integer (then integer dtypes are exact). For a dense graph
  /// solve() and choose_dtype() go by their own scan of the matrix (validated_weight_range), so a
  /// dense Graph made without from_dense's scan may leave this true.
  bool integer_weights = true;
  /// The edge list (empty for a dense graph).
  std::vector<std::int32_t> src, dst;
  std::vector<double> weight;
  /// Set (data != nullptr) for a dense graph: the edges are the matrix's entries. The matrix is
  /// not owned; whoever builds the Graph keeps it alive and unchanged for the Graph's lifetime.
  DenseAdjacency dense;
  /// Vertex names of an edge list read with names (ReadOptions::names): labels[k] is vertex k's.
  /// Empty otherwise.
  std::vector<std::string> labels;

  bool is_dense() const { return dense.data != nullptr; }
  /// Number of edges; for a dense graph the entries that are edges (a parallel scan, O(V^2)).
  std::size_t num_edges() const { return is_dense() ? count_dense_edges() : src.size(); }
  void reserve(std::size_t e);
  void add_edge(std::int32_t u, std::int32_t v, double w);

  /// A dense graph on the n x n matrix `a` (not copied: it must outlive the Graph). Scans it once
  /// (in parallel): throws UsageError naming the first NaN or -inf entry ("graph[i, j] is NaN"),
  /// and sets integer_weights.
  static Graph from_dense(std::int64_t n, const DenseAdjacency& a, bool directed = true);
  /// The edge list of a dense graph (a copy: 16 bytes per edge), edges in row-major order of the
  /// view, same directed / integer_weights; an edge-list graph is returned as it is (copied).
  /// solve() builds the CPU backend's matrix straight from the view and makes this copy (saying
  /// so in Result::notes) only where edges are needed: negative weights (Johnson reweighting) and
  /// the mpi backend, which builds its ranks' tiles from edges. cuda and multi-gpu upload the
  /// view's rows themselves; next hops read the view's arcs in place.
  Graph edges_from_dense() const;

  /// Throws InputError/UsageError for V <= 0, V > kMaxVertices, ids out of range, NaN weights
  /// (for a dense graph: a missing matrix, a NaN or -inf entry).
  void validate() const;
  /// Largest |w| over all edges (0 for none).
  double max_abs_weight() const;
  /// Smallest weight over all edges (0 for none).
  double min_weight() const;
  struct WeightRange {
    double min_weight = 0, max_abs_weight = 0;
    bool integer_weights = true;  ///< a dense graph: from the scan; an edge list: integer_weights
  };
  /// validate(), then min_weight(), max_abs_weight() and integer-ness, in one pass over the edges
  /// (for a dense graph one parallel scan of the matrix instead of three): what solve() asks first.
  WeightRange validated_weight_range() const;

 private:
  std::size_t count_dense_edges() const;
};

/// Largest vertex count accepted (int32 vertex ids; the V*V matrix limits far earlier).
inline constexpr std::int64_t kMaxVertices = (std::int64_t{1} << 31) - 1;

}  // namespace apsp
