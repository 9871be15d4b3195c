// bench/sparse/nd_fraction.cpp — the symbolic work fraction of nested-dissection layouts (no
// solve): for each graph, tile size B, alignment and leaf size, the plan's share of the dense
// rounds' updates and the padding. Built by hand against a release build (docs/sparse.md):
//   g++ -std=c++20 -O2 -fopenmp -Iinclude -Isrc bench/sparse/nd_fraction.cpp \
//     build/release/libapsp_core.so -o /tmp/nd_fraction   (or the static apsp_lib archive)
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "apsp/generate.hpp"
#include "order/ordering.hpp"
#include "order/symbolic.hpp"

using namespace apsp;

static void measure(const char* name, const Graph& g, std::int64_t B, std::int64_t align,
                    std::int64_t leaf) {
  const auto t0 = std::chrono::steady_clock::now();
  detail::TiledOrder o = detail::nested_dissection(g, B, {align, leaf});
  const double order_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Graph r = detail::relabel(g, o.perm);
  const std::int64_t n_pad = (g.num_vertices + B - 1) / B * B;
  const std::int64_t padded = std::int64_t(o.perm.old_of_new.size());
  const detail::TilePlan p = detail::symbolic_tiles(r, std::move(o.bounds), n_pad);
  std::printf(
      "%-14s B %3lld align %3lld leaf %5lld: %6.2f%% of dense, %lld tiles, padding %5.1f%%, order "
      "%.2f s\n",
      name, (long long)B, (long long)align, (long long)leaf, 100 * p.work_fraction, (long long)p.R,
      100.0 * double(padded - g.num_vertices) / double(g.num_vertices), order_s);
}

int main(int argc, char** argv) {
  const std::int64_t V = argc > 1 ? std::atoll(argv[1]) : 65536;
  const std::int64_t side = argc > 2 ? std::atoll(argv[2]) : 256;
  const Graph grid = generate_grid(side, side, 1, 100, 1);
  const Graph geo = generate_geometric(V, 4, 1000, 1);
  for (const auto& [name, g] :
       {std::pair<const char*, const Graph*>{"grid", &grid}, {"geometric k=4", &geo}}) {
    measure(name, *g, 128, 32, 256);
    for (const std::int64_t leaf : {128, 256, 512, 1024, 2048}) measure(name, *g, 128, 128, leaf);
  }
}
