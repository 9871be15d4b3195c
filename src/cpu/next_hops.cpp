// src/cpu/next_hops.cpp — next hops from out-edges after a distances-only solve (the "edges"
// method), and the cost model that picks it or the tracked kernels.
//
// next[i][j] = the out-neighbour v of i minimising w(i,v) + d[v][j], the first arc in CSR order
// on ties (the CUDA backend's next_hops_from_edges, entry for entry). Exact types scan only the
// tight arcs, w(i,v) == d[i][v]; floats scan arcs by increasing weight and stop early.
// choose_next_method weighs the tracked kernels' ~a*n^3 against the edges pass's cost.
// Rule, arc pruning, kernel and cost model: docs/cpu.md ("Next hops"); tie rules: docs/paths.md.
#include "cpu/next_hops.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "apsp/errors.hpp"
#include "core/config.hpp"
#include "core/reference.hpp"

namespace apsp::detail::cpu {

namespace {

// -1 = automatic, else the forced NextMethod.
std::atomic<int> g_forced{-1};

// The cost model's constants: single-thread seconds on the AVX-512 development machine (2-core
// AMD EPYC, bench/results/paths-cpu-2026-11-21-edges.md), per element type. Only the comparison
// of the two estimates matters, and both methods scale alike with threads and ISA.
struct CostModel {
  double tracked_per_update;   // tracked minus distances-only solve, per n^3
  double lists_per_arc;        // reading the edges into lists (exact: the tight test)
  double lists_per_kept;       // exact types: per tight arc kept
  double pass_per_arc_column;  // one scanned arc against one column (L2-bound when arcs are many)
  double pass_per_cell;        // reading d[i][j] and writing next[i][j] once
};
constexpr CostModel kCostInt32{1.3e-11, 8.5e-9, 2.7e-8, 7.7e-11, 1.2e-9};
constexpr CostModel kCostInt64{2.3e-11, 8.5e-9, 2.7e-8, 1.6e-10, 1.8e-9};
constexpr CostModel kCostFloat32{1.2e-11, 1.8e-8, 0, 1.05e-10, 1.2e-9};
constexpr CostModel kCostFloat64{1.9e-11, 1.8e-8, 0, 1.9e-10, 1.8e-9};

constexpr i64 kStripBytes = i64(1) << 20;  // a column strip of all rows of d: half of this L2
constexpr i64 kLookAhead = 32;             // edges between a d[u][v] prefetch and its use
constexpr int kSampleRows = 32;
constexpr i64 kSampleCols = 64;  // one kernel chunk: 256 bytes of each arc's row per sampled row

template <class T>
struct ArcLists {
  std::vector<i64> start;  // per padded row
  std::vector<NextArc<T>> arcs;
  std::vector<i32> by_pos;  // floats only (with sorted_end and bound)
  std::vector<i64> sorted_end;
  std::vector<T> bound;
};

// Exact types: the tight arcs, each row's in reverse CSR order (the kernel's last match wins).
template <class T>
ArcLists<T> tight_arcs(const Graph& g, const Matrix& dist, int threads) {
  const i64 n = dist.stride(), E = i64(g.src.size());  // a dense view: none (rows instead)
  const T* d = dist.data<T>();
  struct Tight {
    i32 u, v;
    T w;
  };
  // Edge ranges per thread, concatenated in thread order: the arcs stay in input order.
  std::vector<std::vector<Tight>> part(std::size_t(std::max(threads, 1)));
#pragma omp parallel num_threads(threads)
  {
    const i64 t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::vector<Tight>& out = part[std::size_t(t)];
    if (g.is_dense()) {  // row ranges of the view in place (its rows read in order: no prefetch)
      detail::for_each_arc(
          g,
          [&](i32 u, i32 v, double w0) {
            const T w = weight_as<T>(w0);
            if (w == d[i64(u) * n + v]) out.push_back({u, v, w});
          },
          int(t), int(nt));
    }
    const i64 e0 = E * t / nt, e1 = E * (t + 1) / nt;
    for (i64 e = e0; e < e1; ++e) {
      // d[u][v] is a cache miss for edges in random order: ask for it well ahead.
      if (e + kLookAhead < e1) {
        const std::size_t f = std::size_t(e + kLookAhead);
        __builtin_prefetch(d + i64(g.src[f]) * n + g.dst[f]);
        if (!g.directed) __builtin_prefetch(d + i64(g.dst[f]) * n + g.src[f]);
      }
      const i32 u = g.src[std::size_t(e)], v = g.dst[std::size_t(e)];
      if (u == v) continue;
      const T w = weight_as<T>(g.weight[std::size_t(e)]);
      if (w == d[i64(u) * n + v]) out.push_back({u, v, w});
      if (!g.directed && w == d[i64(v) * n + u]) out.push_back({v, u, w});
    }
  }
  ArcLists<T> L;
  L.start.assign(std::size_t(n) + 1, 0);
  for (const auto& p : part)
    for (const Tight& a : p) ++L.start[std::size_t(a.u) + 1];
  for (i64 i = 0; i < n; ++i) L.start[std::size_t(i) + 1] += L.start[std::size_t(i)];
  L.arcs.resize(std::size_t(L.start[std::size_t(n)]));
  std::vector<i64> cursor(L.start.begin() + 1, L.start.end());
  for (const auto& p : part)
    for (const Tight& a : p) L.arcs[std::size_t(--cursor[std::size_t(a.u)])] = {a.w, a.v, 0};
  return L;
}

// Floats: every arc; pos and by_pos give the CSR order. Each row's arcs no heavier than its
// largest finite distance (plus a margin for rounding: the kernel's minima need not equal the
// solve's sums bit for bit) come first, sorted by weight, so the kernel can stop early; the rest
// are only scanned when some minimum turns out larger than that bound.
template <class T>
ArcLists<T> sorted_arcs(const Graph& g, const Matrix& dist, int threads) {
  const i64 n = dist.stride(), nv = g.num_vertices;
  const T inf = unreachable<T>();
  ArcLists<T> L;
  L.start.assign(std::size_t(n) + 1, 0);
  detail::for_each_arc(g, [&](i32 u, i32, double) { ++L.start[std::size_t(u) + 1]; });
  for (i64 i = 0; i < n; ++i) {
    APSP_EXPECTS(L.start[std::size_t(i) + 1] < (i64(1) << 31),
                 "a vertex with 2^31 or more out-edges");
    L.start[std::size_t(i) + 1] += L.start[std::size_t(i)];
  }
  L.arcs.resize(std::size_t(L.start[std::size_t(n)]));
  L.by_pos.resize(L.arcs.size());
  std::vector<i64> cursor(L.start.begin(), L.start.end() - 1);
  auto put = [&](i32 u, i32 v, T w) {
    const i64 at = cursor[std::size_t(u)]++;
    L.arcs[std::size_t(at)] = {w, v, i32(at - L.start[std::size_t(u)])};
    L.by_pos[std::size_t(at)] = v;
  };
  detail::for_each_arc(g, [&](i32 u, i32 v, double w) { put(u, v, weight_as<T>(w)); });
  L.sorted_end.assign(std::size_t(n), 0);
  L.bound.assign(std::size_t(n), T(0));
  const T* d = dist.data<T>();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (i64 i = 0; i < n; ++i) {
    const auto first = L.arcs.begin() + L.start[std::size_t(i)],
               last = L.arcs.begin() + L.start[std::size_t(i) + 1];
    T top = T(0);
    if (first != last)
      for (i64 j = 0; j < nv; ++j)
        if (j != i && d[i * n + j] < inf) top = std::max(top, d[i * n + j]);
    const T bound = top + top * T(1.0 / 1024);
    const auto mid = std::partition(first, last, [&](const NextArc<T>& x) { return x.w <= bound; });
    std::sort(first, mid, [](const NextArc<T>& x, const NextArc<T>& y) { return x.w < y.w; });
    L.sorted_end[std::size_t(i)] = i64(mid - L.arcs.begin());
    L.bound[std::size_t(i)] = bound;
  }
  return L;
}

template <class T>
void run_pass(const ArcLists<T>& L, bool exact, const Matrix& dist, Matrix& next, int threads,
              const KernelSet<T>& ks) {
  NextHopsArgs<T> a;
  a.d = dist.data<T>();
  a.ld = dist.stride();
  a.next = next.data<i32>();
  a.ldn = next.stride();
  a.start = L.start.data();
  a.arcs = L.arcs.data();
  a.exact = exact;
  a.by_pos = L.by_pos.data();
  a.sorted_end = L.sorted_end.data();
  a.bound = L.bound.data();
  const i64 n = dist.stride();
  // Column strips whose n rows fit in kStripBytes (multiples of 64 columns), each strip's rows
  // in blocks when there are too few strips to share among the threads.
  const i64 strip = std::min(n, std::max<i64>(64, kStripBytes / (n * i64(sizeof(T))) / 64 * 64));
  const i64 strips = (n + strip - 1) / strip;
  const i64 row_blocks = std::min<i64>(n, std::max<i64>(1, (4 * threads + strips - 1) / strips));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (i64 t = 0; t < strips * row_blocks; ++t) {
    const i64 s = t / row_blocks, r = t % row_blocks;
    ks.next_hops(a, n * r / row_blocks, n * (r + 1) / row_blocks, s * strip,
                 std::min(n, (s + 1) * strip));
  }
}

// Fraction of the arcs that the edges pass scans, from sampled rows of the weight matrix W
// (before the solve): exact types, the arcs no 2-hop path beats (a superset of the tight ones);
// floats, the arcs no heavier than the largest 2-hop distance in a 64-column chunk.
template <class T>
double sampled_scan_fraction(const Matrix& W, const KernelSet<T>& ks, int& rows) {
  const i64 n = W.stride(), nv = W.rows();
  const T* w = W.data<T>();
  const T inf = unreachable<T>();
  const i64 window = std::min(n, kSampleCols);
  rows = int(std::min<i64>(kSampleRows, nv));
  std::vector<NextArc<T>> arcs;
  std::vector<T> two_hop(static_cast<std::size_t>(window));
  double seen = 0, kept = 0;
  for (int k = 0; k < rows; ++k) {
    const i64 i = (2 * i64(k) + 1) * nv / (2 * i64(rows));
    const i64 c0 = (i64(k) * 97 % ((n - window) / 32 + 1)) * 32;
    const T* wi = w + i * n;
    arcs.clear();
    for (i64 v = 0; v < nv; ++v)
      if (v != i && wi[v] < inf) arcs.push_back({wi[v], i32(v), 0});
    ks.row_minplus(w + c0, n, arcs.data(), i64(arcs.size()), window, two_hop.data());
    if constexpr (std::is_integral_v<T>) {
      for (i64 v = c0; v < std::min(nv, c0 + window); ++v) {
        if (v == i || !(wi[v] < inf)) continue;
        seen += 1;
        kept += wi[v] == two_hop[std::size_t(v - c0)];
      }
    } else {  // per 64-column chunk, as the kernel stops: the largest 2-hop distance bounds w
      for (i64 c = 0; c < window; c += 64) {
        T top = T(0);
        for (i64 x = c; x < std::min(window, c + 64); ++x)
          if (c0 + x != i && two_hop[std::size_t(x)] < inf)
            top = std::max(top, two_hop[std::size_t(x)]);
        for (const NextArc<T>& a : arcs) kept += a.w <= top;
        seen += double(arcs.size());
      }
    }
  }
  return seen > 0 ? kept / seen : 1.0;
}

}  // namespace

const char* next_method_name(NextMethod m) { return m == NextMethod::Edges ? "edges" : "tracked"; }

void force_next_method(std::optional<NextMethod> m) { g_forced = m ? int(*m) : -1; }

std::optional<NextMethod> requested_next_method() {
  const int forced = g_forced.load();
  if (forced >= 0) return NextMethod(forced);
  const std::string s = config::get_choice(config::Knob::CpuNext);
  if (s == "edges") return NextMethod::Edges;
  if (s == "tracked") return NextMethod::Tracked;
  return std::nullopt;
}

NextChoice choose_next_method(const Graph& g, const Matrix& weights, Isa isa) {
  NextChoice c;
  if (g_forced.load() >= 0)
    c.why = "forced";
  else if (config::is_set(config::Knob::CpuNext))
    c.why = "APSP_CPU_NEXT";
  if (const auto m = requested_next_method()) {
    c.method = *m;
    return c;
  }
  const Dtype t = weights.dtype();
  c.why = "model";
  const CostModel& k = t == Dtype::Int32     ? kCostInt32
                       : t == Dtype::Int64   ? kCostInt64
                       : t == Dtype::Float32 ? kCostFloat32
                                             : kCostFloat64;
  const bool exact = is_integer(t);
  const double n = double(weights.stride());
  const double arcs = double(g.num_edges()) * (g.directed ? 1 : 2);
  const int phases = exact ? 1 : 2;  // floats: the minimum, then the first position reaching it
  c.tracked_s = k.tracked_per_update * n * n * n;
  auto edges_cost = [&](double fraction) {
    c.scanned_arcs = arcs * fraction * phases;
    return k.lists_per_arc * arcs + k.lists_per_kept * arcs * fraction +
           k.pass_per_arc_column * c.scanned_arcs * n + k.pass_per_cell * n * n;
  };
  c.edges_s = edges_cost(1.0);  // every arc scanned: the bound
  if (c.edges_s > c.tracked_s && weights.stride() > 0) {
    const double fraction = visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      return sampled_scan_fraction<T>(weights, kernels_for<T>(isa), c.sampled_rows);
    });
    c.edges_s = edges_cost(fraction);
  }
  c.method = c.edges_s <= c.tracked_s ? NextMethod::Edges : NextMethod::Tracked;
  return c;
}

NextPassStats next_hops_from_edges(const Graph& g, const Matrix& dist, Matrix& next, int threads,
                                   Isa isa) {
  NextPassStats stats;
  const i64 n = dist.stride();
  if (n == 0) return stats;
  APSP_EXPECTS(next.dtype() == Dtype::Int32 && next.stride() >= n && next.alloc_rows() >= n &&
                   dist.alloc_rows() >= n,
               "next-hop pass: matrices smaller than the padded distances");
  APSP_EXPECTS(g.num_vertices <= n, "next-hop pass: graph larger than the matrix");
  threads = std::max(threads, 1);
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr bool exact = std::is_integral_v<T>;
    const double t0 = omp_get_wtime();
    const ArcLists<T> L =
        exact ? tight_arcs<T>(g, dist, threads) : sorted_arcs<T>(g, dist, threads);
    const double t1 = omp_get_wtime();
    run_pass<T>(L, exact, dist, next, threads, kernels_for<T>(isa));
    stats.lists_s = t1 - t0;
    stats.pass_s = omp_get_wtime() - t1;
    stats.arcs = i64(L.arcs.size());
  });
  return stats;
}

}  // namespace apsp::detail::cpu
