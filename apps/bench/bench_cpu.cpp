// apps/bench/bench_cpu.cpp — `apsp bench --backend cpu`: our solver against its baselines, one run.
//
// For each V, a seeded course-like random graph, solved by apsp::solve (N threads and 1 thread)
// and by the baselines: blocked FW with OpenMP over tile rows, the textbook k-i-j loop, and
// SciPy's csgraph.floyd_warshall (bench/cpu/scipy_fw.py). Each line: seconds, G updates/s, % of
// the min-plus ceiling measured in this process, and a check against our result.
// What each line means: docs/cpu.md ("apsp bench --backend cpu"); results: bench/results/.
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/config.hpp"
#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/solve.hpp"
#include "bench/bench.hpp"
#include "ceilings.hpp"
#include "core/reference.hpp"
#include "cpu/baselines.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "io/output_common.hpp"
#include "process.hpp"

#ifndef APSP_CPU_SCIPY_SCRIPT
#define APSP_CPU_SCIPY_SCRIPT "bench/cpu/scipy_fw.py"
#endif

namespace apsp::detail {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Min-plus ceiling in G updates/s for `threads` threads, each running the register-resident
// probe loop of the active kernels for about `seconds`.
double measure_ceiling(Dtype t, int threads, double seconds) {
  return visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const cpu::KernelSet<T> ks = cpu::kernels_for<T>(cpu::active_isa());
    long iters = 1 << 20;
    for (;;) {  // calibrate on one thread
      const auto t0 = Clock::now();
      volatile long sink = ks.probe(iters, 1);
      (void)sink;
      const double s = since(t0);
      if (s > 0.05) {
        iters = long(double(iters) * seconds / s) + 1;
        break;
      }
      iters *= 4;
    }
    std::vector<long> sink(std::size_t(threads), 0);
    const auto t0 = Clock::now();
#pragma omp parallel num_threads(threads)
    sink[std::size_t(omp_get_thread_num())] = ks.probe(iters, omp_get_thread_num() + 1);
    const double s = since(t0);
    return double(threads) * double(iters) * ks.probe_updates_per_iter / s / 1e9;
  });
}

struct Row {
  std::int64_t V = 0;
  std::string variant;
  int threads = 1;
  double seconds = 0;  // <= 0: not run
  double ceiling = 0;  // G updates/s for this thread count
  std::string check;   // PASS / FAIL ... / note
  double vs_ours = 0;  // ours is this many times faster
};

std::string fmt(double x, int prec) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << x;
  return os.str();
}

void print_header(std::ostream& out) {
  out << std::left << std::setw(6) << "V" << std::setw(24) << "variant" << std::right
      << std::setw(8) << "threads" << std::setw(11) << "seconds" << std::setw(11) << "G upd/s"
      << std::setw(11) << "% ceiling" << std::setw(13) << "ours is"
      << "  check\n";
}

void print_row(std::ostream& out, const Row& r) {
  const double v3 = double(r.V) * double(r.V) * double(r.V);
  out << std::left << std::setw(6) << r.V << std::setw(24) << r.variant << std::right
      << std::setw(8) << r.threads;
  if (r.seconds > 0) {
    const double g = v3 / r.seconds / 1e9;
    out << std::setw(11) << fmt(r.seconds, 3) << std::setw(11) << fmt(g, 1) << std::setw(10)
        << fmt(100 * g / r.ceiling, 1) << "%" << std::setw(13)
        << (r.vs_ours > 0 ? fmt(r.vs_ours, 1) + "x faster" : std::string("-"));
  } else {
    out << std::setw(11) << "-" << std::setw(11) << "-" << std::setw(11) << "-" << std::setw(13)
        << "-";
  }
  out << "  " << r.check << "\n";
  out.flush();
}

template <class T>
double finite_sum(const Matrix& m, std::int64_t& unreachable_count) {
  double sum = 0;
  unreachable_count = 0;
  for (std::int64_t i = 0; i < m.rows(); ++i)
    for (std::int64_t j = 0; j < m.cols(); ++j) {
      const T v = m.at<T>(i, j);
      if (!(v < unreachable<T>()))
        ++unreachable_count;
      else if (i != j)
        sum += double(v);
    }
  return sum;
}

