// src/core/reference.cpp — matrix building and the reference solvers (triple-loop FW, Dijkstra,
// Bellman-Ford) used by the tests and by --verify. Simple on purpose: they check the fast code.
// The reference Dijkstra is the library's one (graph/dijkstra.hpp) over the one CSR.
#include "core/reference.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "apsp/errors.hpp"
#include "core/host_buffer.hpp"
#include "graph/csr.hpp"
#include "graph/dijkstra.hpp"

namespace apsp::detail {

namespace {

template <class T>
T convert_weight(double w) {
  if constexpr (std::is_floating_point_v<T>)
    return T(w);
  else
    return T(std::llround(w));
}

template <class T>
void fill_matrix(const Graph& g, Matrix& m) {
  const std::int64_t rows = m.alloc_rows(), stride = m.stride();
  const T inf = unreachable<T>();
  // Edges are bucketed by bands of rows small enough to stay in L2 (~256 KiB), then each band is
  // filled and gets its edges while it is hot: the random writes of a plain edge loop over the
  // whole matrix (one cache miss each) become cache hits, and bands run in parallel without
  // races, so duplicates keep their minimum without atomics.
  const std::int64_t band =
      std::max<std::int64_t>(1, (std::int64_t{256} << 10) / (stride * std::int64_t(sizeof(T))));
  const std::int64_t bands = (rows + band - 1) / band;
  const std::size_t E = g.num_edges();
  struct Entry {
    std::int32_t u, v;
    T w;
  };
  // Bucketing in parallel: each thread counts, then places, its own contiguous range of edges
  // (per band, thread order then edge order: the input order, though the minimum does not care).
  // The entries need no zeroing; large ones go on huge pages (host_buffer.hpp).
  const int nt = E >= (std::size_t{1} << 16) ? std::max(1, omp_get_max_threads()) : 1;
  const std::size_t per = std::size_t(bands) + 1;
  std::vector<std::int64_t> count(std::size_t(nt) * per, 0);  // count[t * per + b + 1]
  auto range = [&](int t) {
    return std::pair<std::size_t, std::size_t>{E * t / nt, E * (t + 1) / nt};
  };
#pragma omp parallel for schedule(static, 1) num_threads(nt)
  for (int t = 0; t < nt; ++t) {
    std::int64_t* c = count.data() + std::size_t(t) * per;
    const auto [e0, e1] = range(t);
    for (std::size_t e = e0; e < e1; ++e) {
      ++c[std::size_t(g.src[e] / band) + 1];
      if (!g.directed) ++c[std::size_t(g.dst[e] / band) + 1];
    }
  }
  // start[b] = first entry of band b; each thread's first slot in band b after it.
  std::vector<std::int64_t> start(per, 0);
  std::vector<std::int64_t> pos(std::size_t(nt) * per, 0);
  for (std::int64_t b = 0; b < bands; ++b) {
    std::int64_t at = start[std::size_t(b)];
    for (int t = 0; t < nt; ++t) {
      pos[std::size_t(t) * per + std::size_t(b)] = at;
      at += count[std::size_t(t) * per + std::size_t(b) + 1];
    }
    start[std::size_t(b) + 1] = at;
  }
  const std::size_t n_entries = std::size_t(start.back());
  std::unique_ptr<Entry, void (*)(Entry*)> entries(
      static_cast<Entry*>(host_alloc(std::max<std::size_t>(1, n_entries) * sizeof(Entry))),
      [](Entry* q) { std::free(q); });
  if (!entries) throw ResourceError("cannot allocate the edge buckets for the distance matrix");
#pragma omp parallel for schedule(static, 1) num_threads(nt)
  for (int t = 0; t < nt; ++t) {
    std::int64_t* p = pos.data() + std::size_t(t) * per;
    Entry* out = entries.get();
    const auto [e0, e1] = range(t);
    for (std::size_t e = e0; e < e1; ++e) {
      const std::int32_t u = g.src[e], v = g.dst[e];
      const T w = convert_weight<T>(g.weight[e]);
      out[p[std::size_t(u / band)]++] = {u, v, w};
      if (!g.directed) out[p[std::size_t(v / band)]++] = {v, u, w};
    }
  }
#pragma omp parallel for schedule(dynamic, 4) if (rows * stride > (1 << 18))
  for (std::int64_t b = 0; b < bands; ++b) {
    for (std::int64_t i = b * band; i < std::min(rows, (b + 1) * band); ++i) {
      T* r = m.row<T>(i);
      std::fill(r, r + stride, inf);
      if (i < stride) r[i] = T(0);
    }
    for (std::int64_t k = start[std::size_t(b)]; k < start[std::size_t(b) + 1]; ++k) {
      const Entry& x = entries.get()[std::size_t(k)];
      T& d = m.at<T>(x.u, x.v);
      if (x.u == x.v) {
        if (x.w < T(0)) d = std::min(d, x.w);  // negative self loop: a negative cycle
      } else if (x.w < d) {
        d = x.w;
      }
    }
  }
}

/// An edge weight as matrix element T, capped at `inf`: integers exactly (no libm call on this
/// path: llround only for a fractional weight, which choose_dtype never sends to an integer type),
/// saturating where T has no room (a V = 1 graph's self loop may weigh anything); floats rounded.
template <class T>
T dense_element(double w, T inf) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)inf;
    return T(w);
  } else {
    constexpr T kLowest = std::numeric_limits<T>::lowest();
    if (!(w < double(inf))) return inf;
    if (!(w > double(kLowest))) return kLowest;
    const auto i = std::int64_t(w);
    return double(i) == w ? T(i) : T(std::llround(w));
  }
}

