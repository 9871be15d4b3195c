// src/io/io_common.hpp — pieces every format shares: whole-file input (mmap or read), atomic
// output (temp file in the same directory + rename), located errors, text tokenizing, and a
// chunked, parallel row writer for matrices.
//
// Readers see the whole input as one contiguous byte range, so the binary reader can check the
// header against the file size before allocating anything and the text readers can scan lines
// without per-line system calls. Writers never touch the target path until the data is complete.
#pragma once

#include <time.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"

namespace apsp::io {

// ---- errors -------------------------------------------------------------------------------------

[[noreturn]] void fail_at_offset(const std::string& file, std::uint64_t offset,
                                 const std::string& msg);
[[noreturn]] void fail_at_line(const std::string& file, std::int64_t line, const std::string& msg);
/// The length of the UTF-8 sequence that lead byte `c` starts (1 for ASCII), 0 for a byte that
/// cannot start one (a continuation byte, C0, C1, F5..FF).
constexpr std::size_t utf8_sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}
/// Quotes a token for a message, shortened to a readable length.
std::string quote(std::string_view token);
/// A double in the shortest text that reads back as the same double (std::to_chars), for messages.
std::string shortest_text(double v);
/// "1 entry", "2 entries": a count with its noun (`one`, `many`) for messages.
std::string count_of(std::int64_t n, const char* one, const char* many);
/// strerror(e) as a std::string (the text of an errno value, for one-line errors).
std::string errno_text(int e);

// ---- input --------------------------------------------------------------------------------------

/// What an input is read for: a graph (a binary NTHU header then bounds a pipe's read) or
/// anything else.
enum class InputKind { Any, Graph };

/// A whole input file as bytes: mapped read-only for regular files; read into memory for "-"
/// (stdin), pipes, devices and files that report size 0 (/proc, /sys). A read that is not mapped
/// stops where a binary NTHU header says the graph ends (kind Graph), and never takes more than
/// the memory available (ResourceError naming the file and offset). A mapped file that shrinks
/// while it is parsed does not kill the process with SIGBUS: the missing pages read as zeros and
/// the read fails with InputError "FILE: changed while being read": from check_unchanged(),
/// which a caller runs after a parse that succeeded (read_graph does; the destructor runs it too
/// when no exception is in flight, but a throw there leaks a returned object under GCC 12), and
/// from fail_at_offset()/fail_at_line() when the zeros made the parse fail. The same for a file
/// whose size or modification time changed. Throws InputError(path, "", "cannot open
/// ...") for an unreadable path or a directory.
class InputFile {
 public:
  /// max_bytes: a larger input (a regular file's size, or what a stream gives) is an InputError
  /// "larger than the N bytes `why`", before more than max_bytes are read.
  explicit InputFile(const std::string& path, InputKind kind = InputKind::Any,
                     std::uint64_t max_bytes = UINT64_MAX, const std::string& why = "");
  ~InputFile() noexcept(false);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  const unsigned char* bytes() const { return data_; }
  const char* chars() const { return reinterpret_cast<const char*>(data_); }
  std::size_t size() const { return size_; }
  /// Throws InputError "PATH: changed while being read (...)" if a mapped file shrank (a page read
  /// as zeros), or its size or modification time is not what it was when it was opened.
  void check_unchanged() const;

 private:
  void read_stream(int fd, InputKind kind);
  void refuse_larger(std::uint64_t offset) const;
  std::string path_;
  std::uint64_t max_bytes_ = UINT64_MAX;
  std::string why_;  // what max_bytes_ is
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;  // munmap on destruction when non-null
  int map_fd_ = -1;      // kept open while mapped, to see whether the file changed
  int slot_ = -1;        // in the SIGBUS guard's table (input_file.cpp)
  std::int64_t mtime_ns_ = 0;
  std::vector<unsigned char> buf_;  // used when the file is not mapped
};

/// apsp::read_matrix() of an input of at most max_bytes (else InputError "FILE: offset N: the
/// input is larger than the max_bytes bytes `why`"): a stream (/dev/zero) is not read further.
Matrix read_matrix_at_most(const std::string& path, OutputFormat format, std::uint64_t max_bytes,
                           const std::string& why);

