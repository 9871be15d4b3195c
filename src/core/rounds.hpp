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

/// Calls `progress` about 100 times over a run of R rounds: after round `done` (1-based).
inline void report_round(const ProgressFn& progress, std::int64_t done, std::int64_t R) {
  const std::int64_t every = R >= 100 ? R / 100 : 1;
  if (progress && (done % every == 0 || done == R)) progress(done, R);
}

/// Runs every round in order, reporting progress about 100 times over the run. `abandon`, when
/// set, is asked before each round: true stops the run there (a type-ladder rung shown to fail
/// while it ran); returns false then.
inline bool run_rounds(RoundOps& ops, const ProgressFn& progress,
                       const std::function<bool()>& abandon = {}) {
  const std::int64_t R = ops.num_rounds();
  for (std::int64_t t = 0; t < R; ++t) {
    if (abandon && abandon()) return false;
    ops.close_pivot(t);
    ops.update_panels(t);
    ops.update_rest(t);
    ops.finish_round(t);
    report_round(progress, t + 1, R);
  }
  return true;
}

/// Which tiles of round t's rest update a LookaheadOps::rest call covers.
enum class TileSet {
  All,     ///< every tile outside pivot row and column t (the last round)
  Ahead,   ///< tile row t+1 and tile column t+1: what round t+1's pivot and panels read
  Behind,  ///< the others (round t+1's panels are on their way meanwhile)
};

/// The steps of a round whose pivot and panels are shared between workers.
class LookaheadOps {
 public:
  virtual ~LookaheadOps() = default;
  virtual std::int64_t num_rounds() const = 0;
  /// Closes pivot tile t where it lives and shares it with the workers that need it.
  virtual void pivot(std::int64_t t) = 0;
  /// Updates round t's panels and starts sharing them (need not wait for the transfers).
  virtual void panels(std::int64_t t) = 0;
  /// Waits until round t's panels have arrived and are ready for the rest update.
  virtual void wait(std::int64_t t) = 0;
  /// Round t's rest update D[I,J] = min(D[I,J], D[I,t] (x) D[t,J]) on the tiles of `set`.
  virtual void rest(std::int64_t t, TileSet set) = 0;
};

/// Runs every round with one round of lookahead: round t's rest does tile row and column t+1
/// first, then round t+1's pivot and panels start, then the rest of round t. Progress as
/// run_rounds.
inline void run_rounds_lookahead(LookaheadOps& ops, const ProgressFn& progress) {
  const std::int64_t R = ops.num_rounds();
  if (R == 0) return;
  ops.pivot(0);
  ops.panels(0);
  for (std::int64_t t = 0; t < R; ++t) {
    ops.wait(t);
    if (t + 1 < R) {
      ops.rest(t, TileSet::Ahead);
      ops.pivot(t + 1);
      ops.panels(t + 1);
      ops.rest(t, TileSet::Behind);
    } else {
      ops.rest(t, TileSet::All);
    }
    report_round(progress, t + 1, R);
  }
}

}  // namespace apsp::detail
