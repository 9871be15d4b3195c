// src/core/paths_repair.cpp — repair_next_hops(): makes every next-hop walk end (paths.hpp).
//
// A walk that never reaches its target j goes round a zero-weight cycle of the functional graph
// x -> next[x][j]. Per looping column, each cycle is broken by a breadth-first search along
// arcs tight for j to a vertex whose walk ends (least total slack where none is tight), so the
// work follows the cycles, not V. Step by step, with the float tolerances: docs/paths.md
// ("How repair_next_hops works"). The arcs it reads: paths_repair_arcs.hpp.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "core/paths_repair_arcs.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"

namespace apsp {

namespace {

using namespace detail::repair;
using detail::Csr;

/// A looping column: its target and one vertex of each of its cycles (the smallest), ascending.
struct LoopColumn {
  i64 j;
  std::vector<i32> cycles;
};

/// The cycles of the functional graph on nodes 0..m-1 (hop[x] = the next node, or -1 where the
/// walk stops): appends the smallest id(x) of each to `cycles`, ascending. Each walk marks its
/// nodes with its start; meeting its own mark closes a cycle. O(m).
template <class Id>
void find_cycles(i64 m, const i32* hop, Id id, std::vector<i32>& mark, std::vector<i32>& cycles) {
  mark.assign(std::size_t(m), -1);
  for (i64 s = 0; s < m; ++s) {
    if (mark[std::size_t(s)] >= 0) continue;
    i64 x = s;
    while (x >= 0 && mark[std::size_t(x)] < 0) {
      mark[std::size_t(x)] = i32(s);
      x = hop[x];
    }
    if (x < 0 || mark[std::size_t(x)] != s) continue;  // stopped, or ran into an earlier walk
    i32 low = id(x);
    for (i64 y = hop[x]; y != x; y = hop[y]) low = std::min(low, id(y));
    cycles.push_back(low);
  }
  std::sort(cycles.begin(), cycles.end());
}

/// Columns per block when copying columns out: 256 bytes of each int32 row (measured faster than
/// 1 KiB, whose copy scatters into 256 columns at once).
i64 block_cols(i64) { return 64; }

/// Stride of a column copied out of a block: n rounded up to 16 elements, plus 16, so that the
/// 64 columns a row is scattered into do not all fall into the same cache sets.
i64 copy_stride(i64 n) { return (n + 15) / 16 * 16 + 16; }

/// Step 1: the looping columns and their cycles, from Z's rows of `next`, 64 columns at a time:
/// each column's hops among Z copied out contiguously (as indices into Z, -1 where the walk stops
/// or leaves Z), so the walks run in L1.
std::vector<LoopColumn> loop_columns(const Matrix& next, const std::vector<i32>& z) {
  const i64 n = next.rows(), m = i64(z.size());
  std::vector<i32> zidx(static_cast<std::size_t>(n), -1);
  for (i64 k = 0; k < m; ++k) zidx[std::size_t(z[std::size_t(k)])] = i32(k);
  const i64 cols = block_cols(m), blocks = (n + cols - 1) / cols;
  std::vector<std::vector<LoopColumn>> per_block(static_cast<std::size_t>(blocks));
#pragma omp parallel if (n * m >= (1 << 16))
  {
    const i64 ld = copy_stride(m);
    std::vector<i32> packed(static_cast<std::size_t>(ld * cols));  // (column, k)
    std::vector<i32> mark, cycles;
#pragma omp for schedule(dynamic)
    for (i64 b = 0; b < blocks; ++b) {
      const i64 j0 = b * cols, w = std::min(cols, n - j0);
      for (i64 k = 0; k < m; ++k) {
        const i32* row = next.row<i32>(z[std::size_t(k)]) + j0;
        for (i64 c = 0; c < w; ++c) {
          const i32 a = row[c];
          packed[std::size_t(c * ld + k)] =
              a < 0 || a >= n || a == j0 + c ? -1 : zidx[std::size_t(a)];
        }
      }
      for (i64 c = 0; c < w; ++c) {
        cycles.clear();
        find_cycles(
            m, packed.data() + c * ld, [&](i64 k) { return z[std::size_t(k)]; }, mark, cycles);
        if (!cycles.empty()) per_block[std::size_t(b)].push_back({j0 + c, cycles});
      }
    }
  }
  std::vector<LoopColumn> out;
  for (auto& v : per_block)
    for (auto& c : v) out.push_back(std::move(c));
  return out;
}

/// One column of `next` and of the distances: entry v at next[v * next_step] and
/// dist[v * dist_step] (a column of the matrices themselves, or a packed copy); changed hops are
/// also written to write_through[v * write_step] when that is set (the matrix, under a copy).
template <class T>
struct ColumnView {
  i32* next;
  i64 next_step;
  const T* dist;
  i64 dist_step;
  i32* write_through = nullptr;
  i64 write_step = 0;
};

/// Step 3 for one column at a time; one per thread (scratch of a few V-sized arrays, stamped so
/// that nothing is cleared per column).
template <class T>
class ColumnRepair {
 public:
  /// `candidates` has the candidate arcs of the vertices with has_list set.
  ColumnRepair(i64 n, const Csr<T>& candidates, const std::vector<char>& has_list)
      : cand_(&candidates),
        has_list_(&has_list),
        n_(n),
        ends_(std::size_t(n_), 0),
        loops_(std::size_t(n_), 0),
        on_walk_(std::size_t(n_), 0),
        seen_(std::size_t(n_), 0),
        parent_(std::size_t(n_), -1) {}

