// src/pipeline/pipeline.cpp — solve_file(): read, solve, stream the result stripes to the
// writers, commit; the stages overlapped as apsp/pipeline.hpp says.
//
// Threads: the caller's runs read -> solve -> commit. Beside the read, a warm-up thread starts
// the GPU driver (GPU backends) and a host thread faults in the distance matrix's memory (CPU
// path, core/host_buffer.hpp). Before a GPU solve a gate thread waits for the driver, then starts
// the output prefill (MatrixStreamWriter::prefill); the first stripe joins it.
#include "apsp/pipeline.hpp"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/host_buffer.hpp"
#include "core/memory_limit.hpp"
#include "core/reference.hpp"
#include "core/trace.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"
#include "pipeline/launcher.hpp"
#include "pipeline/stages.hpp"

namespace apsp {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
using detail::trace;

void phase(const FileSolveOptions& o, const char* name) {
  if (o.phase) o.phase(name);
}

/// The result's writers: opened on the first stripe (so an MPI rank that never gets one writes
/// nothing), or early with the dtype solve() is expected to choose (a GPU solve, for the
/// prefill); committed after the solve.
class Writers {
 public:
  Writers(const FileSolveOptions& o, std::int64_t V) : o_(o), V_(V) {}
  ~Writers() {
    if (gate_.joinable()) gate_.join();  // before the writers it fills go
  }

  RowSink sink(bool next) {
    return [this, next](const RowBlock& b) {
      start_writing();
      const auto t0 = Clock::now();
      if (gate_.joinable()) gate_.join();
      if (gate_error_) std::rethrow_exception(std::exchange(gate_error_, nullptr));
      auto& w = next ? next_ : dist_;
      if (w && !w->accepts(b.dtype))
        w.reset();  // opened early for another dtype than solve() chose
      if (!w)
        w = std::make_unique<MatrixStreamWriter>(path(next), V_, V_, b.dtype, o_.output_format);
      w->write(b.row0, Matrix::view(b.data, b.rows, b.cols, b.stride, b.dtype));
      seconds_ += since(t0);
    };
  }

  /// A GPU solve leaves the host idle until the first stripe: the writers open now and fill
  /// their files' page cache meanwhile, from a thread that first waits for the driver's start-up
  /// to learn whether a GPU is there (`auto` without one is the CPU backend, whose threads need
  /// the cores). A bad APSP_WRITE_PREFILL is a usage error now, before the solve.
  void open_early(Dtype t) {
    dist_ = std::make_unique<MatrixStreamWriter>(o_.output, V_, V_, t, o_.output_format);
    if (o_.solve.paths)
      next_ =
          std::make_unique<MatrixStreamWriter>(path(true), V_, V_, Dtype::Int32, o_.output_format);
    (void)io::output_prefill_method(std::filesystem::path(o_.output).parent_path().string());
    gate_ = std::thread([this] {
      try {
        if (!detail::cuda_backend_info().usable) return;
        dist_->prefill();
        if (next_) next_->prefill();
        trace("output prefill started");
      } catch (...) {
        gate_error_ = std::current_exception();
      }
    });
  }

  bool any() const { return dist_ || next_; }
  /// The "write" stage starts with the first stripe (the cpu backend hands the whole matrix out
  /// at the end of solve(); GPU backends stream stripes once their rounds are done).
  void start_writing() {
    if (!writing_.exchange(true)) phase(o_, "write");
  }
  /// The vertex names and the next hops first, then the distances, all with one modification
  /// time (CommitTime): a reader that finds the new OUT.next beside the old OUT (a kill between
  /// the renames, or a read during them) sees two times and refuses the pair (`apsp path`).
  void commit(const std::vector<std::string>& labels) {
    const io::CommitTime same_time;
    write_labels(o_.output, labels);
    if (next_) next_->commit();
    if (dist_) dist_->commit();
  }
  double seconds() const { return seconds_; }

