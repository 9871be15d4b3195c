// src/core/paths.cpp — walking the next-hop matrix.
#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"

namespace apsp {

std::vector<std::int64_t> path_from_next(const Matrix& next, std::int64_t i, std::int64_t j) {
  const std::int64_t n = next.rows();
  if (next.empty() || next.dtype() != Dtype::Int32)
    throw UsageError("no next-hop matrix (solve with paths enabled)");
  if (i < 0 || i >= n || j < 0 || j >= n)
    throw UsageError("vertex out of range: " + std::to_string(i) + " -> " + std::to_string(j) + " (V = " +
                     std::to_string(n) + ")");
  std::vector<std::int64_t> p{i};
  if (i == j) return p;
  std::int64_t v = i;
  while (v != j) {
    const std::int32_t nx = next.at<std::int32_t>(v, j);
    if (nx < 0) return {};
    if (std::int64_t(p.size()) > n)
      throw Error("next-hop matrix has a cycle on the path " + std::to_string(i) + " -> " + std::to_string(j));
    v = nx;
    p.push_back(v);
  }
  return p;
}

std::vector<std::int64_t> path(const Result& r, std::int64_t i, std::int64_t j) { return path_from_next(r.next, i, j); }

}  // namespace apsp
