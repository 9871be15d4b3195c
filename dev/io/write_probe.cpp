// dev/io/write_probe.cpp — how fast can one process put N bytes into a new file on this file
// system, and does spreading the copy over threads help?
//
//   write_probe DIR [--sizes 484M,3.6G] [--threads 2,4,8,16] [--reps N] [--budget SECONDS]
//                   [--more] [--only fill|rename|prefill] [--cold SECONDS]
//
// Each row fills a fresh file in DIR from a prefilled heap buffer and times open .. close
// ("seconds"; GB/s = N / seconds / 1e9). Per size, in this order:
//  1. Three "cold" rows (write, falloc+write, falloc+mmap with the most threads), each after --cold
//     seconds idle (default 3). In that time a VM with free page reporting (virtio-balloon, as on
//     the project's machines) gives the memory freed by the last unlink back to its host, so the
//     page cache must fault fresh memory in again, as a real run's output does. (The other rows
//     mostly reuse the pages that the previous row's unlink freed.)
//  2. The cost of replacing an output: rename() of a just-written file over nothing, and over an
//     existing file of the same size (a previous run's output, written and still dirty) three
//     ways: plain; the new file fallocated (ext4 then skips the writeback of the whole new file
//     that its auto_da_alloc starts in rename()); and also the old file held open by an O_PATH
//     descriptor (its page cache is then freed at that close, timed too, not in rename()).
//  3. One row per way of filling (T from --threads):
//   write           one thread, write() in 64 MiB calls (what apsp's write_matrix does)
//   write 8MiB      one thread, write() in 8 MiB calls (the stripes the GPU backend hands out)
//   falloc+write    fallocate(N) first, then as write (and falloc+wr 8MiB: as write 8MiB)
//   pwrite          T threads, pwrite() of disjoint ranges of the whole file
//   pwrite 8MiB     8 MiB calls one after another, each split over T threads (OutputFile's way
//                   with APSP_WRITE_THREADS=T when a backend streams 8 MiB stripes)
//   falloc+pwrite   fallocate(N) first, then as pwrite
//   mmap            ftruncate(N), mmap(MAP_SHARED), T threads memcpy, munmap
//                   (these three with the second and the last --threads count unless --more)
//   falloc+mmap     fallocate(N) instead of ftruncate, then as mmap (APSP_WRITE_METHOD=mmap's
//                   way); only with the most threads unless --more
// The notes split out fallocate, munmap and close, and the unlink of the file afterwards (which
// frees its page cache). Every filled file is spot-checked (pread of a few blocks) and deleted
// before the next one, so dirty pages do not pile up. Rows that would end past --budget seconds
// (guessed from the last row of the same size) are skipped and listed at the end. Temporary
// files are DIR/.write_probe.PID.*; they are removed at the end, on error and on
// SIGINT/SIGTERM/SIGHUP.
//
// Only the C++ standard library and POSIX: build target `write_probe` (dev/io/CMakeLists.txt), or
//   g++ -O2 -std=c++20 -pthread dev/io/write_probe.cpp -o write_probe
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr std::size_t kMiB = std::size_t{1} << 20;

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "write_probe: %s\n", msg.c_str());
  std::exit(1);
}

// ---- temporary files: names kept in fixed buffers so a signal handler can unlink them ----------
constexpr int kMaxTemp = 8;
char g_temp[kMaxTemp][4096];

