// src/order/symbolic.cpp — tile-level boolean closure of blocked Floyd-Warshall (symbolic.hpp).
#include "order/symbolic.hpp"

#include <algorithm>
#include <bit>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

namespace apsp::detail {

namespace {
std::vector<std::int32_t> with_pivot(const std::vector<std::int32_t>& list,
                                     const std::vector<std::int64_t>& start, std::int64_t t) {
  std::vector<std::int32_t> out(list.begin() + start[std::size_t(t)],
                                list.begin() + start[std::size_t(t) + 1]);
  out.insert(std::lower_bound(out.begin(), out.end(), std::int32_t(t)), std::int32_t(t));
  return out;
}
}  // namespace

std::vector<std::int32_t> TilePlan::rows_with_pivot(std::int64_t t) const {
  return with_pivot(rows, row_start, t);
}
std::vector<std::int32_t> TilePlan::cols_with_pivot(std::int64_t t) const {
  return with_pivot(cols, col_start, t);
}

std::vector<std::int32_t> word_tiles(const std::vector<std::int32_t>& cols) {
  std::vector<std::int32_t> w;
  for (const std::int32_t c : cols)
    if (w.empty() || w.back() != c / 2) w.push_back(c / 2);
  return w;
}

namespace {

std::int64_t tiles_of(std::int64_t n, std::int64_t B) { return B > 0 ? (n + B - 1) / B : 0; }

/// F at the start: the diagonal tiles and every tile holding an arc. Rows of `words` 64-bit words.
std::vector<std::uint64_t> initial_tiles(const Graph& g, const std::vector<std::int64_t>& bounds,
                                         std::int64_t words) {
  const std::int64_t R = std::int64_t(bounds.size()) - 1;
  std::vector<std::int32_t> tile(std::size_t(g.num_vertices));
  for (std::int64_t I = 0; I < R; ++I)
    for (std::int64_t v = bounds[std::size_t(I)];
         v < std::min(bounds[std::size_t(I + 1)], g.num_vertices); ++v)
      tile[std::size_t(v)] = std::int32_t(I);
  std::vector<std::uint64_t> f(std::size_t(R * words), 0);
  auto set = [&](std::int64_t I, std::int64_t J) {
    f[std::size_t(I * words + J / 64)] |= std::uint64_t{1} << (J % 64);
  };
  for (std::int64_t I = 0; I < R; ++I) set(I, I);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    set(tile[std::size_t(u)], tile[std::size_t(v)]);
  });
  return f;
}

}  // namespace

TilePlan symbolic_tiles(const Graph& g, std::int64_t n, std::int64_t B) {
  APSP_EXPECTS(B > 0, "symbolic analysis: bad tile size");
  std::vector<std::int64_t> bounds;
  for (std::int64_t b = 0; b < n; b += B) bounds.push_back(b);
  bounds.push_back(n);
  return symbolic_tiles(g, std::move(bounds), n);
}

TilePlan symbolic_tiles(const Graph& g, std::vector<std::int64_t> bounds, std::int64_t dense_n) {
  APSP_EXPECTS(bounds.size() >= 2 && bounds.front() == 0 && bounds.back() >= g.num_vertices,
               "symbolic analysis: bad tile bounds");
  TilePlan p;
  p.n = bounds.back();
  p.R = std::int64_t(bounds.size()) - 1;
  for (std::int64_t I = 0; I < p.R; ++I) {
    APSP_EXPECTS(bounds[std::size_t(I + 1)] > bounds[std::size_t(I)],
                 "symbolic analysis: empty tile");
    p.B = std::max(p.B, bounds[std::size_t(I + 1)] - bounds[std::size_t(I)]);
  }
  p.bounds = std::move(bounds);
  auto width = [&](std::int64_t I) {
    return double(p.bounds[std::size_t(I + 1)] - p.bounds[std::size_t(I)]);
  };
  const std::int64_t R = p.R, words = (R + 63) / 64;
  std::vector<std::uint64_t> f = initial_tiles(g, p.bounds, words);
  auto bit = [&](std::int64_t I, std::int64_t J) {
    return (f[std::size_t(I * words + J / 64)] >> (J % 64)) & 1;
  };
  p.row_start.assign(std::size_t(R + 1), 0);
  p.col_start.assign(std::size_t(R + 1), 0);
  double updates = 0;
  for (std::int64_t T = 0; T < R; ++T) {
    const std::uint64_t* fT = &f[std::size_t(T * words)];
    for (std::int64_t J = 0; J < R; ++J)
      if (J != T && bit(T, J)) p.cols.push_back(std::int32_t(J));
    for (std::int64_t I = 0; I < R; ++I) {
      if (I == T || !bit(I, T)) continue;
      p.rows.push_back(std::int32_t(I));
      std::uint64_t* fI = &f[std::size_t(I * words)];
      for (std::int64_t w = 0; w < words; ++w) fI[w] |= fT[w];
    }
    p.row_start[std::size_t(T + 1)] = std::int64_t(p.rows.size());
    p.col_start[std::size_t(T + 1)] = std::int64_t(p.cols.size());
    double a = width(T), b = width(T);  // pivot, both panels, the rest
    for (std::int64_t x = p.row_start[std::size_t(T)]; x < p.row_start[std::size_t(T + 1)]; ++x)
      a += width(p.rows[std::size_t(x)]);
    for (std::int64_t x = p.col_start[std::size_t(T)]; x < p.col_start[std::size_t(T + 1)]; ++x)
      b += width(p.cols[std::size_t(x)]);
    updates += width(T) * a * b;
  }
  const double d = double(dense_n);
  p.work_fraction = d > 0 ? updates / (d * d * d) : 1.0;
  return p;
}

double symbolic_fraction_reference(const Graph& g, std::int64_t n, std::int64_t B) {
  const std::int64_t R = tiles_of(n, B);
  std::vector<char> f(std::size_t(R * R), 0);
  for (std::int64_t I = 0; I < R; ++I) f[std::size_t(I * R + I)] = 1;
  for_each_arc(
      g, [&](std::int32_t u, std::int32_t v, double) { f[std::size_t(u / B * R + v / B)] = 1; });
  auto width = [&](std::int64_t I) { return double(std::min(B, n - I * B)); };
  double updates = 0;
  for (std::int64_t T = 0; T < R; ++T)
    for (std::int64_t I = 0; I < R; ++I)
      for (std::int64_t J = 0; J < R; ++J)
        if (f[std::size_t(I * R + T)] && f[std::size_t(T * R + J)]) {
          f[std::size_t(I * R + J)] = 1;
          updates += width(T) * width(I) * width(J);
        }
  return n > 0 ? updates / (double(n) * double(n) * double(n)) : 1.0;
}

}  // namespace apsp::detail
