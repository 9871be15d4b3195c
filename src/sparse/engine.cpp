// src/sparse/engine.cpp — rows of the closure from the supernodal factors on CPU threads.
//
// A block of nb sources (consecutive ordered positions) is an nb x V row block X, unreachable but
// for each source's 0. Up sweep, over the sources' tree ancestors in increasing order: X[:, K] =
// X[:, K] (x) D_K, then X[:, S_K] = min(X[:, S_K], X[:, K] (x) U_K). Down sweep, over every
// supernode in decreasing order: X[:, K] = min(X[:, K], X[:, S_K] (x) L_K). Each step is one
// min-plus GEMM of the CPU backend's kernels (L, U and D packed once); the finished rows go
// straight to the result in the user's order (factor.hpp has why the chains are the distances).
#include "sparse/engine.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>

#include "core/reference.hpp"
#include "cpu/kernels.hpp"
#include "cpu/next_hops.hpp"
#include "cpu/tile_ops.hpp"
#include "sparse/factor.hpp"
#include "sparse/plan_cache.hpp"
#include "sparse/rows_job.hpp"

namespace apsp::detail::sparse {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
using cpu::i64;

/// The factors packed as GEMM B operands: D (w x wp), L (s x wp), U (w x sp); padding columns
/// unreachable, so a GEMM's padding columns leave C unchanged.
template <class T>
struct Packed {
  std::vector<i64> d_at, l_at, u_at, wp, sp;
  cpu::AlignedBuffer<T> v;
};

template <class T>
Packed<T> pack(const SupernodalPlan& p, const Factors<T>& f, int nr) {
  Packed<T> pk;
  const i64 nodes = p.nodes();
  for (auto* x : {&pk.d_at, &pk.l_at, &pk.u_at, &pk.wp, &pk.sp}) x->resize(std::size_t(nodes));
  i64 at = 0;
  for (i64 k = 0; k < nodes; ++k) {
    const i64 w = p.width(k), s = p.struct_size(k), wp = round_up(w, nr), sp = round_up(s, nr);
    pk.wp[std::size_t(k)] = wp;
    pk.sp[std::size_t(k)] = sp;
    pk.d_at[std::size_t(k)] = at;
    pk.l_at[std::size_t(k)] = at + w * wp;
    pk.u_at[std::size_t(k)] = at + w * wp + s * wp;
    at += w * wp + s * wp + w * sp;
  }
  pk.v.resize(at);
  const T inf = unreachable<T>();
#pragma omp parallel
  {
    std::vector<T> tmp;
#pragma omp for schedule(dynamic, 4)
    for (i64 k = 0; k < nodes; ++k) {
      const i64 w = p.width(k), s = p.struct_size(k), wp = pk.wp[std::size_t(k)];
      const i64 sp = pk.sp[std::size_t(k)];
      auto put = [&](const T* src, i64 rows, i64 cols, i64 cols_p, i64 dst_at) {
        tmp.assign(std::size_t(rows * cols_p), inf);
        for (i64 r = 0; r < rows; ++r)
          std::copy(src + r * cols, src + r * cols + cols, &tmp[r * cols_p]);
        if (rows > 0 && cols_p > 0)
          cpu::pack_b(tmp.data(), cols_p, int(rows), cols_p, nr, pk.v.get() + dst_at);
      };
      put(f.d(k), w, w, wp, pk.d_at[std::size_t(k)]);
      put(f.l(k), s, w, wp, pk.l_at[std::size_t(k)]);
      put(f.u(k), w, s, sp, pk.u_at[std::size_t(k)]);
    }
  }
  return pk;
}

/// Packs rows x cols(idx) of x (stride ld) as a GEMM A operand with strips of MR (rows % MR == 0).
template <class T>
void gather_pack_a(const T* x, i64 ld, i64 rows, const std::int32_t* idx, int k, int mr, T* dst) {
  for (i64 s = 0; s < rows / mr; ++s) {
    T* out = dst + s * i64(mr) * k;
    const T* in = x + s * mr * ld;
    for (int kk = 0; kk < k; ++kk)
      for (int r = 0; r < mr; ++r) out[i64(kk) * mr + r] = in[r * ld + idx[kk]];
  }
}

/// The threads' per-target sums added into `s` (user order).
void add_targets(const std::vector<TargetSums>& parts, const std::vector<std::int32_t>& old,
                 RowSums& s) {
  const i64 n = i64(old.size());
#pragma omp parallel for schedule(static)
  for (i64 q = 0; q < n; ++q) {
    const auto u = std::size_t(old[std::size_t(q)]), k = std::size_t(q);
    for (const TargetSums& t : parts) {
      s.in_cnt[u] += t.cnt[k];
      s.in_sum_i[u] += t.sum_i[k];
      s.in_sum_f[u] += t.sum_f[k];
      s.in_harm[u] += t.harm[k];
    }
  }
}

/// One thread's row blocks.
template <class T>
class RowSolver {
 public:
  RowSolver(const SupernodalPlan& p, const Packed<T>& pk, const cpu::KernelSet<T>& ks, i64 nb)
      : p_(p), pk_(pk), ks_(ks), nb_(nb), ld_(round_up(p.n() + ks.nr, 16)) {
    x_.resize(nb_ * ld_);
    i64 widest = 1;
    for (i64 k = 0; k < p.nodes(); ++k)
      widest = std::max({widest, pk.sp[std::size_t(k)], pk.wp[std::size_t(k)]});
    a_.resize(nb_ * widest);
    c_.resize(nb_ * widest);
    seen_.assign(std::size_t(p.nodes()), -1);
  }

