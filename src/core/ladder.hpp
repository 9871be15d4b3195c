// src/core/ladder.hpp — the type ladder, every rung and its checks in one place, for the cpu path
// (solve.cpp, solve_plan.cpp) and the GPU backends (cuda, multi-gpu, mpi GPU ranks) alike:
//   the result dtype from the distance bound (choose_dtype_for: int32 / int64 / float64);
//   int16x2 rounds for int32 distances (two int16 halves a word, capped at 2^14-1; int16_try);
//   checked int32 rounds for an int64 result (capped at 2^30-1; int32_rung_applicable);
//   int64 rounds, or the dtype as asked (run_ladder's dispatch).
// A capped rung is kept only when its band check passes (the rule below; host: int32_in_band,
// device: cuda/kernels/int16x2.cuh find_in_band*, both on core/sentinel.hpp's in_band), then
// widened (widen_value). The notes a rung leaves in Result::rounds (`--stats`) are ladder_note's.
// README.md "Types"; docs/cuda-notes.md, the type ladder; sampled evidence that skips a rung:
// core/distance_evidence.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/errors.hpp"
#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"
#include "core/sentinel.hpp"

namespace apsp::detail {

// ---- the caps and the band rule ---------------------------------------------------------------
// Why a capped rung's result can be checked (the band rule). With non-negative weights below the
// cap C, a cell holds min(C, exact distance) after the rounds, since every update is
// min(c, a + b) on capped values. If some reachable pair were >= C apart, the prefixes of its
// shortest path grow from 0 in steps of at most W = max weight, so one prefix (i, v) with v != i
// has C - W <= d(i, v) < C, and that cell holds it exactly. So when no cell lies in [C - W, C),
// every cell at C is unreachable and every other cell is exact.

/// The int16x2 rung's cap (kInf16, 2^14-1) and the checked int32 rung's (2^30-1); the int64
/// result's bound (2^62-1). Each is its type's sentinel.
inline constexpr double kInt16x2Cap = double(sentinel<std::int16_t>());
inline constexpr double kInt32Cap = double(sentinel<std::int32_t>());
inline constexpr double kInt64Cap = double(sentinel<std::int64_t>());

/// Whether a capped rung with cap `cap` can hold this graph at all: non-negative weights with
/// max weight `max_w` < cap (a single edge at or above the cap breaks the proof above).
inline bool rung_applicable(double max_w, double min_w, double cap) {
  return min_w >= 0 && max_w < cap;
}

/// The lower edge of the band [cap - max_w, cap) that the result check looks for.
inline double rung_band_low(double max_w, double cap) { return cap - max_w; }

/// Whether a rung with cap `cap` is worth trying: applicable, and the sampled evidence (a lower
/// bound on the largest distance, from sampled_distance_lower_bound) has not reached its band.
inline bool rung_worth_trying(double max_w, double min_w, double cap, double evidence) {
  return rung_applicable(max_w, min_w, cap) && evidence < rung_band_low(max_w, cap);
}

/// The checked int32 rung (an int64 result): applicable, and its band's lower edge.
inline bool int32_rung_applicable(double max_w, double min_w) {
  return rung_applicable(max_w, min_w, kInt32Cap);
}
inline double int32_band_low(double max_w) { return rung_band_low(max_w, kInt32Cap); }
/// The int16x2 rung (int32 distances): applicable, and its band's lower edge.
inline bool int16x2_rung_applicable(double max_w, double min_w) {
  return rung_applicable(max_w, min_w, kInt16x2Cap);
}
inline double int16x2_band_low(double max_w) { return rung_band_low(max_w, kInt16x2Cap); }

/// The rungs' rounds per GPU in min-plus updates/s (H100/H200; the lab's rates), which price the
/// sampled evidence asked before or beside them (distance_evidence.hpp evidence_pays): int16x2
/// ~28 T, int32 ~15 T. The distributed backends scale them by their GPU count.
inline constexpr double kInt16x2UpdatesPerGpu = 28e12;
inline constexpr double kInt32UpdatesPerGpu = 15e12;

/// What the rungs leave in Result::rounds (`apsp solve --stats`; tests/test_ladder*.cpp and the
/// NTHU cases read them), the same from every backend.
namespace ladder_note {
inline constexpr const char* kWeightsReachInt32 = "weights reach 2^30-1";
inline constexpr const char* kEvidenceReachesInt32 = "a sampled distance reaches 2^30-1 - max w";
inline constexpr const char* kInt32BandHit = "int32 rounds checked: a distance may reach 2^30-1";
inline constexpr const char* kNoMemoryInt32 = "no memory for int32 rounds beside the int64 result";
inline constexpr const char* kCheckedInt32 = " (checked; bound asked int64)";
inline constexpr const char* kInt16x2 = "int16x2";
inline constexpr const char* kInt16x2Fell = "int16x2 -> ";
inline constexpr const char* kInt16x2Skipped =
    "int16x2 skipped: a sampled distance reaches 2^14-1 - max w; ";
inline constexpr const char* kInt16x2Abandoned =
    "int16x2 abandoned: a sampled distance reaches 2^14-1 - max w; ";
/// "int64 (why)": the int64 result where the checked int32 rung did not hold.
inline std::string int64_because(const std::string& why) { return "int64 (" + why + ")"; }
}  // namespace ladder_note

// ---- which rung ---------------------------------------------------------------------------------

/// The dtype for a graph whose distances are bounded by `bound` in magnitude (DESIGN.md
/// "Exactness"): the one asked (checked against the bound), else int32 below 2^30-1, int64 below
/// 2^62-1, float64 for fractional weights; throws UsageError where no type can be exact. `why`
/// says why.
Dtype choose_dtype_for(double bound, bool integer_weights, const SolveOptions& o,
                       std::string* why = nullptr);

/// The int16x2 rung for int32 distances on a GPU: worth a try when the graph is big enough for
/// the rounds to dominate (V >= 6144; below, the packed pass and the checks gain little: lab,
/// 4096 -> 1.3x) and its weights lie below the cap. The band check decides whether it is kept;
/// sampled Dijkstra (evidence) skips it where a distance already reaches that band (IfNoEvidence).
/// APSP_CUDA_INT16=0 never tries, =1 always tries where the weights allow (Forced: no evidence).
enum class Int16Try { No, IfNoEvidence, Forced };
Int16Try int16_try(std::int64_t num_vertices, double max_w, double min_w);

// ---- the checks and the widening on the host (the device's: cuda/kernels/int16x2.cuh) --------

/// Whether some cell of the int32 matrix `d` (rows x rows) lies in the band [lo, 2^30-1).
bool int32_in_band(const Matrix& d, int lo);
/// The int32 matrix `d` as int64 (2^30-1 -> 2^62-1), same shape and stride, in `memory`.
Matrix widen_to_int64(const Matrix& d, Memory memory);

// ---- the dispatch on a result dtype (the GPU backends)
// -------------------------------------------

/// What a typed run needs to know about its rung.
struct Rung {
  double max_w, min_w;
  bool checked;  ///< int32 rounds for an int64 result: kept only when the band check passes
};

template <class T>
struct TypeTag {
  using type = T;
};

/// Calls run(TypeTag<T>{}, TypeTag<R>{}, Rung) -> bool (false: a checked rung failed, nothing
/// handed out; `rounds` then says why) for rounds in T and a result in R. `rounds` ends as the
/// int64 result's story ("int64 (why)") where the int32 rung did not hold; the dropped pass's
/// h2d and compute count in `timings`.
template <class Run>
void run_ladder(Dtype dt, double max_w, double min_w, Timings& timings, std::string& rounds,
                Run&& run) {
  const Rung plain{max_w, min_w, false};
  switch (dt) {
    case Dtype::Int32:
      run(TypeTag<int>{}, TypeTag<int>{}, plain);
      return;
    case Dtype::Float32:
      run(TypeTag<float>{}, TypeTag<float>{}, plain);
      return;
    case Dtype::Float64:
      run(TypeTag<double>{}, TypeTag<double>{}, plain);
      return;
    case Dtype::Int64: {
      if (!int32_rung_applicable(max_w, min_w)) {
        run(TypeTag<long>{}, TypeTag<long>{}, plain);
        rounds = ladder_note::int64_because(ladder_note::kWeightsReachInt32);
        return;
      }
      if (run(TypeTag<int>{}, TypeTag<long>{}, Rung{max_w, min_w, true})) return;
      const std::string why = rounds;  // the typed run says why the rung failed
      const Timings failed = timings;  // the dropped pass counts in the stages' times too
      run(TypeTag<long>{}, TypeTag<long>{}, plain);
      timings.h2d += failed.h2d;
      timings.compute += failed.compute;
      rounds = ladder_note::int64_because(why);
      return;
    }
  }
  throw Error("unknown dtype");
}

}  // namespace apsp::detail
