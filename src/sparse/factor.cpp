// src/sparse/factor.cpp — assembly of the graph's arcs into the blocks, then the left-looking
// supernodal min-plus factorization (factor.hpp).
#include "sparse/factor.hpp"

#include <omp.h>

#include "core/reference.hpp"

namespace apsp::detail::sparse {

namespace {

// c[0 .. n) = min(c, a + b[0 .. n)) (a finite): the factorization's inner loop, one clone per
// instruction set (GCC function multiversioning picks at load time; the build targets baseline
// x86-64).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define APSP_SPARSE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define APSP_SPARSE_CLONES
#endif
#define APSP_SPARSE_AXPY(T)                                                              \
  APSP_SPARSE_CLONES void minplus_axpy(T* __restrict c, T a, const T* __restrict b,      \
                                       std::int64_t n) {                                 \
    for (std::int64_t j = 0; j < n; ++j) c[j] = c[j] < T(a + b[j]) ? c[j] : T(a + b[j]); \
  }
APSP_SPARSE_AXPY(std::int32_t)
APSP_SPARSE_AXPY(std::int64_t)
APSP_SPARSE_AXPY(float)
APSP_SPARSE_AXPY(double)
#undef APSP_SPARSE_AXPY

/// Position of ordered vertex j in struct(k) (j must be there).
std::int64_t position(const SupernodalPlan& p, std::int64_t k, std::int32_t j) {
  const std::int32_t* s = p.struct_of(k);
  return std::lower_bound(s, s + p.struct_size(k), j) - s;
}

/// Blocks laid out, every entry unreachable, D's diagonal 0, then the arcs (lightest wins).
template <class T>
Factors<T> assemble(const Graph& g, const SupernodalPlan& p) {
  Factors<T> f;
  const std::int64_t nodes = p.nodes();
  f.d_at.resize(std::size_t(nodes));
  f.l_at.resize(std::size_t(nodes));
  f.u_at.resize(std::size_t(nodes));
  std::int64_t at = 0;
  for (std::int64_t k = 0; k < nodes; ++k) {
    const std::int64_t w = p.width(k), s = p.struct_size(k);
    f.d_at[std::size_t(k)] = at;
    f.l_at[std::size_t(k)] = at + w * w;
    f.u_at[std::size_t(k)] = at + w * w + s * w;
    at += w * (w + 2 * s);
  }
  f.v.assign(std::size_t(at), unreachable<T>());
  for (std::int64_t k = 0; k < nodes; ++k)
    for (std::int64_t i = 0; i < p.width(k); ++i) f.d(k)[i * p.width(k) + i] = T(0);
  const std::vector<std::int32_t>& nw = p.tree.perm.new_of_old;
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double w) {
    const std::int32_t i = nw[std::size_t(u)], j = nw[std::size_t(v)];
    const T x = weight_as<T>(w);
    const std::int64_t a = p.node_of[std::size_t(std::min(i, j))];
    const std::int64_t fa = p.first(a), wa = p.width(a);
    T* e;
    if (p.node_of[std::size_t(std::max(i, j))] == a)
      e = f.d(a) + (i - fa) * wa + (j - fa);
    else if (i < j)
      e = f.u(a) + (i - fa) * p.struct_size(a) + position(p, a, j);
    else
      e = f.l(a) + position(p, a, i) * wa + (j - fa);
    *e = std::min(*e, x);
  });
  return f;
}

/// Node a takes the Schur update of descendant c: L_c[off:] (x) U_c[:, off:end] into D_a and
/// L_a (rows in a, rows above), L_c[off:end] (x) U_c[:, end:] into U_a. pos[j] = position of j
/// in struct(a). Rows are independent: `inner` OpenMP threads share them.
template <class T>
void apply_update(const SupernodalPlan& p, Factors<T>& f, std::int64_t a, std::int64_t c,
                  std::int64_t off, std::int64_t end, const std::vector<std::int32_t>& pos,
                  int inner) {
  const std::int64_t wc = p.width(c), sz = p.struct_size(c), fa = p.first(a), wa = p.width(a);
  const std::int64_t sa = p.struct_size(a);
  const std::int32_t* s = p.struct_of(c);
  const T inf = unreachable<T>();
  const T* lc = f.l(c);
  const T* uc = f.u(c);
#pragma omp parallel num_threads(inner) if (inner > 1)
  {
    std::vector<T> scratch(static_cast<std::size_t>(sz));
    T* row = scratch.data();
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t r = off; r < sz; ++r) {
      // Columns in a for every row; columns above a only for rows in a.
      const std::int64_t c1 = r < end ? sz : end;
      std::fill(row + off, row + c1, inf);
      for (std::int64_t t = 0; t < wc; ++t) {
        const T x = lc[r * wc + t];
        if (x < inf) minplus_axpy(row + off, x, uc + t * sz + off, c1 - off);
      }
      if (r < end) {  // row in a: D_a and U_a
        T* dr = f.d(a) + (s[r] - fa) * wa;
        for (std::int64_t q = off; q < end; ++q) dr[s[q] - fa] = std::min(dr[s[q] - fa], row[q]);
        T* ur = f.u(a) + (s[r] - fa) * sa;
        for (std::int64_t q = end; q < sz; ++q) {
          T& e = ur[pos[std::size_t(s[q])]];
          e = std::min(e, row[q]);
        }
      } else {  // row above a: L_a
        T* lr = f.l(a) + std::int64_t(pos[std::size_t(s[r])]) * wa;
        for (std::int64_t q = off; q < end; ++q) lr[s[q] - fa] = std::min(lr[s[q] - fa], row[q]);
      }
    }
  }
}

