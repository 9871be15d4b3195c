// src/core/graph.cpp — Graph helpers and validation, for edge lists and dense views.
//
// A dense graph is never copied here except by edges_from_dense(); its questions (validate,
// weight range, edge count) are answered by one parallel scan of the matrix each, walking memory
// in storage order whatever the view's strides (a transposed view costs the same).
#include "apsp/graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

namespace apsp {

namespace {

/// What one pass over a dense matrix learns.
struct DenseScan {
  std::size_t edges = 0;
  double min_weight = 0, max_abs_weight = 0;  // over edges; 0 for none, as for edge lists
  bool integer_weights = true;
  std::int64_t bad = -1;  // i * n + j of the first (row-major) NaN or -inf entry; -1 if none
};

template <class S>
DenseScan scan_dense(const Graph& g) {
  const DenseAdjacency& a = g.dense;
  const std::int64_t n = g.num_vertices;
  // Line by line (DenseAdjacency::rows_are_lines), so the inner loop walks memory in order.
  const bool rows_outer = a.rows_are_lines();
  const std::int64_t outer = a.line_stride(), inner = a.entry_stride();
  const char* base = static_cast<const char*>(a.data);
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::size_t edges = 0;
  double lo = 0, hi = 0;
  bool integer = true;
  std::int64_t bad = kNone;
#pragma omp parallel for schedule(static) reduction(+ : edges) reduction(min : lo, bad) \
    reduction(max : hi) reduction(&& : integer) if (n * n > (1 << 18))
  for (std::int64_t o = 0; o < n; ++o) {
    const char* line = base + o * outer;
    for (std::int64_t k = 0; k < n; ++k) {
      S x;
      std::memcpy(&x, line + k * inner, sizeof x);
      if (detail::dense_is_edge(x)) {
        const double w = detail::dense_weight(a, x);
        ++edges;
        lo = std::min(lo, w);
        hi = std::max(hi, std::fabs(w));
        if constexpr (std::is_floating_point_v<S>)
          integer = integer && detail::is_integral_value(w);
      } else if constexpr (std::is_floating_point_v<S>) {
        if (std::isnan(x) || x < S(0)) bad = std::min(bad, rows_outer ? o * n + k : k * n + o);
      }
    }
  }
  DenseScan s;
  s.edges = edges;
  s.min_weight = lo;
  s.max_abs_weight = hi;
  s.integer_weights = integer;
  s.bad = bad == kNone ? -1 : bad;
  return s;
}

DenseScan scan_dense(const Graph& g) {
  return visit_dtype(g.dense.kind, [&](auto tag) { return scan_dense<decltype(tag)>(g); });
}

void check_vertex_count(std::int64_t n) {
  if (n <= 0) throw UsageError("graph has " + std::to_string(n) + " vertices (need at least 1)");
  if (n > kMaxVertices)
    throw UsageError("graph has " + std::to_string(n) + " vertices (at most " +
                     std::to_string(kMaxVertices) + " supported)");
}

/// Throws for the NaN / -inf entry a scan found (named in the view's own (row, column) order).
void check_scan(const Graph& g, const DenseScan& s) {
  if (s.bad < 0) return;
  const std::int64_t n = g.num_vertices, i = s.bad / n, j = s.bad % n;
  const bool nan = visit_dtype(g.dense.kind, [&](auto tag) {
    using S = decltype(tag);
    return std::isnan(double(detail::dense_entry<S>(g.dense, i, j)));
  });
  const std::string where = "graph[" + std::to_string(i) + ", " + std::to_string(j) + "]";
  throw UsageError(where + (nan ? " is NaN (use 0 or inf for 'no edge')" : " is -inf"));
}

}  // namespace

void Graph::reserve(std::size_t e) {
  src.reserve(e);
  dst.reserve(e);
  weight.reserve(e);
}

void Graph::add_edge(std::int32_t u, std::int32_t v, double w) {
  src.push_back(u);
  dst.push_back(v);
  weight.push_back(w);
  if (integer_weights && w != std::floor(w)) integer_weights = false;
}

Graph Graph::from_dense(std::int64_t n, const DenseAdjacency& a, bool directed) {
  check_vertex_count(n);
  if (!a.data) throw UsageError("dense graph without a matrix");
  Graph g;
  g.num_vertices = n;
  g.directed = directed;
  g.dense = a;
  const DenseScan s = scan_dense(g);
  check_scan(g, s);
  g.integer_weights = s.integer_weights;
  return g;
}

Graph Graph::edges_from_dense() const {
  if (!is_dense()) return *this;
  Graph out;
  out.num_vertices = num_vertices;
  out.directed = directed;
  out.integer_weights = integer_weights;
  const std::int64_t n = num_vertices;
  const bool parallel = n * n > (1 << 18);
  visit_dtype(dense.kind, [&](auto tag) {
    using S = decltype(tag);
    // Count per row, then each row fills its own slice: row-major order, in parallel.
    std::vector<std::int64_t> start(std::size_t(n) + 1, 0);
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t c = 0;
      for (std::int64_t j = 0; j < n; ++j)
        c += detail::dense_is_edge(detail::dense_entry<S>(dense, i, j));
      start[std::size_t(i) + 1] = c;
    }
    for (std::int64_t i = 0; i < n; ++i) start[std::size_t(i) + 1] += start[std::size_t(i)];
    const auto E = std::size_t(start[std::size_t(n)]);
    out.src.resize(E);
    out.dst.resize(E);
    out.weight.resize(E);
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = 0; i < n; ++i) {
      auto e = std::size_t(start[std::size_t(i)]);
      for (std::int64_t j = 0; j < n; ++j) {
        const S x = detail::dense_entry<S>(dense, i, j);
        if (!detail::dense_is_edge(x)) continue;
        out.src[e] = std::int32_t(i);
        out.dst[e] = std::int32_t(j);
        out.weight[e++] = detail::dense_weight(dense, x);
      }
    }
  });
  return out;
}

