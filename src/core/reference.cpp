// src/core/reference.cpp — matrix building and the reference solvers (triple-loop FW, Dijkstra,
// Bellman-Ford) used by the tests and by --verify. Simple on purpose: they check the fast code.
#include "core/reference.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <sstream>

#include "apsp/errors.hpp"

namespace apsp::detail {

namespace {

template <class T> T convert_weight(double w) {
  if constexpr (std::is_floating_point_v<T>) return T(w);
  else return T(std::llround(w));
}

template <class T> void fill_matrix(const Graph& g, Matrix& m) {
  const std::int64_t rows = m.alloc_rows(), stride = m.stride();
  const T inf = unreachable<T>();
  // Edges are bucketed by bands of rows small enough to stay in L2 (~256 KiB), then each band is
  // filled and gets its edges while it is hot: the random writes of a plain edge loop over the
  // whole matrix (one cache miss each) become cache hits, and bands run in parallel without
  // races, so duplicates keep their minimum without atomics.
  const std::int64_t band = std::max<std::int64_t>(1, (std::int64_t{256} << 10) / (stride * std::int64_t(sizeof(T))));
  const std::int64_t bands = (rows + band - 1) / band;
  const std::size_t E = g.num_edges();
  struct Entry {
    std::int32_t u, v;
    T w;
  };
  std::vector<std::int64_t> start(std::size_t(bands) + 1, 0);
  for (std::size_t e = 0; e < E; ++e) {
    ++start[std::size_t(g.src[e] / band) + 1];
    if (!g.directed) ++start[std::size_t(g.dst[e] / band) + 1];
  }
  for (std::int64_t b = 0; b < bands; ++b) start[std::size_t(b) + 1] += start[std::size_t(b)];
  std::vector<Entry> entries(static_cast<std::size_t>(start.back()));
  {
    std::vector<std::int64_t> pos(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < E; ++e) {
      const std::int32_t u = g.src[e], v = g.dst[e];
      const T w = convert_weight<T>(g.weight[e]);
      entries[std::size_t(pos[std::size_t(u / band)]++)] = {u, v, w};
      if (!g.directed) entries[std::size_t(pos[std::size_t(v / band)]++)] = {v, u, w};
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
      const Entry& x = entries[std::size_t(k)];
      T& d = m.at<T>(x.u, x.v);
      if (x.u == x.v) {
        if (x.w < T(0)) d = std::min(d, x.w);  // negative self loop: a negative cycle
      } else if (x.w < d) {
        d = x.w;
      }
    }
  }
}

/// fill_matrix for a dense graph, straight from its matrix: entry (i, j) of the distances is
/// +inf (unreachable) lowered by the view's entry (i, j) when it is an edge and, undirected, by
/// entry (j, i) too (the edge list's "both directions, lightest wins"); the diagonal is 0 unless
/// a self loop is negative. Square tiles, so a transposed view or the (j, i) reads of an
/// undirected one stay in cache; rows of tiles in parallel.
template <class T, class S> void fill_matrix_dense(const Graph& g, Matrix& m) {
  const std::int64_t n = g.num_vertices, rows = m.alloc_rows(), stride = m.stride();
  const char* base = static_cast<const char*>(g.dense.data);
  const std::int64_t rs = g.dense.row_stride, cs = g.dense.col_stride;  // locals: stores to T may alias
  const bool unweighted = g.dense.unweighted, both = !g.directed;
  const T inf = unreachable<T>();
  constexpr std::int64_t kTile = 64;
  auto load = [](const char* p) {
    S x;
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  // The edge weight of x as T (convert_weight's value; an integer weight in range skips its
  // llround, a libm call per entry), or inf for "no edge".
  auto weight = [&](S x) -> T {
    if (!dense_is_edge(x)) return inf;
    const double w = unweighted ? 1.0 : double(x);
    if constexpr (std::is_integral_v<T>) {
      constexpr double kInRange = std::is_same_v<T, std::int32_t> ? 0x1p31 : 0x1p62;
      if (std::fabs(w) < kInRange && double(std::int64_t(w)) == w) return T(std::int64_t(w));
    }
    return convert_weight<T>(w);
  };
#pragma omp parallel for schedule(dynamic, 1) if (rows * stride > (1 << 18))
  for (std::int64_t I = 0; I < rows; I += kTile) {
    const std::int64_t i_end = std::min(rows, I + kTile), i_last = std::min(i_end, n);
    for (std::int64_t i = I; i < i_end; ++i) {  // padding rows and columns
      T* r = m.row<T>(i);
      std::fill(r + (i < n ? n : 0), r + stride, inf);
      if (i >= n && i < stride) r[i] = T(0);
    }
    for (std::int64_t J = 0; J < n; J += kTile) {
      const std::int64_t j_end = std::min(J + kTile, n);
      for (std::int64_t i = I; i < i_last; ++i) {
        T* r = m.row<T>(i);
        const char* row_i = base + i * rs;  // entries (i, j)
        const char* col_i = base + i * cs;  // entries (j, i)
        if (both)
          for (std::int64_t j = J; j < j_end; ++j) r[j] = std::min(weight(load(row_i + j * cs)), weight(load(col_i + j * rs)));
        else
          for (std::int64_t j = J; j < j_end; ++j) r[j] = weight(load(row_i + j * cs));
        if (J <= i && i < j_end) {  // the diagonal: a self loop only counts when negative (a negative cycle)
          const T self = weight(load(row_i + i * cs));
          r[i] = self < T(0) ? self : T(0);
        }
      }
    }
  }
}

template <class T> void fw_loop(Matrix& d, Matrix* next) {
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

Matrix build_matrix(const Graph& g, Dtype t, std::int64_t stride, std::int64_t alloc_rows, Memory memory) {
  Matrix m(g.num_vertices, g.num_vertices, stride, alloc_rows, t, memory);
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (g.is_dense()) visit_dtype(g.dense.kind, [&](auto s) { fill_matrix_dense<T, decltype(s)>(g, m); });
    else fill_matrix<T>(g, m);
  });
  return m;
}

Matrix build_next(const Matrix& dist) {
  Matrix next(dist.rows(), dist.cols(), dist.stride(), dist.alloc_rows(), Dtype::Int32, dist.memory());
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T inf = unreachable<T>();
#pragma omp parallel for schedule(static) if (dist.alloc_rows() * dist.stride() > (1 << 18))
    for (std::int64_t i = 0; i < dist.alloc_rows(); ++i) {
      std::int32_t* nr = next.row<std::int32_t>(i);
      const T* dr = dist.row<T>(i);
      for (std::int64_t j = 0; j < dist.stride(); ++j)
        nr[j] = (i != j && i < dist.rows() && j < dist.cols() && dr[j] < inf) ? std::int32_t(j) : -1;
    }
  });
  return next;
}