void forget_temp(const std::string& p) {
  for (auto& t : g_temp)
    if (p == t) t[0] = '\0';
}
void remember_temp(const std::string& p) {
  for (auto& t : g_temp)
    if (!t[0]) {
      std::snprintf(t, sizeof t, "%s", p.c_str());
      return;
    }
  die("internal: too many temporary files");
}
void remove_temps() {
  for (auto& t : g_temp)
    if (t[0]) {
      ::unlink(t);
      t[0] = '\0';
    }
}
extern "C" void on_signal(int sig) {
  for (auto& t : g_temp)
    if (t[0]) ::unlink(t);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// ---- a small persistent pool: run(t, fn) calls fn(0..t-1), fn(0) on the caller ----------------
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 1; i < n; ++i) th_.emplace_back([this, i] { loop(i); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
      ++gen_;
    }
    cv_.notify_all();
    for (auto& t : th_) t.join();
  }
  int size() const { return int(th_.size()) + 1; }
  void run(int t, const std::function<void(int)>& fn) {
    t = std::clamp(t, 1, size());
    {
      std::lock_guard<std::mutex> l(m_);
      fn_ = &fn;
      active_ = t;
      pending_ = t - 1;
      ++gen_;
    }
    if (t > 1) cv_.notify_all();
    fn(0);
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, [&] { return pending_ == 0; });
  }

 private:
  void loop(int i) {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* fn;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return gen_ != seen; });
        seen = gen_;
        if (stop_) return;
        if (i >= active_) continue;
        fn = fn_;
      }
      (*fn)(i);
      std::lock_guard<std::mutex> l(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
  std::vector<std::thread> th_;
  std::mutex m_;
  std::condition_variable cv_, done_;
  const std::function<void(int)>* fn_ = nullptr;
  std::uint64_t gen_ = 0;
  int active_ = 0, pending_ = 0;
  bool stop_ = false;
};

// ---- writing -------------------------------------------------------------------------------------

/// First error of a fill (any thread); the fill reports it and the row says FAILED.
struct Failure {
  std::mutex m;
  std::string what;
  void set(const std::string& s) {
    std::lock_guard<std::mutex> l(m);
    if (what.empty()) what = s;
  }
};

