// src/order/ordering.cpp — METIS nested dissection, graph relabelling, result unpermutation.
#include "order/ordering.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

#ifdef APSP_HAVE_METIS
#include <metis.h>
#endif

namespace apsp::detail {

bool metis_available() {
#ifdef APSP_HAVE_METIS
  return true;
#else
  return false;
#endif
}

std::string metis_missing_reason() {
  return metis_available() ? "" : "this build has no METIS (install libmetis-dev and reconfigure)";
}

namespace {

Permutation identity(std::int64_t n) {
  Permutation p;
  p.old_of_new.resize(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i) p.old_of_new[std::size_t(i)] = std::int32_t(i);
  p.new_of_old = p.old_of_new;
  return p;
}

}  // namespace

Permutation nested_dissection(const Graph& g) {
  const std::int64_t n = g.num_vertices;
#ifndef APSP_HAVE_METIS
  (void)n;
  throw UsageError("--order nd needs METIS: " + metis_missing_reason());
#else
  // The symmetric adjacency without self loops or repeats, in CSR (what METIS_NodeND reads).
  std::vector<std::int64_t> deg(std::size_t(n) + 1, 0);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) { ++deg[std::size_t(u) + 1]; ++deg[std::size_t(v) + 1]; });
  for (std::int64_t i = 0; i < n; ++i) deg[std::size_t(i) + 1] += deg[std::size_t(i)];
  std::vector<idx_t> adj(std::size_t(deg[std::size_t(n)]));
  std::vector<std::int64_t> fill(deg.begin(), deg.end() - 1);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    adj[std::size_t(fill[std::size_t(u)]++)] = idx_t(v);
    adj[std::size_t(fill[std::size_t(v)]++)] = idx_t(u);
  });
  std::vector<idx_t> xadj(std::size_t(n) + 1, 0);
  std::size_t out = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    auto b = adj.begin() + deg[std::size_t(i)], e = adj.begin() + deg[std::size_t(i) + 1];
    std::sort(b, e);
    const auto last = std::unique(b, e);
    for (auto it = b; it != last; ++it) adj[out++] = *it;
    xadj[std::size_t(i) + 1] = idx_t(out);
  }
  if (out == 0) return identity(n);  // no edges: every order is as good
  idx_t nv = idx_t(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same order every run
  std::vector<idx_t> perm(static_cast<std::size_t>(n)), iperm(static_cast<std::size_t>(n));
  const int rc = METIS_NodeND(&nv, xadj.data(), adj.data(), nullptr, options, perm.data(), iperm.data());
  if (rc != METIS_OK)
    throw ResourceError("METIS_NodeND failed (" + std::string(rc == METIS_ERROR_MEMORY ? "out of memory" : "error " + std::to_string(rc)) + ")");
  // METIS: row i of the permuted matrix is row perm[i] of the original.
  Permutation p;
  p.old_of_new.assign(perm.begin(), perm.end());
  p.new_of_old.assign(iperm.begin(), iperm.end());
  return p;
#endif
}

Graph relabel(const Graph& g, const Permutation& p) {
  APSP_EXPECTS(!g.is_dense(), "relabel: a dense graph view has no edge list");
  APSP_EXPECTS(std::int64_t(p.new_of_old.size()) == g.num_vertices, "relabel: permutation of the wrong size");
  Graph r;
  r.num_vertices = g.num_vertices;
  r.directed = g.directed;
  r.integer_weights = g.integer_weights;
  r.weight = g.weight;
  r.src.resize(g.src.size());
  r.dst.resize(g.dst.size());
  const std::int64_t E = std::int64_t(g.src.size());
#pragma omp parallel for schedule(static) if (E > 65536)
  for (std::int64_t e = 0; e < E; ++e) {
    r.src[std::size_t(e)] = p.new_of_old[std::size_t(g.src[std::size_t(e)])];
    r.dst[std::size_t(e)] = p.new_of_old[std::size_t(g.dst[std::size_t(e)])];
  }
  return r;
}

void unpermute(Matrix& m, const Permutation& p, bool vertex_values) {
  const std::int64_t n = std::int64_t(p.old_of_new.size());
  if (m.empty() || n <= 1) return;
  APSP_EXPECTS(m.rows() >= n && m.cols() >= n, "unpermute: matrix smaller than the permutation");
  const std::size_t es = dtype_size(m.dtype());
  auto* base = static_cast<unsigned char*>(m.raw());
  const std::int64_t ld = m.stride();
  // Columns, row by row: row r (new order) gets m[r][new(v)] at v.
  visit_dtype(m.dtype(), [&](auto tag) {
    using T = decltype(tag);
#pragma omp parallel if (n >= 256)
    {
      std::vector<T> tmp(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
      for (std::int64_t r = 0; r < n; ++r) {
        T* row = reinterpret_cast<T*>(base) + r * ld;
        for (std::int64_t v = 0; v < n; ++v) tmp[std::size_t(v)] = row[p.new_of_old[std::size_t(v)]];
        if constexpr (std::is_same_v<T, std::int32_t>) {
          if (vertex_values)
            for (std::int64_t v = 0; v < n; ++v)
              if (tmp[std::size_t(v)] >= 0) tmp[std::size_t(v)] = p.old_of_new[std::size_t(tmp[std::size_t(v)])];
        }
        std::memcpy(row, tmp.data(), std::size_t(n) * es);
      }
    }
  });
  // Rows: user row u is new row new(u). Follow the cycles of the permutation with one spare row.
  std::vector<unsigned char> spare(std::size_t(n) * es);
  std::vector<char> done(std::size_t(n), 0);
  auto row = [&](std::int64_t r) { return base + std::size_t(r * ld) * es; };
  for (std::int64_t start = 0; start < n; ++start) {
    if (done[std::size_t(start)]) continue;
    std::memcpy(spare.data(), row(start), spare.size());  // position start's old content: new row start
    std::int64_t u = start;
    for (;;) {  // position u receives new row new(u)
      done[std::size_t(u)] = 1;
      const std::int64_t from = p.new_of_old[std::size_t(u)];
      if (from == start) {
        std::memcpy(row(u), spare.data(), spare.size());
        break;
      }
      std::memcpy(row(u), row(from), spare.size());
      u = from;
    }
  }
}

}  // namespace apsp::detail
