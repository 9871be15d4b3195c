// src/sparse/plan_cache.cpp — plans kept per graph structure (plan_cache.hpp).
#include "sparse/plan_cache.hpp"

#include <algorithm>
#include <list>
#include <mutex>
#include <vector>

namespace apsp::detail::sparse {

namespace {

struct Entry {
  std::uint64_t hash = 0;
  std::int64_t n = 0;
  bool directed = true;
  TreeOrder how = TreeOrder::Auto;
  std::vector<std::int32_t> src, dst;
  std::shared_ptr<const SupernodalPlan> plan;
  std::int64_t bytes = 0;
};

std::int64_t plan_bytes(const SupernodalPlan& p) {
  return std::int64_t(4 * (p.node_of.size() + p.parent.size() + p.sidx.size() + p.ukid.size() +
                           p.uoff.size() + p.uend.size() + p.height.size() +
                           2 * p.tree.perm.old_of_new.size() + p.tree.parent.size()) +
                      8 * (p.sptr.size() + p.uptr.size() + p.tree.first.size()));
}

class Cache {
 public:
  std::shared_ptr<const SupernodalPlan> find(const Graph& g, std::uint64_t h, TreeOrder how) {
    if (g.is_dense()) return nullptr;
    const std::lock_guard<std::mutex> hold(lock_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->hash == h && it->n == g.num_vertices && it->directed == g.directed &&
          it->how == how && it->src == g.src && it->dst == g.dst) {
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first
        return entries_.front().plan;
      }
    return nullptr;
  }

  void add(const Graph& g, std::uint64_t h, TreeOrder how,
           std::shared_ptr<const SupernodalPlan> plan) {
    if (g.is_dense() || !on_) return;
    Entry e;
    e.bytes = plan_bytes(*plan) + std::int64_t(8 * g.src.size());
    if (e.bytes > kPlanCacheBytes) return;
    e.hash = h;
    e.n = g.num_vertices;
    e.directed = g.directed;
    e.how = how;
    e.src = g.src;
    e.dst = g.dst;
    e.plan = std::move(plan);
    const std::lock_guard<std::mutex> hold(lock_);
    entries_.push_front(std::move(e));
    std::int64_t total = 0;
    int count = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      total += it->bytes;
      if (++count > kPlanCacheEntries || total > kPlanCacheBytes)
        it = entries_.erase(it);
      else
        ++it;
    }
  }

  void enable(bool on) {
    const std::lock_guard<std::mutex> hold(lock_);
    on_ = on;
    if (!on) entries_.clear();
  }

 private:
  std::mutex lock_;
  std::list<Entry> entries_;
  bool on_ = true;
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

/// FNV-1a over the structure's words (vertex count, directedness, arcs); 0 for a dense view.
std::uint64_t structure_hash(const Graph& g) {
  if (g.is_dense()) return 0;  // not cached
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t x) {
    h ^= x;
    h *= 1099511628211ull;
  };
  mix(std::uint64_t(g.num_vertices));
  mix(g.directed ? 1 : 0);
  for (std::size_t e = 0; e < g.src.size(); ++e)
    mix((std::uint64_t(std::uint32_t(g.src[e])) << 32) | std::uint32_t(g.dst[e]));
  return h;
}

std::shared_ptr<const SupernodalPlan> cached_plan(const Graph& g, std::uint64_t hash,
                                                  TreeOrder how) {
  return cache().find(g, hash, how);
}

void remember_plan(const Graph& g, std::uint64_t hash, TreeOrder how,
                   std::shared_ptr<const SupernodalPlan> plan) {
  cache().add(g, hash, how, std::move(plan));
}

void set_plan_cache(bool on) { cache().enable(on); }

}  // namespace apsp::detail::sparse
