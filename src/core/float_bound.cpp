// src/core/float_bound.cpp — refuses a float type whose path sums could overflow to inf
// (float_bound.hpp).
#include "core/float_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "apsp/errors.hpp"

namespace apsp::detail {

void check_float_weights_fit(std::int64_t num_vertices, double max_abs_weight, Dtype t) {
  if (is_integer(t)) return;
  const double largest = t == Dtype::Float32 ? double(std::numeric_limits<float>::max())
                                             : std::numeric_limits<double>::max();
  // In long double, so that the message shows the product even where it overflows a double.
  const long double bound =
      static_cast<long double>(std::max<std::int64_t>(num_vertices - 1, 0)) * max_abs_weight;
  if (!(bound >= static_cast<long double>(largest))) return;
  std::ostringstream os;
  os.precision(8);
  os << dtype_name(t) << " cannot hold this graph's distances: (V-1)*max|w| = " << bound
     << " reaches the largest finite " << dtype_name(t) << " (" << largest
     << "), so a path sum could overflow to inf and read as unreachable; "
     << (t == Dtype::Float32 ? "use --type float64" : "scale the weights down");
  throw UsageError(os.str());
}

void check_float_weights_fit(const Graph& g, Dtype t) {
  if (is_integer(t)) return;
  check_float_weights_fit(g.num_vertices, g.max_abs_weight(), t);
}

}  // namespace apsp::detail