void pwrite_all(int fd, const unsigned char* src, std::uint64_t off, std::size_t n, Failure& f) {
  while (n > 0) {
    const std::size_t want = std::min(n, std::size_t{1} << 30);
    const ssize_t r = ::pwrite(fd, src, want, off_t(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      f.set("pwrite at " + std::to_string(off) + ": " + (r < 0 ? std::strerror(errno) : "returned 0"));
      return;
    }
    src += r;
    off += std::uint64_t(r);
    n -= std::size_t(r);
  }
}

/// [off, off+n) split into t ranges whose inner edges are 64 KiB-aligned in the file.
std::pair<std::uint64_t, std::uint64_t> piece(std::uint64_t off, std::uint64_t n, int t, int i) {
  constexpr std::uint64_t kAlign = 64 << 10;
  auto edge = [&](int k) -> std::uint64_t {
    if (k <= 0) return off;
    if (k >= t) return off + n;
    const std::uint64_t e = (off + n * std::uint64_t(k) / std::uint64_t(t)) / kAlign * kAlign;
    return std::clamp(e, off, off + n);
  };
  return {edge(i), edge(i + 1)};
}

struct Method {
  std::string name;
  bool falloc = false, map = false, per_call = false, single = false;
  std::size_t call_bytes = 0;  // single: write() call size; per_call: the size of each split call
  double idle = 0;             // seconds to sleep first (a "cold" row)
  // Prefill (--only prefill): the file is fallocated and its page cache filled before the timed
  // copy, as apsp does while a GPU context is created. 1: pwrite() of zeros, then 8 MiB pwrite()
  // calls over them; 2: mmap + every page touched by T threads, then each 8 MiB memcpy split over T
  // threads; 3: as 2, but the pages touched by one thread.
  int prefill = 0;
};

struct Row {
  double total = 0, falloc = 0, unmap = 0, close = 0, unlink = 0, prefill = 0;
  std::string error;
};

std::string temp_name(const std::string& dir, const char* tag) {
  return dir + "/.write_probe." + std::to_string(::getpid()) + "." + tag;
}

/// Reads back a few blocks and compares them with the source; "" when they match.
std::string spot_check(const std::string& path, const unsigned char* src, std::size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string("reopen: ") + std::strerror(errno);
  struct stat st {};
  ::fstat(fd, &st);
  std::string bad;
  if (std::uint64_t(st.st_size) != n) bad = "size " + std::to_string(st.st_size) + " != " + std::to_string(n);
  std::vector<unsigned char> buf(4096);
  for (int k = 0; k <= 16 && bad.empty(); ++k) {
    const std::size_t at = std::min(n - std::min(n, buf.size()), std::size_t(double(n) * k / 16.0));
    const std::size_t len = std::min(buf.size(), n - at);
    if (::pread(fd, buf.data(), len, off_t(at)) != ssize_t(len) || std::memcmp(buf.data(), src + at, len) != 0)
      bad = "content differs near byte " + std::to_string(at);
  }
  ::close(fd);
  return bad;
}

Row fill(const std::string& path, const Method& m, int t, const unsigned char* src, std::size_t n, Pool& pool) {
  Row row;
  Failure f;
  if (m.idle > 0) std::this_thread::sleep_for(std::chrono::duration<double>(m.idle));
  remember_temp(path);
  const auto t0 = Clock::now();
  const int fd = ::open(path.c_str(), (m.map ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    row.error = std::string("open: ") + std::strerror(errno);
    forget_temp(path);
    return row;
  }
  if (m.falloc) {
    const auto tf = Clock::now();
    if (::posix_fallocate(fd, 0, off_t(n)) != 0) f.set("fallocate failed (not supported here?)");
    row.falloc = since(tf);
  }
  if (f.what.empty() && m.prefill == 1) {
    const auto tp = Clock::now();
    std::vector<unsigned char> zeros(8 * kMiB, 0);
    for (std::uint64_t off = 0; off < n && f.what.empty(); off += zeros.size())
      pwrite_all(fd, zeros.data(), off, std::size_t(std::min<std::uint64_t>(zeros.size(), n - off)), f);
    row.prefill = since(tp);
    const auto tw = Clock::now();  // the timed part: the data over the prefilled pages, 8 MiB calls
    for (std::uint64_t off = 0; off < n && f.what.empty(); off += 8 * kMiB)
      pwrite_all(fd, src + off, off, std::size_t(std::min<std::uint64_t>(8 * kMiB, n - off)), f);
    row.total = since(tw);
  } else if (f.what.empty() && m.prefill >= 2) {
    void* map = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) f.set(std::string("mmap: ") + std::strerror(errno));
    if (map != MAP_FAILED) {
      auto* dst = static_cast<unsigned char*>(map);
      const auto tp = Clock::now();
      const int touchers = m.prefill == 2 ? t : 1;
      pool.run(touchers, [&](int i) {
        const auto [a, b] = piece(0, n, touchers, i);
        for (std::uint64_t k = a; k < b; k += 4096) static_cast<volatile unsigned char*>(dst)[k] = 0;
      });
      row.prefill = since(tp);
      const auto tw = Clock::now();
      for (std::uint64_t off = 0; off < n; off += 8 * kMiB) {
        const std::uint64_t len = std::min<std::uint64_t>(8 * kMiB, n - off);
        pool.run(t, [&](int i) {
          const auto [a, b] = piece(off, len, t, i);
          if (b > a) std::memcpy(dst + a, src + a, std::size_t(b - a));
        });
      }
      row.total = since(tw);
      const auto tu = Clock::now();
      ::munmap(map, n);
      row.unmap = since(tu);
    }
  } else if (f.what.empty()) {
    if (m.single) {
      const unsigned char* p = src;
      std::size_t left = n;
      while (left > 0 && f.what.empty()) {
        const ssize_t r = ::write(fd, p, std::min(left, m.call_bytes));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
          f.set(std::string("write: ") + (r < 0 ? std::strerror(errno) : "returned 0"));
        else
          p += r, left -= std::size_t(r);
      }
    } else if (m.map) {
      if (!m.falloc && ::ftruncate(fd, off_t(n)) != 0) f.set(std::string("ftruncate: ") + std::strerror(errno));
      void* map = f.what.empty() ? ::mmap(nullptr, n, PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
      if (f.what.empty() && map == MAP_FAILED) f.set(std::string("mmap: ") + std::strerror(errno));
      if (map != MAP_FAILED) {
        auto* dst = static_cast<unsigned char*>(map);
        pool.run(t, [&](int i) {
          const auto [a, b] = piece(0, n, t, i);
          std::memcpy(dst + a, src + a, std::size_t(b - a));
        });
        const auto tu = Clock::now();
        ::munmap(map, n);
        row.unmap = since(tu);
      }
    } else {
      const std::size_t call = m.per_call ? m.call_bytes : n;
      for (std::uint64_t off = 0; off < n && f.what.empty(); off += call) {
        const std::uint64_t len = std::min<std::uint64_t>(call, n - off);
        pool.run(t, [&](int i) {
          const auto [a, b] = piece(off, len, t, i);
          if (b > a) pwrite_all(fd, src + a, a, std::size_t(b - a), f);
        });
      }
    }
  }
  const auto tc = Clock::now();
  if (::close(fd) != 0) f.set(std::string("close: ") + std::strerror(errno));
  row.close = since(tc);
  if (!m.prefill) row.total = since(t0);  // prefill rows: the copy after the prefill only
  row.error = f.what;
  if (row.error.empty()) row.error = spot_check(path, src, n);
  const auto tu = Clock::now();
  ::unlink(path.c_str());
  row.unlink = since(tu);
  forget_temp(path);
  return row;
}

// ---- set-up --------------------------------------------------------------------------------------

std::uint64_t parse_size(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? end : "";
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  double mul = 1;
  if (unit == "")
    mul = 1;
  else if (unit == "K")
    mul = 1e3;
  else if (unit == "M")
    mul = 1e6;
  else if (unit == "G")
    mul = 1e9;
  else if (unit == "KI")
    mul = 1024.0;
  else if (unit == "MI")
    mul = 1024.0 * 1024;
  else if (unit == "GI")
    mul = 1024.0 * 1024 * 1024;
  else
    die("cannot read size '" + s + "' (examples: 484M 3.6G 512Mi 1000000)");
  if (!(v > 0)) die("size '" + s + "' must be positive");
  return std::uint64_t(v * mul + 0.5);
}

template <class F>
void split_list(const std::string& s, F&& f) {
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find(',', i), s.size());
    if (j > i) f(s.substr(i, j - i));
    i = j + 1;
  }
}