  /// Rows q0 .. q0 + rows of the closure (ordered), written to `out` in the user's order, or
  /// added to `sums` (`targets`: this thread's per-target sums, by ordered position).
  void solve(i64 q0, i64 rows, Matrix* out, RowSums* sums, TargetSums* targets) {
    const T inf = unreachable<T>();
    T* x = x_.get();
    std::fill(x, x + nb_ * ld_, inf);
    for (i64 r = 0; r < rows; ++r) x[r * ld_ + q0 + r] = T(0);
    up_sweep(q0, rows);
    for (i64 k = p_.nodes() - 1; k >= 0; --k) down_step(k);
    if (out)
      write_rows(q0, rows, *out);
    else
      sum_rows(q0, rows, *sums, targets);
  }

 private:
  void up_sweep(i64 q0, i64 rows) {
    path_.clear();
    for (i64 r = 0; r < rows; ++r)
      for (std::int32_t k = p_.node_of[std::size_t(q0 + r)]; k >= 0 && seen_[std::size_t(k)] != q0;
           k = p_.parent[std::size_t(k)]) {
        seen_[std::size_t(k)] = q0;
        path_.push_back(k);
      }
    std::sort(path_.begin(), path_.end());
    T* x = x_.get();
    const int mr = ks_.mr;
    for (const std::int32_t k : path_) {
      const i64 w = p_.width(k), s = p_.struct_size(k), f = p_.first(k);
      if (w == 0) continue;
      cpu::pack_a(x + f, ld_, nb_, int(w), mr, a_.get());
      ks_.gemm(a_.get(), pk_.v.get() + pk_.d_at[std::size_t(k)], int(w), x + f, ld_, nb_,
               pk_.wp[std::size_t(k)]);
      if (s == 0) continue;
      const i64 sp = pk_.sp[std::size_t(k)];
      cpu::pack_a(x + f, ld_, nb_, int(w), mr, a_.get());
      T* c = c_.get();
      std::fill(c, c + nb_ * sp, unreachable<T>());
      ks_.gemm(a_.get(), pk_.v.get() + pk_.u_at[std::size_t(k)], int(w), c, sp, nb_, sp);
      const std::int32_t* st = p_.struct_of(k);
      for (i64 r = 0; r < nb_; ++r)
        for (i64 q = 0; q < s; ++q) {
          T& e = x[r * ld_ + st[q]];
          e = std::min(e, c[r * sp + q]);
        }
    }
  }

  void down_step(i64 k) {
    const i64 w = p_.width(k), s = p_.struct_size(k);
    if (w == 0 || s == 0) return;
    T* x = x_.get();
    gather_pack_a(x, ld_, nb_, p_.struct_of(k), int(s), ks_.mr, a_.get());
    ks_.gemm(a_.get(), pk_.v.get() + pk_.l_at[std::size_t(k)], int(s), x + p_.first(k), ld_, nb_,
             pk_.wp[std::size_t(k)]);
  }

  void write_rows(i64 q0, i64 rows, Matrix& out) {
    const std::vector<std::int32_t>& old = p_.tree.perm.old_of_new;
    const std::int32_t* nw = p_.tree.perm.new_of_old.data();
    const i64 n = p_.n();
    for (i64 r = 0; r < rows; ++r) {
      const T* xr = x_.get() + r * ld_;
      T* o = out.row<T>(old[std::size_t(q0 + r)]);
      for (i64 v = 0; v < n; ++v) o[v] = xr[nw[v]];
      std::fill(o + n, o + out.stride(), unreachable<T>());
    }
  }

