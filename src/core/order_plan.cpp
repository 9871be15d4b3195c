// src/core/order_plan.cpp — apsp::cpu_order_plan (apsp/order_plan.hpp): the cpu backend's
// order="auto", decided as solve_plan.cpp decides it. A driver file (level 8, with solve.cpp in
// docs/architecture.md): it asks the order (order/choice.hpp) and the sparse engine
// (sparse/engine.hpp).
#include "apsp/order_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "apsp/matrix.hpp"
#include "cpu/blocked_fw.hpp"
#include "order/choice.hpp"
#include "sparse/engine.hpp"

namespace apsp {

CpuOrderPlan cpu_order_plan(const Graph& g, Dtype dtype, int block) {
  namespace cpu = detail::cpu;
  namespace sparse = detail::sparse;
  const std::int64_t n_pad = round_up(g.num_vertices, cpu::kPadMultiple);
  const std::int64_t B = cpu::effective_block(dtype, block);
  // solve()'s auto tries the sparse direct engine first (core/solve_plan.cpp
  // plan_auto_supernodal), taking it by the same cost model; its compute is priced here as its
  // work at kSnCpuSlowdown times the dense rounds' per update (_cost.py adds the result's
  // writing itself).
  constexpr double kSnCpuSlowdown = 4;
  if (sparse::auto_candidate(g, 4 * 256).empty()) {
    const sparse::TimedPlan tp = sparse::plan_supernodal(g);
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    const double sn = sparse::predicted_seconds(tp, false, threads);
    const double dense = sparse::dense_rounds_seconds(g.num_vertices, false, threads);
    if (sn < dense)
      return {"sn (auto)", kSnCpuSlowdown * tp.work_fraction(), tp.order_s + tp.symbolic_s};
  }
  const detail::OrderChoice c = detail::choose_order(g, Order::Auto, true, "cpu", n_pad,
                                                     std::min<std::int64_t>(B, n_pad));
  return {c.label, c.plan ? c.work_fraction : 1.0, c.order_s + c.symbolic_s};
}

}  // namespace apsp
