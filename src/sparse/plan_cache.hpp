// src/sparse/plan_cache.hpp — the sparse direct engine's plans kept per graph structure within a
// process (internal), so that solving a structure again (new weights, another dtype, the metrics
// after a solve, a Python loop) skips the ordering and the symbolic analysis.
//
// A few recent plans are kept (kPlanCacheEntries, at most kPlanCacheBytes in all), each with a
// copy of the arcs it was made for: a lookup hashes the graph's arcs and compares them exactly,
// so a plan is only ever reused for the same vertex count, directedness and arcs in the same
// order (weights may differ). Dense views are not cached (their arcs are matrix entries).
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/graph.hpp"
#include "order/supernodes.hpp"
#include "sparse/plan.hpp"

namespace apsp::detail::sparse {

inline constexpr int kPlanCacheEntries = 4;
inline constexpr std::int64_t kPlanCacheBytes = std::int64_t(256) << 20;

/// The hash of g's structure (vertex count, directedness, arcs) that the two calls below take:
/// computed once per plan_supernodal call (O(E)).
std::uint64_t structure_hash(const Graph& g);
/// A plan made for g's structure (hash: structure_hash(g)) with tree order `how` earlier in this
/// process, or null.
std::shared_ptr<const SupernodalPlan> cached_plan(const Graph& g, std::uint64_t hash,
                                                  TreeOrder how);
/// Keeps `plan` (made for g with `how`) for later lookups, the least recently used dropped.
void remember_plan(const Graph& g, std::uint64_t hash, TreeOrder how,
                   std::shared_ptr<const SupernodalPlan> plan);
/// Turns the cache on (the default) or off (benchmarks that time the ordering every trial);
/// off also empties it.
void set_plan_cache(bool on);

}  // namespace apsp::detail::sparse
