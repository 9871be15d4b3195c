// src/sparse/plan.cpp — separator tree -> supernodal structure, update lists and work counts.
#include "sparse/plan.hpp"

#include <algorithm>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

namespace apsp::detail::sparse {

namespace {

/// Symmetric adjacency in ordered positions (CSR; repeats kept, self loops dropped).
void ordered_adjacency(const Graph& g, const Permutation& p, std::vector<std::int64_t>& xadj,
                       std::vector<std::int32_t>& adj) {
  const std::int64_t n = g.num_vertices;
  xadj.assign(std::size_t(n) + 1, 0);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    ++xadj[std::size_t(p.new_of_old[std::size_t(u)]) + 1];
    ++xadj[std::size_t(p.new_of_old[std::size_t(v)]) + 1];
  });
  for (std::int64_t i = 0; i < n; ++i) xadj[std::size_t(i) + 1] += xadj[std::size_t(i)];
  adj.resize(std::size_t(xadj[std::size_t(n)]));
  std::vector<std::int64_t> fill(xadj.begin(), xadj.end() - 1);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    const std::int32_t a = p.new_of_old[std::size_t(u)], b = p.new_of_old[std::size_t(v)];
    adj[std::size_t(fill[std::size_t(a)]++)] = b;
    adj[std::size_t(fill[std::size_t(b)]++)] = a;
  });
}

/// struct(K) for every K: K's own later neighbours and its children's structures past K, where
/// the children of K are the supernodes c whose structure starts in K (c's parent in the
/// supernodal elimination tree; it may be a proper ancestor of c's separator-tree parent). Then
/// struct(K) is exactly the union of the fill of K's columns and rows past K.
void structures(SupernodalPlan& p, const std::vector<std::int64_t>& xadj,
                const std::vector<std::int32_t>& adj) {
  const std::int64_t nodes = p.nodes();
  std::vector<std::vector<std::int32_t>> kids(static_cast<std::size_t>(nodes));
  std::vector<std::int32_t> mark(std::size_t(p.n()), -1), list;
  p.sptr.assign(std::size_t(nodes) + 1, 0);
  p.sidx.clear();
  p.parent.assign(std::size_t(nodes), -1);
  for (std::int64_t k = 0; k < nodes; ++k) {
    const std::int64_t end = p.first(k + 1);
    list.clear();
    auto add = [&](std::int32_t j) {
      if (j >= end && mark[std::size_t(j)] != k) {
        mark[std::size_t(j)] = std::int32_t(k);
        list.push_back(j);
      }
    };
    for (std::int64_t v = p.first(k); v < end; ++v)
      for (std::int64_t e = xadj[std::size_t(v)]; e < xadj[std::size_t(v) + 1]; ++e)
        add(adj[std::size_t(e)]);
    for (const std::int32_t c : kids[std::size_t(k)])
      for (std::int64_t e = p.sptr[std::size_t(c)]; e < p.sptr[std::size_t(c) + 1]; ++e)
        add(p.sidx[std::size_t(e)]);
    std::sort(list.begin(), list.end());
    p.sidx.insert(p.sidx.end(), list.begin(), list.end());
    p.sptr[std::size_t(k) + 1] = std::int64_t(p.sidx.size());
    if (!list.empty()) {
      const std::int32_t par = p.node_of[std::size_t(list.front())];
      p.parent[std::size_t(k)] = par;
      kids[std::size_t(par)].push_back(std::int32_t(k));
    }
  }
}

