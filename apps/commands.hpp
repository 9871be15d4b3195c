// apps/commands.hpp — the `apsp` subcommands main() dispatches to, and the terminal progress
// line they share. Each returns the process's exit code and throws apsp::Error on bad input.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/solve.hpp"

namespace apsp_cli {

/// Progress on stderr: only on a terminal, only once a run has lasted a second
/// (APSP_PROGRESS_DELAY=seconds changes that; the tests use 0).
class Progress {
 public:
  explicit Progress(bool enabled);
  void operator()(std::int64_t done, std::int64_t total);
  void finish();
  apsp::ProgressFn fn() {
    return [this](std::int64_t d, std::int64_t t) { (*this)(d, t); };
  }

 private:
  bool enabled_;
  double delay_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point t0_;
};

/// Before anything else in main(): a closed descriptor 1 or 2 (`>&-`) gets /dev/null opened
/// read-only in its place, so that no output file opened later lands there (and the commands'
/// writes to it fail with EBADF, as they would on the closed descriptor); then std::cout gets a
/// buffer of its own on descriptor 1 that keeps the first write error's errno.
void setup_stdout();
/// Flushes std::cout. When a write to stdout failed, prints "apsp: error: stdout: <reason>" and
/// returns 1 if `rc` was 0 (else `rc`, which already tells of a failure); else returns `rc`.
/// EPIPE reaches it only where SIGPIPE is ignored (by default SIGPIPE ends the process silently,
/// exit 141, after removing the temporary files).
int finish_stdout(int rc);

struct SolveArgs {
  std::string in, out;
  std::string backend = "auto", type, input_format = "auto", output_format = "auto", order = "auto";
  int block = 0, threads = 0;
  std::int64_t vertices = 0;
  std::vector<int> devices;
  bool undirected = false, paths = false, verify = false, quiet = false;
  bool verbose = false;  ///< with stats: the solve plan too
  bool stats = false;
  std::string stats_file;  ///< with stats: "" = text on stderr, else JSON appended here
};
/// `apsp solve` (and `apsp IN OUT`): forks off the teardown where a GPU solve may run, runs
/// apsp::solve_file, prints the verdict and the stats.
int run_solve(const SolveArgs& a);

struct GenerateArgs {
  std::string out, kind = "uniform", format = "auto";
  std::int64_t vertices = 1000, edges = -1, wmin = 0, wmax = 1000, rows = 0, cols = 0;
  int scale = 10, k = 4;
  double unit = 1000;
  std::uint64_t seed = 1;
  std::vector<std::string> given;  ///< the options on the command line, e.g. "-V,--vertices"
};
int run_generate(const GenerateArgs& a);

/// `apsp path`: exit 8 when j cannot be reached from i.
int run_path(const std::string& dist_path, const std::string& next_arg, std::int64_t i,
             std::int64_t j);
int run_info(bool config, bool markdown);

}  // namespace apsp_cli