template <class T, class S>
void fill_dense_rows_from(const Graph& g, T inf, std::int64_t row0, std::int64_t rows,
                          const TileMap& row_map, std::int64_t cols, const TileMap& col_map, T* out,
                          std::int64_t ld) {
  const std::int64_t n = g.num_vertices;
  const char* base = static_cast<const char*>(g.dense.data);
  const std::int64_t rs = g.dense.row_stride,
                     cs = g.dense.col_stride;  // locals: stores to T may alias
  const bool unweighted = g.dense.unweighted, both = !g.directed;
  constexpr std::int64_t kTile = 64;
  auto load = [](const char* p) {
    S x;
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  auto weight = [&](S x) -> T {
    return dense_is_edge(x) ? dense_element<T>(unweighted ? 1.0 : double(x), inf) : inf;
  };
  const std::int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
#pragma omp parallel for collapse(2) schedule(static) if (rows * cols > (1 << 18))
  for (std::int64_t I = 0; I < row_tiles; ++I)
    for (std::int64_t J = 0; J < col_tiles; ++J) {
      const std::int64_t r_end = std::min(rows, (I + 1) * kTile),
                         c_end = std::min(cols, (J + 1) * kTile);
      // Runs of local columns whose global columns are consecutive (a whole tile of col_map, or
      // the rest of it): global columns [j0, j0 + len), of which the first `real` are < V.
      for (std::int64_t c0 = J * kTile, c1 = 0; c0 < c_end; c0 = c1) {
        c1 = std::min(c_end, (c0 / col_map.tile + 1) * col_map.tile);
        const std::int64_t j0 = col_map(c0), len = c1 - c0,
                           real = std::clamp<std::int64_t>(n - j0, 0, len);
        for (std::int64_t r = I * kTile; r < r_end; ++r) {
          const std::int64_t i = row_map(row0 + r);
          T* o = out + r * ld + c0;  // o[k]: global column j0 + k
          if (i >= n) {              // a padding row
            for (std::int64_t k = 0; k < len; ++k) o[k] = j0 + k == i ? T(0) : inf;
            continue;
          }
          if (real > 0) {
            const char* row_i = base + i * rs + j0 * cs;  // entries (i, j0 + k)
            const char* col_i = base + i * cs + j0 * rs;  // entries (j0 + k, i)
            if (both)
              for (std::int64_t k = 0; k < real; ++k)
                o[k] = std::min(weight(load(row_i + k * cs)), weight(load(col_i + k * rs)));
            else
              for (std::int64_t k = 0; k < real; ++k) o[k] = weight(load(row_i + k * cs));
          }
          for (std::int64_t k = real; k < len; ++k)
            o[k] = inf;                    // padding columns (never i's diagonal)
          if (j0 <= i && i < j0 + real) {  // the diagonal: a self loop only counts when negative (a
                                           // negative cycle)
            const T self = weight(load(base + i * rs + i * cs));
            o[i - j0] = self < T(0) ? self : T(0);
          }
        }
      }
    }
}

template <class T>
void fw_loop(Matrix& d, Matrix* next) {
  const std::int64_t n = d.rows();
  const T inf = unreachable<T>();
  for (std::int64_t k = 0; k < n; ++k) {
    const T* dk = d.row<T>(k);
    const std::int32_t* nk = next ? next->row<std::int32_t>(k) : nullptr;
    (void)nk;
    for (std::int64_t i = 0; i < n; ++i) {
      T* di = d.row<T>(i);
      const T dik = di[k];
      if (dik >= inf) continue;
      std::int32_t* ni = next ? next->row<std::int32_t>(i) : nullptr;
      for (std::int64_t j = 0; j < n; ++j) {
        if (dk[j] >= inf) continue;
        const T s = dik + dk[j];
        if (s < di[j]) {
          di[j] = s;
          if (ni) ni[j] = ni[k];
        }
      }
    }
  }
}

double as_double(const Matrix& m, std::int64_t i, std::int64_t j) {
  return visit_dtype(m.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    const T v = m.at<T>(i, j);
    if (v >= unreachable<T>()) return std::numeric_limits<double>::infinity();
    return double(v);
  });
}

}  // namespace

