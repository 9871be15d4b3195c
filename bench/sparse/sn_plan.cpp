// bench/sparse/sn_plan.cpp — the sparse direct engine's symbolic figures (no numeric work): for
// each graph and leaf size, supernodes, factor entries, the factorization's and the row solves'
// min-plus updates (and their share of n^3), the widest supernode and structure, ordering time.
// Built by hand against a build's static library (docs/sparse.md):
//   g++ -std=c++20 -O2 -fopenmp -Iinclude -Isrc bench/sparse/sn_plan.cpp \
//     build/cpu-only/libapsp.a -lmetis -lz -o /tmp/sn_plan && /tmp/sn_plan 126146
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "apsp/generate.hpp"
#include "sparse/plan.hpp"

using namespace apsp;

static void measure(const char* name, const Graph& g, std::int64_t leaf) {
  const auto t0 = std::chrono::steady_clock::now();
  const detail::sparse::SupernodalPlan p = detail::sparse::make_plan(g, leaf);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::int64_t wmax = 0, smax = 0;
  double down = 0, pad32 = 0, pad16 = 0, pad64 = 0;
  auto up = [](std::int64_t x, std::int64_t m) { return double((x + m - 1) / m * m); };
  for (std::int64_t k = 0; k < p.nodes(); ++k) {
    wmax = std::max(wmax, p.width(k));
    smax = std::max(smax, p.struct_size(k));
    down += double(p.width(k)) * double(p.struct_size(k));
    if (p.struct_size(k) == 0) continue;
    pad32 += up(p.width(k), 32) * up(p.struct_size(k), 32);
    pad16 += up(p.width(k), 16) * up(p.struct_size(k), 16);
    pad64 += up(p.width(k), 64) * up(p.struct_size(k), 16);
  }
  const double n = double(p.n()), n3 = n * n * n;
  std::printf(
      "%-12s V %7lld leaf %4lld: %6lld supernodes, widest %4lld, struct %4lld, entries %.3g, "
      "factor %.3g (%.4f%%), rows %.3g (%.3f%%; down %.3g; padded x%.2f at 32/32, x%.2f at "
      "16/16, x%.2f at 64/16), plan %.2f s\n",
      name, (long long)p.n(), (long long)leaf, (long long)p.nodes(), (long long)wmax,
      (long long)smax, double(p.factor_entries), p.factor_updates, 100 * p.factor_updates / n3,
      p.solve_updates, 100 * p.solve_updates / n3, n * down, pad32 / down, pad16 / down,
      pad64 / down, s);
}

int main(int argc, char** argv) {
  const std::int64_t V = argc > 1 ? std::atoll(argv[1]) : 126146;
  const Graph geo = generate_geometric(V, 3, 1000, 1);
  std::int64_t side = 1;
  while ((side + 1) * (side + 1) <= V) ++side;
  const Graph grid = generate_grid(side, side, 1, 1000, 1);
  for (const std::int64_t leaf : {32, 64, 128, 256}) {
    measure("geometric k3", geo, leaf);
    measure("grid", grid, leaf);
  }
}
