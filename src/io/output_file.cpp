// src/io/output_file.cpp — OutputFile: atomic output through a temporary file beside the target,
// preallocation, writes split over threads at row boundaries, an optional shared mapping
// (its page-cache fill ahead of the data: output_prefill.cpp; docs/io.md: "How a write goes").
#include "io/output_common.hpp"
#include "io/text_common.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <exception>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "core/config.hpp"
#include "core/host_copy.hpp"
#include "core/memory_limit.hpp"
#include "core/trace.hpp"

namespace apsp::io {

// ---- OutputFile ---------------------------------------------------------------------------------
//
// One function moves bytes, put_rows() (output_common.hpp): rows of row_bytes lying `stride` apart
// in memory (a contiguous buffer is one row), with writev() at the fd's position (FIFOs, devices)
// or pwritev() at a file offset (the temporary file). A large append to the temporary file is cut
// into pieces at row boundaries (or 64 KiB-aligned file offsets for a contiguous buffer), one per
// thread. Every piece runs to its end or to its own failure, and the failure at the lowest offset
// is the one reported: then every byte before it was written, so "write failed after X bytes" is
// exact. The threads are OpenMP's (the library's pool; inside another parallel region it is one
// thread, which then writes every piece in turn). Nothing in a worker throws.

namespace {
constexpr std::size_t kSplitMinBytes = std::size_t{4} << 20;  // smaller appends: one call
constexpr std::size_t kPieceMinBytes = std::size_t{2} << 20;  // no thread gets less than this
constexpr std::uint64_t kPieceAlign = 64 << 10;  // contiguous pieces start here in the file

thread_local const timespec* g_commit_time = nullptr;  // CommitTime's, on this thread

}  // namespace

CommitTime::CommitTime() {
  ::clock_gettime(CLOCK_REALTIME, &time_);
  prev_ = g_commit_time;
  g_commit_time = &time_;
}

CommitTime::~CommitTime() { g_commit_time = prev_; }

std::uint64_t put_rows(int fd, std::int64_t off, const char* base, std::int64_t rows,
                       std::size_t row_bytes, std::size_t stride, int& err) {
  constexpr int kMaxIov = 1024;                           // IOV_MAX on Linux
  constexpr std::size_t kMaxCall = std::size_t{1} << 30;  // Linux moves at most 0x7ffff000 per call
  iovec iov[kMaxIov];
  std::uint64_t done = 0;
  std::int64_t r = 0;
  std::size_t skip = 0;  // bytes of row r already written
  err = 0;
  while (r < rows) {
    int k = 0;
    std::size_t total = 0;
    for (std::int64_t q = r; q < rows && k < kMaxIov && total < kMaxCall; ++q, ++k) {
      const std::size_t from = q == r ? skip : 0;
      const std::size_t len = std::min(row_bytes - from, kMaxCall - total);
      iov[k].iov_base = const_cast<char*>(base + std::size_t(q) * stride + from);
      iov[k].iov_len = len;
      total += len;
    }
    const ssize_t w =
        off < 0 ? ::writev(fd, iov, k) : ::pwritev(fd, iov, k, off_t(off) + off_t(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : EIO;
      return done;
    }
    done += std::uint64_t(w);
    std::size_t left = std::size_t(w);
    if (left < row_bytes - skip) {
      skip += left;
      continue;
    }
    left -= row_bytes - skip;
    ++r;
    r += std::int64_t(left / row_bytes);
    skip = left % row_bytes;
  }
  return done;
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  const OutputTarget t = resolve_output(path);
  if (t.stream_fd >= 0 || t.stream) {
    // "-", /dev/stdout, a FIFO, a device: renaming over it would be wrong; write straight into it,
    // in order (no offsets on a pipe).
    fd_ = t.stream_fd >= 0 ? ::fcntl(t.stream_fd, F_DUPFD_CLOEXEC, 3)
                           : ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": cannot open for writing: " + errno_text(errno));
    direct_ = true;
    return;
  }
  target_ = t.path;
  // Replaced, never written through: a file this user may not write is refused (root may, as
  // with cp). Temporary files of this target left by killed processes go first.
  if (t.exists && ::access(target_.c_str(), W_OK) != 0)
    throw Error(path + ": cannot replace the existing file: " + errno_text(errno));
  remove_dead_temps(target_);
  const std::filesystem::path p(target_);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() + "/" : std::string();
  mmap_wanted_ = output_write_mapped();
  threads_ = output_write_threads(dir, mmap_wanted_);
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp_ = temp_path_for(target_, long(::getpid()), next_temp_number());
    // Registered before it exists: a signal between open() and registration leaves nothing.
    temp_slot_ = register_temp(tmp_);
    fd_ = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // RDWR: mmap needs it
    if (fd_ >= 0) return;
    const int e = errno;
    unregister_temp(std::exchange(temp_slot_, -1));
    errno = e;
    if (errno != EEXIST) break;
  }
  const int e = errno;
  tmp_.clear();
  throw Error(path + ": cannot create output file: " + errno_text(e));
}