template <class T>
void fill_dense_rows(const Graph& g, T inf, std::int64_t row0, std::int64_t rows,
                     const TileMap& row_map, std::int64_t cols, const TileMap& col_map, T* out,
                     std::int64_t ld) {
  visit_dtype(g.dense.kind, [&](auto s) {
    fill_dense_rows_from<T, decltype(s)>(g, inf, row0, rows, row_map, cols, col_map, out, ld);
  });
}
template void fill_dense_rows<std::int16_t>(const Graph&, std::int16_t, std::int64_t, std::int64_t,
                                            const TileMap&, std::int64_t, const TileMap&,
                                            std::int16_t*, std::int64_t);
template void fill_dense_rows<std::int32_t>(const Graph&, std::int32_t, std::int64_t, std::int64_t,
                                            const TileMap&, std::int64_t, const TileMap&,
                                            std::int32_t*, std::int64_t);
template void fill_dense_rows<std::int64_t>(const Graph&, std::int64_t, std::int64_t, std::int64_t,
                                            const TileMap&, std::int64_t, const TileMap&,
                                            std::int64_t*, std::int64_t);
template void fill_dense_rows<float>(const Graph&, float, std::int64_t, std::int64_t,
                                     const TileMap&, std::int64_t, const TileMap&, float*,
                                     std::int64_t);
template void fill_dense_rows<double>(const Graph&, double, std::int64_t, std::int64_t,
                                      const TileMap&, std::int64_t, const TileMap&, double*,
                                      std::int64_t);

Matrix build_matrix(const Graph& g, Dtype t, std::int64_t stride, std::int64_t alloc_rows,
                    Memory memory) {
  Matrix m(g.num_vertices, g.num_vertices, stride, alloc_rows, t, memory);
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (g.is_dense())
      fill_dense_rows<T>(g, unreachable<T>(), 0, m.alloc_rows(), {}, m.stride(), {}, m.data<T>(),
                         m.stride());
    else
      fill_matrix<T>(g, m);
  });
  return m;
}

Matrix build_next(const Matrix& dist) {
  Matrix next(dist.rows(), dist.cols(), dist.stride(), dist.alloc_rows(), Dtype::Int32,
              dist.memory());
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T inf = unreachable<T>();
#pragma omp parallel for schedule(static) if (dist.alloc_rows() * dist.stride() > (1 << 18))
    for (std::int64_t i = 0; i < dist.alloc_rows(); ++i) {
      std::int32_t* nr = next.row<std::int32_t>(i);
      const T* dr = dist.row<T>(i);
      for (std::int64_t j = 0; j < dist.stride(); ++j)
        nr[j] =
            (i != j && i < dist.rows() && j < dist.cols() && dr[j] < inf) ? std::int32_t(j) : -1;
    }
  });
  return next;
}

void reference_floyd_warshall(Matrix& dist, Matrix* next) {
  visit_dtype(dist.dtype(), [&](auto tag) { fw_loop<decltype(tag)>(dist, next); });
}

std::vector<double> reference_dijkstra(const Graph& g, std::int64_t source) {
  const Csr<double> arcs = build_csr<double>(g);
  std::vector<double> d(std::size_t(g.num_vertices));
  DijkstraScratch scratch;
  dijkstra_search<false>(arcs, {{std::int32_t(source), 0.0, 0}},
                         std::numeric_limits<double>::infinity(), d.data(), nullptr, scratch,
                         false, [] { return false; });
  return d;
}

