// src/io/input_file.cpp — InputFile: a whole input file, mapped (regular files, guarded against
// shrinking under the mapping) or read (pipes, devices, stdin, size-0 files, bounded by what an
// NTHU header promises).
#include "io/input_common.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
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

#include "core/host_copy.hpp"
#include "core/memory_limit.hpp"
#include "core/trace.hpp"
#include "io/formats.hpp"

namespace apsp::io {

// ---- InputFile ----------------------------------------------------------------------------------
//
// The SIGBUS guard: every live mapping of an input is in g_maps. A page past the end of a file
// that shrank after mmap() faults with SIGBUS; the handler maps zero pages over the rest of that
// mapping (so the parse goes on, reading zeros) and marks it. InputFile then reports the change.
// A SIGBUS anywhere else gets the action that was there before.

namespace {
struct Fd {
  int fd = -1;
  bool own = true;
  ~Fd() {
    if (fd >= 0 && own) ::close(fd);
  }
};

constexpr int kMapSlots = 64;
struct MapSlot {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<int> faulted{0};
  const InputFile* owner = nullptr;  // read under g_maps_m only
};
MapSlot g_maps[kMapSlots];
std::mutex g_maps_m;
struct sigaction g_old_sigbus {};
std::uintptr_t g_page = 4096;

void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (MapSlot& m : g_maps) {
    const std::uintptr_t b = m.begin.load(), e = m.end.load();
    if (b == 0 || addr < b || addr >= e) continue;
    const std::uintptr_t page = addr & ~(g_page - 1);
    void* p = ::mmap(reinterpret_cast<void*>(page), e - page, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      m.faulted.store(1);
      return;  // the faulting read runs again and sees zeros
    }
  }
  if (g_old_sigbus.sa_flags & SA_SIGINFO) {
    if (g_old_sigbus.sa_sigaction) return g_old_sigbus.sa_sigaction(sig, info, ctx);
  } else if (g_old_sigbus.sa_handler != SIG_DFL && g_old_sigbus.sa_handler != SIG_IGN) {
    return g_old_sigbus.sa_handler(sig);
  }
  ::signal(SIGBUS, SIG_DFL);  // the fault happens again and ends the process as it would have
}

int guard_mapping(const void* p, std::size_t n, const InputFile* owner) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    g_page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_old_sigbus);
  });
  const std::lock_guard<std::mutex> lock(g_maps_m);
  for (int i = 0; i < kMapSlots; ++i)
    if (g_maps[i].begin.load() == 0) {
      g_maps[i].faulted.store(0);
      g_maps[i].owner = owner;
      g_maps[i].end.store(reinterpret_cast<std::uintptr_t>(p) + n);
      g_maps[i].begin.store(reinterpret_cast<std::uintptr_t>(p));
      return i;
    }
  return -1;  // more than kMapSlots inputs open at once: this one is read instead
}

void unguard_mapping(int slot) {
  const std::lock_guard<std::mutex> lock(g_maps_m);
  g_maps[slot].begin.store(0);
  g_maps[slot].end.store(0);
  g_maps[slot].owner = nullptr;
}

/// Before a reader's error: if the input it names changed while it was read, that is the error.
void check_input_named(const std::string& file) {
  const InputFile* changed = nullptr;
  {
    const std::lock_guard<std::mutex> lock(g_maps_m);
    for (const MapSlot& m : g_maps)
      if (m.begin.load() != 0 && m.owner && m.owner->path() == file) changed = m.owner;
  }
  if (changed) changed->check_unchanged();
}

std::int64_t mtime_ns(const struct stat& st) {
  return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::int32_t le_i32(const unsigned char* p) {
  return std::int32_t(std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
                      std::uint32_t(p[3]) << 24);
}
}  // namespace

void fail_at_offset(const std::string& file, std::uint64_t offset, const std::string& msg) {
  check_input_named(file);
  throw InputError(file, "offset " + std::to_string(offset), msg);
}

void fail_at_line(const std::string& file, std::int64_t line, const std::string& msg) {
  check_input_named(file);
  throw InputError(file, "line " + std::to_string(line), msg);
}

void InputFile::refuse_larger(std::uint64_t offset) const {
  fail_at_offset(path_, offset,
                 "the input is larger than the " + std::to_string(max_bytes_) + " bytes " + why_);
}

