// src/cuda/host_arcs.hpp — a graph's out-arcs sorted by source (CSR) in the distance type, the
// input of the cuda backend's next-hop kernel (kernels/paths.cuh: next_hops_from_edges). Host work
// only (a counting sort over the arcs as the kernels saw them: self loops dropped, undirected
// edges both ways), so it can run on a thread of its own while the rounds run.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"

namespace apsp::cuda {

/// g's out-arcs sorted by source (CSR), as start_next() uploads them: host work only, no CUDA
/// call, so it can run on a thread of its own while the rounds run (a dense view read in place).
template <class T>
struct HostArcs {
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> col;
  std::vector<T> wt;
};
template <class T>
HostArcs<T> sort_arcs(const Graph& g) {
  const std::int64_t n = g.num_vertices;
  HostArcs<T> a;
  a.row_ptr.assign(std::size_t(n) + 1, 0);
  auto each_arc = [&](auto&& f) { detail::for_each_arc(g, f); };
  each_arc([&](std::int32_t u, std::int32_t, double) { ++a.row_ptr[u + 1]; });
  for (std::int64_t i = 0; i < n; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
  const std::int64_t A = a.row_ptr[n];
  a.col.resize(std::size_t(std::max<std::int64_t>(A, 1)));
  a.wt.resize(std::size_t(std::max<std::int64_t>(A, 1)));
  std::vector<std::int64_t> fill(a.row_ptr.begin(), a.row_ptr.end() - 1);
  each_arc([&](std::int32_t u, std::int32_t v, double w) {
    const std::int64_t at = fill[u]++;
    a.col[at] = v;
    a.wt[at] = std::is_integral_v<T> ? T(std::llround(w)) : T(w);
  });
  detail::trace("cuda: next hops: out-arcs sorted by source");
  return a;
}

}  // namespace apsp::cuda
