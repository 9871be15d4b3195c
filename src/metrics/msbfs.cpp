// src/metrics/msbfs.cpp — the bfs metrics engine: bit-parallel multi-source BFS (MS-BFS).
//
// A batch of up to 64*W sources runs as one BFS whose per-vertex state is W 64-bit words (bit i:
// source i). Each level ORs frontier words along arcs, top-down from a frontier list or bottom-up
// over the vertices some source has not seen (Beamer's direction switch, by arc counts); the new
// bits of vertex v at level L are the sources at distance L from v, so per-target sums take one
// popcount per word. Per-source sums of a directed graph count bit positions with bit-sliced
// counters. Batches run on OpenMP threads, each with its own O(V) state. References: Then et al.,
// "The More the Merrier: Efficient Multi-Source Graph Traversal", VLDB 2015; Beamer et al.,
// "Direction-Optimizing Breadth-First Search", SC 2012.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "apsp/errors.hpp"
#include "core/memory_limit.hpp"
#include "core/reference.hpp"
#include "metrics/engines.hpp"

namespace apsp::detail {

namespace {

using Word = std::uint64_t;
/// Largest probe level at which batches of four words are used (bfs_sums).
constexpr std::int64_t kWideLevels = 64;

/// Counts, per bit position of W words, how many added words had the bit set: kPlanes bit
/// planes per word form binary counters (carry-save), emptied into `counts` when they may fill.
template <int W>
class BitCounter {
 public:
  static constexpr int kPlanes = 20;
  void add(const Word* x) {
    for (int k = 0; k < W; ++k) {
      Word carry = x[k];
      for (int p = 0; p < kPlanes && carry; ++p) {
        const Word t = planes_[k][p] & carry;
        planes_[k][p] ^= carry;
        carry = t;
      }
    }
    if (++adds_ == (std::int64_t(1) << kPlanes) - 1) flush();
  }
  /// Adds the planes into counts[0 .. 64W) and empties them.
  void flush() {
    for (int k = 0; k < W; ++k)
      for (int p = 0; p < kPlanes; ++p) {
        for (Word x = planes_[k][p]; x; x &= x - 1)
          counts_[k * 64 + std::countr_zero(x)] += std::int64_t(1) << p;
        planes_[k][p] = 0;
      }
    adds_ = 0;
  }
  std::int64_t* counts() { return counts_; }

 private:
  Word planes_[W][kPlanes] = {};
  std::int64_t counts_[64 * W] = {};
  std::int64_t adds_ = 0;
};

/// Totals of one thread over its batches; merged at the end.
struct ThreadSums {
  std::vector<std::int64_t> in_cnt, in_sum, hist;
  std::vector<double> harm;
};

template <int W>
class Batch {
 public:
  Batch(const HopGraph& g, MetricSums& out, ThreadSums& mine)
      : g_(g), out_(out), t_(mine), n_(g.n) {
    const auto words = std::size_t(n_) * W;
    seen_.assign(words, 0);
    cur_.assign(words, 0);
    nxt_.assign(words, 0);
    cur_list_.reserve(std::size_t(n_));
    nxt_list_.reserve(std::size_t(n_));
  }

  /// Sources [s0, s0 + k), k <= 64 W. Returns false when `stop` was raised between levels.
  bool run(std::int64_t s0, int k, const std::atomic<bool>& stop) {
    start(s0, k);
    for (std::int64_t level = 1; !cur_list_.empty(); ++level) {
      if (stop.load(std::memory_order_relaxed)) return false;
      if (frontier_arcs() * 2 > unexplored_ + n_)
        bottom_up();
      else
        top_down();
      settle(level);
      for (std::int32_t u : cur_list_) std::fill_n(&cur_[std::size_t(u) * W], W, Word(0));
      cur_.swap(nxt_);
      cur_list_.swap(nxt_list_);
      nxt_list_.clear();
    }
    return true;
  }

 private:
  void start(std::int64_t s0, int k) {
    s0_ = s0;
    std::fill(seen_.begin(), seen_.end(), Word(0));
    for (int i = 0; i < W; ++i) {
      const int bits = std::clamp(k - 64 * i, 0, 64);
      full_[i] = bits == 64 ? ~Word(0) : (Word(1) << bits) - 1;
    }
    cur_list_.clear();
    unexplored_ = g_.arcs();
    for (int i = 0; i < k; ++i) {
      const auto v = std::size_t(s0 + i);
      seen_[v * W + std::size_t(i / 64)] |= Word(1) << (i % 64);
      cur_[v * W + std::size_t(i / 64)] |= Word(1) << (i % 64);
      cur_list_.push_back(std::int32_t(v));
      ++t_.in_cnt[v];
      ++t_.hist[0];
      out_.out_cnt[v] = 1;
      if (full(v)) unexplored_ -= in_degree(v);
    }
    if (out_.directed) counter_ = BitCounter<W>();
  }