// ---- output -------------------------------------------------------------------------------------

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
/// The temporary file for `target`: ".NAME.tmp.PID[.k]" beside it, NAME cut so that the name
/// stays within NAME_MAX.
std::string temp_path_for(const std::string& target, long pid, unsigned k);
/// Removes the temporary files that process `pid` left for `target` (it was killed).
void remove_stale_temps(const std::string& target, long pid) noexcept;
/// Removes the temporary files for `target` (the file after links) that processes which no longer
/// exist left behind (SIGKILL, a crash): names exactly temp_path_for(target, PID, k) with
/// kill(PID, 0) failing with ESRCH, regular files owned by this user. OutputFile calls it.
/// Nothing is removed on a network or cluster file system (shared_filesystem), or where the
/// folder's file system cannot be told.
void remove_dead_temps(const std::string& target) noexcept;
/// Whether a statfs() f_type (its low 32 bits) is a network or cluster file system (NFS, SMB,
/// CIFS, Lustre, GPFS, CephFS, AFS, BeeGFS, FUSE, 9p, OCFS2, GFS2), where a writer may run on
/// another host and kill(PID, 0) there proves nothing.
bool shared_filesystem(std::uint32_t f_type) noexcept;
/// Removes every temporary output file this process has open now. Async-signal-safe: for a
/// SIGINT/SIGTERM/SIGHUP handler, which then re-raises the signal.
void remove_temp_files() noexcept;
/// The table remove_temp_files() walks (io_common.cpp), for OutputFile (output_file.cpp):
/// register_temp returns a slot (-1: table full, the file is then not removed on a signal).
int register_temp(const std::string& path);
void unregister_temp(int slot);
/// A number for the next temporary file name of this process (temp_path_for's k).
unsigned next_temp_number();

/// Writes to a temporary file (temp_path_for) beside the target (resolve_output: through
/// symbolic links) and renames it over the target in commit(), with the mode (and, where
/// permitted, the owner and group) of the file it replaces; an existing target this user may not
/// write is refused by the constructor, and other processes' dead temporary files for the target
/// are removed there (remove_dead_temps). The destructor removes the
/// temporary file unless commit() succeeded, so an exception anywhere leaves no partial output;
/// remove_temp_files() removes it on a signal. A stream target ("-", /dev/stdout, a FIFO, a
/// device) is written directly, one write() after another.
///
/// Large writes into the temporary (regular) file may be split over threads, each pwrite()-ing
/// its own range at the right offset (the file position is tracked here, not by the kernel); see
/// docs/io.md. APSP_WRITE_THREADS: 0 or 1 = one write at a time (as before); N = at most N
/// threads; unset or "auto" = one on the local file systems, where the kernel serialises writes
/// into one file anyway, else up to min(cores, 16). Writes below 4 MiB are always one call.
/// reserve(N) preallocates the file (fallocate) where that makes writing faster (ext4; see
/// APSP_WRITE_PREALLOCATE in docs/io.md), and commit() lets a replaced old output's pages be
/// freed by a background close instead of inside rename(). APSP_WRITE_METHOD=mmap (opt-in, for
/// measuring) maps a reserved, preallocated file and copies appends into it from the threads
/// (page faults run in parallel; an I/O error there would be SIGBUS, not an Error).
/// OutputFile's prefill threads check their stop flag after each step of this many bytes.
inline constexpr std::uint64_t kPrefillStep = std::uint64_t{2} << 20;

/// Writes rows [0, rows) of row_bytes bytes lying `stride` apart at file offset `off` (pwritev) or,
/// when off < 0, at the fd's position (writev), resuming after partial writes and EINTR. Returns
/// the bytes written; err = errno of a failure (0: none; EIO for a call that wrote nothing).
std::uint64_t put_rows(int fd, std::int64_t off, const char* base, std::int64_t rows,
                       std::size_t row_bytes, std::size_t stride, int& err);

