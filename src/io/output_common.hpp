// src/io/output_common.hpp — what every writer shares: atomic output (a temporary file in the
// same directory + rename: OutputFile), the table of temporary files a signal removes, the write
// policy (threads, preallocation, prefill), a chunked, parallel row writer for matrices, and the
// format writers (one file each). Output targets and the checks on them are public
// (apsp/output.hpp). Writers never touch the target path until the data is complete.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "apsp/output.hpp"

namespace apsp::io {

/// The temporary file for `target`: ".NAME.tmp.PID[.k]" beside it, NAME cut so that the name
/// stays within NAME_MAX.
std::string temp_path_for(const std::string& target, long pid, unsigned k);
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
/// The table remove_temp_files() walks (output_common.cpp), for OutputFile (output_file.cpp):
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

void write_matrix_nthu(OutputFile& f, const Matrix& m);
/// The .npy header alone, then the C-order data alone (MatrixStreamWriter reserves the data's
/// bytes in between).
void write_npy_header(OutputFile& f, Dtype dtype, std::int64_t rows, std::int64_t cols);
void write_npy_body(OutputFile& f, const Matrix& m);
void write_matrix_text(OutputFile& f, const Matrix& m);

}  // namespace apsp::io

#include "io/write_rows_impl.hpp"