  enum Status { kDone, kStuck, kNeedsLists };
  /// Breaks the cycles of column j (one vertex of each in `cycles`, ascending; a cycle already
  /// broken is skipped, so a column can be run again). `all_arcs`: null for the tight search over
  /// candidate arcs; else the least-slack search over these arcs. Adds the entries changed to
  /// `changed`. kStuck: some cycle had no way out in that search (the others were done);
  /// kNeedsLists: the search reached a vertex without a candidate list, and the column stopped
  /// there (run it again with more lists).
  Status run(i64 j, const ColumnView<T>& view, const std::vector<i32>& cycles,
             const Csr<T>* all_arcs, i64& changed) {
    j_ = j;
    v_ = view;
    bump(column_, {&ends_});
    Status status = kDone;
    for (const i32 r : cycles) {
      bump(search_, {&loops_, &seen_});
      if (ends(r)) continue;                     // broken by an earlier route in this column
      if (!(d(r) < unreachable<T>())) continue;  // j unreachable: no route to take
      // The cycle through r (r's walk loops and r was on a cycle; only routes to walks that end
      // change hops, so it is still that cycle).
      std::vector<i32>& cyc = queue_;
      cyc.clear();
      for (i64 x = r;;) {
        cyc.push_back(i32(x));
        x = hop(x);
        if (x == r || x < 0 || i64(cyc.size()) > n_) break;
      }
      std::sort(cyc.begin(), cyc.end());
      missing_list_ = false;
      const bool found = all_arcs ? least_slack_route(*all_arcs) : tight_route();
      if (missing_list_) return kNeedsLists;
      if (!found) {
        status = kStuck;
        continue;
      }
      // Point each vertex of the search path at the next one: exit_ first, back to the cycle.
      for (i64 to = exit_to_, x = exit_from_; x >= 0; to = x, x = parent_[std::size_t(x)]) {
        i32& h = v_.next[x * v_.next_step];
        if (h != i32(to)) {
          h = i32(to), ++changed;
          if (v_.write_through) v_.write_through[x * v_.write_step] = i32(to);
        }
        ends_[std::size_t(x)] = column_;
      }
    }
    return status;
  }

