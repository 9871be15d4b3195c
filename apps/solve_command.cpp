// apps/solve_command.cpp — `apsp solve IN OUT`: one apsp::solve_file() call, then the
// verification verdict and the --stats report (text on stderr, or one JSON line appended to a
// file). The pipeline itself (read, warm-up, streaming writers, prefill) is the library's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <iostream>
#include <ostream>

#include "apsp/errors.hpp"
#include "apsp/output.hpp"
#include "apsp/pipeline.hpp"
#include "apsp/text.hpp"
#include "commands.hpp"
#include "process.hpp"

namespace apsp_cli {

namespace {

/// --stats --verbose: the solve plan, one decision a line (text), or a "plan" object (JSON).
void print_plan(const apsp::Result& r, std::ostream& os, bool json) {
  if (json) {
    os << ", \"plan\": {";
    for (std::size_t i = 0; i < r.plan.size(); ++i)
      os << (i ? ", " : "") << json_string(r.plan[i].key) << ": " << json_string(r.plan[i].value);
    os << "}";
    return;
  }
  os << "  plan:\n";
  for (const apsp::PlanItem& item : r.plan) {
    os << "    " << item.key << std::string(item.key.size() < 8 ? 8 - item.key.size() : 0, ' ')
       << " " << item.value << "\n";
  }
}

void print_stats(const SolveArgs& a, const apsp::FileSolveResult& f, std::ostream& os, bool json) {
  const apsp::Result& r = f.result;
  const auto& t = r.timings;
  const double V = double(f.vertices);
  const double solve_s = t.h2d + t.compute + t.d2h;
  const double total = t.read + t.build + t.order + t.symbolic + solve_s + t.unpermute + t.write;
  const double tups = t.compute > 0 ? V * V * V / t.compute / 1e12 : 0;
  if (json) {
    os << "{\"input\": \"" << a.in << "\", \"vertices\": " << f.vertices
       << ", \"edges\": " << f.edges << ", \"backend\": \"" << r.backend << "\", \"dtype\": \""
       << apsp::dtype_name(r.dtype()) << "\", \"rounds\": \"" << r.rounds
       << "\", \"block\": " << r.block << ", \"paths\": " << (a.paths ? "true" : "false")
       << ", \"read_s\": " << t.read << ", \"build_s\": " << t.build << ", \"h2d_s\": " << t.h2d
       << ", \"compute_s\": " << t.compute << ", \"d2h_s\": " << t.d2h
       << ", \"write_s\": " << t.write << ", \"total_s\": " << total
       << ", \"t_updates_per_s\": " << tups << ", \"order\": \"" << r.order
       << "\", \"order_s\": " << t.order << ", \"symbolic_s\": " << t.symbolic
       << ", \"work_fraction\": " << r.work_fraction << ", \"unpermute_s\": " << t.unpermute;
    if (a.verbose) print_plan(r, os, true);
    os << "}\n";
    return;
  }
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "apsp stats: V=%lld E=%zu backend=%s type=%s rounds=%s block=%d%s\n"
                "  read     %9.4f s\n  build    %9.4f s\n  h2d      %9.4f s\n"
                "  compute  %9.4f s  (%.3f T = %.1f G updates/s, V^3/s)\n"
                "  d2h      %9.4f s\n  write    %9.4f s\n  total    %9.4f s\n",
                (long long)f.vertices, f.edges, r.backend.c_str(), apsp::dtype_name(r.dtype()),
                r.rounds.c_str(), r.block, a.paths ? " paths" : "", t.read, t.build, t.h2d,
                t.compute, tups, tups * 1e3, t.d2h, t.write, total);
  os << buf;
  if (r.order.rfind("nd", 0) == 0)
    os << "  order    " << r.order << ": ordering " << t.order << " s, symbolic " << t.symbolic
       << " s, " << 100 * r.work_fraction << "% of the dense work, unpermute " << t.unpermute
       << " s\n";
  else if (r.order == "sn")
    os << "  order    sn: ordering " << t.order << " s, symbolic " << t.symbolic << " s, "
       << 100 * r.work_fraction << "% of the dense work (factor + rows)\n";
  else if (r.order != "none")
    os << "  order    " << r.order << "\n";
  for (const auto& n : r.notes) os << "  note: " << n << "\n";
  if (a.verbose) print_plan(r, os, false);
}

/// The --stats FILE ("-": stdout) is checked with the outputs, before the input is read: it is
/// appended to, so it must be writable, and neither the input nor another output.
void check_stats_file(const SolveArgs& a) {
  if (!a.stats || a.stats_file.empty()) return;
  if (apsp::io::same_file(a.in, a.stats_file))
    throw apsp::UsageError(a.stats_file + ": the stats file would overwrite the input " + a.in);
  const apsp::io::OutputTarget t = apsp::io::resolve_output(a.stats_file);
  if (t.stream_fd < 0 && t.exists && ::access(t.path.c_str(), W_OK) != 0)
    throw apsp::Error(a.stats_file + ": cannot write stats file: " + std::strerror(errno));
  apsp::io::check_output_path(a.stats_file);
  if (apsp::io::same_output(a.stats_file, a.out))
    throw apsp::UsageError(a.stats_file + ": --stats and OUT (" + a.out + ") name the same file");
  if (a.paths && apsp::io::same_output(a.stats_file, apsp::next_path_for(a.out)))
    throw apsp::UsageError(a.stats_file + ": --stats and the --paths file (" +
                           apsp::next_path_for(a.out) + ") name the same file");
}

/// Appends one JSON line to the --stats FILE: a regular file gets it in one write() with
/// O_APPEND (lines of solves running at once do not mix), and a failed write is reported and
/// undone: a file this call created is removed, a partial line cut off again unless another
/// writer appended after it. A stream or device (/dev/stderr, a FIFO) is written directly.
void append_stats(const std::string& name, const std::string& text) {
  const apsp::io::OutputTarget t = apsp::io::resolve_output(name);
  if (t.stream_fd >= 0 || t.stream) {
    apsp::io::write_output(name, text.data(), text.size());  // direct: its errors name the file
    return;
  }
  bool created = true;
  int fd = ::open(t.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::open(t.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  }
  if (fd < 0) throw apsp::Error(name + ": cannot write stats file: " + apsp::io::errno_text(errno));
  int err = 0;
  const std::uint64_t done = apsp::io::write_fully(fd, text.data(), text.size(), err);
  if (err != 0) {
    // Our bytes end at the file position; cut them off if nothing came after them.
    const off_t end = ::lseek(fd, 0, SEEK_CUR);
    struct stat st {};
    if (!created && done > 0 && end >= off_t(done) && ::fstat(fd, &st) == 0 && st.st_size == end)
      (void)::ftruncate(fd, end - off_t(done));
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    if (created) ::unlink(t.path.c_str());
    throw apsp::Error(name + ": write failed after " + std::to_string(done) + " bytes of " +
                      std::to_string(text.size()) + ": " + apsp::io::errno_text(err));
  }
}

}  // namespace

int run_solve(const SolveArgs& a) {
  if (!a.sources.empty()) {
    Progress progress(!a.quiet, a.progress);
    return run_sources(a, progress);
  }
  std::vector<std::string> outs{a.out};
  if (a.paths) outs.push_back(apsp::next_path_for(a.out));
  detach_teardown(a.backend, outs);

  apsp::FileSolveOptions o;
  o.input = a.in;
  o.output = a.out;
  o.solve.paths = a.paths;
  if (apsp::launcher_rank_is_zero()) {  // before anything is parsed or read
    apsp::check_file_outputs(o);
    check_stats_file(a);
  }
  o.read.format = apsp::parse_input_format(a.input_format);
  o.read.undirected = a.undirected;
  o.read.directed = a.directed;
  o.read.unweighted = a.unweighted;
  o.read.names = a.labels ? apsp::VertexNames::Labels : apsp::VertexNames::Auto;
  o.read.num_vertices = a.vertices;
  o.output_format = apsp::parse_output_format(a.output_format);
  o.verify = a.verify;
  apsp::SolveOptions& so = o.solve;
  so.backend = apsp::parse_backend(a.backend);
  so.order = apsp::parse_order(a.order);
  if (!a.type.empty()) so.dtype = apsp::parse_dtype(a.type);
  so.block = a.block;
  so.threads = a.threads;
  so.devices = a.devices;
  so.paths = a.paths;
  Progress progress(!a.quiet, a.progress);
  so.progress = progress.fn();
  so.on_stage = [&progress](std::string_view st) { progress.phase(std::string(st).c_str()); };
  o.phase = progress.phase_fn();
  o.read.warning = [&progress](const std::string& w) { progress.warn(w); };

  const apsp::FileSolveResult f = apsp::solve_file(o);
  progress.finish();
  if (!f.wrote) return 0;  // an MPI rank other than 0

  int rc = 0;
  if (f.verification) {
    const std::string& report = *f.verification;
    // With the matrix on stdout, the verdict goes to stderr.
    (apsp::io::resolve_output(a.out).stream_fd == 1 ? std::cerr : std::cout)
        << "Verification: " << (report.empty() ? "PASS" : "FAIL") << "\n";
    if (!report.empty()) {
      std::cerr << "apsp: verification: " << report << "\n";
      rc = 7;
    }
  }
  if (a.stats) {
    if (a.stats_file.empty()) {
      print_stats(a, f, std::cerr, false);
    } else if (a.stats_file == "-") {  // stdout, as for IN and OUT
      print_stats(a, f, std::cout, true);
    } else {
      std::ostringstream line;
      print_stats(a, f, line, true);
      append_stats(a.stats_file, line.str());
    }
  }
  // Everything is written and renamed: the process ends here, without the CUDA context's
  // teardown or freeing the matrices (the OS reclaims them). Not under MPI: MPI_Finalize runs
  // at exit.
  if (f.result.backend == "mpi") return rc;
  rc = finish_stdout(rc);
  std::cerr.flush();
  end_process(rc);
}

}  // namespace apsp_cli