/// For each supernode, the descendants whose structure enters it (runs of struct by owner).
void update_lists(SupernodalPlan& p) {
  const std::int64_t nodes = p.nodes();
  struct Run {
    std::int32_t owner, kid, off, end;
  };
  std::vector<Run> runs;
  for (std::int64_t k = 0; k < nodes; ++k) {
    const std::int32_t* s = p.struct_of(k);
    const std::int64_t m = p.struct_size(k);
    for (std::int64_t a = 0; a < m;) {
      const std::int32_t owner = p.node_of[std::size_t(s[a])];
      std::int64_t b = a + 1;
      while (b < m && p.node_of[std::size_t(s[b])] == owner) ++b;
      runs.push_back({owner, std::int32_t(k), std::int32_t(a), std::int32_t(b)});
      a = b;
    }
  }
  p.uptr.assign(std::size_t(nodes) + 1, 0);
  for (const Run& r : runs) ++p.uptr[std::size_t(r.owner) + 1];
  for (std::int64_t k = 0; k < nodes; ++k) p.uptr[std::size_t(k) + 1] += p.uptr[std::size_t(k)];
  p.ukid.resize(runs.size());
  p.uoff.resize(runs.size());
  p.uend.resize(runs.size());
  std::vector<std::int64_t> fill(p.uptr.begin(), p.uptr.end() - 1);
  for (const Run& r : runs) {  // runs are in increasing kid order: so is each list
    const std::size_t e = std::size_t(fill[std::size_t(r.owner)]++);
    p.ukid[e] = r.kid;
    p.uoff[e] = r.off;
    p.uend[e] = r.end;
  }
}

void work_counts(SupernodalPlan& p) {
  const std::int64_t nodes = p.nodes();
  p.height.assign(std::size_t(nodes), 0);
  std::vector<double> path(std::size_t(nodes), 0);  // up-sweep cost per source, from K to root
  double factor = 0, down = 0, up = 0;
  std::int64_t entries = 0;
  for (std::int64_t k = nodes - 1; k >= 0; --k) {
    const double w = double(p.width(k)), s = double(p.struct_size(k));
    const std::int32_t par = p.parent[std::size_t(k)];
    path[std::size_t(k)] = w * w + w * s + (par >= 0 ? path[std::size_t(par)] : 0);
    up += w * path[std::size_t(k)];
    down += w * s;
    factor += w * w * w + 2 * w * w * s;
    entries += p.width(k) * (p.width(k) + 2 * p.struct_size(k));
  }
  for (std::int64_t k = 0; k < nodes; ++k) {
    const std::int32_t par = p.parent[std::size_t(k)];
    if (par >= 0)
      p.height[std::size_t(par)] =
          std::max(p.height[std::size_t(par)], p.height[std::size_t(k)] + 1);
    for (std::int64_t e = p.uptr[std::size_t(k)]; e < p.uptr[std::size_t(k) + 1]; ++e) {
      const std::int32_t c = p.ukid[std::size_t(e)];
      const double wc = double(p.width(c)), sc = double(p.struct_size(c));
      const double in = double(p.uend[std::size_t(e)] - p.uoff[std::size_t(e)]);
      const double from = sc - double(p.uoff[std::size_t(e)]);
      factor += wc * in * (2 * from - in);  // D and L rows x K's columns, U: K's rows x the rest
    }
  }
  p.factor_updates = factor;
  p.solve_updates = double(p.n()) * down + up;
  p.factor_entries = entries;
}

}  // namespace

SupernodalPlan make_plan(const Graph& g, SeparatorTree tree) {
  SupernodalPlan p;
  const std::int64_t n = g.num_vertices;
  APSP_EXPECTS(std::int64_t(tree.perm.old_of_new.size()) == n && !tree.first.empty() &&
                   tree.first.back() == n,
               "supernodal plan: the tree does not cover the graph's vertices");
  p.tree = std::move(tree);
  p.node_of.assign(std::size_t(n), 0);
  for (std::int64_t k = 0; k < p.nodes(); ++k)
    for (std::int64_t v = p.first(k); v < p.first(k + 1); ++v)
      p.node_of[std::size_t(v)] = std::int32_t(k);
  std::vector<std::int64_t> xadj;
  std::vector<std::int32_t> adj;
  ordered_adjacency(g, p.tree.perm, xadj, adj);
  structures(p, xadj, adj);
  update_lists(p);
  work_counts(p);
  return p;
}

SupernodalPlan make_plan(const Graph& g, std::int64_t leaf) {
  return make_plan(g, separator_tree(g, leaf));
}

}  // namespace apsp::detail::sparse