 private:
  std::string path(bool next) const { return next ? next_path_for(o_.output) : o_.output; }
  const FileSolveOptions& o_;
  std::int64_t V_;
  std::unique_ptr<MatrixStreamWriter> dist_, next_;
  std::thread gate_;
  std::exception_ptr gate_error_;  // from the gate thread (a bad APSP_WRITE_* value), for the sink
  double seconds_ = 0;
  std::atomic<bool> writing_{false};
};

/// A side file (OUT.next, OUT.labels) left beside OUT by an earlier solve (same modification
/// time as the OUT it was written with) stops belonging to OUT once a solve that writes no such
/// file replaces OUT. Noted before the commit; dropped after it, if it is still that file.
class StaleSideFile {
 public:
  StaleSideFile(const std::string& output, std::string side) {
    struct stat d {};
    // No OUT yet, or a stream or device (nothing is written beside those).
    if (output == "-" || ::stat(output.c_str(), &d) != 0 || !S_ISREG(d.st_mode)) return;
    path_ = std::move(side);
    // A regular file of its own (not a link, not OUT itself) with OUT's time to the nanosecond:
    // written with OUT by apsp (or given OUT's time with `touch -r`). A time without a fraction
    // of a second is never taken for that: file systems with coarse times (FAT, ext3), and
    // trees unpacked by tools that drop the nanoseconds, give unrelated files equal times.
    if (::lstat(path_.c_str(), &next_) != 0 || !S_ISREG(next_.st_mode) || d.st_mtim.tv_nsec == 0 ||
        (next_.st_dev == d.st_dev && next_.st_ino == d.st_ino) ||
        next_.st_mtim.tv_sec != d.st_mtim.tv_sec || next_.st_mtim.tv_nsec != d.st_mtim.tv_nsec)
      return;
    paired_ = true;
  }
  /// After OUT was replaced: removes the old pair's next-hop file if nothing changed it since.
  void drop() const {
    struct stat now {};
    if (!paired_ || ::lstat(path_.c_str(), &now) != 0) return;
    if (now.st_dev == next_.st_dev && now.st_ino == next_.st_ino &&
        now.st_mtim.tv_sec == next_.st_mtim.tv_sec && now.st_mtim.tv_nsec == next_.st_mtim.tv_nsec)
      (void)::unlink(path_.c_str());
  }

 private:
  std::string path_;
  struct stat next_ {};
  bool paired_ = false;
};

}  // namespace

std::string labels_path_for(const std::string& output) {
  if (io::is_null_device(output)) return "/dev/null";
  return output + ".labels";
}

void write_labels(const std::string& output, const std::vector<std::string>& labels) {
  if (labels.empty() || output == "-" || io::resolve_output(output).stream_fd >= 0) return;
  std::size_t bytes = 0;
  for (const std::string& l : labels) bytes += l.size() + 1;
  std::string text;
  text.reserve(bytes);
  for (const std::string& l : labels) text.append(l).push_back('\n');
  io::write_output(labels_path_for(output), text.data(), text.size());
}

std::vector<std::string> read_labels(const std::string& path) {
  const io::InputFile f(path, io::InputKind::Any);
  std::vector<std::string> names;
  std::string_view text(f.chars(), f.size());
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    names.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return names;
}

std::string next_path_for(const std::string& output) {
  if (io::is_null_device(output)) return "/dev/null";  // discarded, as the distances are
  const std::string ext = ".npy";
  if (output.size() > ext.size() &&
      output.compare(output.size() - ext.size(), ext.size(), ext) == 0)
    return output.substr(0, output.size() - ext.size()) + ".next.npy";
  return output + ".next";
}

