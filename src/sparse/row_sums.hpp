// src/sparse/row_sums.hpp — the metrics' sums of the sparse direct engine's rows (internal):
// what RowsJob::sums / EngineOptions::sums collect instead of the rows, per thread and per GPU,
// and how shares of them add up. Header-only: the cuda plugin uses it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace apsp::detail::sparse {

/// Per-vertex sums of the closure's rows instead of the rows (RowsJob::sums): what the metrics
/// need (src/metrics/sums.hpp), with no n x n matrix anywhere. Indexed by the user's vertex ids.
/// Per source u: finite distances (u itself included), their sum, the largest, and the sum of
/// 1 / d over d > 0. Per target v (when `targets`): the same count, sum and 1 / d sum over the
/// sources reaching v. Integer dtypes sum into `*_sum_i` (exact below 2^63: the caller checks
/// n x the largest distance), floats into `*_sum_f` (double).
struct RowSums {
  bool targets = false;
  std::vector<std::int64_t> out_cnt, in_cnt;
  std::vector<std::int64_t> out_sum_i, in_sum_i, out_max_i;
  std::vector<double> out_sum_f, in_sum_f, out_max_f, out_harm, in_harm;
};

/// Every array of s sized n, zero.
inline void size_sums(RowSums& s, std::int64_t n) {
  for (auto* v : {&s.out_cnt, &s.in_cnt, &s.out_sum_i, &s.in_sum_i, &s.out_max_i})
    v->assign(std::size_t(n), 0);
  for (auto* v : {&s.out_sum_f, &s.in_sum_f, &s.out_max_f, &s.out_harm, &s.in_harm})
    v->assign(std::size_t(n), 0);
}

/// The sums of `parts` (each a share of the sources) added up into `out`: a source's own sums
/// come from the one share that ran it (the others hold zeros), a target's add up.
inline void add_parts(const std::vector<RowSums>& parts, RowSums& out) {
  out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const RowSums& p = parts[i];
    for (std::size_t v = 0; v < out.out_cnt.size(); ++v) {
      out.out_cnt[v] += p.out_cnt[v];
      out.in_cnt[v] += p.in_cnt[v];
      out.out_sum_i[v] += p.out_sum_i[v];
      out.in_sum_i[v] += p.in_sum_i[v];
      out.out_max_i[v] = std::max(out.out_max_i[v], p.out_max_i[v]);
      out.out_sum_f[v] += p.out_sum_f[v];
      out.in_sum_f[v] += p.in_sum_f[v];
      out.out_max_f[v] = std::max(out.out_max_f[v], p.out_max_f[v]);
      out.out_harm[v] += p.out_harm[v];
      out.in_harm[v] += p.in_harm[v];
    }
  }
}

/// One host thread's per-target sums (RowSums::targets), by ordered position.
struct TargetSums {
  std::vector<std::int64_t> cnt, sum_i;
  std::vector<double> sum_f, harm;
  void resize(std::int64_t n) {
    cnt.assign(std::size_t(n), 0);
    sum_i.assign(std::size_t(n), 0);
    sum_f.assign(std::size_t(n), 0);
    harm.assign(std::size_t(n), 0);
  }
  template <class T>
  void add(std::int64_t v, T d) {
    const auto k = std::size_t(v);
    ++cnt[k];
    if constexpr (std::is_integral_v<T>)
      sum_i[k] += std::int64_t(d);
    else
      sum_f[k] += double(d);
    if (d > T(0)) harm[k] += 1.0 / double(d);
  }
};

}  // namespace apsp::detail::sparse
