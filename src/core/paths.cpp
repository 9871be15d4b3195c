// src/core/paths.cpp — walking next-hop and predecessor matrices; SciPy-style predecessors.
//
// Every hop a backend returns is tight, d(i,j) = w(i,a) + d(a,j) for a = next[i][j] (the tie rules
// are in docs/paths.md). With positive weights each hop lowers d(.,j), so every walk ends at j.
// With zero-weight cycles it need not: two vertices of such a cycle can point at each other
// toward some j (docs/paths.md has a 6-vertex example from the blocked order, and the edges rule
// does it far more often). repair_next_hops() (paths_repair.cpp), which solve() runs whenever
// paths are kept, re-points those. The walks below still guard against cycles and report them
// instead of looping.
#include "apsp/paths.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"

namespace apsp {

namespace {

void check_square_int32(const Matrix& m, const char* what) {
  if (m.empty() || m.dtype() != Dtype::Int32)
    throw UsageError(std::string("no ") + what + " matrix (solve with paths enabled)");
  if (m.rows() != m.cols())
    throw UsageError(std::string(what) + " matrix is not square (" + std::to_string(m.rows()) +
                     " x " + std::to_string(m.cols()) + ")");
}

void check_ids(std::int64_t n, std::int64_t i, std::int64_t j) {
  if (i < 0 || i >= n || j < 0 || j >= n)
    throw UsageError("vertex out of range: " + std::to_string(i) + " -> " + std::to_string(j) +
                     " (V = " + std::to_string(n) +
                     (n > 0 ? "; vertex ids are 0-based: 0.." + std::to_string(n - 1) +
                                  ", DIMACS and Matrix Market ids on disk minus 1)"
                            : ")"));
}

}  // namespace

std::vector<std::int64_t> path_from_next(const Matrix& next, std::int64_t i, std::int64_t j) {
  check_square_int32(next, "next-hop");
  const std::int64_t n = next.rows();
  check_ids(n, i, j);
  std::vector<std::int64_t> p{i};
  if (i == j) return p;
  std::int64_t v = i;
  while (v != j) {
    const std::int32_t nx = next.at<std::int32_t>(v, j);
    if (nx < 0) {
      if (v == i) return {};  // unreachable
      throw Error("next-hop matrix is inconsistent: the path " + std::to_string(i) + " -> " +
                  std::to_string(j) + " stops at " + std::to_string(v));
    }
    if (nx >= n || std::int64_t(p.size()) >= n)
      throw Error("next-hop matrix is inconsistent: the path " + std::to_string(i) + " -> " +
                  std::to_string(j) + (nx >= n ? " leaves the vertex range" : " has a cycle"));
    v = nx;
    p.push_back(v);
  }
  return p;
}

std::vector<std::int64_t> path(const Result& r, std::int64_t i, std::int64_t j) {
  return path_from_next(r.next, i, j);
}

Graph reversed(const Graph& g) {
  Graph r = g;
  if (g.directed) std::swap(r.src, r.dst);
  return r;
}

Matrix predecessors_from_reversed_next(const Matrix& next_rev) {
  check_square_int32(next_rev, "next-hop");
  const std::int64_t n = next_rev.rows();
  Matrix pred(n, n, Dtype::Int32);
  // Blocked transpose: both matrices are walked in 64 x 64 tiles so neither strides through memory.
  constexpr std::int64_t kTile = 64;
#pragma omp parallel for collapse(2) schedule(static) if (n >= 512)
  for (std::int64_t I = 0; I < n; I += kTile)
    for (std::int64_t J = 0; J < n; J += kTile)
      for (std::int64_t i = I; i < std::min(n, I + kTile); ++i) {
        std::int32_t* out = pred.row<std::int32_t>(i);
        for (std::int64_t j = J; j < std::min(n, J + kTile); ++j) {
          const std::int32_t v = next_rev.at<std::int32_t>(j, i);
          out[j] = v < 0 ? kNoPredecessor : v;
        }
      }
  return pred;
}

std::vector<std::int64_t> path_from_predecessors(const Matrix& pred, std::int64_t i,
                                                 std::int64_t j) {
  check_square_int32(pred, "predecessor");
  const std::int64_t n = pred.rows();
  check_ids(n, i, j);
  if (i == j) return {i};
  std::vector<std::int64_t> p{j};
  std::int64_t v = j;
  while (v != i) {
    const std::int32_t pv = pred.at<std::int32_t>(i, v);
    if (pv < 0) {
      if (v == j) return {};  // unreachable
      throw Error("predecessor matrix is inconsistent: the path " + std::to_string(i) + " -> " +
                  std::to_string(j) + " stops at " + std::to_string(v));
    }
    if (pv >= n || std::int64_t(p.size()) >= n)
      throw Error("predecessor matrix is inconsistent: the path " + std::to_string(i) + " -> " +
                  std::to_string(j) + (pv >= n ? " leaves the vertex range" : " has a cycle"));
    v = pv;
    p.push_back(v);
  }
  std::reverse(p.begin(), p.end());
  return p;
}

}  // namespace apsp
