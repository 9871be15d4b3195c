// apps/apsp.cpp — the `apsp` command-line tool.
//
//   apsp IN OUT                       NTHU drop-in: same bytes as the course's `hw3-2 IN OUT`
//   apsp solve IN OUT [options]       any input/output format, any backend, --paths, --verify, --stats
//   apsp generate OUT [options]       course-like uniform, RMAT, grid, geometric or mesh graphs
//   apsp metrics IN [OUT]             closeness, harmonic, eccentricity, diameter, ... (no V x V output)
//   apsp path DIST i j                a shortest path from a --paths result
//   apsp info [--config]              backends built, devices found, their ceilings; APSP_* settings
//   apsp bench --backend B            kernel and whole-solve benchmarks with baselines
// Every error is one line "apsp: error: ..." on stderr and a non-zero exit (see errors.hpp).
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "core/bench.hpp"
#include "core/config.hpp"
#include "core/distance_evidence.hpp"
#include "core/memory_limit.hpp"
#include "core/options_check.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "io/io_common.hpp"
#include "metrics_command.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

/// Progress on stderr: only on a terminal, only once a run has lasted a second
/// (APSP_PROGRESS_DELAY=seconds changes that; the tests use 0).
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(2)), t0_(Clock::now()) {}
  void operator()(std::int64_t done, std::int64_t total) {
    if (!enabled_ || since(t0_) < delay_) return;
    std::fprintf(stderr, "\rapsp: round %lld/%lld (%3.0f%%)", (long long)done, (long long)total, 100.0 * done / total);
    shown_ = true;
    if (done == total) finish();
  }
  void finish() {
    if (shown_) std::fputc('\n', stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  double delay_ = apsp::config::get_double(apsp::config::Knob::ProgressDelay);
  bool shown_ = false;
  Clock::time_point t0_;
};

/// Where the next-hop matrix of a --paths run goes: OUT.next, or STEM.next.npy for OUT = STEM.npy.
std::string next_path_for(const std::string& out) {
  const std::string ext = ".npy";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".next.npy";
  return out + ".next";
}

struct SolveArgs {
  std::string in, out;
  std::string backend = "auto", type, input_format = "auto", output_format = "auto", order = "auto";
  int block = 0, threads = 0;
  std::int64_t vertices = 0;
  std::vector<int> devices;
  bool undirected = false, paths = false, verify = false, quiet = false;
  bool stats = false;
  std::string stats_file;
};

void print_stats(const SolveArgs& a, const apsp::Graph& g, const apsp::Result& r, std::ostream& os, bool json) {
  const auto& t = r.timings;
  const double V = double(g.num_vertices);
  const double solve_s = t.h2d + t.compute + t.d2h;
  const double total = t.read + t.build + t.order + t.symbolic + solve_s + t.unpermute + t.write;
  const double tups = t.compute > 0 ? V * V * V / t.compute / 1e12 : 0;
  if (json) {
    os << "{\"input\": \"" << a.in << "\", \"vertices\": " << g.num_vertices << ", \"edges\": " << g.num_edges()
       << ", \"backend\": \"" << r.backend << "\", \"dtype\": \"" << apsp::dtype_name(r.dtype())
       << "\", \"rounds\": \"" << r.rounds << "\", \"block\": "
       << r.block << ", \"paths\": " << (a.paths ? "true" : "false") << ", \"read_s\": " << t.read
       << ", \"build_s\": " << t.build << ", \"h2d_s\": " << t.h2d << ", \"compute_s\": " << t.compute
       << ", \"d2h_s\": " << t.d2h << ", \"write_s\": " << t.write << ", \"total_s\": " << total
       << ", \"t_updates_per_s\": " << tups << ", \"order\": \"" << r.order << "\", \"order_s\": " << t.order
       << ", \"symbolic_s\": " << t.symbolic << ", \"work_fraction\": " << r.work_fraction
       << ", \"unpermute_s\": " << t.unpermute << "}\n";
    return;
  }
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "apsp stats: V=%lld E=%zu backend=%s type=%s rounds=%s block=%d%s\n"
                "  read     %9.4f s\n  build    %9.4f s\n  h2d      %9.4f s\n  compute  %9.4f s  (%.3f T = %.1f G updates/s, V^3/s)\n"
                "  d2h      %9.4f s\n  write    %9.4f s\n  total    %9.4f s\n",
                (long long)g.num_vertices, g.num_edges(), r.backend.c_str(), apsp::dtype_name(r.dtype()), r.rounds.c_str(), r.block,
                a.paths ? " paths" : "", t.read, t.build, t.h2d, t.compute, tups, tups * 1e3, t.d2h, t.write, total);
  os << buf;
  if (r.order.rfind("nd", 0) == 0)
    os << "  order    " << r.order << ": ordering " << t.order << " s, symbolic " << t.symbolic << " s, "
       << 100 * r.work_fraction << "% of the dense work, unpermute " << t.unpermute << " s\n";
  else if (r.order != "none")
    os << "  order    " << r.order << "\n";
  for (const auto& n : r.notes) os << "  note: " << n << "\n";
}

