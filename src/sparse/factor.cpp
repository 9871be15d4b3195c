// src/sparse/factor.cpp — assembly of the graph's arcs into the blocks, then the left-looking
// supernodal min-plus factorization (factor.hpp).
#include "sparse/factor.hpp"

#include <omp.h>

#include <atomic>
#include <mutex>
#include <thread>

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

/// e = min(e, x), several threads at once (two arcs of one pair may meet).
template <class T>
void lower_shared(T& e, T x) {
  std::atomic_ref<T> a(e);
  T cur = a.load(std::memory_order_relaxed);
  while (x < cur && !a.compare_exchange_weak(cur, x, std::memory_order_relaxed)) {
  }
}

/// Blocks laid out, every entry unreachable, D's diagonal 0, then the arcs (lightest wins); the
/// blocks filled and the arcs placed by `threads` threads (at V = 126k the arcs' scattered
/// writes took most of a serial assembly).
template <class T>
Factors<T> assemble(const Graph& g, const SupernodalPlan& p, int threads) {
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
  f.v.resize(std::size_t(at));  // uninitialised (UninitAlloc): filled below
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (std::int64_t k = 0; k < nodes; ++k) {
    const std::int64_t w = p.width(k), end = k + 1 < nodes ? f.d_at[std::size_t(k) + 1] : at;
    std::fill(f.v.data() + f.d_at[std::size_t(k)], f.v.data() + end, unreachable<T>());
    for (std::int64_t i = 0; i < w; ++i) f.d(k)[i * w + i] = T(0);
  }
  const std::vector<std::int32_t>& nw = p.tree.perm.new_of_old;
#pragma omp parallel num_threads(threads)
  for_each_arc(
      g,
      [&](std::int32_t u, std::int32_t v, double w) {
        const std::int32_t i = nw[std::size_t(u)], j = nw[std::size_t(v)];
        const std::int64_t a = p.node_of[std::size_t(std::min(i, j))];
        const std::int64_t fa = p.first(a), wa = p.width(a);
        T* e;
        if (p.node_of[std::size_t(std::max(i, j))] == a)
          e = f.d(a) + (i - fa) * wa + (j - fa);
        else if (i < j)
          e = f.u(a) + (i - fa) * p.struct_size(a) + position(p, a, j);
        else
          e = f.l(a) + position(p, a, i) * wa + (j - fa);
        lower_shared(*e, weight_as<T>(w));
      },
      omp_get_thread_num(), omp_get_num_threads());
  return f;
}

