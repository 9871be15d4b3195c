// src/io/output_common.cpp — output targets (links, streams), the checks on them, and the table
// of temporary output files that a signal handler removes (apsp/output.hpp, output_common.hpp).
// OutputFile: output_file.cpp.
#include "io/output_common.hpp"

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
#include <charconv>
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

#include "io/text_common.hpp"

namespace apsp::io {

// ---- output targets and temporary files ------------------------------------------------------

/// Temporary files alive now, for remove_temp_files(): fixed slots, so that a signal handler can
/// walk them without locks or allocation.
namespace {
constexpr int kTempSlots = 64;
struct TempSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  char path[4096];
};
TempSlot g_temps[kTempSlots];
std::atomic<unsigned> g_tmp_counter{0};
}  // namespace

unsigned next_temp_number() { return g_tmp_counter.fetch_add(1); }

int register_temp(const std::string& path) {
  if (path.size() >= sizeof(TempSlot::path)) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int free = 0;
    if (!g_temps[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_temps[i].path, path.c_str(), path.size() + 1);
    g_temps[i].state.store(2);
    return i;
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) g_temps[slot].state.store(0);
}

namespace {
/// "/dev/stdout" -> 1, "/dev/fd/5" -> 5, ...; -1 for other paths.
int stream_fd_of(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string_view p(prefix);
    if (path.compare(0, p.size(), p) != 0 || path.size() == p.size()) continue;
    std::int64_t fd = -1;
    if (parse_int(std::string_view(path).substr(p.size()), fd) && fd >= 0 && fd < 1 << 20)
      return int(fd);
  }
  return -1;
}
}  // namespace

void remove_temp_files() noexcept {
  for (TempSlot& t : g_temps)
    if (t.state.load() == 2) ::unlink(t.path);
}

std::string temp_path_for(const std::string& target, long pid, unsigned k) {
  const std::filesystem::path p(target);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() + "/" : std::string();
  std::string suffix = ".tmp." + std::to_string(pid);
  std::string base = p.filename().string();
  // ".NAME.tmp.PID[.k]" within NAME_MAX: a long NAME is cut, the same for every k (so that
  // remove_stale_temps finds them all by one prefix).
  constexpr std::size_t kNameMax = 255, kLongestK = 11;  // ".4294967295"
  if (1 + base.size() + suffix.size() + kLongestK > kNameMax)
    base.resize(kNameMax - 1 - suffix.size() - kLongestK);
  if (k) suffix.append(1, '.').append(std::to_string(k));
  std::string t;
  t.reserve(dir.size() + base.size() + suffix.size() + 1);
  t.append(dir).append(1, '.').append(base).append(suffix);
  return t;
}

void remove_stale_temps(const std::string& target, long pid) noexcept {
  try {
    const std::string first = temp_path_for(resolve_output(target).path, pid, 0);
    const std::filesystem::path fp(first);
    const std::string stem = fp.filename().string();
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(fp.has_parent_path() ? fp.parent_path() : ".", ec)) {
      const std::string name = e.path().filename().string();
      if (name == stem ||
          (name.size() > stem.size() + 1 && name.compare(0, stem.size() + 1, stem + ".") == 0))
        ::unlink(e.path().c_str());
    }
  } catch (...) {
  }
}

bool shared_filesystem(std::uint32_t f_type) noexcept {
  // linux/magic.h names most; Lustre, GPFS and BeeGFS come from their own sources, GFS2 from
  // linux/gfs2_ondisk.h. Both AFS values: OpenAFS and the kernel's kAFS.
  switch (f_type) {
    case 0x6969:      // NFS_SUPER_MAGIC
    case 0x517B:      // SMB_SUPER_MAGIC
    case 0xFF534D42:  // CIFS_SUPER_MAGIC
    case 0xFE534D42:  // SMB2_SUPER_MAGIC
    case 0x0BD00BD0:  // Lustre (LL_SUPER_MAGIC)
    case 0x47504653:  // GPFS ("GPFS")
    case 0x00C36400:  // CEPH_SUPER_MAGIC
    case 0x5346414F:  // AFS_SUPER_MAGIC
    case 0x6B414653:  // AFS_FS_MAGIC (kAFS)
    case 0x19830326:  // BeeGFS
    case 0x65735546:  // FUSE_SUPER_MAGIC (sshfs, glusterfs, s3fs, ...)
    case 0x01021997:  // V9FS_MAGIC
    case 0x7461636F:  // OCFS2_SUPER_MAGIC
    case 0x01161970:  // GFS2_MAGIC
      return true;
    default:
      return false;
  }
}

void remove_dead_temps(const std::string& target) noexcept {
  try {
    const std::filesystem::path tp(target);
    const std::string dir = tp.has_parent_path() ? tp.parent_path().string() : std::string(".");
    // A PID is only known dead on this host: where other hosts may write the same folder, a
    // temporary file of a live job elsewhere would look dead here. Leave them all.
    struct statfs fs {};
    if (::statfs(dir.c_str(), &fs) != 0 || shared_filesystem(std::uint32_t(fs.f_type))) return;
    const long self = long(::getpid());
    const uid_t uid = ::geteuid();
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      // ".NAME.tmp.PID" or ".NAME.tmp.PID.K": PID and K from after the last ".tmp.", then the
      // whole name must be what temp_path_for() makes of them (NAME is cut by PID's length).
      const std::string name = e.path().filename().string();
      const std::size_t at = name.rfind(".tmp.");
      if (name.size() < 2 || name[0] != '.' || at == std::string::npos) continue;
      const std::string_view tail = std::string_view(name).substr(at + 5);
      const std::size_t dot = tail.find('.');
      std::int64_t pid = 0, k = 0;
      if (!parse_int(tail.substr(0, dot), pid) || pid <= 0 || pid == self || pid > 1 << 30)
        continue;
      if (dot != std::string_view::npos &&
          (!parse_int(tail.substr(dot + 1), k) || k <= 0 || k > 0xffffffffLL))
        continue;
      if (std::filesystem::path(temp_path_for(target, long(pid), unsigned(k))).filename() != name)
        continue;
      struct stat st {};
      if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) continue;
      if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
      ::unlink(e.path().c_str());
    }
  } catch (...) {
  }
}

