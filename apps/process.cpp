// apps/process.cpp — stop signals, the forked worker and the fast exit (process.hpp).
//
// A process that used CUDA spends about 0.1 s in exit() while the driver releases its context
// (bench/results/2026-11-21-startup-h200.md); the result is complete and renamed by then. So the
// solve runs in a child process and the parent, which the shell waits for, exits as soon as the
// child reports its exit code. The child dies with the parent (PR_SET_PDEATHSIG), so `timeout`
// or `kill` on the parent still stops the solve. The fork comes before the driver starts, so
// whether a GPU solve can run is told from the build, the backend and the device files.
#include "process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "apsp/config.hpp"
#include "apsp/output.hpp"
#include "apsp/pipeline.hpp"

namespace apsp_cli {

namespace {

int g_report_fd = -1;
volatile pid_t g_worker = 0;  // in the parent: the child doing the work
volatile pid_t g_helper = 0;  // a helper program run by a command (bench's SciPy baseline)

bool under_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALRANKID"})
    if (std::getenv(v)) return true;
  return false;
}

/// The parent of a forked solve passes the signal on and reaps the child (which removes its
/// temporary files the same way); then the temporary outputs go, and the signal is raised again
/// with its default action, so the shell sees how the process ended.
void on_stop_signal(int sig) {
  const int saved = errno;
  if (const pid_t helper = g_helper; helper > 0) {
    ::kill(helper, SIGKILL);  // it holds no output of ours: nothing to clean up there
    int st = 0;
    while (::waitpid(helper, &st, 0) < 0 && errno == EINTR) {
    }
  }
  if (const pid_t child = g_worker; child > 0) {
    ::kill(child, sig);
    int st = 0;
    while (::waitpid(child, &st, 0) < 0 && errno == EINTR) {
    }
  }
  apsp::io::remove_temp_files();
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // blocked until this handler returns
  errno = saved;
}

}  // namespace

const std::vector<int>& stop_signals() {
  // Every signal whose default action ends the process and that someone may send on purpose:
  // a terminal's INT, QUIT and HUP, kill's TERM, the USR and timer signals (a job scheduler's
  // warning, `timeout -s ALRM`, a profiler's timer left armed), and PIPE (a reader that went
  // away: stdout into `head`). Each removes the temporary outputs first.
  static const std::vector<int> s{SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1,
                                  SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE};
  return s;
}

void install_stop_handlers() {
  // A file-size limit (`ulimit -f`) would kill the process with SIGXFSZ at the first write past
  // it, leaving the temporary output behind and saying nothing. Ignored, the write fails with
  // EFBIG instead, and the error names the file ("File too large"); the temporary file goes
  // with the error.
  struct sigaction xfsz {};
  if (::sigaction(SIGXFSZ, nullptr, &xfsz) == 0 && !(xfsz.sa_flags & SA_SIGINFO) &&
      xfsz.sa_handler == SIG_DFL)
    ::signal(SIGXFSZ, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : stop_signals()) sigaddset(&sa.sa_mask, s);
  for (int s : stop_signals()) {
    struct sigaction old {};
    ::sigaction(s, nullptr, &old);
    // Only a default action is replaced: an ignored signal (nohup, a parent that ignores
    // SIGPIPE) stays ignored, and a handler installed before main (a profiler's SIGPROF) stays.
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    ::sigaction(s, &sa, nullptr);
  }
}

void set_helper_process(pid_t pid) { g_helper = pid; }

void detach_teardown(const std::string& backend, const std::vector<std::string>& outputs) {
  const std::optional<bool> detach = apsp::config::get_switch(apsp::config::Knob::DetachExit);
  if (detach == false || under_mpi() || (!detach && !apsp::gpu_solve_possible(backend))) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  // Stop signals wait until the child's pid is known here (the handler forwards to it).
  sigset_t stop, old;
  sigemptyset(&stop);
  for (int s : stop_signals()) sigaddset(&stop, s);
  ::pthread_sigmask(SIG_BLOCK, &stop, &old);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {  // the child does the work
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (::getppid() != parent) std::_Exit(1);  // the parent is already gone
    g_report_fd = fds[1];
    return;
  }
  g_worker = pid;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(fds[1]);
  unsigned char rc = 1;
  ssize_t n;
  do n = ::read(fds[0], &rc, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(rc);  // reported: the outputs are final
  // The child ended without a report (a crash, a signal, the OOM killer): remove what it left,
  // and pass on how it ended.
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  g_worker = 0;
  for (const auto& out : outputs) apsp::io::remove_stale_temps(out, long(pid));
  if (WIFEXITED(st)) ::_exit(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    std::signal(WTERMSIG(st), SIG_DFL);
    ::raise(WTERMSIG(st));
  }
  ::_exit(1);
}

void report_exit(int rc) {
  if (g_report_fd < 0) return;
  std::fflush(nullptr);
  const unsigned char c = static_cast<unsigned char>(rc);
  while (::write(g_report_fd, &c, 1) < 0 && errno == EINTR) {
  }
  ::close(g_report_fd);
  g_report_fd = -1;
}

void end_process(int rc) {
  std::fflush(stdout);
  std::fflush(stderr);
  report_exit(rc);
  std::_Exit(rc);
}

}  // namespace apsp_cli