  bool full(std::size_t v) const {
    for (int i = 0; i < W; ++i)
      if ((seen_[v * W + std::size_t(i)] & full_[i]) != full_[i]) return false;
    return true;
  }
  std::int64_t in_degree(std::size_t v) const { return g_.rstart()[v + 1] - g_.rstart()[v]; }

  std::int64_t frontier_arcs() const {
    std::int64_t a = 0;
    for (std::int32_t u : cur_list_)
      a += g_.out_start[std::size_t(u) + 1] - g_.out_start[std::size_t(u)];
    return a;
  }

  void top_down() {
    for (std::int32_t u : cur_list_) {
      const Word* fu = &cur_[std::size_t(u) * W];
      for (std::int64_t e = g_.out_start[std::size_t(u)]; e < g_.out_start[std::size_t(u) + 1];
           ++e) {
        const auto v = std::size_t(g_.out_adj[std::size_t(e)]);
        Word* nv = &nxt_[v * W];
        Word before = 0, after = 0;
        for (int i = 0; i < W; ++i) {
          before |= nv[i];
          nv[i] |= fu[i] & ~seen_[v * W + std::size_t(i)];
          after |= nv[i];
        }
        if (!before && after) nxt_list_.push_back(std::int32_t(v));
      }
    }
  }

  void bottom_up() {
    const auto& start = g_.rstart();
    const auto& adj = g_.radj();
    for (std::int64_t v = 0; v < n_; ++v) {
      Word need[W], acc[W] = {};
      Word any = 0;
      for (int i = 0; i < W; ++i) {
        need[i] = full_[i] & ~seen_[std::size_t(v) * W + std::size_t(i)];
        any |= need[i];
      }
      if (!any) continue;
      for (std::int64_t e = start[std::size_t(v)]; e < start[std::size_t(v) + 1]; ++e) {
        const Word* fu = &cur_[std::size_t(adj[std::size_t(e)]) * W];
        Word missing = 0;
        for (int i = 0; i < W; ++i) {
          acc[i] |= fu[i];
          missing |= need[i] & ~acc[i];
        }
        if (!missing) break;
      }
      Word got = 0;
      for (int i = 0; i < W; ++i) {
        nxt_[std::size_t(v) * W + std::size_t(i)] = acc[i] & need[i];
        got |= acc[i] & need[i];
      }
      if (got) nxt_list_.push_back(std::int32_t(v));
    }
  }

  /// The new bits of this level: sums per target, per source (directed), eccentricities.
  void settle(std::int64_t level) {
    Word active[W] = {};
    std::int64_t total = 0;
    const double inv = 1.0 / double(level);
    for (std::int32_t v32 : nxt_list_) {
      const auto v = std::size_t(v32);
      const Word* x = &nxt_[v * W];
      std::int64_t c = 0;
      for (int i = 0; i < W; ++i) {
        seen_[v * W + std::size_t(i)] |= x[i];
        active[i] |= x[i];
        c += std::popcount(x[i]);
      }
      t_.in_cnt[v] += c;
      t_.in_sum[v] += level * c;
      t_.harm[v] += double(c) * inv;
      total += c;
      if (out_.directed) counter_.add(x);
      if (full(v)) unexplored_ -= in_degree(v);
    }
    if (!total) return;
    if (std::size_t(level) >= t_.hist.size()) t_.hist.resize(std::size_t(level) * 2, 0);
    t_.hist[std::size_t(level)] += total;
    for (int i = 0; i < W; ++i)
      for (Word a = active[i]; a; a &= a - 1)
        out_.ecc[std::size_t(s0_ + 64 * i + std::countr_zero(a))] = static_cast<long double>(level);
    if (!out_.directed) return;
    counter_.flush();
    std::int64_t* counts = counter_.counts();
    for (int b = 0; b < 64 * W; ++b) {
      if (!counts[b]) continue;
      const auto s = std::size_t(s0_ + b);
      out_.out_cnt[s] += counts[b];
      out_.out_sum_i[s] += WideSum(level) * counts[b];
      counts[b] = 0;
    }
  }