  void sum_rows(i64 q0, i64 rows, RowSums& sums, TargetSums* targets) {
    const std::vector<std::int32_t>& old = p_.tree.perm.old_of_new;
    const T inf = unreachable<T>();
    const i64 n = p_.n();
    for (i64 r = 0; r < rows; ++r) {
      const T* xr = x_.get() + r * ld_;
      std::int64_t cnt = 0, sum_i = 0;
      double sum_f = 0, harm = 0;
      T mx = T(0);
      for (i64 v = 0; v < n; ++v) {
        const T d = xr[v];
        if (!(d < inf)) continue;
        ++cnt;
        if constexpr (std::is_integral_v<T>)
          sum_i += std::int64_t(d);
        else
          sum_f += double(d);
        if (d > T(0)) harm += 1.0 / double(d);
        mx = std::max(mx, d);
        if (targets) targets->add(v, d);
      }
      const auto u = std::size_t(old[std::size_t(q0 + r)]);
      sums.out_cnt[u] = cnt;
      sums.out_harm[u] = harm;
      if constexpr (std::is_integral_v<T>) {
        sums.out_sum_i[u] = sum_i;
        sums.out_max_i[u] = std::int64_t(mx);
      } else {
        sums.out_sum_f[u] = sum_f;
        sums.out_max_f[u] = double(mx);
      }
    }
  }

  const SupernodalPlan& p_;
  const Packed<T>& pk_;
  const cpu::KernelSet<T>& ks_;
  i64 nb_, ld_;
  cpu::AlignedBuffer<T> x_, a_, c_;
  std::vector<i64> seen_;
  std::vector<std::int32_t> path_;
};

/// Rows per block: a multiple of mr, the block at most ~8 MiB.
i64 rows_per_block(i64 n, std::size_t bytes, int mr) {
  const i64 fit = i64((8 << 20) / (std::max<i64>(n, 1) * i64(bytes)));
  return std::max<i64>(mr, std::min<i64>(256, fit) / mr * mr);
}

/// Every row of the closure into `out` (user order) or, with `sums`, only their sums (no n x n:
/// per-target sums in per-thread arrays, added up at the end).
template <class T>
void solve_rows(const SupernodalPlan& p, const Factors<T>& f, int threads,
                const ProgressFn& progress, Matrix* out, RowSums* sums) {
  const cpu::KernelSet<T> ks = cpu::kernels_for<T>(cpu::active_isa());
  const Packed<T> pk = pack(p, f, ks.nr);
  const i64 n = p.n(), nb = rows_per_block(n, sizeof(T), ks.mr);
  const i64 blocks = (n + nb - 1) / nb;
  std::atomic<i64> done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  if (sums) size_sums(*sums, n);
  std::vector<TargetSums> targets(sums && sums->targets ? std::size_t(threads) : 0);
#pragma omp parallel num_threads(threads)
  {
    RowSolver<T> rs(p, pk, ks, nb);
    TargetSums* mine = targets.empty() ? nullptr : &targets[std::size_t(omp_get_thread_num())];
    if (mine) mine->resize(n);
#pragma omp for schedule(dynamic, 1)
    for (i64 b = 0; b < blocks; ++b) {
      if (stop.load(std::memory_order_relaxed)) continue;
      const i64 q0 = b * nb;
      rs.solve(q0, std::min(nb, n - q0), out, sums, mine);
      const i64 d = done.fetch_add(std::min(nb, n - q0)) + std::min(nb, n - q0);
      if (progress && omp_get_thread_num() == 0) {
        try {
          progress(d, n);
        } catch (...) {
          failure = std::current_exception();
          stop = true;
        }
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  // The count as it ends: thread 0 may have missed the last blocks (or, on a small graph, all).
  if (progress) progress(done.load(), n);
  if (!targets.empty()) add_targets(targets, p.tree.perm.old_of_new, *sums);
}

}  // namespace

std::int64_t engine_memory_estimate(std::int64_t n, std::int64_t arcs, Dtype t, int threads) {
  // Factors of near-planar graphs: a few dozen entries per vertex, twice (plain and packed);
  // per thread a row block of at most 8 MiB and its scratch.
  const std::int64_t size = std::int64_t(dtype_size(t));
  return 2 * size * (64 * n + 8 * arcs) + std::int64_t(threads) * (24 << 20);
}

namespace {

/// n x n with rows and columns padded to 32 (padding rows as build_matrix leaves them).
Matrix result_matrix(std::int64_t n, Dtype t) {
  const std::int64_t stride = round_up(std::max<std::int64_t>(n, 1), 32);
  Matrix m(n, n, stride, stride, t);
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    // Faulted in here, in address order and on every thread: the rows arrive in the order's
    // sequence, scattered over the matrix.
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < stride; ++i) {
      T* r = m.row<T>(i);
      std::fill(r, r + stride, unreachable<T>());
      if (i >= n) r[i] = T(0);
    }
  });
  return m;
}

/// The rows on the backend's device; false when it has no engine for them.
template <class T>
bool device_rows(const SupernodalPlan& plan, const Factors<T>& f, Dtype t, const EngineOptions& o,
                 EngineRun& run) {
  RowsJob job;
  job.plan = &plan;
  job.dtype = t;
  job.factors = &f;
  job.device = o.device;
  if (o.sums) job.devices = o.devices;
  job.progress = o.progress;
  job.keep_on_device = o.keep_on_device;
  job.sums = o.sums;
  if (!o.keep_on_device && !o.sums) {
    if (o.sink && !o.paths)
      job.sink = o.sink;
    else
      job.dist = &(run.dist = result_matrix(plan.n(), t));
  }
  if (!o.rows_backend->run_sparse_rows(job)) {
    run.dist = Matrix{};
    return false;
  }
  run.h2d_s = job.h2d_s;
  run.solve_s = job.compute_s;
  run.d2h_s = job.d2h_s;
  run.device_result = std::move(job.device_result);
  run.download = std::move(job.download);
  run.detail = job.detail;
  return true;
}

}  // namespace