FileSolveResult solve_file(const FileSolveOptions& o) {
  APSP_EXPECTS(!o.solve.dist_sink && !o.solve.next_sink, "solve_file streams to its own writers");
  if (launcher_rank_is_zero()) {
    check_file_outputs(o);
    // A killed `solve --paths` may have left OUT.next's temporary file; a solve without --paths
    // opens no OUT.next writer to remove it.
    if (!o.solve.paths && o.output != "-" && !io::is_null_device(o.output))
      io::remove_dead_temps(io::resolve_output(next_path_for(o.output)).path);
  }
  const OutputFormat of = o.output_format;  // Auto stays Auto: OUT.next goes by its own name
  if (of == OutputFormat::Auto)
    (void)output_format_for(o.output);  // unknown extension: refused now

  SolveOptions so = o.solve;
  detail::limit_gpu_queues(so.backend);
  trace("solve command starts");
  // GPU context creation (~0.2 s) overlaps reading the input; so does faulting in the CPU
  // path's matrix where the input's header tells V.
  std::jthread warm([b = so.backend, d = so.devices] {
    warm_up(b, d);
    trace("warm-up done");
  });
  detail::HostBufferReservation matrix_memory;
  if (so.backend == Backend::Cpu || so.backend == Backend::Auto)
    if (const std::int64_t v = detail::peek_vertices(o.input, o.read); v > 0)
      matrix_memory.start(
          detail::cpu_matrix_bytes(v), /*unless_gpu=*/so.backend == Backend::Auto,
          [path = o.input, v] { return detail::nthu_matrix_worth_filling(path, v); });

  const auto t_read = Clock::now();
  phase(o, "read");
  Graph g = read_graph(o.input, o.read);
  const double read_s = since(t_read);
  trace("input read");
  if (!g.labels.empty() && launcher_rank_is_zero()) {
    if (io::same_file(o.input, labels_path_for(o.output)))
      throw UsageError(labels_path_for(o.output) +
                       ": the vertex names would overwrite the input (name OUT otherwise)");
    if ((o.output == "-" || io::resolve_output(o.output).stream_fd >= 0) && o.read.warning)
      o.read.warning(o.input +
                     ": the vertex names are not written: OUT is a stream (write to a "
                     "file to get OUT.labels beside it)");
  }
  detail::refuse_nthu_overflow(o.output, g, of);
  trace("nthu output range checked");

  FileSolveResult out;
  out.vertices = g.num_vertices;
  out.edges = g.num_edges();
  Writers writers(o, g.num_vertices);
  if (!o.verify) {
    so.dist_sink = writers.sink(false);
    if (so.paths) so.next_sink = writers.sink(true);
    // NTHU output is int32 on disk: an int64 result's proven-exact int32 rounds may come as
    // int32 stripes (half the copies; no widening on the way).
    so.int32_stripes =
        (of == OutputFormat::Auto ? output_format_for(o.output) : of) == OutputFormat::Nthu;
    // Only where a GPU can be there at all (device files): the dtype guess scans the weights.
    if (gpu_solve_possible(backend_name(so.backend)))
      if (const std::optional<Dtype> t = detail::expected_dtype(g, so)) writers.open_early(*t);
  }

  // No join here: solve()'s host-side checks overlap the rest of the context creation, and its
  // first CUDA call waits for the warm-up thread's by itself (the runtime's init is thread-safe).
  trace("solve starts");
  phase(o, "solve");
  Result& r = out.result;
  try {
    detail::check_host_memory_early(g.num_vertices, so);  // before Johnson's O(V) vectors
    r = solve(g, so);
  } catch (const NegativeCycleError& e) {  // name the input file in every message
    throw NegativeCycleError(o.input + ": " + e.what(), e.cycle());
  } catch (const ResourceError& e) {
    throw ResourceError(o.input + ": " + e.what());
  } catch (const UsageError& e) {
    throw UsageError(o.input + ": " + e.what());
  }
  trace("solve returned");
  r.timings.read = read_s;

  // Under mpirun only rank 0 holds (or streams) the result; the other ranks end here quietly.
  out.wrote = writers.any() || !r.dist.empty();
  if (!out.wrote) return out;
  const auto t_write = Clock::now();
  writers.start_writing();
  const std::optional<StaleSideFile> stale =
      so.paths ? std::nullopt
               : std::optional<StaleSideFile>(std::in_place, o.output, next_path_for(o.output));
  const std::optional<StaleSideFile> stale_labels =
      !g.labels.empty()
          ? std::nullopt
          : std::optional<StaleSideFile>(std::in_place, o.output, labels_path_for(o.output));
  if (o.verify) {
    const io::CommitTime same_time;  // as Writers::commit(): names, next hops first, one time
    write_labels(o.output, g.labels);
    if (so.paths) write_matrix(next_path_for(o.output), r.next, of);
    write_matrix(o.output, r.dist, of);
  }
  writers.commit(o.verify ? std::vector<std::string>{} : g.labels);
  if (stale) stale->drop();
  if (stale_labels) stale_labels->drop();
  r.timings.write = writers.seconds() + since(t_write);
  trace("outputs committed");
  if (o.verify) {
    phase(o, "verify");
    out.verification = detail::verify(g, r.dist);
  }
  phase(o, "done");
  return out;
}

}  // namespace apsp