/// While one lives, every OutputFile::commit() on this thread gives its file (a regular file,
/// not a stream) one modification and access time, the clock when the CommitTime was made,
/// before the rename. The CLI's distance and next-hop files get the same time so that
/// `apsp path` can tell a pair written together from files of different solves (docs/paths.md,
/// "Which files belong together").
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

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends all n bytes (looping over partial writes); throws Error on failure.
  void write(const void* data, std::size_t n);
  /// Appends `rows` rows of `row_bytes` bytes that lie `stride_bytes` apart, straight from memory
  /// with (p)writev() (no gather copy), split by rows over threads when large; throws Error.
  void write_strided(const void* base, std::int64_t rows, std::size_t row_bytes,
                     std::size_t stride_bytes);
  /// Writes n bytes at byte `offset` of a regular output file without moving the append position
  /// (one thread; callers may run several at once on disjoint ranges, but not at the same time
  /// as write()/write_strided()). Throws Error, also for a FIFO or device target (no offsets).
  void write_at(std::uint64_t offset, const void* data, std::size_t n);
  /// The final size, when the caller knows it (call before writing): failure messages then say
  /// "of N bytes", and the file is preallocated where that helps (see above). A file system
  /// without room fails here, before any data is written: Error "cannot reserve N bytes".
  void reserve(std::uint64_t bytes);
  /// After reserve(): starts filling the page cache of the reserved file on threads of its own,
  /// so that the data's writes later overwrite cached pages instead of allocating them (the cost
  /// of a write into a new file on ext4 in a VM; docs/io.md). For a caller with idle time before
  /// its first write (the CLI while a GPU context is created and the GPU computes). Returns at
  /// once; the first write, commit() or the destructor stops what is left of it and waits for
  /// the threads (at most one 2 MiB step). Does nothing unless reserve() preallocated the file
  /// and APSP_WRITE_PREFILL allows it (output_prefill_method), nor after a write_at(). Fills from
  /// the first whole page after what was appended (an .npy header) for at most prefill_limit()
  /// bytes.
  void prefill();
  /// Bytes prefill() put in the page cache; final after the first write, commit() or the
  /// destructor (0 before, and where it did nothing).
  std::uint64_t prefilled() const { return prefill_threads_.empty() ? prefilled_.load() : 0; }
  /// Bytes beyond prefill()'s limit that were faulted in ahead of the copies (populate_ahead());
  /// final after commit() or the destructor.
  std::uint64_t populated() const { return ahead_threads_.empty() ? populated_.load() : 0; }
  /// Bytes appended so far.
  std::uint64_t size() const { return written_; }
  /// Threads one large write may use here (1: sequential; always 1 for a FIFO or device).
  int write_threads() const { return threads_; }
  /// Closes and renames into place; throws Error on failure.
  void commit();
  const std::string& path() const { return path_; }

 private:
  void append(const char* base, std::int64_t rows, std::size_t row_bytes, std::size_t stride);
  void copy_into_map(const char* base, std::int64_t rows, std::size_t row_bytes,
                     std::size_t stride);
  [[noreturn]] void fail_write(std::uint64_t at, int err) const;
  /// Before the rename over an existing regular file: its owner and group (where permitted)
  /// and its permission bits onto the temporary file.
  void keep_owner_and_mode();
  void stop_prefill();
  void populate_ahead();
  void stop_ahead();

  std::string path_, target_, tmp_;  // as given, after links, the temporary file
  int fd_ = -1;
  int temp_slot_ = -1;  // in remove_temp_files()'s table
  bool direct_ = false;
  bool committed_ = false;
  int threads_ = 1;
  bool preallocated_ = false;   // fallocate() set the file's size to reserved_
  bool mmap_wanted_ = false;    // APSP_WRITE_METHOD=mmap
  char* map_ = nullptr;         // [0, reserved_) of the file, mapped shared, when mapping
  std::uint64_t reserved_ = 0;  // bytes preallocated by reserve()
  std::uint64_t written_ = 0, expected_ = 0;  // the append position; reserve()'s size (0: unknown)
  std::atomic<std::uint64_t> write_at_end_{0};  // the furthest end of a write_at()
  std::uint64_t calls_ = 0, split_calls_ = 0;   // for the APSP_TRACE line at commit
  // prefill(): its threads, their stop flag, and what they did (read after the join).
  std::mutex prefill_m_;  // stop_prefill() may come from several write_at() callers at once
  std::vector<std::thread> prefill_threads_;
  std::atomic<bool> prefill_stop_{false};
  std::atomic<std::uint64_t> prefilled_{0};
  std::atomic<std::int64_t> prefill_end_ns_{0};  // steady_clock of the last thread's end
  std::chrono::steady_clock::time_point prefill_start_{};
  int prefill_method_ = 0;  // 0 none, 1 pwrite of zeros, 2 mapped, pages touched
  // populate_ahead(): from the first append on, the mapped pages past prefill()'s limit are
  // faulted in (MADV_POPULATE_WRITE: no byte changes) at most ahead_window_ bytes ahead of the
  // data, on threads of their own; stopped by commit() and the destructor.
  std::uint64_t ahead_from_ = 0, ahead_window_ = 0;  // set by prefill() (0: no populating)
  int ahead_threads_wanted_ = 0;
  std::vector<std::thread> ahead_threads_;
  std::atomic<bool> ahead_stop_{false};
  std::atomic<std::uint64_t> ahead_next_{0}, ahead_data_end_{0}, populated_{0};
  std::chrono::steady_clock::time_point ahead_start_{};
};