// ---- returning to the shell before the GPU driver's teardown -------------------------------------
// A process that used CUDA spends about 0.1 s in exit() while the driver releases its context
// (H200, APSP_TRACE=1: "outputs committed" -> process gone in 105 ms at V=5000 and at V=11000;
// bench/results/2026-11-21-startup-h200.md). The result is complete and renamed by then. So the
// solve runs in a child process and the parent, which the shell waits for, exits as soon as the
// child reports its exit code; the child's teardown then finishes on its own. The child dies with
// the parent (PR_SET_PDEATHSIG), so `timeout` or `kill` on the parent still stops the solve.
// Only where a GPU solve can run: a CUDA build, a GPU-capable backend, NVIDIA device files and
// devices not hidden by CUDA_VISIBLE_DEVICES (the fork must come before the driver starts, so the
// driver cannot be asked). Off under MPI (mpirun manages its ranks) and with APSP_DETACH_EXIT=0;
// APSP_DETACH_EXIT=1 forks for any backend (tests, measurements).
int g_report_fd = -1;
volatile pid_t g_worker = 0;  // in the parent: the child doing the work

bool under_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALRANKID"})
    if (std::getenv(v)) return true;
  return false;
}

bool gpu_solve_possible(const std::string& backend) {
#ifdef APSP_WITH_CUDA
  if (backend != "auto" && backend != "cuda" && backend != "multi-gpu") return false;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && (!*v || v[0] == '-')) return false;
  return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0;
#else
  (void)backend;
  return false;
#endif
}

/// SIGINT, SIGTERM, SIGHUP: the parent of a forked solve passes the signal on and reaps the child
/// (which removes its temporary files the same way); then the temporary outputs go, and the
/// signal is raised again with its default action, so the shell sees how the process ended.
void on_stop_signal(int sig) {
  const int saved = errno;
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

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(s, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // nohup: stays ignored
    ::sigaction(s, &sa, nullptr);
  }
}

void split_off_teardown(const std::string& backend, const std::vector<std::string>& outputs) {
  const std::optional<bool> detach = apsp::config::get_switch(apsp::config::Knob::DetachExit);
  if (detach == false || under_mpi() || (!detach && !gpu_solve_possible(backend))) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  // Stop signals wait until the child's pid is known here (the handler forwards to it).
  sigset_t stop, old;
  sigemptyset(&stop);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop, s);
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

/// In the child: everything is written; tell the parent the exit code (once).
void report_exit(int rc) {
  if (g_report_fd < 0) return;
  std::fflush(nullptr);
  const unsigned char c = static_cast<unsigned char>(rc);
  while (::write(g_report_fd, &c, 1) < 0 && errno == EINTR) {
  }
  ::close(g_report_fd);
  g_report_fd = -1;
}