OutputFile::~OutputFile() {
  stop_prefill();
  stop_ahead();
  if (map_) ::munmap(map_, std::size_t(reserved_));
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
  unregister_temp(temp_slot_);
}

void OutputFile::fail_write(std::uint64_t at, int err) const {
  std::string msg = path_ + ": write failed after " + std::to_string(at) + " bytes";
  if (expected_ > 0) msg += " of " + std::to_string(expected_);
  throw Error(msg + ": " + errno_text(err));
}

void OutputFile::reserve(std::uint64_t bytes) {
  expected_ = bytes;
  if (direct_ || preallocated_ || bytes <= written_) return;
  const std::string dir = std::filesystem::path(tmp_).parent_path().string();
  // A mapping needs the blocks allocated up front: a page fault that cannot get one is SIGBUS.
  if (!output_preallocates(dir) && !mmap_wanted_) return;
  // The free space is read before the attempt: a failed fallocate() on ext4 keeps the blocks it
  // got until the file is deleted, so afterwards the file system looks full.
  struct statvfs vfs {};
  const bool vfs_known = ::fstatvfs(fd_, &vfs) == 0;
  int r;
  do r = ::fallocate(fd_, 0, 0, off_t(bytes));
  while (r != 0 && errno == EINTR);
  if (r == 0) {
    preallocated_ = true;
    reserved_ = bytes;
    if (mmap_wanted_ && bytes <= SIZE_MAX) {
      void* p = ::mmap(nullptr, std::size_t(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
      if (p != MAP_FAILED) map_ = static_cast<char*>(p);  // else: write() calls as usual
    }
    return;
  }
  const int e = errno;
  if (e == ENOSPC || e == EDQUOT || e == EFBIG) {
    std::string msg = path_ + ": cannot reserve " + std::to_string(bytes) +
                      " bytes for the output: " + errno_text(e);
    if (e == ENOSPC && vfs_known)
      msg +=
          " (" + std::to_string(std::uint64_t(vfs.f_bavail) * vfs.f_frsize) + " bytes free there)";
    throw Error(msg);
  }
  // EOPNOTSUPP and the like: write without preallocation.
}

void OutputFile::write(const void* data, std::size_t n) {
  append(static_cast<const char*>(data), 1, n, n);
}

void OutputFile::write_strided(const void* base, std::int64_t rows, std::size_t row_bytes,
                               std::size_t stride_bytes) {
  append(static_cast<const char*>(base), rows, row_bytes, stride_bytes);
}

void OutputFile::write_at(std::uint64_t offset, const void* data, std::size_t n) {
  if (direct_) throw Error(path_ + ": internal error: positional write into a FIFO or device");
  stop_prefill();
  if (n == 0) return;
  if (map_ && offset + n <= reserved_) {
    std::memcpy(map_ + offset, data, n);
  } else {
    int err = 0;
    const std::uint64_t done =
        put_rows(fd_, std::int64_t(offset), static_cast<const char*>(data), 1, n, n, err);
    if (err) fail_write(offset + done, err);
  }
  const std::uint64_t end = offset + n;
  std::uint64_t seen = write_at_end_.load();
  while (seen < end && !write_at_end_.compare_exchange_weak(seen, end)) {
  }
}

void OutputFile::copy_into_map(const char* base, std::int64_t rows, std::size_t row_bytes,
                               std::size_t stride) {
  // As append(): pieces of rows, or of a contiguous buffer at 64 KiB-aligned file offsets; each
  // thread's page faults fill its own pages. Called with rows == 1 for a contiguous buffer.
  const std::uint64_t n = std::uint64_t(rows) * row_bytes, at = written_;
  std::int64_t pieces =
      n >= kSplitMinBytes ? std::min<std::int64_t>(threads_, std::int64_t(n / kPieceMinBytes)) : 1;
  if (rows > 1) pieces = std::min(pieces, rows);
  pieces = std::max<std::int64_t>(pieces, 1);
  if (pieces > 1) ++split_calls_;
#pragma omp parallel for schedule(static, 1) num_threads(int(pieces))
  for (std::int64_t i = 0; i < pieces; ++i) {
    if (rows > 1) {
      const std::int64_t a = rows * i / pieces, b = rows * (i + 1) / pieces;
      for (std::int64_t r = a; r < b; ++r)
        std::memcpy(map_ + at + std::uint64_t(r) * row_bytes, base + std::size_t(r) * stride,
                    row_bytes);
    } else {
      auto edge = [&](std::int64_t k) -> std::uint64_t {
        if (k <= 0) return 0;
        if (k >= pieces) return n;
        const std::uint64_t e =
            (at + n / std::uint64_t(pieces) * std::uint64_t(k)) / kPieceAlign * kPieceAlign;
        return std::clamp(e, at, at + n) - at;
      };
      const std::uint64_t a = edge(i), b = edge(i + 1);
      if (b > a) std::memcpy(map_ + at + a, base + a, std::size_t(b - a));
    }
  }
}

void OutputFile::append(const char* base, std::int64_t rows, std::size_t row_bytes,
                        std::size_t stride) {
  if (rows <= 0 || row_bytes == 0) return;
  stop_prefill();
  const std::uint64_t n = std::uint64_t(rows) * row_bytes;
  if (stride == row_bytes || rows == 1) {  // contiguous: one row, cut anywhere
    row_bytes = std::size_t(n);
    stride = row_bytes;
    rows = 1;
  }
  ++calls_;
  if (map_ && written_ + n <= reserved_) {
    ahead_data_end_.store(written_ + n, std::memory_order_relaxed);
    populate_ahead();
    copy_into_map(base, rows, row_bytes, stride);
    written_ += n;
    return;
  }
  std::int64_t pieces = 1;
  if (!direct_ && n >= kSplitMinBytes)
    pieces = std::min<std::int64_t>(threads_, std::int64_t(n / kPieceMinBytes));
  if (rows > 1) pieces = std::min(pieces, rows);
  if (pieces <= 1) {
    int err = 0;
    const std::uint64_t done =
        put_rows(fd_, direct_ ? -1 : std::int64_t(written_), base, rows, row_bytes, stride, err);
    written_ += done;
    if (err) fail_write(written_, err);
    return;
  }
  ++split_calls_;
  // Piece i covers [first(i), first(i+1)) of this append: rows, or bytes aligned in the file.
  const std::uint64_t at = written_;
  auto first = [&](std::int64_t i) -> std::uint64_t {
    if (i <= 0) return 0;
    if (i >= pieces) return rows > 1 ? std::uint64_t(rows) : n;
    if (rows > 1) return std::uint64_t(rows) * std::uint64_t(i) / std::uint64_t(pieces);
    const std::uint64_t edge =
        (at + n / std::uint64_t(pieces) * std::uint64_t(i)) / kPieceAlign * kPieceAlign;
    return std::clamp(edge, at, at + n) - at;
  };
  // Each piece's failure (errno, and the offset where its writing stopped) in its own slot: no
  // locks, nothing that throws inside the parallel region.
  std::vector<std::pair<int, std::uint64_t>> failed(std::size_t(pieces), {0, 0});
#pragma omp parallel for schedule(static, 1) num_threads(int(pieces))
  for (std::int64_t i = 0; i < pieces; ++i) {
    const std::uint64_t a = first(i), b = first(i + 1);
    if (b <= a) continue;
    int err = 0;
    std::uint64_t off, done;
    if (rows > 1) {
      off = at + a * row_bytes;
      done = put_rows(fd_, std::int64_t(off), base + a * stride, std::int64_t(b - a), row_bytes,
                      stride, err);
    } else {
      off = at + a;
      done = put_rows(fd_, std::int64_t(off), base + a, 1, std::size_t(b - a), std::size_t(b - a),
                      err);
    }
    if (err) failed[std::size_t(i)] = {err, off + done};
  }
  int fail_err = 0;
  std::uint64_t fail_at = 0;
  for (const auto& [err, stop] : failed)  // pieces in file order: the first failure is the lowest
    if (err) {
      fail_err = err, fail_at = stop;
      break;
    }
  if (fail_err) fail_write(fail_at, fail_err);
  written_ += n;
}

void OutputFile::keep_owner_and_mode() {
  struct stat old {};
  struct stat now {};
  if (::stat(target_.c_str(), &old) != 0 || !S_ISREG(old.st_mode) || ::fstat(fd_, &now) != 0)
    return;  // a new output: the umask's mode
  // Owner first (a change of owner clears set-id bits); only root or a group member may give the
  // file away, so EPERM and the like leave it ours, as intended.
  if (old.st_uid != now.st_uid || old.st_gid != now.st_gid) {
    if (::fchown(fd_, old.st_uid, old.st_gid) != 0 && old.st_gid != now.st_gid)
      (void)::fchown(fd_, uid_t(-1), old.st_gid);  // the group alone, if we are in it
    (void)::fstat(fd_, &now);
  }
  // The permission bits only: a set-uid or set-gid old file (given to root's fchown above) must
  // not make the new data file one too; sticky is meaningless on a regular file.
  const mode_t mode = old.st_mode & 0777;
  if ((now.st_mode & 07777) != mode && ::fchmod(fd_, mode) != 0)
    throw Error(path_ + ": cannot give the new file the mode of the old one: " + errno_text(errno));
}

void OutputFile::commit() {
  stop_prefill();
  stop_ahead();
  const bool mapped = map_ != nullptr;
  if (map_) {
    // The pages stay dirty in the page cache: the data is in the file already. Unmapping a large
    // file takes a while (its page tables); a thread of its own does it.
    char* const p = map_;
    const std::size_t len = std::size_t(reserved_);
    map_ = nullptr;
    try {
      std::thread([p, len] { ::munmap(p, len); }).detach();
    } catch (const std::system_error&) {
      ::munmap(p, len);
    }
  }
  // A preallocated file is as long as reserve() said; fewer bytes written: cut it to what was.
  const std::uint64_t end = std::max(written_, write_at_end_.load());
  if (preallocated_ && end < reserved_ && ::ftruncate(fd_, off_t(end)) != 0)
    throw Error(path_ + ": write failed (truncate to " + std::to_string(end) +
                " bytes): " + errno_text(errno));
  if (!direct_) keep_owner_and_mode();
  if (!direct_ && g_commit_time) {
    // Best effort: setting times needs the file's owner (or CAP_FOWNER), not write permission,
    // and vfat/exfat mounted for another uid, some CIFS and FUSE mounts refuse it (EPERM). The
    // data is what matters: without the shared time `apsp path` refuses the pair (safe), and
    // `touch -r` is the documented remedy.
    const timespec times[2] = {*g_commit_time, *g_commit_time};
    if (::futimens(fd_, times) != 0)
      detail::trace(
          ("commit: " + path_ + ": modification time not set: " + errno_text(errno)).c_str());
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw Error(path_ + ": write failed (close): " + errno_text(errno));
  if (direct_) {
    committed_ = true;
    return;
  }
  // Replacing an old output: rename() would free its page cache itself (~0.05 s per GB, measured
  // on ext4: docs/io.md). Held open by an O_PATH descriptor, the old file's inode outlives the
  // rename and is freed where that descriptor is closed, on a thread of its own.
  const int old_fd = ::open(target_.c_str(), O_PATH | O_CLOEXEC);
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    if (old_fd >= 0) ::close(old_fd);
    throw Error(path_ + ": cannot rename " + tmp_ + " into place: " + errno_text(e));
  }
  committed_ = true;
  unregister_temp(std::exchange(temp_slot_, -1));
  if (old_fd >= 0) {
    try {
      std::thread([old_fd] { ::close(old_fd); }).detach();
    } catch (const std::system_error&) {
      ::close(old_fd);
    }
  }
  if (detail::tracing()) {
    const std::string line = "output " + path_ + ": " + std::to_string(written_) + " bytes in " +
                             std::to_string(calls_) + " writes, " + std::to_string(split_calls_) +
                             " split over up to " + std::to_string(threads_) + " threads" +
                             (preallocated_ ? ", preallocated" : "") + (mapped ? ", mapped" : "") +
                             (old_fd >= 0 ? ", replaced a file" : "");
    detail::trace(line.c_str());
  }
}

}  // namespace apsp::io
