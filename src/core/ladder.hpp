// src/core/ladder.hpp — the type ladder's dispatch on a result dtype, shared by the GPU backends
// (cuda, multi-gpu): int32 / float32 / float64 run as asked; an int64 result first runs checked
// int32 rounds where the weights allow (kept when their band check passes, distance_evidence.hpp),
// else or then int64 rounds. README.md "Types"; docs/cuda-notes.md, the type ladder.
#pragma once

#include <string>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "core/distance_evidence.hpp"

namespace apsp::detail {

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
      constexpr double cap = double((1 << 30) - 1);  // unreachable<int32_t>(): the int32 rung's cap
      if (!rung_applicable(max_w, min_w, cap)) {
        run(TypeTag<long>{}, TypeTag<long>{}, plain);
        rounds = "int64 (weights reach 2^30-1)";
        return;
      }
      if (run(TypeTag<int>{}, TypeTag<long>{}, Rung{max_w, min_w, true})) return;
      const std::string why = rounds;  // the typed run says why the rung failed
      const Timings failed = timings;  // the dropped pass counts in the stages' times too
      run(TypeTag<long>{}, TypeTag<long>{}, plain);
      timings.h2d += failed.h2d;
      timings.compute += failed.compute;
      rounds = "int64 (" + why + ")";
      return;
    }
  }
  throw Error("unknown dtype");
}

}  // namespace apsp::detail
