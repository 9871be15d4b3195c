// src/order/choice.cpp — solve()'s decision on the vertex order of the rounds (choice.hpp).
#include "order/choice.hpp"

#include <chrono>
#include <cstdio>

#include "apsp/errors.hpp"

namespace apsp::detail {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

OrderChoice keep(const std::string& why) {
  OrderChoice c;
  c.label = "none (auto: " + why + ")";
  return c;
}

}  // namespace

OrderChoice choose_order(const Graph& g, Order asked, bool backend_skips,
                         const std::string& backend, std::int64_t n_pad, std::int64_t B,
                         NdLayout layout, std::int64_t auto_min_tiles) {
  if (asked == Order::None) return {};
  const bool nd = asked == Order::NestedDissection;
  if (!backend_skips) {
    if (nd)
      throw UsageError("--order nd: the " + backend +
                       " backend does not skip tiles yet; use --backend cpu or cuda");
    return keep("the " + backend + " backend runs dense rounds");
  }
  if (!metis_available()) {
    if (nd) throw UsageError("--order nd needs METIS: " + metis_missing_reason());
    return keep("no METIS in this build");
  }
  const std::int64_t R = B > 0 ? (n_pad + B - 1) / B : 0;
  if (!nd) {
    if (g.is_dense()) return keep("dense input");
    if (R < auto_min_tiles) return keep(std::to_string(R) + " tiles a side");
    const double arcs = double(g.src.size()) * (g.directed ? 1 : 2);
    if (arcs > kAutoMaxArcsPerVertex * double(g.num_vertices)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.0f arcs per vertex", arcs / double(g.num_vertices));
      return keep(buf);
    }
  }
  APSP_EXPECTS(!g.is_dense(),
               "--order nd on a dense view: solve() copies it into an edge list first");
  OrderChoice c;
  auto t0 = std::chrono::steady_clock::now();
  TiledOrder nd_order = nested_dissection(g, B, layout);
  c.perm = std::move(nd_order.perm);
  c.order_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  c.graph = relabel(g, c.perm);
  auto plan =
      std::make_shared<const TilePlan>(symbolic_tiles(c.graph, std::move(nd_order.bounds), n_pad));
  c.symbolic_s = seconds_since(t0);
  c.work_fraction = plan->work_fraction;
  char buf[160];
  if (!nd && c.work_fraction >= kAutoMaxFraction) {
    std::snprintf(buf, sizeof buf, "nd would run %.1f%% of the dense work", 100 * c.work_fraction);
    OrderChoice k = keep(buf);
    k.order_s = c.order_s;
    k.symbolic_s = c.symbolic_s;
    return k;
  }
  c.plan = std::move(plan);
  c.label = nd ? "nd" : "nd (auto)";
  return c;
}

}  // namespace apsp::detail
