// tests/test_supernode_tree.cpp — the sparse direct engine's supernode trees (order/supernodes):
// the minimum-degree (AMD) tree and the METIS separator tree are valid post-ordered trees of
// contiguous supernodes over a permutation, the AMD tree's plan does no more row work than a
// margin over the METIS tree's on grids and road-like graphs, and the engine gives the same
// distances through either tree (integer dtypes byte-identical to the dense rounds).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "order/supernodes.hpp"
#include "sparse/engine.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using detail::SupernodeTree;
using detail::TreeOrder;

bool built(TreeOrder how) {
  return how == TreeOrder::MinDegree ? detail::amd_available() : detail::metis_available();
}

/// Every property the engine relies on; "" when all hold.
std::string tree_defect(const SupernodeTree& t, std::int64_t n) {
  if (std::int64_t(t.perm.old_of_new.size()) != n || std::int64_t(t.perm.new_of_old.size()) != n)
    return "permutation of the wrong size";
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t v = t.perm.old_of_new[std::size_t(i)];
    if (v < 0 || v >= n || seen[std::size_t(v)]) return "not a permutation at " + std::to_string(i);
    seen[std::size_t(v)] = 1;
    if (t.perm.new_of_old[std::size_t(v)] != i) return "new_of_old is not the inverse";
  }
  const std::int64_t K = t.nodes();
  if (std::int64_t(t.first.size()) != K + 1 || t.first.front() != 0 || t.first.back() != n)
    return "node bounds do not cover the order";
  std::vector<std::int64_t> lo(static_cast<std::size_t>(K));
  for (std::int64_t k = 0; k < K; ++k) {
    if (t.first[std::size_t(k) + 1] < t.first[std::size_t(k)])  // (METIS: empty separators)
      return "node bounds decrease at " + std::to_string(k);
    lo[std::size_t(k)] = t.first[std::size_t(k)];
  }
  for (std::int64_t k = 0; k < K; ++k) {  // children first; a subtree is a run ending at its root
    const std::int32_t p = t.parent[std::size_t(k)];
    if (p < 0) continue;
    if (p <= k || p >= K) return "parent " + std::to_string(p) + " of " + std::to_string(k);
    lo[std::size_t(p)] = std::min(lo[std::size_t(p)], lo[std::size_t(k)]);
  }
  for (std::int64_t k = 0; k < K; ++k) {
    // Every node inside [lo[k], first[k]) must descend from k.
    for (std::int64_t j = k - 1; j >= 0 && t.first[std::size_t(j)] >= lo[std::size_t(k)]; --j) {
      if (t.first[std::size_t(j) + 1] == t.first[std::size_t(j)]) continue;  // holds no position
      std::int32_t a = t.parent[std::size_t(j)];
      while (a >= 0 && a < k) a = t.parent[std::size_t(a)];
      if (a != k) return "subtree of " + std::to_string(k) + " is not contiguous";
    }
  }
  return "";
}

TEST(SupernodeTree, ValidTreesOnEveryTestGraph) {
  for (const TreeOrder how : {TreeOrder::MinDegree, TreeOrder::Dissection}) {
    if (!built(how)) {
      std::printf("skipped: %s not built in\n", detail::tree_order_name(how));
      continue;
    }
    for (const std::int64_t V : {1, 2, 3, 63, 129, 1000}) {
      for (const test::NamedGraph& c : test::sparse_cases_with_mesh(V)) {
        SCOPED_TRACE(c.name + " V=" + std::to_string(V) + " " + detail::tree_order_name(how));
        const SupernodeTree t = detail::supernode_tree(c.g, how);
        EXPECT_EQ(tree_defect(t, V), "");
      }
    }
    Graph empty;  // vertices without arcs
    empty.num_vertices = 300;
    EXPECT_EQ(tree_defect(detail::supernode_tree(empty, how), 300), "");
  }
}

Graph edge_list(std::int64_t V, const std::vector<std::pair<int, int>>& arcs) {
  Graph g;
  g.num_vertices = V;
  g.directed = false;
  for (const auto& [u, v] : arcs) {
    g.src.push_back(u);
    g.dst.push_back(v);
    g.weight.push_back(double(1 + (u * 7 + v * 13) % 9));
  }
  return g;
}

