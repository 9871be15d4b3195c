// src/core/graph.cpp — Graph helpers and validation.
#include "apsp/graph.hpp"

#include <cmath>
#include <string>

#include "apsp/errors.hpp"

namespace apsp {

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

void Graph::validate() const {
  if (num_vertices <= 0)
    throw UsageError("graph has " + std::to_string(num_vertices) + " vertices (need at least 1)");
  if (num_vertices > kMaxVertices)
    throw UsageError("graph has " + std::to_string(num_vertices) + " vertices (at most " +
                     std::to_string(kMaxVertices) + " supported)");
  if (src.size() != dst.size() || src.size() != weight.size())
    throw UsageError("graph edge arrays differ in length");
  for (std::size_t e = 0; e < src.size(); ++e) {
    if (src[e] < 0 || src[e] >= num_vertices || dst[e] < 0 || dst[e] >= num_vertices)
      throw UsageError("edge " + std::to_string(e) + " (" + std::to_string(src[e]) + " -> " +
                       std::to_string(dst[e]) + ") has a vertex outside 0.." +
                       std::to_string(num_vertices - 1));
    if (!std::isfinite(weight[e]))
      throw UsageError("edge " + std::to_string(e) + " has a non-finite weight");
  }
}

double Graph::max_abs_weight() const {
  double m = 0;
  for (double w : weight) m = std::max(m, std::fabs(w));
  return m;
}

double Graph::min_weight() const {
  double m = 0;
  for (double w : weight) m = std::min(m, w);
  return m;
}

}  // namespace apsp
