// src/order/ordering.cpp — METIS nested dissection, graph relabelling, result unpermutation.
#include "order/ordering.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

#ifdef APSP_HAVE_METIS
#include <metis.h>
#endif

namespace apsp::detail {

void symmetric_adjacency(const Graph& g, std::vector<std::int32_t>& xadj,
                         std::vector<std::int32_t>& adj) {
  const std::int64_t n = g.num_vertices;
  std::vector<std::int64_t> deg(std::size_t(n) + 1, 0);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    ++deg[std::size_t(u) + 1];
    ++deg[std::size_t(v) + 1];
  });
  for (std::int64_t i = 0; i < n; ++i) deg[std::size_t(i) + 1] += deg[std::size_t(i)];
  adj.assign(std::size_t(deg[std::size_t(n)]), 0);
  std::vector<std::int64_t> fill(deg.begin(), deg.end() - 1);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    adj[std::size_t(fill[std::size_t(u)]++)] = std::int32_t(v);
    adj[std::size_t(fill[std::size_t(v)]++)] = std::int32_t(u);
  });
  xadj.assign(std::size_t(n) + 1, 0);
  std::size_t out = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    auto b = adj.begin() + deg[std::size_t(i)], e = adj.begin() + deg[std::size_t(i) + 1];
    std::sort(b, e);
    const auto last = std::unique(b, e);
    for (auto it = b; it != last; ++it) adj[out++] = *it;
    xadj[std::size_t(i) + 1] = std::int32_t(out);
  }
  adj.resize(out);
}

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

#ifdef APSP_HAVE_METIS
static_assert(std::is_same_v<idx_t, std::int32_t>, "METIS built with 64-bit indices");

/// Recursive dissection over the symmetric CSR (xadj, adj) of the whole graph.
class Dissector {
 public:
  Dissector(const std::vector<idx_t>& xadj, const std::vector<idx_t>& adj, std::int64_t leaf,
            std::int64_t align)
      : xadj_(xadj), adj_(adj), local_(xadj.size() - 1, -1), leaf_(leaf), align_(align) {}

  /// Dissects verts (appending them to the order) and returns the separator-tree nodes at the
  /// top of what it appended (several where a subgraph without arcs is cut into leaves).
  std::vector<std::int32_t> run(const std::vector<std::int32_t>& verts) {
    if (std::int64_t(verts.size()) <= leaf_) return {append(verts)};
    // The subgraph induced by verts, in local numbering.
    for (std::size_t i = 0; i < verts.size(); ++i) local_[std::size_t(verts[i])] = idx_t(i);
    std::vector<idx_t> sx(verts.size() + 1, 0), sa;
    for (std::size_t i = 0; i < verts.size(); ++i) {
      const std::int32_t v = verts[i];
      for (idx_t e = xadj_[std::size_t(v)]; e < xadj_[std::size_t(v) + 1]; ++e)
        if (local_[std::size_t(adj_[std::size_t(e)])] >= 0)
          sa.push_back(local_[std::size_t(adj_[std::size_t(e)])]);
      sx[i + 1] = idx_t(sa.size());
    }
    for (const std::int32_t v : verts) local_[std::size_t(v)] = -1;
    if (sa.empty()) return append_leaves(verts);
    idx_t nv = idx_t(verts.size()), sepsize = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same order every run
    std::vector<idx_t> part(verts.size());
    const int rc = METIS_ComputeVertexSeparator(&nv, sx.data(), sa.data(), nullptr, options,
                                                &sepsize, part.data());
    if (rc != METIS_OK) {
      const std::string why =
          rc == METIS_ERROR_MEMORY ? "out of memory" : "error " + std::to_string(rc);
      throw ResourceError("METIS_ComputeVertexSeparator failed (" + why + ")");
    }
    std::vector<std::int32_t> side[3];
    for (std::size_t i = 0; i < verts.size(); ++i)
      side[std::min<idx_t>(part[i], 2)].push_back(verts[i]);
    if (side[0].empty() || side[1].empty()) return {append(verts)};  // no split: keep it whole
    std::vector<std::int32_t> kids = run(side[0]);
    pad();
    const std::vector<std::int32_t> right = run(side[1]);
    kids.insert(kids.end(), right.begin(), right.end());
    const std::int32_t sep = append(side[2]);
    for (const std::int32_t k : kids) parent_[std::size_t(k)] = sep;
    return {sep};
  }

  /// Pads to a multiple of align and makes that position a tile bound.
  void pad() {
    while (std::int64_t(order_.size()) % align_) order_.push_back(-1);
    if (cuts_.back() != std::int64_t(order_.size())) cuts_.push_back(std::int64_t(order_.size()));
  }
  std::vector<std::int32_t> order_;
  std::vector<std::int64_t> cuts_{0};
  /// The separator tree: node k holds order_[first_[k] .. first_[k + 1]) (first_ gets its last
  /// bound from the caller), parent_[k] = -1 for a root. Nodes are in post-order.
  std::vector<std::int64_t> first_;
  std::vector<std::int32_t> parent_;