InputFile::InputFile(const std::string& path, InputKind kind, std::uint64_t max_bytes,
                     const std::string& why)
    : path_(path), max_bytes_(max_bytes), why_(why) {
  Fd f;
  if (path == "-") {  // stdin
    f.fd = 0;
    f.own = false;
  } else {
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) throw InputError(path, "", "cannot open for reading: " + errno_text(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw InputError(path, "", "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "cannot read: is a directory");

  // Regular files that report a size are mapped; size 0 may be a /proc or /sys file that has
  // content all the same: read those. Stdin is read from where it stands, whatever it is.
  if (S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > max_bytes_) refuse_larger(max_bytes_);
  if (S_ISREG(st.st_mode) && st.st_size > 0 && f.own) {
    size_ = std::size_t(st.st_size);
    ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    // Small files: fault everything in now. Big ones: asynchronous read-ahead of the whole file
    // while the parser's threads fault pages in as they go. Measured on the GPU host (5M edges,
    // bench/results/io-2026-11-21.md): the same as MAP_POPULATE within noise, and faster than one
    // read() into a buffer (0.062 vs 0.075 s cold) or parallel pread() (0.072 s).
    const bool big = size_ >= (std::size_t{8} << 20);
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | (big ? 0 : MAP_POPULATE), f.fd, 0);
    if (p != MAP_FAILED) {
      slot_ = guard_mapping(p, size_, this);
      if (slot_ >= 0) {
        if (big) ::madvise(p, size_, MADV_WILLNEED);
        map_ = p;
        data_ = static_cast<const unsigned char*>(p);
        map_fd_ = f.fd;
        f.fd = -1;
        mtime_ns_ = mtime_ns(st);
        return;
      }
      ::munmap(p, size_);
    }
    size_ = 0;  // not mapped (a file system without mmap, no guard slot): read it below
  }
  read_stream(f.fd, kind);
}

std::uint64_t nthu_stream_size(const std::string& file, const unsigned char* head,
                               std::uint64_t cap, const std::string& source) {
  // gzip, NumPy's magic (\x93NUMPY, then a version whose bytes hold a NUL: its V and E would
  // look valid) and text (no NUL) are left to the sniffer.
  if ((head[0] == 0x1f && head[1] == 0x8b) || std::memcmp(head, "\x93NUMPY", 6) == 0 ||
      !std::memchr(head, 0, 8))
    return 0;
  const std::int32_t V = le_i32(head), E = le_i32(head + 4);
  if (!vertex_count_ok(V) || E < 0) return 1;
  const std::uint64_t want = 8 + 12 * std::uint64_t(E);
  // Reading it holds these bytes and the Graph built from them (int32 src, dst and a double
  // weight: 16 bytes an edge) at once.
  const std::uint64_t need = want + 16 * std::uint64_t(E);
  if (need > cap)
    throw ResourceError(file + ": offset 4: the header says E = " + std::to_string(E) + ": " +
                        std::to_string(want) + " bytes of input and " +
                        std::to_string(need - want) + " for the edges read from them, more than " +
                        "the " + std::to_string(cap) + " bytes of memory available (" + source +
                        "; set APSP_HOST_MEMORY to override)");
  return want;
}

void InputFile::read_stream(int fd, InputKind kind) {
  // No size to trust: read until EOF, but no further than a binary NTHU header says (kind Graph:
  // a header promising more than the memory available is refused at once) and never past the
  // memory available. The bytes are read into chunks (ByteChunks): growing never holds two
  // copies, so the peak stays below the cap plus one chunk.
  const detail::MemoryLimit mem = detail::host_memory_limit();
  const std::uint64_t cap = mem.bytes;
  std::uint64_t stop = UINT64_MAX;  // where the header says the input ends, once known
  bool sniffed = kind != InputKind::Graph, bad_header = false;
  ByteChunks got;
  std::size_t n = 0;
  for (;;) {
    if (!sniffed && n >= 8) {
      sniffed = true;
      const std::uint64_t want = nthu_stream_size(path_, got.front(), cap, mem.source);
      bad_header = want == 1;
      if (want > 1) stop = want;
    }
    if (bad_header) break;  // the reader rejects the header; nothing after it matters
    if (n > stop)
      fail_at_offset(
          path_, stop,
          "more data than the header promises (E = " + std::to_string(le_i32(got.front() + 4)) +
              ": " + std::to_string(stop) + " bytes)");
    if (n > max_bytes_) refuse_larger(max_bytes_);
    if (n >= cap)
      throw ResourceError(path_ + ": offset " + std::to_string(n) +
                          ": the input is larger than the " + std::to_string(cap) +
                          " bytes of memory available for it (" + mem.source + ")");
    std::uint64_t most = cap - n;
    if (max_bytes_ < UINT64_MAX) most = std::min<std::uint64_t>(most, max_bytes_ + 1 - n);
    if (stop != UINT64_MAX) most = std::min<std::uint64_t>(most, stop + 1 - n);
    std::size_t avail = 0;
    unsigned char* at = got.room(avail, std::size_t(std::min<std::uint64_t>(most, SIZE_MAX)));
    std::size_t want = avail;
    if (!sniffed)
      want = std::min<std::size_t>(want, 8 - n);
    else
      want = std::size_t(std::min<std::uint64_t>(want, most));
    const ssize_t r = ::read(fd, at, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw InputError(path_, "offset " + std::to_string(n), "read failed: " + errno_text(errno));
    }
    if (r == 0) {
      if (sniffed) break;
      sniffed = true;  // shorter than a header: the reader says what is missing
      continue;
    }
    got.added(std::size_t(r));
    n += std::size_t(r);
  }
  buf_ = got.take(bad_header ? 8 : n);
  size_ = buf_.size();
  data_ = buf_.data();
}

void InputFile::check_unchanged() const {
  if (!map_) return;
  std::string what;
  if (slot_ >= 0 && g_maps[slot_].faulted.load())
    what = "it is shorter than the " + std::to_string(size_) + " bytes it had";
  struct stat st {};
  if (what.empty() && map_fd_ >= 0 && ::fstat(map_fd_, &st) == 0) {
    if (std::uint64_t(st.st_size) != size_)
      what = "its size went from " + std::to_string(size_) + " to " + std::to_string(st.st_size) +
             " bytes";
    else if (mtime_ns(st) != mtime_ns_)
      what = "it was modified";
  }
  if (!what.empty()) throw InputError(path_, "", "changed while being read (" + what + ")");
}

InputFile::~InputFile() noexcept(false) {
  std::exception_ptr changed;
  if (map_ && std::uncaught_exceptions() == 0) {
    try {
      check_unchanged();
    } catch (...) {
      changed = std::current_exception();
    }
  }
  if (slot_ >= 0) unguard_mapping(slot_);
  if (map_) ::munmap(map_, size_);
  if (map_fd_ >= 0) ::close(map_fd_);
  if (changed) std::rethrow_exception(changed);
}

}  // namespace apsp::io