TEST(SupernodeTree, PathsStarsAndCliquesStayNarrowAndExact) {
  if (!detail::amd_available()) GTEST_SKIP() << "no AMD in this build";
  std::vector<std::pair<int, int>> path, star, clique;
  for (int v = 0; v + 1 < 3000; ++v) path.push_back({v, v + 1});
  for (int v = 1; v < 3000; ++v) star.push_back({0, v});
  for (int u = 0; u < 60; ++u)
    for (int v = u + 1; v < 60; ++v) clique.push_back({u, v});
  for (int v = 60; v < 500; ++v) clique.push_back({v - 1, v});  // a clique with a tail
  for (const auto& [name, g] : {std::pair{"path", edge_list(3000, path)},
                                std::pair{"star", edge_list(3000, star)},
                                std::pair{"clique+tail", edge_list(500, clique)}}) {
    SCOPED_TRACE(name);
    const SupernodeTree t = detail::supernode_tree(g, TreeOrder::MinDegree);
    ASSERT_EQ(tree_defect(t, g.num_vertices), "");
    std::int64_t widest = 0;
    for (std::int64_t k = 0; k < t.nodes(); ++k)
      widest = std::max(widest, t.first[std::size_t(k) + 1] - t.first[std::size_t(k)]);
    // A path's elimination tree is a chain of only children: merging stops at the cost rule
    // (no supernode of thousands of vertices with an empty structure).
    EXPECT_LE(widest, 512);
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.threads = 2;
    const Result dense = solve(g, o);
    o.order = Order::Supernodal;
    EXPECT_EQ(test::compare(solve(g, o).dist, dense.dist), "");
  }
}

TEST(SupernodeTree, MinDegreeWorkNearDissection) {
  if (!detail::amd_available() || !detail::metis_available())
    GTEST_SKIP() << "needs both AMD and METIS";
  const Graph geo = generate_geometric(20000, 3, 1000, 1);
  const Graph grid = generate_grid(141, 141, 1, 1000, 1);
  for (const Graph* g : {&geo, &grid}) {
    const auto amd = detail::sparse::plan_supernodal(*g, TreeOrder::MinDegree);
    const auto nd = detail::sparse::plan_supernodal(*g, TreeOrder::Dissection);
    std::printf(
        "V %lld: rows amd %.3g metis %.3g, factor amd %.3g metis %.3g, supernodes %lld / "
        "%lld, order %.3f / %.3f s\n",
        static_cast<long long>(g->num_vertices), amd.plan.solve_updates, nd.plan.solve_updates,
        amd.plan.factor_updates, nd.plan.factor_updates, static_cast<long long>(amd.plan.nodes()),
        static_cast<long long>(nd.plan.nodes()), amd.order_s, nd.order_s);
    // Measured at V = 126k: amd 0.90x (grid) and 0.78x (geometric) of METIS's row work.
    EXPECT_LT(amd.plan.solve_updates, 1.25 * nd.plan.solve_updates);
  }
}

TEST(SupernodeTree, EngineSameThroughEitherTree) {
  if (!detail::amd_available() || !detail::metis_available())
    GTEST_SKIP() << "needs both AMD and METIS";
  for (const test::NamedGraph& c : test::sparse_cases_with_mesh(400)) {
    for (const Dtype t : {Dtype::Int32, Dtype::Float64}) {
      SCOPED_TRACE(c.name + " " + dtype_name(t));
      SolveOptions o;
      o.backend = Backend::Cpu;
      o.dtype = t;
      o.threads = 2;
      const Result dense = solve(c.g, o);
      o.order = Order::Supernodal;
      for (const TreeOrder how : {TreeOrder::MinDegree, TreeOrder::Dissection}) {
        auto plan = std::make_shared<SparsePlan>();
        plan->timed = detail::sparse::plan_supernodal(c.g, how);
        o.sparse_plan = plan;
        const Result sn = solve(c.g, o);
        EXPECT_EQ(test::compare(sn.dist, dense.dist, test::path_sum_tolerance(t)), "")
            << detail::tree_order_name(how);
      }
    }
  }
}

}  // namespace
}  // namespace apsp
