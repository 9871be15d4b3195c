// src/core/distance_evidence.hpp — cheap evidence about a graph's largest shortest-path distance
// (internal), and the rule that says when a narrow type's capped rounds are exact.
//
// The type ladder (int16x2 -> int32 -> int64, core/ladder.hpp) runs rounds capped at C and keeps
// the result only when no cell lies in [C - max w, C) (the proof: core/ladder.hpp, the band
// rule). Dijkstra from a few sources gives a lower bound on the largest distance, so a rung
// certain to fail is skipped before its pass. Measurements: docs/cuda-notes.md ("type ladder").
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

#include "apsp/graph.hpp"

namespace apsp::detail {

/// Largest finite shortest-path distance from up to `sources` sampled sources (spread evenly over
/// the vertex ids, run in parallel): a LOWER bound on the graph's largest finite distance. Stops
/// early once some distance >= stop_at is final (and returns that distance). Returns 0 without
/// looking for graphs with a negative weight (no Dijkstra) or a dense view (the scan would cost
/// O(V^2) per source). Integer weights and stop_at <= 2^17 use a bucket queue (O(E + stop_at)).
/// `cancel`, when given, is polled: once it is true the search gives up and returns 0 (no
/// evidence), so a caller that no longer needs the answer can join the thread at once.
double sampled_distance_lower_bound(const Graph& g, int sources = 8,
                                    double stop_at = std::numeric_limits<double>::infinity(),
                                    const std::atomic<bool>* cancel = nullptr);

/// Whether sampled evidence is worth its host time: it costs ~20 ns per arc (the CSR and the
/// searches; 150 ms for 5M arcs on the H100 host). Beside a rung's rounds it can only abandon the
/// rung while they run, so it is asked when it costs at most `share` (a quarter) of the rounds'
/// estimated time n^3 / rate. Course graphs at V = 11000 (55 ms of int16x2 rounds) skip it; the
/// 256 x 256 grid (18 s of rounds, 0.26M arcs) asks. A caller that waits for the answer before
/// the solve (the CLI's NTHU range check) asks for a smaller share.
inline bool evidence_pays(double arcs, double n, double rounds_rate, double share = 0.25) {
  return 20e-9 * arcs <= share * n * n * n / rounds_rate;
}

/// Asked BEFORE a capped rung's rounds (the distributed GPU backends; the cuda backend asks beside
/// its rounds and abandons them): true when the evidence pays for rounds at `rate` updates/s (all
/// GPUs together) and a sampled distance already reaches `band`, i.e. the rung would fail its
/// band check and is better skipped. Deterministic for a given graph (fixed sources; the early
/// stop only ever answers true), so every MPI rank holding the graph decides alike.
bool evidence_skips_rung(const Graph& g, double band, double rate);

}  // namespace apsp::detail
