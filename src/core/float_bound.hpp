// src/core/float_bound.hpp — the exactness rule of the integer types, applied to floats: a float
// type is refused when a path sum could overflow to inf (and so read as unreachable).
//
// A shortest path has at most V-1 edges, so its length is at most (V-1)*max|w| in magnitude (the
// same bound choose_dtype uses for int32/int64). When that reaches the type's largest finite
// value, a finite distance could become inf: refused before the solve, naming the bound and what
// to do instead. solve() calls it once the dtype is known.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "apsp/types.hpp"

namespace apsp::detail {

/// Throws UsageError when `t` is float32 or float64 and (V-1)*max|w| >= the type's largest finite
/// value (also when that product itself overflows). Integer types: nothing to check here.
void check_float_weights_fit(std::int64_t num_vertices, double max_abs_weight, Dtype t);
/// The same for a graph (one pass over its weights, or the dense matrix's scan).
void check_float_weights_fit(const Graph& g, Dtype t);

}  // namespace apsp::detail
