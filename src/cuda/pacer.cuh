// src/cuda/pacer.cuh — keeps the host a few rounds ahead of one CUDA stream, no more: a ring of
// events recorded before each round, the oldest waited for. Used where a question asked between
// rounds (is the type-ladder rung still worth running?) must be asked at the GPU's pace.
#pragma once

#include "gpu/runtime.hpp"

#include <cstdint>

#include "cuda/cuda_check.hpp"

namespace apsp::cuda {
namespace {

/// Keeps the host at most kAhead rounds ahead of the GPU, so that a question asked before a
/// round is asked at the GPU's pace (kernels are queued in microseconds, run in milliseconds).
class Pacer {
 public:
  static constexpr int kAhead = 4;
  Pacer(gpuStream_t s, bool on) : s_(s) {
    if (on)
      for (auto& e : ev_) APSP_CUDA_TRY(gpuEventCreateWithFlags(&e, gpuEventDisableTiming));
  }
  ~Pacer() {
    for (auto& e : ev_)
      if (e) (void)gpuEventDestroy(e);
  }
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;
  /// Called before round t is queued: waits until round t - kAhead - 1 has run. Returns true.
  bool before_round(std::int64_t t) {
    gpuEvent_t& e = ev_[t % kAhead];
    if (t >= kAhead) APSP_CUDA_TRY(gpuEventSynchronize(e));
    APSP_CUDA_TRY(gpuEventRecord(e, s_));
    return true;
  }

 private:
  gpuStream_t s_;
  gpuEvent_t ev_[kAhead] = {};
};

}  // namespace
}  // namespace apsp::cuda
