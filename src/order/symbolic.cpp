// src/order/symbolic.cpp — tile-level boolean closure of blocked Floyd-Warshall (symbolic.hpp).
#include "order/symbolic.hpp"

#include <bit>

#include "apsp/errors.hpp"
#include "core/reference.hpp"

namespace apsp::detail {

namespace {

std::int64_t tiles_of(std::int64_t n, std::int64_t B) { return B > 0 ? (n + B - 1) / B : 0; }

/// F at the start: the diagonal tiles and every tile holding an arc. Rows of `words` 64-bit words.
std::vector<std::uint64_t> initial_tiles(const Graph& g, std::int64_t R, std::int64_t B, std::int64_t words) {
  std::vector<std::uint64_t> f(std::size_t(R * words), 0);
  auto set = [&](std::int64_t I, std::int64_t J) { f[std::size_t(I * words + J / 64)] |= std::uint64_t{1} << (J % 64); };
  for (std::int64_t I = 0; I < R; ++I) set(I, I);
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) { set(u / B, v / B); });
  return f;
}

}  // namespace

TilePlan symbolic_tiles(const Graph& g, std::int64_t n, std::int64_t B) {
  APSP_EXPECTS(B > 0 && n >= g.num_vertices, "symbolic analysis: bad tile size or matrix size");
  TilePlan p;
  p.n = n;
  p.B = B;
  p.R = tiles_of(n, B);
  const std::int64_t R = p.R, words = (R + 63) / 64;
  std::vector<std::uint64_t> f = initial_tiles(g, R, B, words);
  auto bit = [&](std::int64_t I, std::int64_t J) { return (f[std::size_t(I * words + J / 64)] >> (J % 64)) & 1; };
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
    const double a = double(p.row_start[std::size_t(T + 1)] - p.row_start[std::size_t(T)]);
    const double b = double(p.col_start[std::size_t(T + 1)] - p.col_start[std::size_t(T)]);
    updates += (a + 1) * (b + 1);  // pivot, both panels, the rest
  }
  p.work_fraction = R > 0 ? updates / (double(R) * double(R) * double(R)) : 1.0;
  return p;
}

double symbolic_fraction_reference(const Graph& g, std::int64_t n, std::int64_t B) {
  const std::int64_t R = tiles_of(n, B);
  std::vector<char> f(std::size_t(R * R), 0);
  for (std::int64_t I = 0; I < R; ++I) f[std::size_t(I * R + I)] = 1;
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) { f[std::size_t(u / B * R + v / B)] = 1; });
  double updates = 0;
  for (std::int64_t T = 0; T < R; ++T)
    for (std::int64_t I = 0; I < R; ++I)
      for (std::int64_t J = 0; J < R; ++J)
        if (f[std::size_t(I * R + T)] && f[std::size_t(T * R + J)]) {
          f[std::size_t(I * R + J)] = 1;
          ++updates;
        }
  return R > 0 ? updates / (double(R) * double(R) * double(R)) : 1.0;
}

}  // namespace apsp::detail