/// Every file the solve will write, checked before the input is read: each can be created (its
/// directory exists and is writable), none is the input (same file, also through links), and a
/// --paths run has a file to put OUT.next beside. Throws UsageError / Error naming the path.
void check_outputs(const SolveArgs& a) {
  std::vector<std::string> outs{a.out};
  if (a.paths) {
    if (apsp::io::resolve_output(a.out).stream_fd >= 0)
      throw apsp::UsageError(a.out + ": --paths needs an output file (it writes the next hops beside it)");
    outs.push_back(next_path_for(a.out));
  }
  for (const auto& o : outs) {
    if (apsp::io::same_file(a.in, o)) throw apsp::UsageError(o + ": the output would overwrite the input " + a.in);
    apsp::io::check_output_path(o);
  }
  if (a.stats && !a.stats_file.empty()) {
    if (apsp::io::same_file(a.in, a.stats_file))
      throw apsp::UsageError(a.stats_file + ": the stats file would overwrite the input " + a.in);
    apsp::io::check_output_path(a.stats_file);
    if (::access(a.stats_file.c_str(), F_OK) == 0 && ::access(a.stats_file.c_str(), W_OK) != 0)
      throw apsp::Error(a.stats_file + ": cannot write stats file: " + std::strerror(errno));
  }
}

/// NTHU output holds distances below 1073741823 (the unreachable marker). Where (V-1)*max|w|
/// allows larger ones, Dijkstra from a few sources looks for one now, so that a result that
/// certainly cannot be written is refused before the solve. Its bound is a lower bound: the
/// writer still checks every value after the solve. The search holds up the start, so it runs
/// only where it costs at most 5% of the fastest int32 solve (a 5M-arc graph at V = 30000 would
/// wait ~0.1 s for it, and the cuda ladder asks the same question beside its rounds anyway).
void refuse_nthu_overflow(const SolveArgs& a, const apsp::Graph& g, apsp::OutputFormat of) {
  if (of == apsp::OutputFormat::Auto) of = apsp::output_format_for(a.out);
  if (of != apsp::OutputFormat::Nthu || !g.integer_weights) return;
  constexpr double kCap = 1073741823.0;  // 2^30-1
  if (double(std::max<std::int64_t>(g.num_vertices - 1, 0)) * g.max_abs_weight() < kCap) return;
  // A graph whose matrix cannot fit is solve()'s to refuse; the search needs O(V) per source.
  const double V = double(g.num_vertices);
  if (V * V * 4 > double(apsp::detail::host_memory_limit().bytes)) return;
  const double arcs = double(g.src.size()) * (g.directed ? 1 : 2);
  if (!apsp::detail::evidence_pays(arcs, V, 15e12, 0.05)) return;
  const double seen = apsp::detail::sampled_distance_lower_bound(g, 8, kCap);
  if (seen < kCap) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", seen);
  throw apsp::UsageError(a.out + ": NTHU output holds distances below 1073741823 (2^30-1), but this graph has a "
                         "shortest distance of " + buf + "; write .npy or .txt (or --output-format npy|text)");
}