bool reference_bellman_ford(const Graph& graph, std::int64_t source, std::vector<double>& d) {
  const Graph edges = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? edges : graph;
  const std::int64_t n = g.num_vertices;
  d.assign(n, std::numeric_limits<double>::infinity());
  d[source] = 0;
  const std::size_t E = g.num_edges();
  auto relax_all = [&]() {
    bool changed = false;
    for (std::size_t e = 0; e < E; ++e) {
      const auto u = g.src[e], v = g.dst[e];
      const double w = g.weight[e];
      if (d[u] + w < d[v]) {
        d[v] = d[u] + w;
        changed = true;
      }
      if (!g.directed && d[v] + w < d[u]) {
        d[u] = d[v] + w;
        changed = true;
      }
    }
    return changed;
  };
  for (std::int64_t it = 0; it < n; ++it)
    if (!relax_all()) return true;
  return !relax_all();
}

std::string verify(const Graph& g, const Matrix& dist, std::int64_t full_limit, int samples,
                   std::uint64_t seed) {
  const std::int64_t n = g.num_vertices;
  if (dist.rows() != n || dist.cols() != n) return "result has the wrong shape";
  const bool exact = is_integer(dist.dtype());
  const double rel = dist.dtype() == Dtype::Float32 ? 1e-5 : 1e-12;
  std::ostringstream os;
  int bad = 0;
  auto check = [&](std::int64_t i, std::int64_t j, double want) {
    const double got = as_double(dist, i, j);
    const bool ok = exact || std::isinf(want)
                        ? got == want
                        : std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
    if (!ok && bad++ < 5)
      os << (bad > 1 ? "; " : "") << "(" << i << "," << j << "): got " << got << " want " << want;
  };
  const bool negative = g.min_weight() < 0;
  if (n <= full_limit) {
    Matrix ref = build_matrix(g, Dtype::Float64, n, n);
    reference_floyd_warshall(ref);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) check(i, j, as_double(ref, i, j));
  } else {
    const Graph edges = g.is_dense() ? g.edges_from_dense() : Graph{};  // once, not per source
    const Graph& ge = g.is_dense() ? edges : g;
    std::mt19937_64 rng(seed);
    for (int s = 0; s < samples; ++s) {
      const std::int64_t src = std::int64_t(rng() % std::uint64_t(n));
      std::vector<double> d;
      if (negative)
        reference_bellman_ford(ge, src, d);
      else
        d = reference_dijkstra(ge, src);
      for (std::int64_t j = 0; j < n; ++j) check(src, j, d[j]);
    }
  }
  if (bad) os << " (" << bad << " mismatches)";
  return os.str();
}

bool may_have_zero_weight_cycle(const Graph& g) {
  const std::int64_t n = g.num_vertices;
  std::vector<std::pair<std::int32_t, std::int32_t>> zero;
  if (g.is_dense()) return false;  // in a view 0 means "no edge": no edge weighs 0
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    if (g.weight[e] != 0 || g.src[e] == g.dst[e]) continue;
    if (!g.directed) return true;
    zero.emplace_back(g.src[e], g.dst[e]);
  }
  if (zero.empty()) return false;
  std::vector<std::int64_t> start(std::size_t(n) + 1, 0);
  std::vector<std::int32_t> indeg(std::size_t(n), 0);
  for (const auto& [u, v] : zero) ++start[std::size_t(u) + 1], ++indeg[std::size_t(v)];
  for (std::int64_t i = 0; i < n; ++i) start[std::size_t(i) + 1] += start[std::size_t(i)];
  std::vector<std::int32_t> to(zero.size());
  std::vector<std::int64_t> at(start.begin(), start.end() - 1);
  for (const auto& [u, v] : zero) to[std::size_t(at[std::size_t(u)]++)] = v;
  std::vector<std::int32_t> ready;
  for (std::int64_t i = 0; i < n; ++i)
    if (indeg[std::size_t(i)] == 0) ready.push_back(std::int32_t(i));
  std::int64_t removed = 0;
  while (!ready.empty()) {
    const std::int32_t u = ready.back();
    ready.pop_back();
    ++removed;
    for (std::int64_t k = start[std::size_t(u)]; k < start[std::size_t(u) + 1]; ++k)
      if (--indeg[std::size_t(to[std::size_t(k)])] == 0) ready.push_back(to[std::size_t(k)]);
  }
  return removed < n;  // what is left lies on or behind a zero-weight cycle
}

}  // namespace apsp::detail
