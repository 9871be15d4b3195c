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
/// Recursive dissection over the symmetric CSR (xadj, adj) of the whole graph.
class Dissector {
 public:
  Dissector(const std::vector<idx_t>& xadj, const std::vector<idx_t>& adj, std::int64_t leaf,
            std::int64_t align)
      : xadj_(xadj), adj_(adj), local_(xadj.size() - 1, -1), leaf_(leaf), align_(align) {}

  void run(const std::vector<std::int32_t>& verts) {
    if (std::int64_t(verts.size()) <= leaf_) return append(verts);
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
    if (sa.empty()) return append(verts);
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
    if (side[0].empty() || side[1].empty()) return append(verts);  // no split: keep it whole
    run(side[0]);
    pad();
    run(side[1]);
    append(side[2]);
  }

  /// Pads to a multiple of align and makes that position a tile bound.
  void pad() {
    while (std::int64_t(order_.size()) % align_) order_.push_back(-1);
    if (cuts_.back() != std::int64_t(order_.size())) cuts_.push_back(std::int64_t(order_.size()));
  }
  std::vector<std::int32_t> order_;
  std::vector<std::int64_t> cuts_{0};

 private:
  void append(const std::vector<std::int32_t>& v) {
    order_.insert(order_.end(), v.begin(), v.end());
  }
  const std::vector<idx_t>& xadj_;
  const std::vector<idx_t>& adj_;
  std::vector<idx_t> local_;
  std::int64_t leaf_, align_;
};
#endif

}  // namespace

TiledOrder nested_dissection(const Graph& g, std::int64_t B, NdLayout layout) {
  const std::int64_t n = g.num_vertices;
  APSP_EXPECTS(layout.align > 0 && layout.leaf > 0 && B > 0 && B % layout.align == 0,
               "nested dissection: tile size not a multiple of the alignment");
#ifndef APSP_HAVE_METIS
  (void)n;
  (void)layout;
  throw UsageError("--order nd needs METIS: " + metis_missing_reason());
#else
  // The symmetric adjacency without self loops or repeats, in CSR.
  std::vector<std::int64_t> deg(std::size_t(n) + 1, 0);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    ++deg[std::size_t(u) + 1];
    ++deg[std::size_t(v) + 1];
  });
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
  adj.resize(out);
  Dissector d(xadj, adj, layout.leaf, layout.align);
  std::vector<std::int32_t> all(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) all[std::size_t(v)] = std::int32_t(v);
  d.run(all);
  d.pad();
  TiledOrder t;
  t.perm.old_of_new = std::move(d.order_);
  t.perm.new_of_old.assign(std::size_t(n), -1);
  for (std::size_t i = 0; i < t.perm.old_of_new.size(); ++i)
    if (t.perm.old_of_new[i] >= 0)
      t.perm.new_of_old[std::size_t(t.perm.old_of_new[i])] = std::int32_t(i);
  // Tiles: each stretch between two cuts in pieces of at most B.
  for (std::size_t c = 0; c + 1 < d.cuts_.size(); ++c)
    for (std::int64_t b = d.cuts_[c]; b < d.cuts_[c + 1]; b += B) t.bounds.push_back(b);
  t.bounds.push_back(d.cuts_.back());
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