 private:
  // Stamps: a new value for `counter`; on wrap-around the arrays stamped with it are cleared.
  static void bump(std::uint32_t& counter,
                   std::initializer_list<std::vector<std::uint32_t>*> arrays) {
    if (++counter != 0) return;
    for (auto* a : arrays) std::fill(a->begin(), a->end(), 0u);
    counter = 1;
  }
  T d(i64 v) const { return v == j_ ? T(0) : v_.dist[v * v_.dist_step]; }
  i64 hop(i64 v) const {
    const i32 a = v_.next[v * v_.next_step];
    return v == j_ || a < 0 || a >= n_ ? -1 : a;
  }
  // w + d(a,j) - d(u,j) for d(u,j) = du finite; +inf when a cannot reach j.
  double slack(T w, i64 a, T du) const {
    const T da = d(a);
    if (!(da < unreachable<T>())) return INFINITY;
    if constexpr (std::is_integral_v<T>)
      return double(w) - double(i64(du) - i64(da));  // no overflow
    else
      return double(w) + double(da) - double(du);
  }
  bool tight(T w, i64 a, T du) const {
    if constexpr (std::is_integral_v<T>) {
      const T da = d(a);
      return da < unreachable<T>() && i64(w) <= i64(du) - i64(da);  // exact: both finite
    } else {
      return slack(w, a, du) <= tolerance<T>() * std::max(1.0, std::fabs(double(du)));
    }
  }

  // Whether v's walk ends (at j, or at a -1 / out-of-range hop); remembered: ends for the column,
  // loops for the current search (a route changes which walks loop, never which ones end).
  bool ends(i64 v) {
    walk_.clear();
    bump(walk_id_, {&on_walk_});
    bool verdict = true;
    for (i64 x = v;;) {
      if (ends_[std::size_t(x)] == column_) break;
      if (loops_[std::size_t(x)] == search_ || on_walk_[std::size_t(x)] == walk_id_) {
        verdict = false;
        break;
      }
      on_walk_[std::size_t(x)] = walk_id_;
      walk_.push_back(i32(x));
      x = hop(x);
      if (x < 0) break;
    }
    for (const i32 x : walk_)
      (verdict ? ends_ : loops_)[std::size_t(x)] = verdict ? column_ : search_;
    return verdict;
  }

  // Breadth-first from the cycle (queue_, ascending) over candidate arcs tight for j.
  bool tight_route() {
    for (const i32 c : queue_) seen_[std::size_t(c)] = search_, parent_[std::size_t(c)] = -1;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const i32 u = queue_[head];
      if (!(*has_list_)[std::size_t(u)]) {
        missing_list_ = true;
        return false;
      }
      const T du = d(u);
      for (i64 a = cand_->start[std::size_t(u)]; a < cand_->start[std::size_t(u) + 1]; ++a) {
        const i32 to = cand_->to[std::size_t(a)];
        if (seen_[std::size_t(to)] == search_ || !tight(cand_->w[std::size_t(a)], to, du)) continue;
        if (ends(to)) {
          exit_from_ = u, exit_to_ = to;
          return true;
        }
        seen_[std::size_t(to)] = search_;
        parent_[std::size_t(to)] = u;
        queue_.push_back(to);
      }
    }
    return false;
  }

  // Dijkstra from the cycle (queue_) over all arcs through looping vertices, the cost of an arc
  // its slack (negative slack counts 0); the first vertex reached whose walk ends closes the route.
  bool least_slack_route(const Csr<T>& arcs) {
    using Item = std::tuple<double, i64, i32>;  // cost, order pushed, vertex
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
    cost_.assign(std::size_t(n_), INFINITY);
    i64 order = 0;
    for (const i32 c : queue_) {
      cost_[std::size_t(c)] = 0, parent_[std::size_t(c)] = -1;
      pq.push({0.0, order++, c});
    }
    std::vector<char> done(std::size_t(n_), 0);
    while (!pq.empty()) {
      const auto [c, o, u] = pq.top();
      pq.pop();
      if (done[std::size_t(u)] || c > cost_[std::size_t(u)]) continue;
      done[std::size_t(u)] = 1;
      if (parent_[std::size_t(u)] >= 0 && ends(u)) {
        exit_from_ = parent_[std::size_t(u)], exit_to_ = u;
        return true;
      }
      const T du = d(u);
      if (!(du < unreachable<T>())) continue;
      for (i64 a = arcs.start[std::size_t(u)]; a < arcs.start[std::size_t(u) + 1]; ++a) {
        const i32 to = arcs.to[std::size_t(a)];
        const double s = slack(arcs.w[std::size_t(a)], to, du);
        if (!(s < INFINITY)) continue;
        const double nc = c + std::max(0.0, s);
        if (nc < cost_[std::size_t(to)]) {
          cost_[std::size_t(to)] = nc, parent_[std::size_t(to)] = u;
          pq.push({nc, order++, to});
        }
      }
    }
    return false;
  }