bool same_values(const Matrix& a, const Matrix& b) {
  return visit_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t i = 0; i < a.rows(); ++i)
      for (std::int64_t j = 0; j < a.cols(); ++j)
        if (a.at<T>(i, j) != b.at<T>(i, j)) return false;
    return true;
  });
}

// Writes g as NTHU binary (int32 V, E, triples) for the SciPy script.
void write_nthu(const std::string& path, const Graph& g) {
  std::ofstream f(path, std::ios::binary);
  auto put = [&](std::int32_t x) { f.write(reinterpret_cast<const char*>(&x), 4); };
  put(std::int32_t(g.num_vertices));
  put(std::int32_t(g.num_edges()));
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    put(g.src[e]);
    put(g.dst[e]);
    put(std::int32_t(std::llround(g.weight[e])));
  }
  if (!f) throw Error("bench: cannot write " + path);
}

/// A file registered for removal on a stop signal for as long as this lives.
class TempSlot {
 public:
  explicit TempSlot(const std::string& path) : slot_(io::register_temp(path)) {}
  ~TempSlot() { io::unregister_temp(slot_); }
  TempSlot(const TempSlot&) = delete;
  TempSlot& operator=(const TempSlot&) = delete;

 private:
  int slot_;
};

/// Runs argv[0] (looked up in PATH) with its stdout and stderr read into the returned text. The
/// child dies with this process (PR_SET_PDEATHSIG) and is killed by its stop signals
/// (set_helper_process): a bench stopped during the SciPy run leaves no python behind. "" when
/// it cannot be started.
std::string run_helper(const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "";
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Stop signals wait until the child's pid is registered (the handler kills it then).
  sigset_t stop, old;
  sigemptyset(&stop);
  for (int sig : apsp_cli::stop_signals()) sigaddset(&stop, sig);
  ::pthread_sigmask(SIG_BLOCK, &stop, &old);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent is already gone
    for (int sig : apsp_cli::stop_signals()) ::signal(sig, SIG_DFL);
    ::signal(SIGXFSZ, SIG_DFL);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  if (pid > 0) apsp_cli::set_helper_process(pid);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(fds[1]);
  std::string text;
  if (pid > 0) {
    char buf[512];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, std::size_t(n));
    }
    // Waited for without reaping it first (WNOWAIT): until the pid is cleared, with the stop
    // signals held, the stop handler's kill() can only reach this child, never a process that
    // got its pid after the reap.
    siginfo_t info{};
    while (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    sigset_t held;
    ::pthread_sigmask(SIG_BLOCK, &stop, &held);
    apsp_cli::set_helper_process(0);
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    ::pthread_sigmask(SIG_SETMASK, &held, nullptr);
  }
  ::close(fds[0]);
  return text;
}

// Runs SciPy on g; fills seconds and a check against our checksum (or a reason it did not run).
void run_scipy(const Graph& g, const Matrix& ours, Row& row) {
  const std::string python = config::get_text(config::Knob::BenchPython);
  const std::string script = config::is_set(config::Knob::BenchScipyScript)
                                 ? config::get_text(config::Knob::BenchScipyScript)
                                 : std::string(APSP_CPU_SCIPY_SCRIPT);
  if (!std::filesystem::exists(script)) {
    row.check = "not run: " + script + " not found (set APSP_SCIPY_SCRIPT)";
    return;
  }
  const std::string graph =
      (std::filesystem::temp_directory_path() / ("apsp-bench-" + std::to_string(getpid()) + ".bin"))
          .string();
  // Removed by a stop signal too (io::remove_temp_files), like an output's temporary file.
  const TempSlot slot(graph);
  write_nthu(graph, g);
  const std::string text = run_helper({python, script, graph});
  std::filesystem::remove(graph);
  auto number = [&](const std::string& key, double& x) {
    const auto at = text.find("\"" + key + "\": ");
    if (at == std::string::npos) return false;
    x = std::strtod(text.c_str() + at + key.size() + 4, nullptr);
    return true;
  };
  double seconds = 0, sum = 0, unreach = 0;
  if (!number("seconds", seconds) || !number("finite_sum", sum) ||
      !number("unreachable", unreach)) {
    std::string first = text.substr(0, text.find('\n'));
    row.check = "not run: " + (first.empty() ? std::string("no output from ") + python : first);
    return;
  }
  row.seconds = seconds;
  std::int64_t our_unreach = 0;
  const double our_sum = visit_dtype(
      ours.dtype(), [&](auto tag) { return finite_sum<decltype(tag)>(ours, our_unreach); });
  row.check = (our_sum == sum && double(our_unreach) == unreach) ? "PASS (checksum)"
                                                                 : "FAIL (checksum differs)";
}

}  // namespace