/// Closes D_a (plain FW) and applies it: L_a = L_a (x) D*, U_a = D* (x) U_a (rows shared by
/// `inner` OpenMP threads).
template <class T>
void close_and_apply(const SupernodalPlan& p, Factors<T>& f, std::int64_t a, int inner) {
  const std::int64_t w = p.width(a), s = p.struct_size(a);
  const T inf = unreachable<T>();
  T* d = f.d(a);
  for (std::int64_t k = 0; k < w; ++k) {
#pragma omp parallel for schedule(static) num_threads(inner) if (inner > 1 && w >= 64)
    for (std::int64_t i = 0; i < w; ++i) {
      const T x = d[i * w + k];
      if (x < inf && i != k) minplus_axpy(d + i * w, x, d + k * w, w);
    }
  }
  T* l = f.l(a);
#pragma omp parallel num_threads(inner) if (inner > 1)
  {
    std::vector<T> row(static_cast<std::size_t>(w));
#pragma omp for schedule(static)
    for (std::int64_t r = 0; r < s; ++r) {
      std::copy(l + r * w, l + r * w + w, row.data());
      for (std::int64_t t = 0; t < w; ++t)
        if (row[std::size_t(t)] < inf) minplus_axpy(l + r * w, row[std::size_t(t)], d + t * w, w);
    }
  }
  if (s == 0) return;
  T* u = f.u(a);
  const std::vector<T> old(u, u + w * s);
#pragma omp parallel for schedule(static) num_threads(inner) if (inner > 1)
  for (std::int64_t i = 0; i < w; ++i)
    for (std::int64_t t = 0; t < w; ++t) {
      const T x = d[i * w + t];
      if (x < inf && i != t) minplus_axpy(u + i * s, x, old.data() + t * s, s);
    }
}

template <class T>
void factor_node(const SupernodalPlan& p, Factors<T>& f, std::int64_t a,
                 std::vector<std::int32_t>& pos, int inner) {
  const std::int32_t* s = p.struct_of(a);
  for (std::int64_t q = 0; q < p.struct_size(a); ++q) pos[std::size_t(s[q])] = std::int32_t(q);
  for (std::int64_t e = p.uptr[std::size_t(a)]; e < p.uptr[std::size_t(a) + 1]; ++e)
    apply_update(p, f, a, p.ukid[std::size_t(e)], p.uoff[std::size_t(e)], p.uend[std::size_t(e)],
                 pos, inner);
  close_and_apply(p, f, a, inner);
}

}  // namespace

template <class T>
Factors<T> factorize(const Graph& g, const SupernodalPlan& p, int threads) {
  Factors<T> f = assemble<T>(g, p);
  const std::int64_t nodes = p.nodes();
  std::int32_t top = 0;
  for (std::int64_t k = 0; k < nodes; ++k) top = std::max(top, p.height[std::size_t(k)]);
  // Nodes by height: each height's nodes are independent. Heights with many nodes share them
  // out; the few large nodes near the roots share their rows instead.
  std::vector<std::vector<std::int32_t>> level(std::size_t(top) + 1);
  for (std::int64_t k = 0; k < nodes; ++k)
    level[std::size_t(p.height[std::size_t(k)])].push_back(std::int32_t(k));
  std::vector<std::vector<std::int32_t>> pos(std::size_t(threads),
                                             std::vector<std::int32_t>(std::size_t(p.n()), 0));
  for (const std::vector<std::int32_t>& nodes_at : level) {
    if (std::int64_t(nodes_at.size()) < 2 * std::int64_t(threads)) {
      for (const std::int32_t a : nodes_at) factor_node(p, f, a, pos[0], threads);
      continue;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t i = 0; i < nodes_at.size(); ++i)
      factor_node(p, f, nodes_at[i], pos[std::size_t(omp_get_thread_num())], 1);
  }
  return f;
}

template Factors<std::int32_t> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<std::int64_t> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<float> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<double> factorize(const Graph&, const SupernodalPlan&, int);

}  // namespace apsp::detail::sparse
