// src/cuda/host_arcs.hpp — a graph's out-arcs sorted by source (the one Csr, graph/csr.hpp) in
// the distance type, the input of the cuda backend's next-hop kernel (kernels/paths.cuh:
// next_hops_from_edges). Host work only (the arcs as the kernels saw them: self loops dropped,
// undirected edges both ways), so it can run on a thread of its own while the rounds run.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "apsp/graph.hpp"
#include "core/trace.hpp"
#include "graph/csr.hpp"

namespace apsp::cuda {

/// g's out-arcs sorted by source, as start_next() uploads them: host work only, no CUDA call
/// (a dense view read in place). At least one arc slot, so that the upload copies something.
template <class T>
detail::Csr<T> sort_arcs(const Graph& g) {
  detail::Csr<T> a = detail::build_csr<T>(g, {}, [](std::int32_t, std::int32_t, double w) {
    return std::is_integral_v<T> ? T(std::llround(w)) : T(w);
  });
  if (a.to.empty()) {
    a.to.resize(1);
    a.w.resize(1);
  }
  detail::trace("cuda: next hops: out-arcs sorted by source");
  return a;
}

}  // namespace apsp::cuda
