// src/order/supernodes.hpp — the supernode tree of the sparse direct engine (src/sparse): a
// fill-reducing order cut into supernodes, contiguous runs of positions eliminated as one dense
// block (internal).
//
// Two ways to make one. Minimum degree (SuiteSparse AMD, the default where built in): the
// elimination tree of the AMD order, post-ordered, its chains of single children joined into
// fundamental supernodes, then small supernodes merged into their parents where the merged block
// costs the row sweeps no more than the two apart (tiles are 16 or 32 rows: a supernode of one or
// two vertices pays for 16). One pass over the graph after AMD, no recursion: at V = 126k it
// takes a tenth of the METIS tree's time and its row sweeps do less work (docs/sparse.md has the
// figures). Nested dissection (METIS, order/ordering.hpp separator_tree): one vertex separator per
// tree node down to leaves of 64 vertices; kept for comparison and where AMD is not built in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "order/ordering.hpp"

namespace apsp::detail {

/// True when this build has SuiteSparse AMD (libsuitesparse-dev found at configure time).
bool amd_available();

/// How the supernode tree is made.
enum class TreeOrder {
  Auto,        ///< minimum degree where AMD is built in, else nested dissection
  MinDegree,   ///< AMD + elimination tree + amalgamation
  Dissection,  ///< METIS separator tree
};
/// "auto", "amd", "metis".
const char* tree_order_name(TreeOrder t);

/// Node k holds the positions [first[k], first[k + 1]) of perm's order; children come before
/// parents and every node's subtree is a contiguous run of positions ending at the node (so nodes
/// are in post-order). parent[k] is the tree the order was made with (-1: a root); the engine
/// derives its own from the structure (sparse/plan.hpp). No padding: a permutation of 0..V-1.
using SupernodeTree = SeparatorTree;

/// The supernode tree of g's symmetrised arcs (directions and weights ignored, self loops and
/// repeats dropped). Throws UsageError when the asked ordering is not built in.
SupernodeTree supernode_tree(const Graph& g, TreeOrder how = TreeOrder::Auto);

/// Why no supernode tree can be made in this build ("" when one can).
std::string supernode_tree_missing_reason();

}  // namespace apsp::detail