namespace {
// Rates of the cost model: the GPU's rows (H200: the grid's 7.0e11 row updates in 0.28 s, and
// 1.6e10 distances filled, swept and written in ~0.1 s), the host's factorization and rows per
// thread (16-core device host; 2-core box), the dense rounds (H200 int32 at ~90% of its
// min-plus ceiling; a CPU thread's measured 1e11 / s of cpu-2026-11-21.md).
constexpr double kGpuRowUpdates = 3.0e12, kGpuPairs = 1.5e11, kGpuUpload = 1.0e10;
constexpr double kHostFactorUpdates = 1.0e9, kHostRowUpdates = 4.0e9, kHostPairs = 2.0e8;
constexpr double kGpuDenseUpdates = 1.5e13, kHostDenseUpdates = 1.0e11;
}  // namespace

double predicted_seconds(const TimedPlan& tp, bool gpu, int threads) {
  const SupernodalPlan& p = tp.plan;
  const double n = double(p.n()), th = double(std::max(threads, 1));
  const double factor = p.factor_updates / (kHostFactorUpdates * th) + 0.02;
  if (gpu)
    return factor + double(p.factor_entries) * 4 / kGpuUpload + 0.03 +
           p.solve_updates / kGpuRowUpdates + n * n / kGpuPairs;
  return factor + (p.solve_updates / kHostRowUpdates + n * n / kHostPairs) / th;
}

double dense_rounds_seconds(std::int64_t n, bool gpu, int threads) {
  const double v = double(n);
  return v * v * v / (gpu ? kGpuDenseUpdates : kHostDenseUpdates * double(std::max(threads, 1)));
}

double TimedPlan::work_fraction() const {
  const double n = double(plan.n());
  return n > 0 ? (plan.factor_updates + plan.solve_updates) / (n * n * n) : 0;
}

TimedPlan plan_supernodal(const Graph& g, TreeOrder how) {
  TimedPlan tp;
  auto t0 = Clock::now();
  const std::uint64_t hash = structure_hash(g);
  if (const std::shared_ptr<const SupernodalPlan> hit = cached_plan(g, hash, how)) {
    tp.plan = *hit;
    tp.order_s = since(t0);  // the lookup (a hash and a comparison of the arcs)
    tp.cached = true;
    return tp;
  }
  SupernodeTree tree = supernode_tree(g, how);
  tp.order_s = since(t0);
  t0 = Clock::now();
  tp.plan = make_plan(g, std::move(tree));
  tp.symbolic_s = since(t0);
  remember_plan(g, hash, how, std::make_shared<const SupernodalPlan>(tp.plan));
  return tp;
}