void reference_floyd_warshall(Matrix& dist, Matrix* next) {
  visit_dtype(dist.dtype(), [&](auto tag) { fw_loop<decltype(tag)>(dist, next); });
}

std::vector<double> reference_dijkstra(const Graph& graph, std::int64_t source) {
  const Graph edges = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? edges : graph;
  const std::int64_t n = g.num_vertices;
  std::vector<std::int64_t> start(n + 1, 0);
  std::vector<std::pair<std::int32_t, double>> adj;
  const std::size_t E = g.num_edges();
  for (std::size_t e = 0; e < E; ++e) {
    ++start[g.src[e] + 1];
    if (!g.directed) ++start[g.dst[e] + 1];
  }
  for (std::int64_t v = 0; v < n; ++v) start[v + 1] += start[v];
  adj.resize(start[n]);
  std::vector<std::int64_t> pos(start.begin(), start.end() - 1);
  for (std::size_t e = 0; e < E; ++e) {
    adj[pos[g.src[e]]++] = {g.dst[e], g.weight[e]};
    if (!g.directed) adj[pos[g.dst[e]]++] = {g.src[e], g.weight[e]};
  }
  std::vector<double> d(n, std::numeric_limits<double>::infinity());
  using Item = std::pair<double, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  d[source] = 0;
  pq.push({0, source});
  while (!pq.empty()) {
    auto [du, u] = pq.top();
    pq.pop();
    if (du > d[u]) continue;
    for (std::int64_t a = start[u]; a < start[u + 1]; ++a) {
      const auto [v, w] = adj[a];
      if (du + w < d[v]) {
        d[v] = du + w;
        pq.push({d[v], v});
      }
    }
  }
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
      if (d[u] + w < d[v]) { d[v] = d[u] + w; changed = true; }
      if (!g.directed && d[v] + w < d[u]) { d[u] = d[v] + w; changed = true; }
    }
    return changed;
  };
  for (std::int64_t it = 0; it < n; ++it)
    if (!relax_all()) return true;
  return !relax_all();
}

std::string verify(const Graph& g, const Matrix& dist, std::int64_t full_limit, int samples, std::uint64_t seed) {
  const std::int64_t n = g.num_vertices;
  if (dist.rows() != n || dist.cols() != n) return "result has the wrong shape";
  const bool exact = is_integer(dist.dtype());
  const double rel = dist.dtype() == Dtype::Float32 ? 1e-5 : 1e-12;
  std::ostringstream os;
  int bad = 0;
  auto check = [&](std::int64_t i, std::int64_t j, double want) {
    const double got = as_double(dist, i, j);
    const bool ok = exact || std::isinf(want) ? got == want
                                              : std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
    if (!ok && bad++ < 5) os << (bad > 1 ? "; " : "") << "(" << i << "," << j << "): got " << got << " want " << want;
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
      if (negative) reference_bellman_ford(ge, src, d);
      else d = reference_dijkstra(ge, src);
      for (std::int64_t j = 0; j < n; ++j) check(src, j, d[j]);
    }
  }
  if (bad) os << " (" << bad << " mismatches)";
  return os.str();
}

}  // namespace apsp::detail
