// src/sparse/plan.hpp — the symbolic side of the sparse direct engine (internal).
//
// Min-plus Gaussian elimination in a nested-dissection order (Carre 1971; SuperFW, Sao et al.,
// PPoPP 2020): the separator tree's nodes are the supernodes, each separator after the subtrees it
// separates. Eliminating supernode K fills only the rows and columns of struct(K), the later
// vertices that a path through K's subtree can reach (the merge of K's own arcs and its children's
// structures, fill-path theorem). SupernodalPlan holds that structure and, for each supernode,
// the earlier supernodes whose elimination updates it (its descendants whose structure meets it),
// so the numeric factorization can run left-looking: a supernode is written by its own step only.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "order/ordering.hpp"

namespace apsp::detail::sparse {

struct SupernodalPlan {
  SeparatorTree tree;                 ///< order, supernode bounds (tree.first), parents
  std::vector<std::int32_t> node_of;  ///< supernode of each ordered position
  /// Parent in the supernodal elimination tree: the supernode where struct(K) starts (-1: none).
  /// Every vertex of struct(K) lies in an ancestor of K.
  std::vector<std::int32_t> parent;
  std::vector<std::int64_t> sptr;  ///< struct(K) = sidx[sptr[K] .. sptr[K + 1]), ascending
  std::vector<std::int32_t> sidx;  ///< ordered positions, all after K's last vertex
  /// Updates into K: for e in [uptr[K], uptr[K + 1]): descendant ukid[e], whose struct enters
  /// K's range at its position uoff[e] (struct(ukid)[uoff .. uend) lie in K).
  std::vector<std::int64_t> uptr;
  std::vector<std::int32_t> ukid, uoff, uend;
  /// Height of each supernode in the tree (leaves 0): supernodes of one height are independent.
  std::vector<std::int32_t> height;
  double factor_updates = 0;  ///< min-plus updates of the factorization (dense blocks)
  double solve_updates = 0;   ///< min-plus updates of all V rows' solves (down sweep + up sweeps)
  std::int64_t factor_entries = 0;  ///< entries of D, L and U together

  std::int64_t n() const { return std::int64_t(node_of.size()); }
  std::int64_t nodes() const { return tree.nodes(); }
  std::int64_t first(std::int64_t k) const { return tree.first[std::size_t(k)]; }
  std::int64_t width(std::int64_t k) const { return first(k + 1) - first(k); }
  std::int64_t struct_size(std::int64_t k) const {
    return sptr[std::size_t(k) + 1] - sptr[std::size_t(k)];
  }
  const std::int32_t* struct_of(std::int64_t k) const { return sidx.data() + sptr[std::size_t(k)]; }
};

/// Leaves of the separator tree hold at most this many vertices by default.
inline constexpr std::int64_t kDefaultLeaf = 64;

/// The plan for g (edge list or dense view; weights and directions ignored): METIS separator
/// tree (order/ordering.hpp) and the supernodal structure. O(E log E + sum |struct|).
SupernodalPlan make_plan(const Graph& g, std::int64_t leaf = kDefaultLeaf);

/// The plan's structure from a given tree (tests build trees by hand).
SupernodalPlan make_plan(const Graph& g, SeparatorTree tree);

}  // namespace apsp::detail::sparse
