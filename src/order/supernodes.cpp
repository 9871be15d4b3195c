// src/order/supernodes.cpp — minimum-degree supernode trees (AMD, elimination tree,
// amalgamation) and the choice between them and METIS separator trees.
#include "order/supernodes.hpp"

#include <algorithm>
#include <climits>

#include "apsp/errors.hpp"

#ifdef APSP_HAVE_AMD
#include <amd.h>
#endif

namespace apsp::detail {

bool amd_available() {
#ifdef APSP_HAVE_AMD
  return true;
#else
  return false;
#endif
}

const char* tree_order_name(TreeOrder t) {
  switch (t) {
    case TreeOrder::MinDegree:
      return "amd";
    case TreeOrder::Dissection:
      return "metis";
    default:
      return "auto";
  }
}

std::string supernode_tree_missing_reason() {
  if (amd_available() || metis_available()) return "";
  return "this build has neither SuiteSparse AMD nor METIS (install libsuitesparse-dev or "
         "libmetis-dev and reconfigure)";
}

#ifdef APSP_HAVE_AMD
namespace {

using i32 = std::int32_t;

/// The elimination tree of the symmetric pattern (xadj, adj) in the order `order`, in positions
/// (Liu's algorithm with path compression): parent[j] = the first later position whose column
/// meets column j's fill, -1 for a root.
std::vector<i32> elimination_tree(const std::vector<i32>& xadj, const std::vector<i32>& adj,
                                  const std::vector<i32>& order, const std::vector<i32>& pos) {
  const i32 n = i32(order.size());
  std::vector<i32> parent(static_cast<std::size_t>(n), -1),
      ancestor(static_cast<std::size_t>(n), -1);
  for (i32 k = 0; k < n; ++k) {
    const i32 v = order[std::size_t(k)];
    for (i32 e = xadj[std::size_t(v)]; e < xadj[std::size_t(v) + 1]; ++e) {
      i32 i = pos[std::size_t(adj[std::size_t(e)])];
      while (i != -1 && i < k) {
        const i32 up = ancestor[std::size_t(i)];
        ancestor[std::size_t(i)] = k;
        if (up == -1) parent[std::size_t(i)] = k;
        i = up;
      }
    }
  }
  return parent;
}

/// A post-order of the forest `parent` (children in ascending order): post[i] = the i-th node.
std::vector<i32> post_order(const std::vector<i32>& parent) {
  const i32 n = i32(parent.size());
  std::vector<i32> head(static_cast<std::size_t>(n), -1), next(static_cast<std::size_t>(n), -1),
      post, stack;
  for (i32 j = n - 1; j >= 0; --j)
    if (parent[std::size_t(j)] >= 0) {
      next[std::size_t(j)] = head[std::size_t(parent[std::size_t(j)])];
      head[std::size_t(parent[std::size_t(j)])] = j;
    }
  post.reserve(std::size_t(n));
  for (i32 r = 0; r < n; ++r) {
    if (parent[std::size_t(r)] >= 0) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const i32 j = stack.back();
      if (head[std::size_t(j)] >= 0) {
        const i32 c = head[std::size_t(j)];
        head[std::size_t(j)] = next[std::size_t(c)];
        stack.push_back(c);
      } else {
        stack.pop_back();
        post.push_back(j);
      }
    }
  }
  return post;
}

/// The row sweeps' cost of a supernode of width w and structure s (per source): its rows padded
/// to the kernels' 16- or 32-row tiles times the rows it reads, and a fixed cost per node.
double sweep_cost(double w, double s) {
  const double rows = w <= 16 ? 16 : (w + 31) / 32 * 32;
  return rows * (s + w) + 256;
}
/// Merging stops at these widths (the factorization's blocks are w^2): a child whose structure is
/// its parent and the parent's structure (no entry added), and any other merge.
constexpr double kExactCap = 512, kRelaxedCap = 128;

/// Which positions of the post-ordered elimination tree `par` of the order `ord` (positions ->
/// user vertices) join their parent: each position starts alone; bottom-up, a child joins its
/// parent when its structure is exactly the parent and the parent's structure (a fundamental
/// supernode), or when the joined block costs the row sweeps no more than the two apart.
/// Structure sizes come from the explicit union of each position's later neighbours and its
/// children's structures (O(nnz(L))).
std::vector<char> merges(const std::vector<i32>& xadj, const std::vector<i32>& adj,
                         const std::vector<i32>& ord, const std::vector<i32>& par) {
  const i32 n = i32(ord.size()), F = n;
  std::vector<i32> pos(static_cast<std::size_t>(n));
  for (i32 i = 0; i < n; ++i) pos[std::size_t(ord[std::size_t(i)])] = i;
  const std::vector<i32>& fpar = par;
  std::vector<i32> fhead(static_cast<std::size_t>(F), -1), fnext(static_cast<std::size_t>(F), -1);
  for (i32 f = F - 1; f >= 0; --f) {
    if (fpar[std::size_t(f)] < 0) continue;
    fnext[std::size_t(f)] = fhead[std::size_t(fpar[std::size_t(f)])];
    fhead[std::size_t(fpar[std::size_t(f)])] = f;
  }
  // Structures on a stack: in post-order, a position's children's lists are the topmost ones.
  std::vector<i32> pool, list, cs;
  std::vector<std::size_t> starts;
  std::vector<i32> mark(static_cast<std::size_t>(n), -1);
  std::vector<double> width(static_cast<std::size_t>(F), 1), ssize(static_cast<std::size_t>(F));
  std::vector<char> merged(static_cast<std::size_t>(F), 0);
  for (i32 f = 0; f < F; ++f) {
    list.clear();
    auto add = [&](i32 j) {
      if (j > f && mark[std::size_t(j)] != f) {
        mark[std::size_t(j)] = f;
        list.push_back(j);
      }
    };
    const i32 v = ord[std::size_t(f)];
    for (i32 e = xadj[std::size_t(v)]; e < xadj[std::size_t(v) + 1]; ++e)
      add(pos[std::size_t(adj[std::size_t(e)])]);
    cs.clear();
    for (i32 c = fhead[std::size_t(f)]; c >= 0; c = fnext[std::size_t(c)]) cs.push_back(c);
    if (!cs.empty()) {
      const std::size_t from = starts[starts.size() - cs.size()];
      for (std::size_t e = from; e < pool.size(); ++e) add(pool[e]);
      pool.resize(from);
      starts.resize(starts.size() - cs.size());
    }
    starts.push_back(pool.size());
    pool.insert(pool.end(), list.begin(), list.end());
    const std::vector<i32>& s = list;
    ssize[std::size_t(f)] = double(s.size());
    // Children join (their own merges done: children come first), narrowest first.
    std::sort(cs.begin(), cs.end(), [&](i32 a, i32 b) {
      const double wa = width[std::size_t(a)], wb = width[std::size_t(b)];
      return wa != wb ? wa < wb : a < b;
    });
    for (const i32 c : cs) {
      const double wc = width[std::size_t(c)], wf = width[std::size_t(f)];
      const double sc = ssize[std::size_t(c)], sf = ssize[std::size_t(f)];
      const bool exact = cs.size() == 1 && sc == sf + 1 && wc + wf <= kExactCap;
      const bool cheap = wc + wf <= kRelaxedCap &&
                         sweep_cost(wc + wf, sf) <= sweep_cost(wc, sc) + sweep_cost(wf, sf);
      if (!exact && !cheap) continue;
      merged[std::size_t(c)] = 1;
      width[std::size_t(f)] += wc;
    }
  }
  return merged;
}

/// The supernode tree whose supernodes are the groups of positions that `merged` joins to their
/// parents (merges()), in post-order, each group's positions ascending.
SupernodeTree grouped(const std::vector<i32>& ord, const std::vector<i32>& par,
                      const std::vector<char>& merged) {
  const i32 n = i32(ord.size()), F = n;
  const std::vector<i32>& fpar = par;
  // Groups: a position not merged is its group's root; members in ascending (post-)order.
  std::vector<i32> root(static_cast<std::size_t>(F));
  for (i32 f = F - 1; f >= 0; --f)
    root[std::size_t(f)] = merged[std::size_t(f)] ? root[std::size_t(fpar[std::size_t(f)])] : f;
  std::vector<i32> mstart(static_cast<std::size_t>(F) + 1, 0), members(static_cast<std::size_t>(F));
  for (i32 f = 0; f < F; ++f) ++mstart[std::size_t(root[std::size_t(f)]) + 1];
  for (i32 f = 0; f < F; ++f) mstart[std::size_t(f) + 1] += mstart[std::size_t(f)];
  {
    std::vector<i32> at(mstart.begin(), mstart.end() - 1);
    for (i32 f = 0; f < F; ++f) members[std::size_t(at[std::size_t(root[std::size_t(f)])]++)] = f;
  }
  // Child groups of each group: the roots whose parent node is one of its members.
  std::vector<i32> ghead(static_cast<std::size_t>(F), -1), gnext(static_cast<std::size_t>(F), -1);
  for (i32 f = F - 1; f >= 0; --f) {
    if (merged[std::size_t(f)] || fpar[std::size_t(f)] < 0) continue;
    const i32 g = root[std::size_t(fpar[std::size_t(f)])];
    gnext[std::size_t(f)] = ghead[std::size_t(g)];
    ghead[std::size_t(g)] = f;
  }
  // Post-order over the groups; a group's members' positions in ascending order.
  SupernodeTree t;
  t.perm.old_of_new.reserve(std::size_t(n));
  std::vector<i32> stack, gid(static_cast<std::size_t>(F), -1);
  std::vector<i32> cursor(ghead);
  for (i32 r = 0; r < F; ++r) {
    if (merged[std::size_t(r)] || fpar[std::size_t(r)] >= 0) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const i32 g = stack.back();
      if (cursor[std::size_t(g)] >= 0) {
        const i32 c = cursor[std::size_t(g)];
        cursor[std::size_t(g)] = gnext[std::size_t(c)];
        stack.push_back(c);
        continue;
      }
      stack.pop_back();
      gid[std::size_t(g)] = i32(t.first.size());
      t.first.push_back(std::int64_t(t.perm.old_of_new.size()));
      for (i32 m = mstart[std::size_t(g)]; m < mstart[std::size_t(g) + 1]; ++m)
        t.perm.old_of_new.push_back(ord[std::size_t(members[std::size_t(m)])]);
    }
  }
  t.first.push_back(n);
  t.parent.assign(t.first.size() - 1, -1);
  for (i32 g = 0; g < F; ++g)
    if (!merged[std::size_t(g)] && fpar[std::size_t(g)] >= 0)
      t.parent[std::size_t(gid[std::size_t(g)])] =
          gid[std::size_t(root[std::size_t(fpar[std::size_t(g)])])];
  t.perm.new_of_old.assign(std::size_t(n), 0);
  for (i32 i = 0; i < n; ++i) t.perm.new_of_old[std::size_t(t.perm.old_of_new[std::size_t(i)])] = i;
  return t;
}