std::string fs_name(const std::string& dir) {
  struct statfs s {};
  if (::statfs(dir.c_str(), &s) != 0) return "?";
  switch (static_cast<unsigned long>(s.f_type)) {
    case 0xEF53:
      return "ext2/3/4";
    case 0x58465342:
      return "xfs";
    case 0x01021994:
      return "tmpfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794C7630:
      return "overlayfs";
    case 0x6969:
      return "nfs";
    case 0x65735546:
      return "fuse";
    case 0x2FC12FC1:
      return "zfs";
    case 0xF2F52010:
      return "f2fs";
    default: {
      char b[32];
      std::snprintf(b, sizeof b, "f_type 0x%lx", static_cast<unsigned long>(s.f_type));
      return b;
    }
  }
}

std::string read_line(const char* path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s.empty() ? "?" : s;
}

void usage_and_exit(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: write_probe DIR [--sizes 484M,3.6G] [--threads 2,4,8,16] [--reps N] [--budget SECONDS]\n"
               "                   [--more] [--only fill|rename|prefill] [--cold SECONDS]\n"
               "  Times filling a new N-byte file in DIR, per size: three cold rows (write, fallocate+write,\n"
               "  fallocate+mmap with the most threads), each after --cold seconds idle (default 3; 0: none);\n"
               "  rename() over nothing vs over an existing same-size file (plain, new file fallocated, old\n"
               "  file held open); then one thread write() (64 MiB and 8 MiB calls, with and without\n"
               "  fallocate), T threads pwrite() (whole file, each 8 MiB call split, fallocate first),\n"
               "  ftruncate+mmap+memcpy, fallocate+mmap (most threads; --more: every T).\n"
               "  Sizes take K M G (decimal) or Ki Mi Gi suffixes. Rows that would end past --budget seconds\n"
               "  (default 45; guessed from the last row) are skipped and listed. DIR needs free space for two\n"
               "  files of the largest size.\n");
  std::exit(code);
}

