// src/io/io_common.cpp — whole-file input, atomic output, located errors, number parsing.
#include "io/io_common.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace apsp::io {

void fail_at_offset(const std::string& file, std::uint64_t offset, const std::string& msg) {
  throw InputError(file, "offset " + std::to_string(offset), msg);
}

void fail_at_line(const std::string& file, std::int64_t line, const std::string& msg) {
  throw InputError(file, "line " + std::to_string(line), msg);
}

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  const std::string_view shown = token.substr(0, kMax);
  std::string s(shown.size() + 2, '\'');
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const char c = shown[i];
    s[i + 1] = (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (token.size() > kMax) s.insert(s.size() - 1, "...");
  return s;
}

bool parse_real(std::string_view t, double& v) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '+' || t[0] == '-') return false;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size() && std::isfinite(v);
}

// ---- InputFile ------------------------------------------------------------------------------------

namespace {
std::string errno_text(int e) { return std::string(std::strerror(e)); }

struct Fd {
  int fd = -1;
  ~Fd() { if (fd >= 0) ::close(fd); }
};
}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw InputError(path, "", "cannot open for reading: " + errno_text(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw InputError(path, "", "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "cannot read: is a directory");

  if (S_ISREG(st.st_mode)) {
    size_ = std::size_t(st.st_size);
    if (size_ == 0) return;
    ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    // Small files: fault everything in now. Big ones: asynchronous read-ahead of the whole file
    // while the parser's threads fault pages in as they go. Measured on the GPU host (5M edges,
    // bench/results/io-2026-11-21.md): the same as MAP_POPULATE within noise, and faster than one
    // read() into a buffer (0.062 vs 0.075 s cold) or parallel pread() (0.072 s).
    const bool big = size_ >= (std::size_t{8} << 20);
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | (big ? 0 : MAP_POPULATE), f.fd, 0);
    if (p != MAP_FAILED) {
      if (big) ::madvise(p, size_, MADV_WILLNEED);
      map_ = p;
      data_ = static_cast<const unsigned char*>(p);
      return;
    }
    // Fall back to read() below (e.g. a file system without mmap).
    size_ = 0;
  }
  // Pipes, devices, or unmappable files: read until EOF.
  std::size_t cap = S_ISREG(st.st_mode) ? std::size_t(st.st_size) + 1 : std::size_t{1} << 20;
  buf_.resize(cap);
  std::size_t n = 0;
  for (;;) {
    if (n == buf_.size()) buf_.resize(buf_.size() * 2);
    const ssize_t r = ::read(f.fd, buf_.data() + n, buf_.size() - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, "offset " + std::to_string(n), "read failed: " + errno_text(errno));
    }
    if (r == 0) break;
    n += std::size_t(r);
  }
  buf_.resize(n);
  size_ = n;
  data_ = buf_.data();
}

InputFile::~InputFile() {
  if (map_) ::munmap(map_, size_);
}

// ---- OutputFile -----------------------------------------------------------------------------------

namespace {
std::atomic<unsigned> g_tmp_counter{0};
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) throw UsageError("output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": cannot write output: is a directory");
    if (!S_ISREG(st.st_mode)) {
      // /dev/stdout, a FIFO, a device: renaming over it would be wrong; write straight into it.
      fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw Error(path + ": cannot open for writing: " + errno_text(errno));
      direct_ = true;
      return;
    }
  }
  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() + "/" : std::string();
  const std::string base = p.filename().string();
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Built with append(): GCC 12 warns (falsely, -Wrestrict) about chained operator+ here.
    tmp_.assign(dir);
    tmp_.append(1, '.').append(base).append(".tmp.").append(std::to_string(::getpid()));
    const unsigned k = g_tmp_counter.fetch_add(1);
    if (k) tmp_.append(1, '.').append(std::to_string(k));
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EEXIST) break;
  }
  const int e = errno;
  tmp_.clear();
  throw Error(path + ": cannot create output file: " + errno_text(e));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::write(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Linux moves at most 0x7ffff000 bytes per write(); ask for 1 GiB at a time.
    const std::size_t want = std::min<std::size_t>(n, std::size_t{1} << 30);
    const ssize_t r = ::write(fd_, p, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(path_ + ": write failed after " + std::to_string(written_) + " bytes: " + errno_text(errno));
    }
    p += r;
    n -= std::size_t(r);
    written_ += std::uint64_t(r);
  }
}

void OutputFile::write_strided(const void* base, std::int64_t rows, std::size_t row_bytes, std::size_t stride_bytes) {
  if (stride_bytes == row_bytes) {
    write(base, std::size_t(rows) * row_bytes);
    return;
  }
  constexpr int kMaxIov = 1024;  // IOV_MAX on Linux
  iovec iov[kMaxIov];
  const char* p = static_cast<const char*>(base);
  for (std::int64_t r0 = 0; r0 < rows;) {
    const int n = int(std::min<std::int64_t>(kMaxIov, rows - r0));
    std::size_t total = 0;
    for (int k = 0; k < n; ++k) {
      iov[k].iov_base = const_cast<char*>(p + std::size_t(r0 + k) * stride_bytes);
      iov[k].iov_len = row_bytes;
      total += row_bytes;
    }
    const ssize_t r = ::writev(fd_, iov, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(path_ + ": write failed after " + std::to_string(written_) + " bytes: " + errno_text(errno));
    }
    written_ += std::uint64_t(r);
    if (std::size_t(r) == total) {
      r0 += n;
      continue;
    }
    // Short write: finish the partly written row with write(), then go on from the next one.
    const std::size_t done_rows = std::size_t(r) / row_bytes, done_bytes = std::size_t(r) % row_bytes;
    r0 += std::int64_t(done_rows);
    if (done_bytes) {
      write(p + std::size_t(r0) * stride_bytes + done_bytes, row_bytes - done_bytes);
      ++r0;
    }
  }
}

void OutputFile::commit() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    throw Error(path_ + ": write failed (close): " + errno_text(errno));
  if (direct_) {
    committed_ = true;
    return;
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    throw Error(path_ + ": cannot rename " + tmp_ + " into place: " + errno_text(errno));
  committed_ = true;
}

}  // namespace apsp::io
