// src/core/rounds.hpp — the round scheduler every backend shares.
//
// Blocked Floyd-Warshall over R = n_pad / B rounds. Round t: (1) close the pivot tile D[t,t]
// with plain FW; (2) panels D[t,J] = P* (x) D[t,J] and D[I,t] = D[I,t] (x) P*; (3) the rest
// D[I,J] = min(D[I,J], D[I,t] (x) D[t,J]). A backend implements the three steps over wherever its
// tiles live; finish_round() is its hook for data movement or synchronisation.
#pragma once

#include <cstdint>
#include <functional>

#include "apsp/solve.hpp"

namespace apsp::detail {

class RoundOps {
 public:
  virtual ~RoundOps() = default;
  virtual std::int64_t num_rounds() const = 0;
  virtual void close_pivot(std::int64_t t) = 0;
  virtual void update_panels(std::int64_t t) = 0;
  virtual void update_rest(std::int64_t t) = 0;
  virtual void finish_round(std::int64_t t) { (void)t; }
};

/// Runs every round in order, reporting progress about 100 times over the run. `abandon`, when
/// set, is asked before each round: true stops the run there (a type-ladder rung shown to fail
/// while it ran); returns false then.
inline bool run_rounds(RoundOps& ops, const ProgressFn& progress, const std::function<bool()>& abandon = {}) {
  const std::int64_t R = ops.num_rounds();
  const std::int64_t every = R >= 100 ? R / 100 : 1;
  for (std::int64_t t = 0; t < R; ++t) {
    if (abandon && abandon()) return false;
    ops.close_pivot(t);
    ops.update_panels(t);
    ops.update_rest(t);
    ops.finish_round(t);
    if (progress && ((t + 1) % every == 0 || t + 1 == R)) progress(t + 1, R);
  }
  return true;
}

}  // namespace apsp::detail