std::size_t Graph::count_dense_edges() const { return scan_dense(*this).edges; }

namespace {
/// One parallel pass over an edge list: the first edge with a vertex out of range or a
/// non-finite weight (E if none), the smallest weight and the largest |w| (both 0 for none).
struct EdgeScan {
  std::int64_t first_bad;
  double min_weight, max_abs_weight;
};
EdgeScan scan_edges(const Graph& g) {
  const std::int64_t E = std::int64_t(std::min({g.src.size(), g.dst.size(), g.weight.size()}));
  const std::int64_t n = g.num_vertices;
  std::int64_t first_bad = E;
  double mn = 0, mx = 0;
  // clang-format would split the reduction clauses at their colons.
  // clang-format off
#pragma omp parallel for schedule(static) reduction(min : first_bad, mn) reduction(max : mx) \
    if (E >= (1 << 16))
  // clang-format on
  for (std::int64_t e = 0; e < E; ++e) {
    const std::int32_t u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
    const double w = g.weight[std::size_t(e)];
    if ((u < 0 || u >= n || v < 0 || v >= n || !std::isfinite(w)) && e < first_bad) first_bad = e;
    mn = std::min(mn, w);
    mx = std::max(mx, std::fabs(w));
  }
  return {first_bad, mn, mx};
}
}  // namespace

void Graph::validate() const {
  check_vertex_count(num_vertices);
  if (is_dense()) {
    (void)validated_weight_range();
    return;
  }
  if (src.size() != dst.size() || src.size() != weight.size())
    throw UsageError("graph edge arrays differ in length");
  const std::int64_t bad = scan_edges(*this).first_bad;
  if (bad == std::int64_t(src.size())) return;
  const std::size_t e = std::size_t(bad);
  if (src[e] < 0 || src[e] >= num_vertices || dst[e] < 0 || dst[e] >= num_vertices)
    throw UsageError("edge " + std::to_string(e) + " (" + std::to_string(src[e]) + " -> " +
                     std::to_string(dst[e]) + ") has a vertex outside 0.." +
                     std::to_string(num_vertices - 1));
  throw UsageError("edge " + std::to_string(e) + " has a non-finite weight");
}

Graph::WeightRange Graph::validated_weight_range() const {
  if (!is_dense()) {
    check_vertex_count(num_vertices);
    if (src.size() != dst.size() || src.size() != weight.size())
      throw UsageError("graph edge arrays differ in length");
    const EdgeScan s = scan_edges(*this);
    if (s.first_bad != std::int64_t(src.size())) validate();  // throws, naming the edge
    return {s.min_weight, s.max_abs_weight, integer_weights};
  }
  check_vertex_count(num_vertices);
  if (!src.empty() || !dst.empty() || !weight.empty())
    throw UsageError("a graph is either dense or an edge list, not both");
  const DenseScan s = scan_dense(*this);
  check_scan(*this, s);
  return {s.min_weight, s.max_abs_weight, s.integer_weights};
}

double Graph::max_abs_weight() const {
  if (is_dense()) return scan_dense(*this).max_abs_weight;
  return scan_edges(*this).max_abs_weight;
}

double Graph::min_weight() const {
  if (is_dense()) return scan_dense(*this).min_weight;
  return scan_edges(*this).min_weight;
}

}  // namespace apsp