int run_solve(const SolveArgs& a) {
  // Under mpirun only rank 0 writes; the others' hosts need not have its folders.
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  if (!rank || std::string_view(rank) == "0") check_outputs(a);
  apsp::ReadOptions ro;
  ro.format = apsp::parse_input_format(a.input_format);
  ro.undirected = a.undirected;
  ro.num_vertices = a.vertices;
  const apsp::OutputFormat of = apsp::parse_output_format(a.output_format);
  if (of == apsp::OutputFormat::Auto) (void)apsp::output_format_for(a.out);  // unknown extension: refused now

  apsp::SolveOptions so;
  so.backend = apsp::parse_backend(a.backend);
  so.order = apsp::parse_order(a.order);
  // The single-GPU solve has at most three streams busy at once (the rounds, --paths's arc upload
  // and next-hop kernel); with CUDA's default of 8 hardware work queues per device the context
  // takes 133-137 ms to create on the H200 host, with 1 or 2 queues 55-67 ms (dev/cuda/
  // startup_probe, bench/results/session5-h200-2026-11-21.md). Set before the first CUDA call; a
  // value in the environment wins.
  if (so.backend == apsp::Backend::Auto || so.backend == apsp::Backend::Cuda)
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 0);
  // GPU context creation (~0.2 s) overlaps reading the input.
  using apsp::detail::trace;
  trace("solve command starts");
  std::jthread warm([b = so.backend, d = a.devices] {
    apsp::warm_up(b, d);
    trace("warm-up done");
  });

  const auto t_read = Clock::now();
  apsp::Graph g = apsp::read_graph(a.in, ro);
  const double read_s = since(t_read);
  trace("input read");
  refuse_nthu_overflow(a, g, of);
  trace("nthu output range checked");

  if (!a.type.empty()) so.dtype = apsp::parse_dtype(a.type);
  so.block = a.block;
  so.threads = a.threads;
  so.devices = a.devices;
  so.paths = a.paths;
  Progress progress(!a.quiet);
  so.progress = [&progress](std::int64_t d, std::int64_t t) { progress(d, t); };

  // Stream the output: the writers open on the first stripe (so an MPI rank that never gets one
  // writes nothing) and commit after the solve. --verify needs the whole matrix in memory.
  double write_s = 0;
  std::unique_ptr<apsp::MatrixStreamWriter> dist_w, next_w;
  // A GPU solve leaves the host idle until the first stripe: the writers open now and fill their
  // files' page cache meanwhile (MatrixStreamWriter::prefill), from a thread that first waits for
  // the driver's start-up (~0.1 s) to learn whether a GPU is there (`auto` without one is the CPU
  // backend, whose threads need the cores). Declared after the writers: joined before they go.
  std::exception_ptr prefill_error;  // from the gate thread (a bad APSP_WRITE_* value), for the sink
  std::jthread prefill_gate;
  auto sink_to = [&](std::unique_ptr<apsp::MatrixStreamWriter>& w, const std::string& path) -> apsp::RowSink {
    return [&w, &write_s, &prefill_gate, &prefill_error, path, of, V = g.num_vertices](const apsp::RowBlock& b) {
      const auto t0 = Clock::now();
      if (prefill_gate.joinable()) prefill_gate.join();
      if (prefill_error) std::rethrow_exception(std::exchange(prefill_error, nullptr));
      if (w && w->dtype() != b.dtype) w.reset();  // opened early for another dtype than solve() chose
      if (!w) w = std::make_unique<apsp::MatrixStreamWriter>(path, V, V, b.dtype, of);
      w->write(b.row0, apsp::Matrix::view(b.data, b.rows, b.cols, b.stride, b.dtype));
      write_s += since(t0);
    };
  };
  if (!a.verify) {
    so.dist_sink = sink_to(dist_w, a.out);
    if (a.paths) so.next_sink = sink_to(next_w, next_path_for(a.out));
    const bool gpu = so.backend == apsp::Backend::Cuda || so.backend == apsp::Backend::MultiGpu;
    if (gpu || so.backend == apsp::Backend::Auto) {
      apsp::SolveOptions guess = so;  // solve()'s dtype choice, as far as it can be made here
      std::optional<apsp::Dtype> t;
      try {
        t = apsp::choose_dtype(g, guess);
      } catch (const apsp::Error&) {  // solve() will say what is wrong
      }
      if (t) {
        dist_w = std::make_unique<apsp::MatrixStreamWriter>(a.out, g.num_vertices, g.num_vertices, *t, of);
        if (a.paths)
          next_w = std::make_unique<apsp::MatrixStreamWriter>(next_path_for(a.out), g.num_vertices, g.num_vertices,
                                                              apsp::Dtype::Int32, of);
        // A bad APSP_WRITE_PREFILL is a usage error now, before the solve (the gate hands any
        // other failure to the first stripe). The gate starts the prefill once the driver is up
        // (as measured: bench/results/session5-h200-2026-11-21.md), and only where a GPU is usable.
        (void)apsp::io::output_prefill_method(std::filesystem::path(a.out).parent_path().string());
        prefill_gate = std::jthread([&dist_w, &next_w, &prefill_error] {
          try {
            if (!apsp::detail::cuda_backend_info().usable) return;
            dist_w->prefill();
            if (next_w) next_w->prefill();
            trace("output prefill started");
          } catch (...) {
            prefill_error = std::current_exception();
          }
        });
      }
    }
  }

  // No join here: solve()'s host-side checks overlap the rest of the context creation, and its
  // first CUDA call waits for the warm-up thread's by itself (the runtime's init is thread-safe).
  trace("solve starts");
  apsp::Result r;
  try {
    r = apsp::solve(g, so);
  } catch (const apsp::NegativeCycleError& e) {  // name the input file in every message
    throw apsp::NegativeCycleError(a.in + ": " + e.what(), e.cycle());
  } catch (const apsp::ResourceError& e) {
    throw apsp::ResourceError(a.in + ": " + e.what());
  } catch (const apsp::UsageError& e) {
    throw apsp::UsageError(a.in + ": " + e.what());
  }
  progress.finish();
  trace("solve returned");
  r.timings.read = read_s;

  // Under mpirun only rank 0 holds (or streams) the result; the other ranks end here quietly.
  const bool output_rank = dist_w || !r.dist.empty();
  if (!output_rank) return 0;
  const auto t_write = Clock::now();
  if (a.verify) {
    apsp::write_matrix(a.out, r.dist, of);
    if (a.paths) apsp::write_matrix(next_path_for(a.out), r.next, of);
  }
  if (next_w) next_w->commit();
  if (dist_w) dist_w->commit();
  r.timings.write = write_s + since(t_write);
  trace("outputs committed");

  int rc = 0;
  if (a.verify) {
    const std::string report = apsp::detail::verify(g, r.dist);
    // With the matrix on stdout, the verdict goes to stderr.
    (apsp::io::resolve_output(a.out).stream_fd == 1 ? std::cerr : std::cout)
        << "Verification: " << (report.empty() ? "PASS" : "FAIL") << "\n";
    if (!report.empty()) {
      std::cerr << "apsp: verification: " << report << "\n";
      rc = 7;
    }
  }
  if (a.stats) {
    if (a.stats_file.empty()) print_stats(a, g, r, std::cerr, false);
    else {
      std::ofstream f(a.stats_file, std::ios::app);
      if (!f) throw apsp::Error("cannot write stats file " + a.stats_file);
      print_stats(a, g, r, f, true);
    }
  }
  if (r.backend == "cuda") {
    // Everything is written and renamed. Skip the CUDA context teardown and the release of pinned
    // buffers at exit (tens of ms): the process ends here and the OS reclaims it all.
    std::fflush(stdout);
    std::fflush(stderr);
    report_exit(rc);
    std::_Exit(rc);
  }
  return rc;
}