/// Supernodes of the post-ordered elimination tree `par` of the order `ord` (merges, grouped).
SupernodeTree amalgamated(const std::vector<i32>& xadj, const std::vector<i32>& adj,
                          const std::vector<i32>& ord, const std::vector<i32>& par) {
  return grouped(ord, par, merges(xadj, adj, ord, par));
}

SupernodeTree min_degree_tree(const Graph& g) {
  const std::int64_t n = g.num_vertices;
  std::vector<i32> xadj, adj;
  symmetric_adjacency(g, xadj, adj);
  std::vector<i32> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[std::size_t(i)] = i32(i);
  if (!adj.empty()) {  // (AMD refuses a null array: without arcs the identity order is kept)
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    const int rc = amd_order(i32(n), xadj.data(), adj.data(), order.data(), control, info);
    if (rc == AMD_OUT_OF_MEMORY) throw ResourceError("AMD ordering: out of memory");
    APSP_EXPECTS(rc == AMD_OK || rc == AMD_OK_BUT_JUMBLED,
                 ("AMD ordering failed: " + std::to_string(rc)).c_str());
  }
  std::vector<i32> pos(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) pos[std::size_t(order[std::size_t(i)])] = i32(i);
  const std::vector<i32> etree = elimination_tree(xadj, adj, order, pos);
  const std::vector<i32> post = post_order(etree);
  // Relabel by the post-order: position i holds the post[i]-th of the AMD order.
  std::vector<i32> ord(static_cast<std::size_t>(n)), at(static_cast<std::size_t>(n)),
      par(static_cast<std::size_t>(n), -1);
  for (std::int64_t i = 0; i < n; ++i) {
    ord[std::size_t(i)] = order[std::size_t(post[std::size_t(i)])];
    at[std::size_t(post[std::size_t(i)])] = i32(i);
  }
  for (std::int64_t j = 0; j < n; ++j)
    if (etree[std::size_t(j)] >= 0)
      par[std::size_t(at[std::size_t(j)])] = at[std::size_t(etree[std::size_t(j)])];
  return amalgamated(xadj, adj, ord, par);
}

}  // namespace
#endif

SupernodeTree supernode_tree(const Graph& g, TreeOrder how) {
  APSP_EXPECTS(!g.is_dense(), "supernode tree: a dense graph view has no edge list");
  if (g.num_vertices >= INT_MAX || g.src.size() >= std::size_t(INT_MAX / 2))
    throw UsageError("--order sn: the graph is too large for 32-bit orderings");
  if (how == TreeOrder::Auto && !amd_available() && !metis_available())
    throw UsageError("--order sn needs an ordering: " + supernode_tree_missing_reason());
  if (how == TreeOrder::Auto) how = amd_available() ? TreeOrder::MinDegree : TreeOrder::Dissection;
  if (how == TreeOrder::Dissection) return separator_tree(g, 64);
#ifdef APSP_HAVE_AMD
  return min_degree_tree(g);
#else
  throw UsageError(
      "--order sn with the amd ordering needs SuiteSparse AMD: install "
      "libsuitesparse-dev and reconfigure");
#endif
}

}  // namespace apsp::detail