/// Node a takes the Schur update of descendant c: L_c[off:] (x) U_c[:, off:end] into D_a and
/// L_a (rows in a, rows above), L_c[off:end] (x) U_c[:, end:] into U_a. pos[j] = position of j
/// in struct(a); `row` a scratch of |struct(c)| entries. Of the team of `parts` threads sharing
/// node a, this one (`part`) takes the rows of a's blocks it owns (row index modulo parts), so the
/// team needs no barrier between updates.
template <class T>
void apply_update(const SupernodalPlan& p, Factors<T>& f, std::int64_t a, std::int64_t c,
                  std::int64_t off, std::int64_t end, const std::vector<std::int32_t>& pos, T* row,
                  int part, int parts) {
  const std::int64_t wc = p.width(c), sz = p.struct_size(c), fa = p.first(a), wa = p.width(a);
  const std::int64_t sa = p.struct_size(a);
  const std::int32_t* s = p.struct_of(c);
  const T inf = unreachable<T>();
  const T* lc = f.l(c);
  const T* uc = f.u(c);
  for (std::int64_t r = off; r < sz; ++r) {
    // a's row: D_a / U_a row s[r] - fa, or L_a row pos[s[r]] (numbered after D's).
    const std::int64_t owner = r < end ? s[r] - fa : wa + pos[std::size_t(s[r])];
    if (parts > 1 && owner % parts != part) continue;
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

/// f(i) for i < n: shared by the calling team's threads (orphaned worksharing, a barrier at the
/// end) or, for a node one thread factors alone, all by the calling thread (no parallel region
/// a node: at V = 126k the solo nodes are thousands of small steps).
template <class F>
void share(bool team, std::int64_t n, F&& f) {
  if (!team) {
    for (std::int64_t i = 0; i < n; ++i) f(i);
    return;
  }
#pragma omp for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) f(i);
}

/// Closes D_a (plain FW) and applies it: L_a = L_a (x) D*, U_a = D* (x) U_a. Called by every
/// thread of a team (team: the loops are shared) or by one thread alone.
template <class T>
void close_and_apply(const SupernodalPlan& p, Factors<T>& f, std::int64_t a, T* row,
                     std::vector<T>& old, bool team) {
  const std::int64_t w = p.width(a), s = p.struct_size(a);
  const T inf = unreachable<T>();
  T* d = f.d(a);
  for (std::int64_t k = 0; k < w; ++k)
    share(team, w, [&](std::int64_t i) {
      const T x = d[i * w + k];
      if (x < inf && i != k) minplus_axpy(d + i * w, x, d + k * w, w);
    });
  T* l = f.l(a);
  share(team, s, [&](std::int64_t r) {
    std::copy(l + r * w, l + r * w + w, row);
    for (std::int64_t t = 0; t < w; ++t)
      if (row[t] < inf) minplus_axpy(l + r * w, row[t], d + t * w, w);
  });
  if (s == 0) return;
  T* u = f.u(a);
  if (team) {
#pragma omp single
    old.assign(u, u + w * s);
  } else {
    old.assign(u, u + w * s);
  }
  share(team, w, [&](std::int64_t i) {
    for (std::int64_t t = 0; t < w; ++t) {
      const T x = d[i * w + t];
      if (x < inf && i != t) minplus_axpy(u + i * s, x, old.data() + t * s, s);
    }
  });
}

/// Node a by one thread (part 0 of 1, team false) or by every thread of a team (the caller's
/// parallel region): pos and old are the team's shared scratch (a solo thread's own), row this
/// thread's.
template <class T>
void factor_node(const SupernodalPlan& p, Factors<T>& f, std::int64_t a,
                 std::vector<std::int32_t>& pos, T* row, std::vector<T>& old, int part, int parts,
                 bool team) {
  const std::int32_t* s = p.struct_of(a);
  share(team, p.struct_size(a), [&](std::int64_t q) { pos[std::size_t(s[q])] = std::int32_t(q); });
  for (std::int64_t e = p.uptr[std::size_t(a)]; e < p.uptr[std::size_t(a) + 1]; ++e)
    apply_update(p, f, a, p.ukid[std::size_t(e)], p.uoff[std::size_t(e)], p.uend[std::size_t(e)],
                 pos, row, part, parts);
  if (team) {
#pragma omp barrier
  }
  close_and_apply(p, f, a, row, old, team);
}

/// Min-plus updates of node a's step (its descendants' updates, the closure, L and U).
double node_work(const SupernodalPlan& p, std::int64_t a) {
  const double w = double(p.width(a)), s = double(p.struct_size(a));
  double work = w * w * w + 2 * w * w * s;
  for (std::int64_t e = p.uptr[std::size_t(a)]; e < p.uptr[std::size_t(a) + 1]; ++e) {
    const std::int32_t c = p.ukid[std::size_t(e)];
    const double in = double(p.uend[std::size_t(e)] - p.uoff[std::size_t(e)]);
    const double from = double(p.struct_size(c) - p.uoff[std::size_t(e)]);
    work += double(p.width(c)) * in * (2 * from - in);
  }
  return work;
}

/// A node is shared by the whole team when its step has at least this many updates (and so are
/// its ancestors); smaller ones go one per thread as soon as their children are done.
constexpr double kTeamWork = 4e6;
/// Updates of the factorization per thread it takes (at least one thread).
constexpr double kThreadWork = 4e6;

}  // namespace

template <class T>
Factors<T> factorize(const Graph& g, const SupernodalPlan& p, int threads) {
  // A thread per kThreadWork updates at most: a small factorization on many threads spends
  // more in its ready queue and barriers than in updates (V = 3000, 2 busy cores: 1 ms on one
  // thread, 26-84 ms on two).
  threads = int(std::clamp<double>(p.factor_updates / kThreadWork, 1, std::max(threads, 1)));
  Factors<T> f = assemble<T>(g, p, threads);
  const std::int64_t nodes = p.nodes(), n = p.n();
  // Team nodes: heavy ones and their ancestors (children come before parents).
  std::vector<char> team(static_cast<std::size_t>(nodes), 0);
  std::vector<std::int32_t> pending(static_cast<std::size_t>(nodes), 0);
  std::int64_t widest = 0;
  for (std::int64_t k = 0; k < nodes; ++k) {
    widest = std::max({widest, p.width(k), p.struct_size(k)});
    const std::int32_t par = p.parent[std::size_t(k)];
    if (threads > 1 && node_work(p, k) >= kTeamWork) team[std::size_t(k)] = 1;
    if (team[std::size_t(k)] && par >= 0) team[std::size_t(par)] = 1;
    if (par >= 0) ++pending[std::size_t(par)];
  }
  std::vector<std::int32_t> ready;
  for (std::int64_t k = 0; k < nodes; ++k)
    if (!team[std::size_t(k)] && pending[std::size_t(k)] == 0) ready.push_back(std::int32_t(k));
  std::int64_t solo_left = 0;
  for (std::int64_t k = 0; k < nodes; ++k) solo_left += !team[std::size_t(k)];
  std::mutex lock;
  std::vector<std::int32_t> shared_pos(static_cast<std::size_t>(n), 0);
  std::vector<T> shared_old;
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::int32_t> pos(static_cast<std::size_t>(n), 0);
    std::vector<T> row(static_cast<std::size_t>(widest) + 1), old;
    // Solo nodes: one thread each, as soon as their children are done (a shared stack).
    for (;;) {
      std::int32_t a = -1;
      {
        const std::lock_guard<std::mutex> hold(lock);
        if (solo_left == 0) break;
        if (!ready.empty()) {
          a = ready.back();
          ready.pop_back();
        }
      }
      if (a < 0) {
        std::this_thread::yield();
        continue;
      }
      factor_node(p, f, a, pos, row.data(), old, 0, 1, false);
      const std::int32_t par = p.parent[std::size_t(a)];
      const std::lock_guard<std::mutex> hold(lock);
      --solo_left;
      if (par >= 0 && --pending[std::size_t(par)] == 0 && !team[std::size_t(par)])
        ready.push_back(par);
    }
#pragma omp barrier
    // Team nodes in order, every thread on each.
    const int part = omp_get_thread_num(), parts = omp_get_num_threads();
    for (std::int64_t a = 0; a < nodes; ++a)
      if (team[std::size_t(a)])
        factor_node(p, f, a, shared_pos, row.data(), shared_old, part, parts, true);
  }
  return f;
}

template Factors<std::int32_t> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<std::int64_t> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<float> factorize(const Graph&, const SupernodalPlan&, int);
template Factors<double> factorize(const Graph&, const SupernodalPlan&, int);

}  // namespace apsp::detail::sparse
