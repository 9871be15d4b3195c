// apps/process.hpp — the CLI's process policy: what the `apsp` process around solve_file() does
// with itself: stop signals, the forked worker that lets the shell go before the GPU driver's
// teardown, the exit that skips freeing what the OS reclaims anyway. The library has none of it
// (a Python process keeps its own signals and exit); it gives what this needs through
// apsp/output.hpp (removing temporary outputs) and apsp/pipeline.hpp (gpu_solve_possible).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace apsp_cli {

/// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE
/// (stop_signals()): kill a helper program (set_helper_process), remove this process's temporary
/// outputs (and pass the signal to a forked worker), then die of the signal. An ignored signal
/// (nohup) stays ignored. SIGXFSZ is ignored: a write past `ulimit -f` fails with EFBIG and is
/// reported as an error like any other.
void install_stop_handlers();
/// The signals install_stop_handlers() catches.
const std::vector<int>& stop_signals();
/// A child process that must not outlive this one (0: none): the stop handler SIGKILLs and reaps
/// it before the process dies of the signal. The child itself should ask for PR_SET_PDEATHSIG.
void set_helper_process(pid_t pid);
/// Where a GPU solve can run (or APSP_DETACH_EXIT=1), forks: the child returns and does the
/// work; the parent waits for the child's report_exit() and exits with that code at once (the
/// child's teardown then finishes on its own), or, when the child dies without a report, removes
/// the temporary files it left beside `outputs` and ends as it did. Off under mpirun.
void detach_teardown(const std::string& backend, const std::vector<std::string>& outputs);
/// In a forked worker: everything is written; tell the parent the exit code (once). Else nothing.
void report_exit(int rc);
/// Ends the process now with `rc` once every output is committed: flushes stdio, reports to a
/// waiting parent, and skips destructors and the release of memory the OS reclaims anyway
/// (a GPU context's teardown, pinned buffers, the distance matrix's pages).
[[noreturn]] void end_process(int rc);

}  // namespace apsp_cli