  const Csr<T>* cand_;
  const std::vector<char>* has_list_;
  i64 n_, j_ = 0;
  ColumnView<T> v_{};
  std::uint32_t column_ = 0, search_ = 0, walk_id_ = 0;
  std::vector<std::uint32_t> ends_, loops_, on_walk_, seen_;
  std::vector<i32> parent_, queue_, walk_;
  std::vector<double> cost_;
  i64 exit_from_ = -1, exit_to_ = -1;
  bool missing_list_ = false;
};

/// Runs the columns bad[k], k in `which` (ascending), and returns their status. Columns are
/// taken in blocks of 64: a block with many of them has its next hops copied out column by
/// column, so that the walks read L1/L2, not one cache line (and page) per vertex; the few hops
/// changed go to both. In parallel over blocks when `parallel`.
template <class T>
std::vector<typename ColumnRepair<T>::Status> run_columns(
    const Matrix& dist, Matrix& next, const std::vector<LoopColumn>& bad,
    const std::vector<std::size_t>& which, const Csr<T>& cand, const std::vector<char>& has_list,
    const Csr<T>* all, bool parallel, i64& changed) {
  const i64 n = next.rows(), ld = copy_stride(n), cols = block_cols(n);
  const std::size_t copy_from = std::size_t(cols / 8);
  std::vector<std::size_t> group{0};
  for (std::size_t k = 1; k <= which.size(); ++k)
    if (k == which.size() || bad[which[k]].j / cols != bad[which[group.back()]].j / cols)
      group.push_back(k);
  const i64 groups = i64(group.size()) - 1;
  std::vector<typename ColumnRepair<T>::Status> status(which.size(), ColumnRepair<T>::kDone);
  i64 sum = 0;
#pragma omp parallel reduction(+ : sum) if (parallel && which.size() >= 8)
  {
    ColumnRepair<T> col(n, cand, has_list);
    std::vector<i32> pn;
    std::vector<T> pd;
#pragma omp for schedule(dynamic)
    for (i64 gi = 0; gi < groups; ++gi) {
      const std::size_t k0 = group[std::size_t(gi)], k1 = group[std::size_t(gi) + 1];
      const i64 j0 = bad[which[k0]].j / cols * cols, w = std::min(cols, n - j0);
      const bool copy = k1 - k0 >= copy_from;
      // The distances too where the columns have many cycles each (a search reads a few
      // distances per arc it tries; copying costs a pass over the block).
      i64 cycles = 0;
      for (std::size_t k = k0; k < k1; ++k) cycles += i64(bad[which[k]].cycles.size());
      const bool copy_dist = copy && cycles >= i64(k1 - k0) * std::max<i64>(2, n / 2048);
      if (copy) {
        pn.resize(std::size_t(w * ld));
        for (i64 v = 0; v < n; ++v) {
          const i32* rn = next.row<i32>(v) + j0;
          for (i64 c = 0; c < w; ++c) pn[std::size_t(c * ld + v)] = rn[c];
        }
      }
      if (copy_dist) {
        pd.resize(std::size_t(w * ld));
        for (i64 v = 0; v < n; ++v) {
          const T* rd = dist.row<T>(v) + j0;
          for (i64 c = 0; c < w; ++c) pd[std::size_t(c * ld + v)] = rd[c];
        }
      }
      for (std::size_t k = k0; k < k1; ++k) {
        const LoopColumn& b = bad[which[k]];
        ColumnView<T> view{next.row<i32>(0) + b.j, next.stride(), dist.row<T>(0) + b.j,
                           dist.stride()};
        if (copy)
          view = {
              pn.data() + (b.j - j0) * ld, 1, view.dist, view.dist_step, view.next, view.next_step};
        if (copy_dist) view.dist = pd.data() + (b.j - j0) * ld, view.dist_step = 1;
        status[k] = col.run(b.j, view, b.cycles, all, sum);
      }
    }
  }
  changed += sum;
  return status;
}

template <class T>
i64 repair_columns(const Graph& g, const Matrix& dist, Matrix& next, const std::vector<i32>& z,
                   const std::vector<LoopColumn>& bad) {
  using Repair = ColumnRepair<T>;
  const i64 n = next.rows();
  // Candidate lists for Z first: a search passes through vertices whose walk loops, nearly always
  // vertices of Z (on a zero-weight route back into the cycle). A column whose search reaches
  // another vertex is run again with lists for every vertex; that gives the same result as
  // running it with those lists in the first place (its cycles broken so far are skipped).
  std::vector<char> wanted(static_cast<std::size_t>(n), 0);
  for (const i32 u : z) wanted[std::size_t(u)] = 1;
  Csr<T> cand = candidate_arcs<T>(g, dist, wanted);
  if (detail::tracing()) {
    char line[160];
    std::snprintf(line, sizeof line, "repair: %lld candidate arcs",
                  static_cast<long long>(cand.arcs()));
    detail::trace(line);
  }
  i64 changed = 0;
  std::vector<std::size_t> which(bad.size());
  for (std::size_t k = 0; k < bad.size(); ++k) which[k] = k;
  std::vector<typename Repair::Status> status =
      run_columns<T>(dist, next, bad, which, cand, wanted, nullptr, true, changed);
  auto those = [&](typename Repair::Status s) {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < which.size(); ++k)
      if (status[k] == s) out.push_back(which[k]);
    return out;
  };
  std::vector<std::size_t> stuck = those(Repair::kStuck);
  if (const std::vector<std::size_t> more = those(Repair::kNeedsLists); !more.empty()) {
    std::fill(wanted.begin(), wanted.end(), 1);
    cand = candidate_arcs<T>(g, dist, wanted);
    which = more;
    status = run_columns<T>(dist, next, bad, which, cand, wanted, nullptr, true, changed);
    const std::vector<std::size_t> also = those(Repair::kStuck);
    stuck.insert(stuck.end(), also.begin(), also.end());
    std::sort(stuck.begin(), stuck.end());
    detail::trace("repair: candidate lists for every vertex were needed");
  }
  // Cycles the tight search could not route: by least slack over all arcs (the routes taken so
  // far stay; the cycles they broke are skipped).
  if (!stuck.empty()) {
    const Csr<T> all = all_arcs<T>(g);
    run_columns<T>(dist, next, bad, stuck, cand, wanted, &all, false, changed);
    detail::trace("repair: some cycles routed by least slack");
  }
  return changed;
}

}  // namespace

