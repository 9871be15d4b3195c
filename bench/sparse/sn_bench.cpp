// bench/sparse/sn_bench.cpp — the sparse direct engine (--order sn) as a library call, timed by
// stage: ordering, symbolic, factorization (host), uploads, rows; the distances left in GPU
// memory (rows on the cuda backend) or in host memory (cpu), as PATHPACK.jl's GPU timings are
// taken (issue 31). Usage: sn_bench KIND V [cuda|cpu] [int32|float32|int64|float64] [trials]
//   [auto|amd|metis] (the supernode tree, order/supernodes.hpp)
//   KIND: geometric (k = 3, road-like) or grid (side = floor(sqrt(V))). Prints one line per trial
//   and the median; the first trial is cold (the process's first solve), later ones warm.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "sparse/engine.hpp"
#include "sparse/plan_cache.hpp"

using namespace apsp;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: sn_bench geometric|grid V [cuda|cpu] [dtype] [trials] [auto|amd|metis]\n");
    return 2;
  }
  const std::string kind = argv[1];
  const std::int64_t V = std::atoll(argv[2]);
  const std::string where = argc > 3 ? argv[3] : "cuda";
  const Dtype t = argc > 4 ? parse_dtype(argv[4]) : Dtype::Int32;
  const int trials = argc > 5 ? std::atoi(argv[5]) : 3;
  const std::string tree = argc > 6 ? argv[6] : "auto";
  const detail::TreeOrder how = tree == "amd"     ? detail::TreeOrder::MinDegree
                                : tree == "metis" ? detail::TreeOrder::Dissection
                                                  : detail::TreeOrder::Auto;
  std::int64_t side = 1;
  while ((side + 1) * (side + 1) <= V) ++side;
  Graph g =
      kind == "grid" ? generate_grid(side, side, 1, 1000, 1) : generate_geometric(V, 3, 1000, 1);
  if (t == Dtype::Float32 || t == Dtype::Float64) g.integer_weights = false;
  std::unique_ptr<detail::BackendImpl> gpu;
  if (where == "cuda") {
    gpu = detail::make_cuda_backend();
    if (!gpu || !detail::cuda_backend_info().usable) {
      std::fprintf(stderr, "no usable cuda backend\n");
      return 1;
    }
    detail::cuda_warm_up(0);
  }
  detail::sparse::set_plan_cache(false);  // every trial orders: the cold call's stages
  std::vector<double> totals;
  for (int trial = 0; trial < trials; ++trial) {
    detail::sparse::EngineOptions eo;
    eo.rows_backend = gpu.get();
    eo.keep_on_device = gpu != nullptr;
    eo.tree_order = how;
    const auto t0 = std::chrono::steady_clock::now();
    detail::sparse::EngineRun run = detail::sparse::solve_supernodal(g, t, eo);
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    totals.push_back(total);
    const double n = double(g.num_vertices);
    std::printf(
        "%s V=%lld E=%zu %s %s %s trial %d: total %.4f s = order %.4f + symbolic %.4f + factor "
        "%.4f + "
        "h2d %.4f + rows %.4f (+ rest %.4f); %lld supernodes, %.4f%% of n^3, rows at %.2f T "
        "updates/s of work, %.2f T V^3/s (%s)\n",
        kind.c_str(), (long long)g.num_vertices, g.src.size(), where.c_str(), dtype_name(t),
        detail::tree_order_name(how), trial, total, run.order_s, run.symbolic_s, run.factor_s,
        run.h2d_s, run.solve_s,
        total - run.order_s - run.symbolic_s - run.factor_s - run.h2d_s - run.solve_s,
        (long long)run.supernodes, 100 * run.work_fraction,
        run.work_fraction * n * n * n / run.solve_s / 1e12, n * n * n / total / 1e12,
        run.detail.c_str());
  }
  std::sort(totals.begin(), totals.end());
  std::printf("median total %.4f s over %d trials\n", totals[totals.size() / 2], trials);
}