  const HopGraph& g_;
  MetricSums& out_;
  ThreadSums& t_;
  std::int64_t n_, s0_ = 0, unexplored_ = 0;
  Word full_[W] = {};
  std::vector<Word> seen_, cur_, nxt_;
  std::vector<std::int32_t> cur_list_, nxt_list_;
  BitCounter<W> counter_;
};

/// Plain BFS from one source after another: on chain-like graphs (depth far above sqrt(V)) the
/// sources of a batch share no frontier, and one search per source does less work.
class OneByOne {
 public:
  OneByOne(const HopGraph& g, MetricSums& out, ThreadSums& mine)
      : g_(g), out_(out), t_(mine), level_(std::size_t(g.n), -1), inv_(std::size_t(g.n) + 1) {
    for (std::size_t d = 1; d < inv_.size(); ++d) inv_[d] = 1.0 / double(d);
    queue_.reserve(std::size_t(g.n));
    t_.hist.resize(std::size_t(g.n) + 1, 0);
  }
  bool run(std::int64_t s0, int k, const std::atomic<bool>& stop) {
    for (int i = 0; i < k; ++i) {
      if (stop.load(std::memory_order_relaxed)) return false;
      search(std::size_t(s0 + i));
    }
    return true;
  }

 private:
  void search(std::size_t s) {
    queue_.assign(1, std::int32_t(s));
    level_[s] = 0;
    WideSum sum = 0;
    std::int32_t far = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const auto u = std::size_t(queue_[head]);
      const std::int32_t d = level_[u];
      t_.in_cnt[u] += 1;
      t_.in_sum[u] += d;
      t_.harm[u] += inv_[std::size_t(d)];
      ++t_.hist[std::size_t(d)];
      sum += d;
      far = d;
      for (std::int64_t e = g_.out_start[u]; e < g_.out_start[u + 1]; ++e) {
        const auto v = std::size_t(g_.out_adj[std::size_t(e)]);
        if (level_[v] >= 0) continue;
        level_[v] = d + 1;
        queue_.push_back(std::int32_t(v));
      }
    }
    out_.ecc[s] = static_cast<long double>(far);
    out_.out_cnt[s] = std::int64_t(queue_.size());
    if (out_.directed) out_.out_sum_i[s] = sum;
    for (std::int32_t v : queue_) level_[std::size_t(v)] = -1;
  }