int bench_cpu(const BenchConfig& c, std::ostream& out) {
  const std::vector<std::int64_t> sizes =
      c.sizes.empty() ? std::vector<std::int64_t>{1024, 2048, 4096} : c.sizes;
  const int threads = c.threads > 0 ? c.threads : omp_get_max_threads();
  const int trials = std::max(1, c.trials);
  const Dtype t = c.dtype;
  const cpu::Isa isa = cpu::active_isa();
  for (std::int64_t V : sizes)
    if (V < 1 || V > 65536)
      throw UsageError("bench: V must be in 1..65536, got " + std::to_string(V));

  out << "apsp bench --backend cpu: " << dtype_name(t) << ", " << cpu::isa_name(isa)
      << " kernels, block " << cpu::effective_block(t, c.block) << ", " << threads
      << " thread(s), median of " << trials << " trial(s) after a warm-up (baselines: one run)\n";
  const double ceil_n = measure_ceiling(t, threads, 0.3);
  const double ceil_1 = threads == 1 ? ceil_n : measure_ceiling(t, 1, 0.3);
  const std::string subject = std::string("cpu ") + cpu::isa_name(isa);
  apsp_cli::record_ceiling(subject + ", 1 thread", dtype_name(t), ceil_1, "G");
  if (threads > 1)
    apsp_cli::record_ceiling(subject + ", " + std::to_string(threads) + " threads", dtype_name(t),
                             ceil_n, "G");
  out << "min-plus ceiling measured now (" << dtype_name(t)
      << ", register-resident): " << fmt(ceil_1, 1) << " G updates/s on 1 thread, "
      << fmt(ceil_n, 1) << " on " << threads << "\n";
  {
    std::ifstream la("/proc/loadavg");
    std::string load1;
    if (la >> load1) out << "load average (1 min) at start: " << load1 << "\n";
  }
  if (threads > 1 && ceil_n < 0.8 * threads * ceil_1)
    out << "note: the " << threads << "-thread probe reaches only " << fmt(ceil_n / ceil_1, 2)
        << "x the 1-thread one: the cores are shared right now, so the " << threads
        << "-thread rows and the scaling below understate a quiet machine\n";
  if (!is_integer(t))
    out << "(float runs use integer weights 0..1000: exact, comparable bit for bit)\n";
  out << "\n";
  print_header(out);

  // The CSV goes where the solve's outputs go: a temporary file, renamed over --csv at the end
  // (a failed or interrupted run leaves no partial table), or straight into a stream.
  std::unique_ptr<io::OutputFile> csv;
  auto csv_put = [&](const std::string& line) { csv->write(line.data(), line.size()); };
  if (!c.csv.empty()) {
    io::check_output_path(c.csv);
    csv = std::make_unique<io::OutputFile>(c.csv);
    csv_put("V,dtype,variant,threads,seconds,g_updates_per_s,pct_ceiling,check\n");
  }
  auto emit = [&](const Row& r) {
    print_row(out, r);
    if (!out) throw OutputStreamFailed{};
    if (csv) {
      const double g =
          r.seconds > 0 ? double(r.V) * double(r.V) * double(r.V) / r.seconds / 1e9 : 0;
      std::ostringstream line;
      line << r.V << "," << dtype_name(t) << ",\"" << r.variant << "\"," << r.threads << ","
           << r.seconds << "," << g << "," << (r.seconds > 0 ? 100 * g / r.ceiling : 0) << ",\""
           << r.check << "\"\n";
      csv_put(line.str());
    }
  };

  for (const std::int64_t V : sizes) {
    const std::int64_t E = c.edge_factor > 0 ? std::int64_t(c.edge_factor * double(V))
                                             : std::min<std::int64_t>(5000000, V * V / 4);
    const Graph g = generate_uniform(V, std::min(E, V * (V - 1)), 0, 1000, c.seed);
    const double v3 = double(V) * double(V) * double(V);

    // Ours: the whole solve() call, N threads then 1 thread.
    SolveOptions o;
    o.backend = Backend::Cpu;
    o.dtype = t;
    o.block = c.block;
    auto time_solve = [&](int th, int n_trials, Result& keep) {
      o.threads = th;
      std::vector<double> s;
      keep = solve(g, o);  // warm-up
      for (int i = 0; i < n_trials; ++i) {
        const auto t0 = Clock::now();
        Result r = solve(g, o);
        s.push_back(since(t0));
        if (i + 1 == n_trials) keep = std::move(r);
      }
      return median(s);
    };
    Result ours;
    Row mine{V, "apsp::solve (cpu)", threads, time_solve(threads, trials, ours), ceil_n, "", 0};
    std::ostringstream split;
    split << "compute " << fmt(ours.timings.compute, 3)
          << " s = " << fmt(v3 / ours.timings.compute / 1e9, 1) << " G/s ("
          << fmt(100 * v3 / ours.timings.compute / 1e9 / ceil_n, 1) << "%), build "
          << fmt(ours.timings.build, 3) << " s";
    mine.check = split.str();
    emit(mine);
    if (threads > 1) {
      Result one;
      Row r1{V, "apsp::solve, 1 thread", 1, time_solve(1, trials, one), ceil_1, "", 0};
      r1.check = (same_values(one.dist, ours.dist) ? "PASS" : "FAIL (differs from N threads)") +
                 std::string(", scaling ") + fmt(r1.seconds / mine.seconds, 2) + "x (compute " +
                 fmt(one.timings.compute, 3) +
                 " s: " + fmt(one.timings.compute / ours.timings.compute, 2) + "x)";
      emit(r1);
    }
    if (!c.baselines) continue;

    // Baseline rungs on the same padded matrix, results compared to ours.
    {
      const int B = 64;
      Matrix m = build_matrix(g, t, round_up(V, B), round_up(V, B));
      const auto t0 = Clock::now();
      cpu::baseline_blocked_omp_rows(m, B, threads);
      Row r{V, "blocked+omp rows (B=64)", threads, since(t0), ceil_n, "", 0};
      r.check = same_values(m, ours.dist) ? "PASS" : "FAIL (differs from ours)";
      r.vs_ours = r.seconds / mine.seconds;
      emit(r);
    }
    if (v3 <= 1.2e10) {  // ~10 s at the ~1 G updates/s a plain loop reaches
      Matrix m = build_matrix(g, t, V, V);
      const auto t0 = Clock::now();
      cpu::baseline_triple_loop(m);
      Row r{V, "triple loop", 1, since(t0), ceil_1, "", 0};
      r.check = same_values(m, ours.dist) ? "PASS" : "FAIL (differs from ours)";
      r.vs_ours = r.seconds / mine.seconds;
      emit(r);
    } else {
      emit(Row{V, "triple loop", 1, 0, ceil_1, "skipped (would take minutes)", 0});
    }
    if (v3 <= 8e10) {  // SciPy runs ~1.6 G updates/s: V=4096 takes ~45 s
      Row r{V, "scipy floyd_warshall", 1, 0, ceil_1, "", 0};
      run_scipy(g, ours.dist, r);
      if (r.seconds > 0) r.vs_ours = r.seconds / mine.seconds;
      emit(r);
    } else {
      emit(Row{V, "scipy floyd_warshall", 1, 0, ceil_1, "skipped (would take minutes)", 0});
    }
  }
  if (csv) csv->commit();
  return 0;
}

void write_output_file(const std::string& path, const std::string& text) {
  io::OutputFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

}  // namespace apsp::detail