std::string auto_candidate(const Graph& g, std::int64_t min_vertices) {
  if (!supernode_tree_missing_reason().empty()) return "no AMD or METIS in this build";
  if (g.is_dense()) return "dense input";
  if (g.num_vertices < min_vertices) return std::to_string(g.num_vertices) + " vertices";
  const double arcs = double(g.src.size()) * (g.directed ? 1 : 2);
  if (arcs > 32 * double(g.num_vertices)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f arcs per vertex", arcs / double(g.num_vertices));
    return buf;
  }
  return "";
}

std::string plan_covers(const SupernodalPlan& p, const Graph& g) {
  if (g.num_vertices != p.n())
    return "the plan is for " + std::to_string(p.n()) + " vertices, the graph has " +
           std::to_string(g.num_vertices);
  const std::vector<std::int32_t>& nw = p.tree.perm.new_of_old;
  std::string bad;
  for_each_arc(g, [&](std::int32_t u, std::int32_t v, double) {
    if (!bad.empty()) return;
    const std::int32_t i = std::min(nw[std::size_t(u)], nw[std::size_t(v)]);
    const std::int32_t j = std::max(nw[std::size_t(u)], nw[std::size_t(v)]);
    const std::int64_t k = p.node_of[std::size_t(i)];
    if (p.node_of[std::size_t(j)] == k) return;
    const std::int32_t* s = p.struct_of(k);
    const std::int32_t* e = s + p.struct_size(k);
    const std::int32_t* at = std::lower_bound(s, e, j);
    if (at == e || *at != j)
      bad = "the arc " + std::to_string(u) + " -> " + std::to_string(v) +
            " is not in the plan's structure (a plan serves graphs with the arcs it was made for)";
  });
  return bad;
}

EngineRun solve_supernodal(const Graph& g, Dtype t, const EngineOptions& o,
                           const TimedPlan* given) {
  EngineRun run;
  APSP_EXPECTS(!(o.sums && (o.paths || o.keep_on_device)), "sparse engine: sums without paths");
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const std::int64_t n = g.num_vertices;
  TimedPlan made;
  if (!given && o.stage) o.stage("order");
  if (!given) made = plan_supernodal(g, o.tree_order);
  const TimedPlan& tp = given ? *given : made;
  const SupernodalPlan& plan = tp.plan;
  if (given) {
    const std::string bad = plan_covers(plan, g);
    if (!bad.empty()) throw UsageError("--order sn with a plan: " + bad);
  }
  run.order_s = tp.order_s;
  run.symbolic_s = tp.symbolic_s;
  run.plan_cached = tp.cached;
  run.supernodes = plan.nodes();
  run.factor_entries = plan.factor_entries;
  run.work_fraction = tp.work_fraction();
  run.predicted_s = predicted_seconds(tp, o.rows_backend != nullptr, threads);
  auto t0 = Clock::now();
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (o.stage) o.stage("factor");
    t0 = Clock::now();
    const Factors<T> f = factorize<T>(g, plan, threads);
    run.factor_s = since(t0);
    if (o.stage) o.stage("rows");
    if (o.rows_backend && device_rows(plan, f, t, o, run)) return;
    APSP_EXPECTS(!o.keep_on_device, "sparse engine: no device to keep the result on");
    run.detail = "cpu: " + std::to_string(threads) + " threads";
    if (!o.sums) run.dist = result_matrix(n, t);
    t0 = Clock::now();
    solve_rows<T>(plan, f, threads, o.progress, o.sums ? nullptr : &run.dist, o.sums);
    run.solve_s = since(t0);
  });
  if (o.paths) {
    if (o.stage) o.stage("paths");
    t0 = Clock::now();
    run.next = Matrix(n, n, run.dist.stride(), run.dist.stride(), Dtype::Int32);
    cpu::next_hops_from_edges(g, run.dist, run.next, threads, cpu::active_isa());
    run.paths_s = since(t0);
  }
  return run;
}

}  // namespace apsp::detail::sparse

namespace apsp {

std::shared_ptr<const SparsePlan> plan_sparse(const Graph& g) {
  auto p = std::make_shared<SparsePlan>();
  p->timed = detail::sparse::plan_supernodal(g);
  return p;
}

SparsePlanInfo sparse_plan_info(const SparsePlan& p) {
  SparsePlanInfo i;
  i.vertices = p.timed.plan.n();
  i.supernodes = p.timed.plan.nodes();
  i.work_fraction = p.timed.work_fraction();
  i.order_s = p.timed.order_s;
  i.symbolic_s = p.timed.symbolic_s;
  return i;
}

}  // namespace apsp