void print_row(std::uint64_t n, const std::string& method, int t, const Row& r) {
  char notes[256];
  int k = std::snprintf(notes, sizeof notes, "close %.3f, unlink %.3f", r.close, r.unlink);
  if (r.falloc > 0) k += std::snprintf(notes + k, sizeof notes - std::size_t(k), ", fallocate %.3f", r.falloc);
  if (r.unmap > 0) k += std::snprintf(notes + k, sizeof notes - std::size_t(k), ", munmap %.3f", r.unmap);
  if (r.prefill > 0)
    k += std::snprintf(notes + k, sizeof notes - std::size_t(k), ", prefill %.3f (untimed)", r.prefill);
  if (!r.error.empty())
    std::printf("%9.1f MB  %-15s %3d  FAILED: %s\n", double(n) / 1e6, method.c_str(), t, r.error.c_str());
  else
    std::printf("%9.1f MB  %-15s %3d  %8.3f  %6.2f  %s\n", double(n) / 1e6, method.c_str(), t, r.total,
                double(n) / r.total / 1e9, notes);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows appear as they are measured, also through tee
  if (argc < 2) usage_and_exit(2);
  std::string dir;
  std::vector<std::uint64_t> sizes;
  std::vector<int> threads;
  int reps = 1;
  double budget = 45;
  bool more = false, do_fill = true, do_rename = true, do_prefill = false;
  double cold = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help")
      usage_and_exit(0);
    else if (a == "--sizes")
      split_list(value(), [&](const std::string& s) { sizes.push_back(parse_size(s)); });
    else if (a == "--threads")
      split_list(value(), [&](const std::string& s) {
        const int t = std::atoi(s.c_str());
        if (t < 1 || t > 1024) die("thread count '" + s + "' is not in 1..1024");
        threads.push_back(t);
      });
    else if (a == "--reps")
      reps = std::max(1, std::atoi(value().c_str()));
    else if (a == "--budget")
      budget = std::atof(value().c_str());
    else if (a == "--more")
      more = true;
    else if (a == "--cold")
      cold = std::max(0.0, std::atof(value().c_str()));
    else if (a == "--only") {
      const std::string w = value();
      if (w != "fill" && w != "rename" && w != "prefill") die("--only takes fill, rename or prefill");
      do_fill = w == "fill";
      do_rename = w == "rename";
      do_prefill = w == "prefill";
    } else if (!a.empty() && a[0] == '-')
      die("unknown option " + a + " (--help)");
    else if (dir.empty())
      dir = a;
    else
      die("one directory only (got '" + dir + "' and '" + a + "')");
  }
  if (dir.empty()) usage_and_exit(2);
  if (sizes.empty()) sizes = {484000000ull, 3600000000ull};
  if (threads.empty()) threads = {2, 4, 8, 16};
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) die(dir + " is not a directory");

  const std::uint64_t biggest = *std::max_element(sizes.begin(), sizes.end());
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0) {
    const std::uint64_t avail = std::uint64_t(vfs.f_bavail) * vfs.f_frsize;
    if (avail < 2 * biggest + (std::uint64_t{256} << 20))
      die(dir + " has " + std::to_string(avail) + " bytes free; two files of " + std::to_string(biggest) +
          " bytes need more (--sizes smaller)");
  }
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, on_signal);
  std::atexit(remove_temps);

  struct utsname u {};
  ::uname(&u);
  const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
  const int max_t = std::max(hw, *std::max_element(threads.begin(), threads.end()));
  std::printf("write_probe: DIR %s (%s), kernel %s, %d hardware threads\n", dir.c_str(), fs_name(dir).c_str(),
              u.release, hw);
  std::printf("vm: dirty_ratio %s, dirty_background_ratio %s, dirty_bytes %s, dirty_background_bytes %s; THP %s\n",
              read_line("/proc/sys/vm/dirty_ratio").c_str(), read_line("/proc/sys/vm/dirty_background_ratio").c_str(),
              read_line("/proc/sys/vm/dirty_bytes").c_str(), read_line("/proc/sys/vm/dirty_background_bytes").c_str(),
              read_line("/sys/kernel/mm/transparent_hugepage/enabled").c_str());

  Pool pool(max_t);
  // The source: one heap buffer of the largest size, written (so faulted in) by all threads first.
  const auto tb = Clock::now();
  std::unique_ptr<unsigned char[]> src(new unsigned char[biggest]);
  pool.run(hw, [&](int i) {
    const auto [a, b] = piece(0, biggest, hw, i);
    for (std::uint64_t k = a / 8; k < b / 8; ++k) {
      std::uint64_t x = (k + 1) * 0x9E3779B97F4A7C15ull;
      x ^= x >> 29;
      std::memcpy(src.get() + 8 * k, &x, 8);
    }
    for (std::uint64_t k = std::max(a, b / 8 * 8); k < b; ++k) src[k] = static_cast<unsigned char>(k * 131);
  });
  std::printf("source buffer: %.1f MB prefilled in %.2f s\n\n", double(biggest) / 1e6, since(tb));

  std::vector<std::pair<Method, std::vector<int>>> plan;
  plan.push_back({{"write", false, false, false, true, 64 * kMiB}, {1}});
  plan.push_back({{"write 8MiB", false, false, false, true, 8 * kMiB}, {1}});
  plan.push_back({{"falloc+write", true, false, false, true, 64 * kMiB}, {1}});
  plan.push_back({{"falloc+wr 8MiB", true, false, false, true, 8 * kMiB}, {1}});
  plan.push_back({{"pwrite", false, false, false, false, 0}, threads});
  // The other threaded ways with two thread counts (the second and the last given; --more: all),
  // so that a default run stays under a minute.
  const int tmax = *std::max_element(threads.begin(), threads.end());
  const std::vector<int> some = more || threads.size() <= 2 ? threads : std::vector<int>{threads[1], threads.back()};
  plan.push_back({{"pwrite 8MiB", false, false, true, false, 8 * kMiB}, some});
  plan.push_back({{"falloc+pwrite", true, false, false, false, 0}, some});
  plan.push_back({{"mmap", false, true, false, false, 0}, some});
  plan.push_back({{"falloc+mmap", true, true, false, false, 0}, more ? threads : std::vector<int>{tmax}});
  // Cold rows: after `cold` idle seconds, in which a VM with free page reporting (virtio-balloon)
  // hands the memory that the last unlink freed back to its host, the page cache must fault fresh
  // memory in again, as a real run's output does.
  std::vector<std::pair<Method, std::vector<int>>> cold_plan;
  if (cold > 0) {
    cold_plan.push_back({{"write cold", false, false, false, true, 64 * kMiB, cold}, {1}});
    cold_plan.push_back({{"falloc+wr cold", true, false, false, true, 64 * kMiB, cold}, {1}});
    cold_plan.push_back({{"falloc+mmap cold", true, true, false, false, 0, cold}, {tmax}});
  }

  // --only prefill: cold rows (as above) of the CLI's 8 MiB stripes, without and with the page
  // cache filled first (the prefill's own time is a note: apsp spends it while the GPU works).
  std::vector<std::pair<Method, std::vector<int>>> prefill_plan;
  if (do_prefill) {
    prefill_plan.push_back({{"falloc+wr 8MiB", true, false, false, true, 8 * kMiB, cold}, {1}});
    prefill_plan.push_back({{"pre:wr+pwrite", true, false, false, true, 8 * kMiB, cold, 1}, {1}});
    prefill_plan.push_back({{"pre:map1+copy", true, true, false, false, 0, cold, 3}, some});
    prefill_plan.push_back({{"pre:mapT+copy", true, true, false, false, 0, cold, 2}, some});
  }

  const auto start = Clock::now();
  std::vector<std::string> skipped;
  auto mb = [](std::uint64_t n) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f MB", double(n) / 1e6);
    return std::string(b);
  };
  std::printf("%12s  %-15s %3s  %8s  %6s  %s\n", "size", "method", "T", "seconds", "GB/s", "notes (seconds)");
  for (const std::uint64_t n : sizes) {
    // A row is skipped when it would end past the budget: its cost guessed from the last row of
    // this size (at first, 1 GB/s).
    double guess = double(n) / 1e9;
    auto fits = [&](double cost) { return since(start) + cost <= budget; };
    for (const auto& [m, ts] : do_fill ? cold_plan : decltype(cold_plan){})
      for (const int t : ts) {
        if (!fits(m.idle + guess)) {
          skipped.push_back(mb(n) + " " + m.name + " T=" + std::to_string(t));
          continue;
        }
        const Row row = fill(temp_name(dir, "fill"), m, t, src.get(), n, pool);
        print_row(n, m.name, t, row);
        guess = row.total + row.unlink;
      }

    // rename() over nothing vs over an existing file of the same size (four ways), then unlink.
    if (do_rename && !fits(7 * guess * reps)) {  // seven files of this size are written
      skipped.push_back(mb(n) + " rename");
    } else if (do_rename) {
      const std::string target = temp_name(dir, "target");
      auto make = [&](const char* tag, bool falloc) {
        const std::string p = temp_name(dir, tag);
        remember_temp(p);
        const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) die(p + ": " + std::strerror(errno));
        if (falloc && ::posix_fallocate(fd, 0, off_t(n)) != 0) die(p + ": fallocate failed");
        Failure f;
        pwrite_all(fd, src.get(), 0, n, f);
        ::close(fd);
        if (!f.what.empty()) die(p + ": " + f.what);
        return p;
      };
      auto timed_rename = [&](const std::string& from) {
        remember_temp(target);
        const auto t0 = Clock::now();
        if (::rename(from.c_str(), target.c_str()) != 0) die("rename: " + std::string(std::strerror(errno)));
        const double s = since(t0);
        forget_temp(from);
        return s;
      };
      // Each case starts from scratch: the old file (as a previous run's output: written, dirty)
      // at `target`, the new one beside it; only the rename (and the held descriptor's close) is
      // timed; the target is then removed untimed.
      auto over_existing = [&](bool falloc, bool hold, double* release) {
        make("old", true);  // (fallocated only to be made faster: it is not what is timed)
        ::rename(temp_name(dir, "old").c_str(), target.c_str());
        forget_temp(temp_name(dir, "old"));
        remember_temp(target);
        const std::string fresh = make("new", falloc);
        const int fd = hold ? ::open(target.c_str(), O_PATH | O_CLOEXEC) : -1;  // keeps the old inode alive
        const double s = timed_rename(fresh);
        const auto t0 = Clock::now();
        if (fd >= 0) ::close(fd);
        if (release) *release = since(t0);
        ::unlink(target.c_str());
        forget_temp(target);
        return s;
      };
      for (int r = 0; r < reps; ++r) {
        const double nothing = timed_rename(make("a", false));
        auto t0 = Clock::now();
        ::unlink(target.c_str());
        const double unlink_s = since(t0);
        forget_temp(target);
        const double plain = over_existing(false, false, nullptr);
        const double falloc = over_existing(true, false, nullptr);
        double release = 0;
        const double held = over_existing(true, true, &release);
        std::printf(
            "%9.1f MB  rename over nothing %.4f s (unlink of that file: %.4f s); over an existing same-size file\n"
            "%12s  %.4f s, %.4f s when the new file was fallocated, %.4f s when also the old one was held\n"
            "%12s  open (O_PATH), whose close then took %.4f s\n",
            double(n) / 1e6, nothing, unlink_s, "", plain, falloc, held, "", release);
      }
    }

    for (const auto& [m, ts] : prefill_plan)
      for (const int t : ts)
        for (int r = 0; r < reps; ++r) {
          if (!fits(m.idle + guess)) {
            skipped.push_back(mb(n) + " " + m.name + " T=" + std::to_string(t));
            continue;
          }
          const Row row = fill(temp_name(dir, "fill"), m, t, src.get(), n, pool);
          print_row(n, m.name, t, row);
          guess = row.total + row.prefill + row.unlink;
        }

    double base = 0, best = 0;
    std::string best_name;
    for (const auto& [m, ts] : plan)
      for (const int t : do_fill ? ts : std::vector<int>{})
        for (int r = 0; r < reps; ++r) {
          if (!fits(guess)) {
            skipped.push_back(mb(n) + " " + m.name + " T=" + std::to_string(t));
            continue;
          }
          const Row row = fill(temp_name(dir, "fill"), m, t, src.get(), n, pool);
          print_row(n, m.name, t, row);
          guess = row.total + row.unlink;
          if (!row.error.empty()) continue;
          const double gbs = double(n) / row.total / 1e9;
          if (m.name.rfind("write", 0) == 0) base = std::max(base, gbs);
          if (gbs > best) best = gbs, best_name = m.name + " T=" + std::to_string(t);
        }
    if (best > 0 && base > 0)
      std::printf("%12s  best: %s at %.2f GB/s = %.2fx the best plain write() row\n", "", best_name.c_str(), best,
                  best / base);

    std::printf("\n");
  }
  if (!skipped.empty()) {
    std::printf("skipped, past --budget %g s:", budget);
    for (const auto& k : skipped) std::printf(" [%s]", k.c_str());
    std::printf("\n");
  }
  std::printf("total %.1f s (source buffer included)\n", since(tb));
  return 0;
}
