// apps/commands.hpp — the `apsp` subcommands main() dispatches to, and the terminal progress
// line they share. Each returns the process's exit code and throws apsp::Error on bad input.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/solve.hpp"

namespace apsp_cli {

/// Progress on stderr: the stages of a solve (read, solve, write) with their times, the rounds
/// with an estimate of the time left. On a terminal a status line is redrawn in place, once a
/// run has lasted a second (APSP_PROGRESS_DELAY=seconds changes that; the tests use 0); with
/// `force` (--progress) also where stderr is no terminal, a line per stage and per tenth of the
/// rounds. Nothing when not enabled (-q).
class Progress {
 public:
  explicit Progress(bool enabled, bool force = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void operator()(std::int64_t done, std::int64_t total);
  /// A stage starts ("read", "solve", "metrics", "write", "verify"); "done" ends the last one.
  /// solve()'s own stages (apsp::StageFn: "order", "build", "rounds", "factor", "rows", ...) run
  /// inside the stage running, each with its line; "" ends one without starting another.
  void phase(const char* name);
  void finish();
  /// A warning line ("apsp: warning: ..."), below an open status line; shown even when not
  /// enabled.
  void warn(const std::string& text);
  apsp::ProgressFn fn() {
    return [this](std::int64_t d, std::int64_t t) { (*this)(d, t); };
  }
  std::function<void(const char*)> phase_fn() {
    return [this](const char* name) { phase(name); };
  }

 private:
  struct State;
  std::unique_ptr<State> s_;
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
/// A JSON string literal of s: quotes, backslashes and control characters escaped (--stats,
/// `apsp metrics`' names; defined in apps/metrics_command.cpp).
std::string json_string(const std::string& s);

struct SolveArgs {
  std::string in, out;
  std::string backend = "auto", type, input_format = "auto", output_format = "auto", order = "auto";
  int block = 0, threads = 0;
  std::int64_t vertices = 0;
  std::vector<int> devices;
  bool undirected = false, directed = false, unweighted = false, labels = false;
  bool paths = false, verify = false, quiet = false, progress = false;
  bool verbose = false;  ///< with stats: the solve plan too
  bool stats = false;
  std::string stats_file;            ///< with stats: "" = text on stderr, else JSON appended here
  std::vector<std::string> sources;  ///< --sources: rows of these vertices only (numbers or names)
};
/// `apsp solve` (and `apsp IN OUT`): forks off the teardown where a GPU solve may run, runs
/// apsp::solve_file, prints the verdict and the stats.
int run_solve(const SolveArgs& a);
/// `apsp solve IN OUT --sources LIST` (apps/sources_command.cpp): one Dijkstra per source, the
/// rows in the order listed.
int run_sources(const SolveArgs& a, Progress& progress);

struct GenerateArgs {
  std::string out, kind = "uniform", format = "auto";
  std::int64_t vertices = 1000, edges = -1, wmin = 0, wmax = 1000, rows = 0, cols = 0;
  int scale = 10, k = 4;
  double unit = 1000;
  std::uint64_t seed = 1;
  std::vector<std::string> given;  ///< the options on the command line, e.g. "-V,--vertices"
};
int run_generate(const GenerateArgs& a);

/// `apsp path`: exit 8 when j cannot be reached from i. i and j are 0-based vertex numbers, or
/// names where DIST has its vertex names beside it (DIST.labels, written with DIST).
int run_path(const std::string& dist_path, const std::string& next_arg, const std::string& i,
             const std::string& j);
int run_info(bool config, bool markdown);

}  // namespace apsp_cli