 private:
  /// Appends v as one tree node; returns its id.
  std::int32_t append(const std::vector<std::int32_t>& v) {
    first_.push_back(std::int64_t(order_.size()));
    parent_.push_back(-1);
    order_.insert(order_.end(), v.begin(), v.end());
    return std::int32_t(parent_.size() - 1);
  }
  /// Vertices without arcs among them: leaves of at most leaf_ vertices, siblings.
  std::vector<std::int32_t> append_leaves(const std::vector<std::int32_t>& v) {
    std::vector<std::int32_t> ids;
    for (std::size_t b = 0; b < v.size(); b += std::size_t(leaf_)) {
      const std::size_t e = std::min(v.size(), b + std::size_t(leaf_));
      ids.push_back(append(
          std::vector<std::int32_t>(v.begin() + std::ptrdiff_t(b), v.begin() + std::ptrdiff_t(e))));
    }
    return ids;
  }
  const std::vector<idx_t>& xadj_;
  const std::vector<idx_t>& adj_;
  std::vector<idx_t> local_;
  std::int64_t leaf_, align_;
};
#endif

}  // namespace

#ifdef APSP_HAVE_METIS
namespace {
Permutation permutation_of(std::vector<std::int32_t> old_of_new, std::int64_t n) {
  Permutation p;
  p.old_of_new = std::move(old_of_new);
  p.new_of_old.assign(std::size_t(n), -1);
  for (std::size_t i = 0; i < p.old_of_new.size(); ++i)
    if (p.old_of_new[i] >= 0) p.new_of_old[std::size_t(p.old_of_new[i])] = std::int32_t(i);
  return p;
}
}  // namespace
#endif

TiledOrder nested_dissection(const Graph& g, std::int64_t B, NdLayout layout) {
  const std::int64_t n = g.num_vertices;
  APSP_EXPECTS(layout.align > 0 && layout.leaf > 0 && B > 0 && B % layout.align == 0,
               "nested dissection: tile size not a multiple of the alignment");
#ifndef APSP_HAVE_METIS
  (void)n;
  (void)layout;
  throw UsageError("--order nd needs METIS: " + metis_missing_reason());
#else
  std::vector<idx_t> xadj, adj;
  symmetric_adjacency(g, xadj, adj);
  Dissector d(xadj, adj, layout.leaf, layout.align);
  std::vector<std::int32_t> all(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) all[std::size_t(v)] = std::int32_t(v);
  d.run(all);
  d.pad();
  TiledOrder t;
  t.perm = permutation_of(std::move(d.order_), n);
  // Tiles: each stretch between two cuts in pieces of at most B.
  for (std::size_t c = 0; c + 1 < d.cuts_.size(); ++c)
    for (std::int64_t b = d.cuts_[c]; b < d.cuts_[c + 1]; b += B) t.bounds.push_back(b);
  t.bounds.push_back(d.cuts_.back());
  return t;
#endif
}

SeparatorTree separator_tree(const Graph& g, std::int64_t leaf) {
  const std::int64_t n = g.num_vertices;
  APSP_EXPECTS(leaf > 0, "separator tree: leaf size must be positive");
#ifndef APSP_HAVE_METIS
  (void)n;
  throw UsageError("--order sn needs METIS: " + metis_missing_reason());
#else
  std::vector<idx_t> xadj, adj;
  symmetric_adjacency(g, xadj, adj);
  Dissector d(xadj, adj, leaf, 1);
  std::vector<std::int32_t> all(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) all[std::size_t(v)] = std::int32_t(v);
  d.run(all);
  SeparatorTree t;
  t.perm = permutation_of(std::move(d.order_), n);
  t.first = std::move(d.first_);
  t.first.push_back(n);
  t.parent = std::move(d.parent_);
  return t;
#endif
}

Graph relabel(const Graph& g, const Permutation& p) {
  APSP_EXPECTS(!g.is_dense(), "relabel: a dense graph view has no edge list");
  APSP_EXPECTS(std::int64_t(p.new_of_old.size()) == g.num_vertices,
               "relabel: permutation of the wrong size");
  Graph r;
  r.num_vertices = std::int64_t(p.old_of_new.size());
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

Matrix unpermuted(const Matrix& m, const Permutation& p, bool vertex_values, std::int64_t stride,
                  Memory memory) {
  const std::int64_t n = std::int64_t(p.new_of_old.size());
  if (m.empty()) return Matrix{};
  APSP_EXPECTS(m.rows() >= std::int64_t(p.old_of_new.size()),
               "unpermuted: matrix smaller than the order");
  Matrix out(n, n, stride, n, m.dtype(), memory);
  visit_dtype(m.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const bool rename = vertex_values && std::is_same_v<T, std::int32_t>;
    // Blocks of kRows rows share each chunk of column indices (read once per block, not per row)
    // while the gathers stay within the block's source rows (in L2).
    constexpr std::int64_t kRows = 8, kCols = 2048;
    const std::int32_t* col = p.new_of_old.data();
#pragma omp parallel for schedule(static) if (n >= 256)
    for (std::int64_t u0 = 0; u0 < n; u0 += kRows) {
      const std::int64_t rows = std::min(kRows, n - u0);
      const T* src[kRows];
      T* dst[kRows];
      for (std::int64_t r = 0; r < rows; ++r) {
        src[r] = m.row<T>(col[u0 + r]);
        dst[r] = out.row<T>(u0 + r);
      }
      for (std::int64_t v0 = 0; v0 < n; v0 += kCols) {
        const std::int64_t v1 = std::min(n, v0 + kCols);
        for (std::int64_t r = 0; r < rows; ++r) {
          const T* s = src[r];
          T* d = dst[r];
          for (std::int64_t v = v0; v < v1; ++v) d[v] = s[col[v]];
          if (rename)
            for (std::int64_t v = v0; v < v1; ++v)
              if (d[v] >= 0) d[v] = T(p.old_of_new[std::size_t(d[v])]);
        }
      }
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t v = n; v < stride; ++v)
          dst[r][v] = vertex_values ? T(-1) : unreachable<T>();
    }
  });
  return out;
}

}  // namespace apsp::detail
