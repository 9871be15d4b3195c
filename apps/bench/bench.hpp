// apps/bench/bench.hpp — `apsp bench`: what the CLI passes to a backend's benchmark driver.
// The drivers are part of the CLI, not of apsp_lib: bench_cpu.cpp, bench_cuda.cu (CUDA builds)
// or bench_missing.cpp (builds without CUDA).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "apsp/types.hpp"

namespace apsp::detail {

struct BenchConfig {
  std::vector<std::int64_t> sizes;  ///< V values; empty = the driver's defaults
  Dtype dtype = Dtype::Int32;
  int trials = 3;          ///< timed trials per size (median reported), after 1 warm-up
  int threads = 0;         ///< CPU threads, 0 = all
  int block = 0;           ///< 0 = backend default
  bool baselines = true;   ///< also time the baseline rungs in the same run
  double edge_factor = 0;  ///< E = edge_factor * V (0 = course-like E = min(5M, V^2/4))
  std::uint64_t seed = 42;
  std::string csv;  ///< also write rows here when non-empty
};

/// Thrown by a driver whose table could not be written to `out` (stdout full or closed): the
/// CLI reports the write error itself (finish_stdout), and the rest of the run is not wasted.
struct OutputStreamFailed {};
/// Writes `text` to `path` as the solve's outputs are written: a temporary file renamed into
/// place (io::OutputFile), or straight into a stream or device; throws Error naming the file.
/// For --csv.
void write_output_file(const std::string& path, const std::string& text);

/// Each prints a table (size, variant, seconds, G or T updates/s, % of measured ceiling) to `out`
/// and returns 0, or throws; bench_cuda throws BackendUnavailable where CUDA is not built.
int bench_cpu(const BenchConfig& c, std::ostream& out);
int bench_cuda(const BenchConfig& c, std::ostream& out);

}  // namespace apsp::detail