/// `apsp path` when j cannot be reached from i (general errors are 1).
constexpr int kExitNoPath = 8;

int run_path(const std::string& dist_path, const std::string& next_arg, std::int64_t i, std::int64_t j) {
  const std::string next_file = next_arg.empty() ? next_path_for(dist_path) : next_arg;
  const apsp::Matrix dist = apsp::read_matrix(dist_path);
  const apsp::Matrix next = apsp::read_matrix(next_file);
  if (next.dtype() != apsp::Dtype::Int32 || next.rows() != dist.rows() || next.cols() != dist.cols())
    throw apsp::UsageError(next_file + ": not an int32 next-hop matrix of the same shape as " + dist_path);
  const auto p = apsp::path_from_next(next, i, j);
  if (p.empty()) {
    std::cout << "no path from " << i << " to " << j << "\n";
    return kExitNoPath;
  }
  for (std::size_t k = 0; k < p.size(); ++k) std::cout << (k ? " -> " : "") << p[k];
  std::cout << "\n";
  apsp::visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::cout << "length: " << dist.at<T>(i, j) << "\n";
  });
  return 0;
}

int run_info(bool config, bool markdown) {
  if (config) {
    std::cout << apsp::config::describe(markdown);
    if (!markdown) apsp::config::check_all();  // after the table, which marks the bad value
    return 0;
  }
  std::cout << "apsp " << "0.1.0" << "\n\nbackends:\n";
  for (const auto& b : apsp::backends()) {
    std::printf("  %-10s %-10s %s\n", b.name.c_str(), !b.built ? "not built" : b.usable ? "usable" : "unusable",
                b.detail.c_str());
  }
  std::cout << "\nmeasured min-plus ceilings (../shared/DESIGN.md, 2026-11-21; `apsp bench` re-measures):\n"
               "  NVIDIA H100 80GB  16.6 T updates/s int32 (DPX), 33.0 T int16x2, DRAM 3.0 TB/s, H2D 55 GB/s\n"
               "  NVIDIA H200       16.6 T updates/s int32 (DPX), 33.0 T int16x2, DRAM 4.3 TB/s, H2D 55 GB/s\n"
               "  2-core AVX-512    250 G updates/s int32 (127 per core)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // `apsp IN OUT`: the NTHU drop-in is `solve` with every default.
  std::vector<std::string> args(argv, argv + argc);
  static const char* commands[] = {"solve", "generate", "metrics", "path", "info", "bench"};
  if (args.size() >= 2 && !args[1].empty() && (args[1][0] != '-' || args[1] == "-")) {  // "-": stdin
    bool known = false;
    for (const char* c : commands) known |= args[1] == c;
    if (!known) args.insert(args.begin() + 1, "solve");
  }
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());

  CLI::App app{"apsp: all-pairs shortest paths by blocked Floyd-Warshall (CPU, CUDA, multi-GPU, MPI).\n"
               "`apsp IN OUT` reads an NTHU-format graph and writes its distance matrix (course drop-in)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("apsp 0.1.0"));

  using apsp::detail::kMaxBlock;
  constexpr int kMaxThreads = apsp::detail::kMaxThreadsOption;  // more are clamped (thread_cap)
  SolveArgs sa;
  auto* solve = app.add_subcommand("solve", "Solve APSP: read IN, write the V x V distance matrix to OUT");
  solve->add_option("IN", sa.in, "input graph (.gr DIMACS, .mtx Matrix Market, .txt/.csv/.tsv/.el/.wel edge list, .bin NTHU binary, each also .gz; other names by content)")->required();
  solve->add_option("OUT", sa.out, "output matrix (.npy NumPy, .txt/.csv/.tsv text, .bin/.out/no extension NTHU binary int32)")->required();
  solve->add_option("--backend", sa.backend, "auto|cpu|cuda|multi-gpu|mpi (auto: cuda when a GPU is usable, else cpu)")->capture_default_str();
  solve->add_option("--type", sa.type, "int32|int64|float32|float64 (default: int32, int64 when int32 cannot be exact, float64 for fractional weights)");
  solve->add_option("--block", sa.block, "tile size (default: the backend's)")->check(CLI::Range(1, kMaxBlock));
  solve->add_option("--threads", sa.threads, "CPU threads (default: all)")->check(CLI::Range(1, kMaxThreads));
  solve->add_option("--devices", sa.devices, "GPU ordinals for cuda/multi-gpu; for mpi GPU ranks, the GPU of each local rank")->delimiter(',')->check(CLI::Range(0, 1023));
  solve->add_option("--input-format", sa.input_format, "auto|nthu|dimacs|mtx|edgelist")->capture_default_str();
  solve->add_option("--output-format", sa.output_format, "auto|nthu|npy|text")->capture_default_str();
  solve->add_flag("--undirected", sa.undirected, "every edge goes both ways");
  solve->add_option("--order", sa.order, "auto|none|nd: vertex order of the rounds; nd = METIS nested dissection, "
                                         "only tiles that can hold a path (sparse graphs; docs/sparse.md)")
      ->capture_default_str();
  solve->add_option("--vertices", sa.vertices, "the graph has N vertices (isolated high-numbered ones included; edge-list ids must be below N)");
  solve->add_flag("--paths", sa.paths, "also write the next-hop matrix to OUT.next (STEM.next.npy for .npy)");
  solve->add_flag("--verify", sa.verify, "check against a reference (full for V <= 2048, else 16 sampled sources)");
  auto* stats_opt = solve->add_option("--stats", sa.stats_file, "print stage timings to stderr, or append JSON to FILE")->expected(0, 1);
  solve->add_flag("-q,--quiet", sa.quiet, "no progress output");

  std::string gen_out, gen_kind = "uniform", gen_format = "auto";
  std::int64_t gen_v = 1000, gen_e = -1, gen_wmin = 0, gen_wmax = 1000, gen_rows = 0, gen_cols = 0;
  int gen_scale = 10, gen_k = 4;
  double gen_unit = 1000;
  std::uint64_t gen_seed = 1;
  auto* gen = app.add_subcommand("generate", "Write a random graph (deterministic per seed)");
  gen->add_option("OUT", gen_out, "output file")->required();
  gen->add_option("--kind", gen_kind, "uniform|rmat|grid|geometric|mesh")->capture_default_str();
  gen->add_option("-V,--vertices", gen_v, "vertices (uniform, geometric)")->capture_default_str()->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("-E,--edges", gen_e, "edges (default: min(5000000, V*(V-1)/4))")->check(CLI::NonNegativeNumber);
  gen->add_option("--scale", gen_scale, "rmat: 2^scale vertices")->capture_default_str()->check(CLI::Range(0, 30));
  gen->add_option("--rows", gen_rows, "grid rows")->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("--cols", gen_cols, "grid columns")->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("-k,--neighbors", gen_k, "geometric: links to the k nearest points")->capture_default_str()->check(CLI::Range(1, 64));
  gen->add_option("--unit", gen_unit, "geometric, mesh: weight of a link one mean point spacing long (lengths rounded)")
      ->capture_default_str()->check(CLI::Range(1e-9, 1e9));
  gen->add_option("--wmin", gen_wmin, "smallest weight")->capture_default_str();
  gen->add_option("--wmax", gen_wmax, "largest weight")->capture_default_str();
  gen->add_option("--seed", gen_seed, "random seed")->capture_default_str();
  gen->add_option("--format", gen_format, "auto|nthu|dimacs|mtx|edgelist (auto: by OUT's extension)")->capture_default_str();

  apsp_cli::MetricsArgs ma;
  auto* metrics = app.add_subcommand("metrics", "Closeness, harmonic centrality, eccentricity, diameter, ... from a "
                                                "streamed solve (no V x V output; docs/metrics.md)");
  metrics->add_option("IN", ma.in, "input graph (as for solve)")->required();
  metrics->add_option("OUT", ma.out, "OUT.csv: per-vertex table (summary on stdout); OUT.json: summary and per-vertex "
                                     "arrays; none: summary on stdout");
  metrics->add_option("--backend", ma.backend, "auto|cpu|cuda|multi-gpu|mpi")->capture_default_str();
  metrics->add_option("--type", ma.type, "int32|int64|float32|float64 (default as for solve)");
  metrics->add_option("--threads", ma.threads, "CPU threads (default: all)")->check(CLI::Range(1, kMaxThreads));
  metrics->add_option("--devices", ma.devices, "GPU ordinals for cuda/multi-gpu")->delimiter(',')->check(CLI::Range(0, 1023));
  metrics->add_option("--input-format", ma.input_format, "auto|nthu|dimacs|mtx|edgelist")->capture_default_str();
  metrics->add_option("--vertices", ma.vertices, "the graph has N vertices");
  metrics->add_flag("--undirected", ma.undirected, "every edge goes both ways");
  metrics->add_option("--metrics", ma.metrics, "comma-separated: eccentricity,closeness,harmonic,reachable,diameter,"
                                               "radius,average_shortest_path_length,wiener_index,center,periphery "
                                               "(default: all)");
  metrics->add_flag("--infinite", ma.infinite, "report graph-wide values of a graph that is not strongly connected "
                                               "as infinite instead of refusing");
  bool metrics_quiet = false;
  metrics->add_flag("-q,--quiet", metrics_quiet, "no progress output");

  std::string path_dist, path_next;
  std::int64_t path_i = 0, path_j = 0;
  auto* pathc = app.add_subcommand("path", "Print a shortest path from a `solve --paths` result");
  pathc->add_option("DIST", path_dist, "distance matrix written by solve --paths")->required();
  pathc->add_option("i", path_i, "source vertex")->required()->check(CLI::NonNegativeNumber);
  pathc->add_option("j", path_j, "target vertex")->required()->check(CLI::NonNegativeNumber);
  pathc->add_option("--next", path_next, "next-hop matrix (default: DIST.next / STEM.next.npy)");

  bool info_config = false, info_markdown = false;
  auto* info = app.add_subcommand("info", "Backends built, devices found, their ceilings");
  auto* info_config_flag =
      info->add_flag("--config", info_config, "every APSP_* environment variable: value, type, what it does");
  info->add_flag("--markdown", info_markdown, "the --config table as docs/configuration.md has it")
      ->needs(info_config_flag);

  apsp::detail::BenchConfig bc;
  std::string bench_backend = "cpu", bench_type = "int32";
  bool no_baselines = false;
  auto* bench = app.add_subcommand("bench", "Benchmark a backend against its baselines (T updates/s, % of ceiling)");
  bench->add_option("--backend", bench_backend, "cpu|cuda")->capture_default_str();
  bench->add_option("--sizes", bc.sizes, "V values, comma separated")->delimiter(',')->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  bench->add_option("--type", bench_type, "int32|int64|float32|float64")->capture_default_str();
  bench->add_option("--trials", bc.trials, "timed trials per size (median)")->capture_default_str()->check(CLI::Range(1, 10000));
  bench->add_option("--threads", bc.threads, "CPU threads (default: all)")->check(CLI::Range(1, kMaxThreads));
  bench->add_option("--block", bc.block, "tile size (default: the backend's)")->check(CLI::Range(1, kMaxBlock));
  bench->add_option("--edge-factor", bc.edge_factor, "E = factor * V (default: course-like min(5M, V^2/4))")->check(CLI::Range(0.0, 1e6));
  bench->add_option("--seed", bc.seed, "random seed")->capture_default_str();
  bench->add_option("--csv", bc.csv, "also write the rows as CSV");
  bench->add_flag("--no-baselines", no_baselines, "only time the production kernels");

  try {
    app.parse(int(av.size()), av.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "apsp: error: %s (see apsp --help)\n", one_line(e.what()).c_str());
    return 2;
  }

  install_stop_handlers();
  try {
    if (!*info) apsp::config::check_all();  // a bad APSP_* value stops every command up front
    if (*solve) {
      sa.stats = stats_opt->count() > 0;
      std::vector<std::string> outs{sa.out};
      if (sa.paths) outs.push_back(next_path_for(sa.out));
      split_off_teardown(sa.backend, outs);
      const int rc = run_solve(sa);
      report_exit(rc);
      return rc;
    }
    if (*gen) {
      const apsp::GraphFormat gen_f = apsp::parse_graph_format(gen_format);
      if (gen_f == apsp::GraphFormat::Auto) (void)apsp::graph_format_for(gen_out);  // refused before generating
      apsp::Graph g;
      if (gen_kind == "uniform") {
        const std::int64_t e = gen_e >= 0 ? gen_e : std::min<std::int64_t>(5000000, gen_v * (gen_v - 1) / 4);
        g = apsp::generate_uniform(gen_v, e, gen_wmin, gen_wmax, gen_seed);
      } else if (gen_kind == "rmat") {
        const std::int64_t e = gen_e >= 0 ? gen_e : (std::int64_t{16} << gen_scale);
        g = apsp::generate_rmat(gen_scale, e, gen_wmin, gen_wmax, gen_seed);
      } else if (gen_kind == "grid") {
        g = apsp::generate_grid(gen_rows, gen_cols, gen_wmin, gen_wmax, gen_seed);
      } else if (gen_kind == "geometric") {
        g = apsp::generate_geometric(gen_v, gen_k, gen_unit, gen_seed);
      } else if (gen_kind == "mesh") {
        g = apsp::generate_mesh(gen_rows, gen_cols, gen_unit, gen_seed);
      } else {
        throw apsp::UsageError("unknown generator '" + gen_kind + "' (expected uniform, rmat, grid, geometric or mesh)");
      }
      apsp::write_graph(gen_out, g, gen_f);
      return 0;
    }
    if (*metrics) {
      Progress progress(!metrics_quiet);
      const int rc = apsp_cli::run_metrics(ma, [&progress](std::int64_t d, std::int64_t t) { progress(d, t); });
      progress.finish();
      return rc;
    }
    if (*pathc) return run_path(path_dist, path_next, path_i, path_j);
    if (*info) return run_info(info_config, info_markdown);
    if (*bench) {
      bc.dtype = apsp::parse_dtype(bench_type);
      bc.baselines = !no_baselines;
      bc.threads = std::min(bc.threads, apsp::detail::thread_cap());
      const apsp::Backend b = apsp::parse_backend(bench_backend);
      if (b == apsp::Backend::Cpu) return apsp::detail::bench_cpu(bc, std::cout);
      if (b == apsp::Backend::Cuda) return apsp::detail::bench_cuda(bc, std::cout);
      throw apsp::UsageError("apsp bench supports --backend cpu or cuda");
    }
  } catch (const apsp::Error& e) {
    std::fprintf(stderr, "apsp: error: %s\n", one_line(e.what()).c_str());
    report_exit(e.exit_code());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "apsp: error: out of memory\n");
    report_exit(4);
    return 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apsp: error: %s\n", one_line(e.what()).c_str());
    report_exit(1);
    return 1;
  }
  return 0;
}
