// apsp/output.hpp — output targets and the checks made on them before any work: where a path
// leads (a stream, a file behind symbolic links), whether an output can be created there, whether
// two paths are one file; the temporary files every output is written through (apsp/io.hpp:
// temp file + rename), removed by a caller's signal handler or after a killed worker; one
// modification time for the files of one result (CommitTime), and a whole output written at once.
// For the CLI, which checks and writes its own outputs (--stats, metrics) the way the library
// writes its results.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace apsp::io {

/// Where an output goes. "-", /dev/stdout, /dev/stderr, /dev/fd/N: stream_fd (written in order,
/// never renamed over). Otherwise `path` is the file that symbolic links lead to (the output
/// replaces that file and leaves the links), and `stream` says it exists and is not a regular
/// file (a FIFO, a device: written in order too). Throws Error for a directory or a link loop.
struct OutputTarget {
  std::string path;
  int stream_fd = -1;
  bool stream = false;
  bool exists = false;
};
OutputTarget resolve_output(const std::string& path);
/// Throws Error naming `path` unless an output can be created there: the target's directory
/// exists and is writable (or it is a stream that can be written), and an existing file there
/// may be written by this user (access(W_OK); root may replace a read-only file, as cp does).
/// For the CLI, before a solve.
void check_output_path(const std::string& path);
/// Whether an input and an output path (after links; "-" is stdin as the input, stdout as the
/// output) are the same regular file (device and inode).
bool same_file(const std::string& input, const std::string& output);
/// Whether two outputs would land in the same file: the same descriptor ("-", /dev/stdout,
/// /dev/fd/N), the same path after symbolic links (also in the folders), or the same device and
/// inode (hard links, a descriptor that is that file). Character devices (/dev/null, a terminal)
/// take any number of writers and are never the same output, unless named by one descriptor.
bool same_output(const std::string& a, const std::string& b);
/// Whether `path` (after links) is the null device (/dev/null's device number).
bool is_null_device(const std::string& path);
/// Removes the temporary files that process `pid` left for `target` (it was killed).
void remove_stale_temps(const std::string& target, long pid) noexcept;
/// Removes every temporary output file this process has open now. Async-signal-safe: for a
/// SIGINT/SIGTERM/SIGHUP handler, which then re-raises the signal.
void remove_temp_files() noexcept;

/// While one lives, every output committed on this thread (write_matrix, MatrixStreamWriter,
/// write_labels, write_output; a regular file, not a stream) gets one modification and access time,
/// the clock when the CommitTime was made, before the rename. The CLI's distance and next-hop files
/// get the same time so that `apsp path` can tell a pair written together from files of different
/// solves (docs/paths.md, "Which files belong together").
class CommitTime {
 public:
  CommitTime();
  ~CommitTime();
  CommitTime(const CommitTime&) = delete;
  CommitTime& operator=(const CommitTime&) = delete;
  const timespec& time() const { return time_; }

 private:
  timespec time_{};
  const timespec* prev_ = nullptr;
};

/// Writes n bytes to `path` as every output is written (a temporary file beside it, renamed over
/// it; a stream target written directly) in one piece. Throws Error naming the file.
void write_output(const std::string& path, const void* data, std::size_t n);
/// Writes all n bytes to `fd` at its position, resuming after partial writes and EINTR. Returns
/// the bytes written; err = errno of a failure (0: none; EIO for a call that wrote nothing).
std::uint64_t write_fully(int fd, const void* data, std::size_t n, int& err);

}  // namespace apsp::io