OutputTarget resolve_output(const std::string& path) {
  if (path.empty()) throw UsageError("output path is empty");
  OutputTarget t;
  t.path = path;
  t.stream_fd = stream_fd_of(path);
  if (t.stream_fd >= 0) return t;
  // Follow symbolic links to the file they name: the output replaces that file, not the link.
  for (int hops = 0;; ++hops) {
    struct stat lst {};
    if (::lstat(t.path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) break;
    if (hops == 40) throw Error(path + ": cannot write output: too many levels of symbolic links");
    std::vector<char> buf(std::size_t(lst.st_size > 0 ? lst.st_size : 4096) + 1);
    const ssize_t n = ::readlink(t.path.c_str(), buf.data(), buf.size());
    if (n < 0 || std::size_t(n) >= buf.size())
      throw Error(path + ": cannot read the symbolic link " + t.path);
    const std::string link(buf.data(), std::size_t(n));
    const std::filesystem::path here(t.path);
    t.path =
        link[0] == '/' || !here.has_parent_path() ? link : (here.parent_path() / link).string();
    if (const int fd = stream_fd_of(t.path); fd >= 0) {  // a link to /dev/stdout
      t.stream_fd = fd;
      return t;
    }
  }
  struct stat st {};
  if (::stat(t.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": cannot write output: is a directory");
    t.exists = true;
    t.stream = !S_ISREG(st.st_mode);  // a FIFO, a device: written in order, never renamed over
  }
  return t;
}

void check_output_path(const std::string& path) {
  const OutputTarget t = resolve_output(path);
  if (t.stream_fd >= 0) {
    if (::fcntl(t.stream_fd, F_GETFL) < 0)
      throw Error(path + ": cannot write output: descriptor " + std::to_string(t.stream_fd) +
                  " is not open");
    return;
  }
  if (t.stream) {
    if (::access(t.path.c_str(), W_OK) != 0)
      throw Error(path + ": cannot open for writing: " + errno_text(errno));
    return;
  }
  const std::filesystem::path p(t.path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw Error(path + ": cannot create output file: directory " + dir + ": " + errno_text(errno));
  if (!S_ISDIR(st.st_mode))
    throw Error(path + ": cannot create output file: " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(path + ": cannot create output file in " + dir + ": " + errno_text(errno));
  if (p.filename().string().size() > 255)
    throw Error(path + ": cannot create output file: File name too long");
  if (t.exists && ::access(t.path.c_str(), W_OK) != 0)
    throw Error(path + ": cannot replace the existing file: " + errno_text(errno));
}

bool same_file(const std::string& input, const std::string& output) {
  auto stat_of = [](const std::string& p, bool is_input, struct stat& st) {
    if (p == "-") return ::fstat(is_input ? 0 : 1, &st) == 0;
    if (const int fd = stream_fd_of(p); fd >= 0 && !is_input) return ::fstat(fd, &st) == 0;
    return ::stat(p.c_str(), &st) == 0;
  };
  struct stat sa {
  }, sb{};
  if (!stat_of(input, true, sa) || !stat_of(output, false, sb)) return false;
  if (!S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode)) return false;  // a terminal or pipe may be both
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool is_null_device(const std::string& path) {
  struct stat st {};
  struct stat dev_null {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) &&
         ::stat("/dev/null", &dev_null) == 0 && st.st_rdev == dev_null.st_rdev;
}

bool same_output(const std::string& a, const std::string& b) {
  const OutputTarget ta = resolve_output(a), tb = resolve_output(b);
  if (ta.stream_fd >= 0 && ta.stream_fd == tb.stream_fd) return true;
  auto stat_of = [](const OutputTarget& t, struct stat& st) {
    return t.stream_fd >= 0 ? ::fstat(t.stream_fd, &st) == 0 : ::stat(t.path.c_str(), &st) == 0;
  };
  struct stat sa {};
  struct stat sb {};
  const bool ea = stat_of(ta, sa), eb = stat_of(tb, sb);
  if ((ea && S_ISCHR(sa.st_mode)) || (eb && S_ISCHR(sb.st_mode))) return false;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ta.stream_fd >= 0 || tb.stream_fd >= 0) return false;  // a descriptor and a new file
  // Neither exists, or one does: the same name once the folders' links are resolved.
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(ta.path, ec1);
  const auto cb = std::filesystem::weakly_canonical(tb.path, ec2);
  return !ec1 && !ec2 && ca == cb;
}

void write_output(const std::string& path, const void* data, std::size_t n) {
  OutputFile f(path);
  f.write(data, n);
  f.commit();
}

std::uint64_t write_fully(int fd, const void* data, std::size_t n, int& err) {
  return put_rows(fd, -1, static_cast<const char*>(data), 1, n, n, err);
}

}  // namespace apsp::io