  const HopGraph& g_;
  MetricSums& out_;
  ThreadSums& t_;
  std::vector<std::int32_t> level_, queue_;
  std::vector<double> inv_;  // 1 / d; inv_[0] = 0: distance 0 adds nothing
};

void check_room(const HopGraph& g, int threads, int words) {
  const double per_thread = double(g.n) * (3.0 * 8 * words + 8 * 4 + 8);
  const double need = per_thread * threads;
  const std::uint64_t have = host_memory_limit().bytes;
  if (need > double(have))
    throw ResourceError("bfs engine: " + std::to_string(threads) + " threads need " +
                        std::to_string(std::llround(need)) + " bytes for " + std::to_string(g.n) +
                        " vertices, more than the " + std::to_string(have) +
                        " available (use fewer --threads)");
}

/// Thread sums into `out` (per target; undirected: per source too, the same numbers).
void merge(MetricSums& out, std::vector<ThreadSums>& parts) {
  const auto n = std::size_t(out.n);
  std::vector<std::int64_t> cnt(n, 0), sum(n, 0);
  std::vector<double> harm(n, 0.0);
  for (ThreadSums& t : parts) {
    for (std::size_t v = 0; v < n; ++v) {
      cnt[v] += t.in_cnt[v];
      sum[v] += t.in_sum[v];
      harm[v] += t.harm[v];
    }
    if (out.opt.histogram) {
      if (t.hist.size() > out.hist.size()) out.hist.resize(t.hist.size(), 0);
      for (std::size_t d = 0; d < t.hist.size(); ++d) out.hist[d] += t.hist[d];
    }
    t = ThreadSums();
  }
  if (!out.directed)
    for (std::size_t v = 0; v < n; ++v) {
      out.out_cnt[v] = cnt[v];
      out.out_sum_i[v] = sum[v];
    }
  if (!out.columns()) return;
  for (std::size_t v = 0; v < n; ++v) {
    out.in_cnt[v] = cnt[v];
    out.in_sum_i[v] = sum[v];
    out.harm[v] = harm[v];
  }
}

/// Batches of 64 W sources, each run by Kernel (Batch<W> or OneByOne) on the OpenMP threads.
template <class Kernel, int W>
MetricSums run_batches(const HopGraph& g, const MetricsOptions& opt, Dtype dtype,
                       const SearchRun& run) {
  MetricSums out;
  out.allocate(g.n, g.directed, opt, dtype);
  const std::int64_t per_batch = 64 * W, batches = (g.n + per_batch - 1) / per_batch;
  int threads = run.threads > 0 ? run.threads : omp_get_max_threads();
  threads = int(std::clamp<std::int64_t>(threads, 1, batches));
  check_room(g, threads, W);
  std::vector<ThreadSums> parts(static_cast<std::size_t>(threads));
  std::atomic<std::int64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    try {
      ThreadSums& mine = parts[std::size_t(omp_get_thread_num())];
      mine.in_cnt.assign(std::size_t(g.n), 0);
      mine.in_sum.assign(std::size_t(g.n), 0);
      mine.harm.assign(std::size_t(g.n), 0.0);
      mine.hist.assign(64, 0);
      Kernel batch(g, out, mine);
      for (std::int64_t b = next++; b < batches && !stop.load(); b = next++) {
        const std::int64_t s0 = b * per_batch;
        const int k = int(std::min(per_batch, g.n - s0));
        if (!batch.run(s0, k, stop)) break;
        done += k;
        if (omp_get_thread_num() == 0 && run.progress) run.progress(done.load(), g.n);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  }
  if (error) std::rethrow_exception(error);
  if (run.progress) run.progress(g.n, g.n);  // thread 0 may have run no batch
  merge(out, parts);
  return out;
}

}  // namespace

HopGraph make_hop_graph(const Graph& g) {
  HopGraph h;
  h.n = g.num_vertices;
  h.directed = g.directed;
  const auto n = std::size_t(h.n);
  // Threads take equal ranges of the edges (for_each_arc's parts); each counts its arcs per
  // vertex, the counts become each thread's write offsets, and the threads fill the CSR side by
  // side, in the order one thread would. Below kParallelEdges one thread: on a loaded box a team
  // waiting for its second thread costs more than the build.
  constexpr std::int64_t kParallelEdges = std::int64_t(1) << 22;
  const std::int64_t edges = std::int64_t(g.is_dense() ? n * n : g.src.size());
  const int parts =
      int(std::clamp<std::int64_t>(edges / kParallelEdges + 1, 1, omp_get_max_threads()));
  std::vector<std::vector<std::int64_t>> out_at{std::size_t(parts)}, in_at{std::size_t(parts)};
#pragma omp parallel num_threads(parts)
  {
    const int t = omp_get_thread_num();
    auto& o = out_at[std::size_t(t)];
    auto& i = in_at[std::size_t(t)];
    o.assign(n, 0);
    if (h.directed) i.assign(n, 0);
    for_each_arc(
        g,
        [&](std::int32_t u, std::int32_t v, double) {
          ++o[std::size_t(u)];
          if (h.directed) ++i[std::size_t(v)];
        },
        t, parts);
  }
  // Prefix sums: start[v] over all threads, and each thread's first slot for v.
  auto offsets = [&](std::vector<std::vector<std::int64_t>>& at, std::vector<std::int64_t>& start) {
    start.assign(n + 1, 0);
    std::int64_t next = 0;
    for (std::size_t v = 0; v < n; ++v) {
      start[v] = next;
      for (auto& c : at) {
        const std::int64_t k = c[v];
        c[v] = next;
        next += k;
      }
    }
    start[n] = next;
    return next;
  };
  const std::int64_t arcs = offsets(out_at, h.out_start);
  if (h.directed) offsets(in_at, h.in_start);
  const double bytes = double(arcs) * (h.directed ? 8.0 : 4.0) + double(n) * 16.0;
  const std::uint64_t have = host_memory_limit().bytes;
  if (bytes > double(have))
    throw ResourceError("the graph's " + std::to_string(arcs) + " arcs need " +
                        std::to_string(std::llround(bytes)) + " bytes, more than the " +
                        std::to_string(have) + " available");
  h.out_adj.resize(std::size_t(arcs));
  if (h.directed) h.in_adj.resize(std::size_t(arcs));
#pragma omp parallel num_threads(parts)
  {
    const int t = omp_get_thread_num();
    std::int64_t* o = out_at[std::size_t(t)].data();
    std::int64_t* i = h.directed ? in_at[std::size_t(t)].data() : nullptr;
    for_each_arc(
        g,
        [&](std::int32_t u, std::int32_t v, double) {
          h.out_adj[std::size_t(o[u]++)] = v;
          if (i) h.in_adj[std::size_t(i[v]++)] = u;
        },
        t, parts);
  }
  return h;
}

namespace {

/// Breadth-first search along out-arcs from s (level: -1 where not reached, reset here): the
/// largest level and a vertex at it.
std::pair<std::int64_t, std::int32_t> farthest_from(const HopGraph& h, std::int32_t s,
                                                    std::vector<std::int32_t>& level,
                                                    std::vector<std::int32_t>& queue) {
  std::fill(level.begin(), level.end(), -1);
  level[std::size_t(s)] = 0;
  queue.assign(1, s);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const auto u = std::size_t(queue[head]);
    for (std::int64_t e = h.out_start[u]; e < h.out_start[u + 1]; ++e) {
      const auto v = std::size_t(h.out_adj[std::size_t(e)]);
      if (level[v] >= 0) continue;
      level[v] = level[u] + 1;
      queue.push_back(std::int32_t(v));
    }
  }
  const std::int32_t far = queue.back();  // BFS order: the last one queued is the deepest
  return {level[std::size_t(far)], far};
}

/// The vertex of highest degree (out + in arcs) in the largest weakly connected component.
std::int32_t hub_of_largest_component(const HopGraph& h) {
  const auto n = std::size_t(h.n);
  auto degree = [&](std::size_t v) {
    const std::int64_t out = h.out_start[v + 1] - h.out_start[v];
    return h.directed ? out + h.in_start[v + 1] - h.in_start[v] : out;
  };
  std::vector<char> seen(n, 0);
  std::vector<std::int32_t> queue;
  std::size_t best_size = 0;
  std::int32_t best_hub = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    // Fewer vertices left than the best component has: none of them can beat it.
    if (n - root <= best_size) break;
    seen[root] = 1;
    queue.assign(1, std::int32_t(root));
    std::int32_t hub = std::int32_t(root);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const auto u = std::size_t(queue[head]);
      if (degree(u) > degree(std::size_t(hub))) hub = std::int32_t(u);
      auto visit = [&](const std::vector<std::int64_t>& start,
                       const std::vector<std::int32_t>& adj) {
        for (std::int64_t e = start[u]; e < start[u + 1]; ++e) {
          const auto v = std::size_t(adj[std::size_t(e)]);
          if (seen[v]) continue;
          seen[v] = 1;
          queue.push_back(std::int32_t(v));
        }
      };
      visit(h.out_start, h.out_adj);
      if (h.directed) visit(h.in_start, h.in_adj);
    }
    if (queue.size() > best_size) best_size = queue.size(), best_hub = hub;
  }
  return best_hub;
}

}  // namespace

