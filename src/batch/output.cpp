// src/batch/output.cpp — lays batch results out for learning code (apsp/batch.hpp): distances
// converted to the output type with the caller's unreachable and pad values and max_dist clipping
// (every value checked to convert exactly), and edge-id paths walked from the next hops.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"
#include "batch/gpu_engine.hpp"

namespace apsp {

namespace {

using i64 = std::int64_t;
using ld = long double;  // holds every int64 and every double exactly
using detail::batch::visit_out;

const char* out_name(OutType t) {
  static const char* const kNames[] = {"int8", "int16", "int32", "int64", "float32", "float64"};
  return kNames[int(t)];
}

// x as O when O holds it exactly (NaN and +-inf only in a float type). Integer pairs compare as
// integers; the rest goes through long double, which holds every int64 and double.
template <class O, class T>
bool convert(T x, O& out) {
  if constexpr (std::is_integral_v<O> && std::is_integral_v<T>) {
    if constexpr (sizeof(T) > sizeof(O)) {
      if (x < T(std::numeric_limits<O>::lowest()) || x > T(std::numeric_limits<O>::max()))
        return false;
    }
    out = O(x);
    return true;
  } else if constexpr (std::is_integral_v<O>) {
    const ld y = ld(x);
    if (!(y >= ld(std::numeric_limits<O>::lowest()) && y <= ld(std::numeric_limits<O>::max())) ||
        y != std::trunc(y))
      return false;
    out = O(y);
    return true;
  } else {
    out = O(x);
    return std::isnan(ld(x)) || ld(out) == ld(x);
  }
}

std::string number(ld x) {
  std::ostringstream os;
  os.precision(17);
  os << double(x);
  return os.str();
}

template <class O>
O checked(ld x, OutType t, const char* what) {
  O out{};
  if (!convert(x, out))
    throw UsageError(std::string(what) + " " + number(x) + " does not fit " + out_name(t) +
                     " exactly");
  return out;
}

template <class T, class O>
void write_typed(const BatchItem& item, const BatchOutput& out) {
  const Matrix& d = *item.dist;
  const i64 n = d.rows(), n_max = out.n_max, stride = n_max > 0 ? n_max : n;
  if (n_max > 0 && n > n_max)
    throw UsageError("a graph of " + std::to_string(n) +
                     " vertices does not fit n_max = " + std::to_string(n_max));
  const O none = checked<O>(out.unreachable, out.type, "unreachable value");
  const O pad = checked<O>(out.pad, out.type, "pad value");
  const bool clip = out.max_dist.has_value();
  const ld max_dist = clip ? ld(*out.max_dist) : 0;
  const O clipped = clip ? checked<O>(max_dist, out.type, "max_dist") : O{};
  O* base = static_cast<O*>(out.data) +
            (n_max > 0 ? item.index * n_max * n_max : out.offsets[item.index]);
  for (i64 i = 0; i < n; ++i) {
    const T* row = d.row<T>(i);
    O* o = base + i * stride;
    for (i64 j = 0; j < n; ++j) {
      const T x = row[j];
      if (x == unreachable<T>())
        o[j] = none;
      else if (clip && ld(x) > max_dist)
        o[j] = clipped;
      else if (!convert(x, o[j]))
        throw UsageError("distance " + number(ld(x)) + " does not fit " + out_name(out.type) +
                         " exactly (pass max_dist= or a wider dtype)");
    }
    for (i64 j = n; j < stride; ++j) o[j] = pad;
  }
  for (i64 i = n; i < n_max; ++i)
    for (i64 j = 0; j < n_max; ++j) base[i * n_max + j] = pad;
}

// best[u * n + v] = the id of the lightest edge u -> v (the first of equal ones), -1 for none.
std::vector<i64> lightest_edges(const Graph& e) {
  const i64 n = e.num_vertices;
  std::vector<i64> best(std::size_t(n * n), -1);
  std::vector<double> w(std::size_t(n * n), std::numeric_limits<double>::infinity());
  auto offer = [&](i64 u, i64 v, double x, i64 id) {
    const std::size_t at = std::size_t(u * n + v);
    if (best[at] < 0 || x < w[at]) best[at] = id, w[at] = x;
  };
  for (std::size_t k = 0; k < e.src.size(); ++k) {
    const i64 u = e.src[k], v = e.dst[k];
    if (u == v) continue;
    offer(u, v, e.weight[k], i64(k));
    if (!e.directed) offer(v, u, e.weight[k], i64(k));
  }
  return best;
}

}  // namespace

OutType parse_out_type(const std::string& name) {
  for (int t = 0; t <= int(OutType::Float64); ++t)
    if (name == out_name(OutType(t))) return OutType(t);
  throw UsageError("unknown output type '" + name +
                   "' (expected int8, int16, int32, int64, float32 or float64)");
}

void check_batch_output(const BatchOutput& out) {
  visit_out(out.type, [&](auto tag) {
    using O = decltype(tag);
    checked<O>(out.unreachable, out.type, "unreachable value");
    checked<O>(out.pad, out.type, "pad value");
    if (out.max_dist) {
      if (!(*out.max_dist >= 0)) throw UsageError("max_dist must be >= 0");
      checked<O>(*out.max_dist, out.type, "max_dist");
    }
  });
}

std::size_t out_type_size(OutType t) {
  return visit_out(t, [](auto tag) { return sizeof(tag); });
}

void write_distances(const BatchItem& item, const BatchOutput& out) {
  visit_dtype(item.dist->dtype(), [&](auto t) {
    visit_out(out.type, [&](auto o) { write_typed<decltype(t), decltype(o)>(item, out); });
  });
}

void write_edge_paths(const Graph& g, const BatchItem& item, std::int64_t* out, std::int64_t n_max,
                      const std::int64_t* offsets, std::int64_t max_len, const std::int64_t* ids) {
  const i64 n = item.next ? item.next->rows() : 0, stride = n_max > 0 ? n_max : n;
  std::int64_t* base =
      out + (n_max > 0 ? item.index * n_max * n_max : offsets[item.index]) * max_len;
  std::fill_n(base, stride * stride * max_len, std::int64_t(-1));
  if (n == 0 || max_len == 0) return;
  const std::vector<i64> best = lightest_edges(g.is_dense() ? g.edges_from_dense() : g);
  const Matrix& next = *item.next;
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < n; ++j) {
      std::int64_t* o = base + (i * stride + j) * max_len;
      i64 u = i;
      for (i64 k = 0; k < max_len && u != j; ++k) {
        const i64 v = next.at<std::int32_t>(u, j);
        if (v < 0) break;
        const i64 e = best[std::size_t(u * n + v)];
        o[k] = ids && e >= 0 ? ids[e] : e;
        u = v;
      }
    }
}

std::int64_t longest_path_hops(const BatchItem& item) {
  if (!item.next) return 0;
  const Matrix& next = *item.next;
  const i64 n = next.rows();
  i64 longest = 0;
  std::vector<i64> hops(static_cast<std::size_t>(n));
  std::vector<i64> stack;
  for (i64 j = 0; j < n; ++j) {
    std::fill(hops.begin(), hops.end(), i64(-1));
    hops[std::size_t(j)] = 0;
    for (i64 i = 0; i < n; ++i) {
      i64 u = i;
      while (hops[std::size_t(u)] < 0 && next.at<std::int32_t>(u, j) >= 0 &&
             i64(stack.size()) <= n) {
        stack.push_back(u);
        u = next.at<std::int32_t>(u, j);
      }
      i64 h = hops[std::size_t(u)] < 0 ? 0 : hops[std::size_t(u)];
      for (; !stack.empty(); stack.pop_back()) hops[std::size_t(stack.back())] = ++h;
      longest = std::max(longest, h);
    }
  }
  return longest;
}

}  // namespace apsp
