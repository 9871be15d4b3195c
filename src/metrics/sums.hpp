// src/metrics/sums.hpp — the accumulators every metrics engine fills (per source: largest
// distance, reached count, distance sum; per target: reached-by count, distance sum, harmonic
// sum; pair counts per distance) and the one function that turns them into apsp::Metrics with
// NetworkX's definitions (src/core/metrics.cpp). Counts include the vertex itself (distance 0).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/metrics.hpp"

namespace apsp::detail {

__extension__ typedef __int128 WideSum;  // GCC and Clang; -Wpedantic needs __extension__

struct MetricSums {
  std::int64_t n = 0;
  bool directed = true;
  MetricsOptions opt;
  Dtype dtype = Dtype::Int32;
  // Per source (row).
  std::vector<long double> ecc;  // largest finite distance
  std::vector<std::int64_t> out_cnt;
  std::vector<WideSum> out_sum_i;      // integer dtypes
  std::vector<long double> out_sum_f;  // float dtypes
  // Per target (column); sized only when closeness or harmonic is asked.
  std::vector<std::int64_t> in_cnt;
  std::vector<WideSum> in_sum_i;
  std::vector<long double> in_sum_f, harm;
  // hist[d]: ordered pairs (distance 0 included: the diagonal) at distance d.
  std::vector<std::int64_t> hist;

  bool columns() const { return opt.closeness || opt.harmonic; }
  /// Sizes the arrays for n vertices of `t`'s distances.
  void allocate(std::int64_t vertices, bool is_directed, const MetricsOptions& o, Dtype t);
};

/// Metrics from complete sums (every source and target added).
Metrics finish_sums(const MetricSums& s);

}  // namespace apsp::detail
