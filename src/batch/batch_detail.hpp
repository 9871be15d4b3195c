// src/batch/batch_detail.hpp — what the batch engine's cpu part (batch.cpp) and its GPU part
// (gpu_batch.cpp) share (internal): the loop over graphs, one graph on one thread, the graphs
// left to solve(), and the GPU path's entry points.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <vector>

#include "apsp/batch.hpp"
#include "batch/gpu_engine.hpp"

namespace apsp::detail::batch {

/// Rethrows e (graph b's failure) as the same exception type, its message prefixed "graph B: ".
[[noreturn]] void rethrow_for_graph(std::int64_t b, std::exception_ptr e);

/// Runs f(b) for b in [0, count) over `threads` threads; rethrows the lowest b's exception.
template <class F>
void for_each_graph(std::int64_t count, int threads, F&& f) {
  std::atomic<std::int64_t> failed{std::numeric_limits<std::int64_t>::max()};
  std::exception_ptr error;
  std::mutex m;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (std::int64_t b = 0; b < count; ++b) {
    if (b > failed.load(std::memory_order_relaxed)) continue;
    try {
      f(b);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (b < failed.load()) {
        failed.store(b);
        error = std::current_exception();
      }
    }
  }
  if (error) rethrow_for_graph(failed.load(), error);
}

/// `requested` threads, or all (0).
int threads_for(int requested);
/// Whether the cpu engine's parallel loop closes g itself (one cpu tile, no negative weight);
/// else solve() does, after the loop.
bool in_loop(const Graph& g, Dtype t);
/// The cpu backend's run() for one graph on the calling thread (cpu_backend.cpp,
/// CpuBackend::run). `closed`: g's closed n x n distances (row-major), computed elsewhere (the
/// GPU), used in place of the closure where the next-hop method needs only distances (the edges
/// pass); the tracked method closes the graph itself.
void close_on_thread(const Graph& g, Dtype t, bool paths, Matrix& dist, Matrix& next,
                     const void* closed = nullptr);
/// solve()'s options for the graphs the batch hands to it.
SolveOptions solve_options(Dtype t, const BatchOptions& o, Backend backend);
/// Solves the graphs marked in `later` with solve(), one at a time, in order.
void solve_later(const BatchGraphs& graphs, const std::vector<char>& later, const SolveOptions& so,
                 const BatchSink& sink);

/// The GPU engine the batch runs on, or nullptr for the cpu: backend cpu, or auto without a
/// usable GPU or with fewer than kAutoMinGpuGraphs graphs the GPU takes. Backend cuda without a
/// usable GPU throws BackendUnavailable; other backends throw UsageError.
const GpuEngine* gpu_for(const BatchGraphs& graphs, const BatchOptions& options);
/// backend auto uses the GPU from this many graphs it can take (its fixed cost is ~1 ms).
inline constexpr std::int64_t kAutoMinGpuGraphs = 1024;
/// solve_batch with the small graphs (gpu_engine.hpp) on the GPU, the others on the host as the
/// cpu engine solves them. `derived`: t came from choose_batch_dtype (every graph checked).
void solve_batch_gpu(const BatchGraphs& graphs, const BatchOptions& options, Dtype t, bool derived,
                     const GpuEngine& gpu, const BatchSink& sink);
/// solve_batch_into on the GPU (apsp/batch.hpp): the small graphs written by the device.
void solve_batch_gpu_into(const BatchGraphs& graphs, const BatchOptions& options, Dtype t,
                          bool derived, const GpuEngine& gpu, const BatchOutput& out,
                          int out_device);

}  // namespace apsp::detail::batch