std::int64_t repair_next_hops(const Graph& g, const Matrix& dist, Matrix& next) {
  if (next.empty() || next.dtype() != Dtype::Int32 || next.rows() != next.cols())
    throw UsageError("repair_next_hops: no square int32 next-hop matrix");
  const i64 n = next.rows();
  if (dist.rows() != n || dist.cols() != n || g.num_vertices != n)
    throw UsageError("repair_next_hops: graph, distances and next hops disagree on V");
  return visit_dtype(dist.dtype(), [&](auto tag) -> i64 {
    using T = decltype(tag);
    detail::trace("repair: starts");
    const std::vector<i32> z = zero_cycle_vertices<T>(g, dist);
    const std::vector<LoopColumn> bad =
        z.empty() ? std::vector<LoopColumn>{} : loop_columns(next, z);
    i64 cycles = 0;
    for (const LoopColumn& c : bad) cycles += i64(c.cycles.size());
    if (detail::tracing()) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "repair: %lld vertices on zero-weight cycles; %lld columns loop, %lld cycles",
                    static_cast<long long>(z.size()), static_cast<long long>(bad.size()),
                    static_cast<long long>(cycles));
      detail::trace(line);
    }
    const i64 changed = bad.empty() ? 0 : repair_columns<T>(g, dist, next, z, bad);
    if (detail::tracing()) {
      char line[160];
      std::snprintf(line, sizeof line, "repair: done, %lld entries re-pointed",
                    static_cast<long long>(changed));
      detail::trace(line);
    }
    return changed;
  });
}

}  // namespace apsp