/// APSP_WRITE_PREFILL, how OutputFile::prefill() fills a preallocated file in `dir`: 0 not at all
/// ("0"), 1 pwrite() of zeros from one thread ("write"), 2 the file mapped and its pages touched
/// by several threads, the data then copied into the mapping ("mmap"); unset or "auto": 2 on ext4
/// (measured: docs/io.md), else 0. Throws UsageError for another value.
int output_prefill_method(const std::string& dir);
/// The most bytes prefill() fills: half the dirty-page threshold at which the kernel starts
/// writing back (vm.dirty_background_bytes, or _ratio of MemAvailable), so that the zeros are not
/// written to disk before the data replaces them. 0 when unknown.
std::uint64_t prefill_limit();

/// Threads a large write into a file in `dir` may use, from APSP_WRITE_THREADS (see OutputFile);
/// "auto": 1 on the file systems that serialise buffered writes to one file (ext4, xfs, btrfs,
/// tmpfs, f2fs) unless `mapped`, else min(cores, 16). Throws UsageError for a value that is
/// neither a count nor "auto".
int output_write_threads(const std::string& dir, bool mapped);
/// APSP_WRITE_METHOD: "write" (or unset: write()/pwrite() calls) -> false, "mmap" -> true; throws
/// UsageError otherwise.
bool output_write_mapped();
/// Whether OutputFile::reserve() preallocates a file in `dir`, from APSP_WRITE_PREALLOCATE: a
/// bool, or unset or "auto": on ext4 (measured: docs/io.md). Throws UsageError for another value.
bool output_preallocates(const std::string& dir);

/// Writes `rows` rows of `row_bytes` bytes each. fill(i, out) formats row i into out and returns
/// false when a value cannot be represented; then on_bad(i) is called (it must throw). Rows are
/// filled in parallel in chunks of about 64 MiB, each chunk written with one OutputFile::write()
/// (itself split over threads for a regular file).
template <class Fill, class OnBad>
void write_rows(OutputFile& f, std::int64_t rows, std::size_t row_bytes, Fill&& fill,
                OnBad&& on_bad);

// ---- text ---------------------------------------------------------------------------------------

/// Splits a text buffer into lines (LF or CRLF), counting line numbers from 1.
class LineReader {
 public:
  LineReader(const char* begin, std::size_t n) : p_(begin), end_(begin + n) {}
  /// Next line without its terminator (and without a trailing '\r'); false at end of input.
  bool next(std::string_view& line) {
    if (p_ >= end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', std::size_t(end_ - p_)));
    const char* stop = nl ? nl : end_;
    const char* e = stop;
    if (e > p_ && e[-1] == '\r') --e;
    line = std::string_view(p_, std::size_t(e - p_));
    p_ = nl ? nl + 1 : end_;
    ++line_no_;
    return true;
  }
  /// Number of the line last returned by next() (0 before the first).
  std::int64_t line_no() const { return line_no_; }

 private:
  const char* p_;
  const char* end_;
  std::int64_t line_no_ = 0;
};

/// Splits a line into tokens separated by spaces/tabs (and commas when `commas`).
inline std::size_t split_tokens(std::string_view line, bool commas, std::string_view* out,
                                std::size_t max_out) {
  std::size_t n = 0, i = 0;
  auto is_sep = [commas](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || (commas && c == ',');
  };
  while (i < line.size()) {
    while (i < line.size() && is_sep(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_sep(line[j])) ++j;
    if (n < max_out) out[n] = line.substr(i, j - i);
    ++n;
    i = j;
  }
  return n;
}

/// Parses the whole token as a (signed, optionally '+') decimal integer; false on anything else
/// or overflow.
inline bool parse_int(std::string_view t, std::int64_t& v) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '+' || t[0] == '-') return false;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

/// Parses the whole token as a finite real number; false otherwise (inf/nan are refused).
bool parse_real(std::string_view t, double& v);

// ---- format readers and writers (one file each) -------------------------------------------------

Graph read_nthu(const InputFile& in);
Graph read_dimacs(const InputFile& in);
Graph read_mtx(const InputFile& in);
Graph read_edgelist(const InputFile& in);

void write_matrix_nthu(OutputFile& f, const Matrix& m);
/// The .npy header alone, then the C-order data alone (MatrixStreamWriter reserves the data's
/// bytes in between).
void write_npy_header(OutputFile& f, Dtype dtype, std::int64_t rows, std::int64_t cols);
void write_npy_body(OutputFile& f, const Matrix& m);
void write_matrix_text(OutputFile& f, const Matrix& m);

Matrix read_matrix_nthu(const InputFile& in);
Matrix read_matrix_npy(const InputFile& in);
Matrix read_matrix_text(const InputFile& in);

/// Vertex count check shared by the readers: 1 <= V <= kMaxVertices.
inline bool vertex_count_ok(std::int64_t v) { return v >= 1 && v <= kMaxVertices; }

}  // namespace apsp::io

#include "io/write_rows_impl.hpp"
