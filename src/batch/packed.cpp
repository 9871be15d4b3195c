// src/batch/packed.cpp — graphs packed in one set of arrays (PyG's edge_index + ptr): validation
// and the per-graph edge list with local vertex ids (apsp/batch.hpp).
#include <cmath>
#include <string>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"

namespace apsp {

namespace {

using i64 = std::int64_t;

void check_ptr(const i64* ptr, i64 count, const char* name) {
  if (!ptr) throw UsageError(std::string(name) + " is missing");
  if (ptr[0] != 0)
    throw UsageError(std::string(name) + "[0] must be 0, got " + std::to_string(ptr[0]));
  for (i64 b = 0; b < count; ++b)
    if (ptr[b + 1] < ptr[b])
      throw UsageError(std::string(name) + " decreases at " + std::to_string(b + 1) + ": " +
                       std::to_string(ptr[b]) + " then " + std::to_string(ptr[b + 1]));
}

void check_edge(const PackedGraphs& p, i64 b, i64 e) {
  const i64 lo = p.node_ptr[b], hi = p.node_ptr[b + 1], u = p.src[e], v = p.dst[e];
  if (u < lo || u >= hi || v < lo || v >= hi)
    throw UsageError("edge " + std::to_string(e) + " (" + std::to_string(u) + " -> " +
                     std::to_string(v) + ") is not within graph " + std::to_string(b) +
                     " (vertices " + std::to_string(lo) + ".." + std::to_string(hi - 1) + ")");
  if (p.weight && !std::isfinite(p.weight[e]))
    throw UsageError("edge " + std::to_string(e) + " has weight " + std::to_string(p.weight[e]) +
                     " (packed weights must be finite)");
}

}  // namespace

void validate_packed(const PackedGraphs& p) {
  if (p.num_graphs < 0) throw UsageError("a negative number of graphs");
  check_ptr(p.node_ptr, p.num_graphs, "node_ptr");
  check_ptr(p.edge_ptr, p.num_graphs, "edge_ptr");
  for (i64 b = 0; b < p.num_graphs; ++b) {
    if (p.node_ptr[b + 1] - p.node_ptr[b] > kMaxVertices)
      throw UsageError("graph " + std::to_string(b) + " has too many vertices");
    for (i64 e = p.edge_ptr[b]; e < p.edge_ptr[b + 1]; ++e) check_edge(p, b, e);
  }
}

Graph packed_graph(const PackedGraphs& p, std::int64_t b) {
  Graph g;
  g.num_vertices = p.node_ptr[b + 1] - p.node_ptr[b];
  g.directed = p.directed;
  const i64 base = p.node_ptr[b], e0 = p.edge_ptr[b], e1 = p.edge_ptr[b + 1];
  g.reserve(std::size_t(e1 - e0));
  for (i64 e = e0; e < e1; ++e)
    g.add_edge(std::int32_t(p.src[e] - base), std::int32_t(p.dst[e] - base),
               p.weight ? p.weight[e] : 1.0);
  return g;
}

BatchGraphs::BatchGraphs(const PackedGraphs& packed) : packed_(&packed) { validate_packed(packed); }

std::int64_t BatchGraphs::size() const {
  return packed_ ? packed_->num_graphs : std::int64_t(list_.size());
}

std::int64_t BatchGraphs::num_vertices(std::int64_t b) const {
  if (packed_) return packed_->node_ptr[b + 1] - packed_->node_ptr[b];
  return list_[std::size_t(b)]->num_vertices;
}

const Graph& BatchGraphs::get(std::int64_t b, Graph& scratch) const {
  if (!packed_) return *list_[std::size_t(b)];
  scratch = packed_graph(*packed_, b);
  return scratch;
}

}  // namespace apsp