std::int64_t probe_levels(const HopGraph& h) {
  // Not from vertex 0 alone: a small component there would hide the graph's depth. From the
  // hub of the largest component, then from the farthest vertex that search reached (a double
  // sweep: a lower bound of that component's diameter, usually close to it).
  if (h.n == 0) return 0;
  std::vector<std::int32_t> level(std::size_t(h.n)), queue;
  const auto [first, far] = farthest_from(h, hub_of_largest_component(h), level, queue);
  return std::max(first, farthest_from(h, far, level, queue).first);
}

/// Hop sums to distances of weight `scale` each.
void apply_scale(MetricSums& s, std::int64_t scale) {
  if (scale == 1) return;
  for (auto& e : s.ecc) e *= static_cast<long double>(scale);
  for (auto& x : s.out_sum_i) x *= scale;
  for (auto& x : s.in_sum_i) x *= scale;
  for (auto& h : s.harm) h /= static_cast<long double>(scale);
  if (s.hist.empty()) return;
  std::vector<std::int64_t> h((s.hist.size() - 1) * std::size_t(scale) + 1, 0);
  for (std::size_t d = 0; d < s.hist.size(); ++d) h[d * std::size_t(scale)] = s.hist[d];
  s.hist.swap(h);
}

MetricSums bfs_sums(const HopGraph& hg, const MetricsOptions& opt, std::int64_t scale, Dtype dtype,
                    const SearchRun& run) {
  // Four words (256 sources) share more of each arc's work where many sources reach a vertex at
  // the same level (small diameters); on deep graphs a vertex's word holds a bit or two, and one
  // word per vertex does a quarter of the work; on chain-like ones (depth^2 > 16 V) the sources
  // share nothing and plain BFS per source does least. Below 1,024 vertices one word keeps
  // threads busy.
  const std::int64_t levels = probe_levels(hg);
  MetricSums s;
  if (levels > 4 && double(levels) * double(levels) > 16.0 * double(hg.n))
    s = run_batches<OneByOne, 1>(hg, opt, dtype, run);
  else if (hg.n >= 4 * 256 && levels <= kWideLevels)
    s = run_batches<Batch<4>, 4>(hg, opt, dtype, run);
  else
    s = run_batches<Batch<1>, 1>(hg, opt, dtype, run);
  apply_scale(s, scale);
  return s;
}

}  // namespace apsp::detail
