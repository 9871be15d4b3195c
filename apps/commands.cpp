// apps/commands.cpp — the small `apsp` subcommands (generate, path, info) and stdout (the progress
// line: progress.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string_view>
#include <thread>
#include <type_traits>

#include "apsp/config.hpp"
#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/output.hpp"
#include "apsp/pipeline.hpp"
#include "ceilings.hpp"
#include "commands.hpp"

namespace apsp_cli {

namespace {

/// std::cout's buffer: 64 KiB written to descriptor 1 with write(), resumed after partial
/// writes and EINTR; the first failure's errno is kept (std::cout's own stdio buffer loses it),
/// and what comes after it is dropped. On a terminal each line goes out as it ends.
class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer() : line_(::isatty(1) == 1) { setp(buf_, buf_ + sizeof buf_); }
  int error() const { return err_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
      if (line_ && c == '\n' && !drain()) return traits_type::eof();
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (err_) return 0;
    const std::size_t k = std::size_t(n);
    if (k > std::size_t(epptr() - pptr())) {
      if (!drain()) return 0;
      if (k >= sizeof buf_) return put(s, k) ? n : 0;
    }
    std::memcpy(pptr(), s, k);
    pbump(int(k));
    if (line_ && std::memchr(s, '\n', k) && !drain()) return 0;
    return n;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool put(const char* p, std::size_t n) {
    while (n > 0 && !err_) {
      const ssize_t w = ::write(1, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        err_ = w < 0 ? errno : EIO;
        break;
      }
      p += w;
      n -= std::size_t(w);
    }
    return !err_;
  }
  bool drain() {
    const bool ok = put(pbase(), std::size_t(pptr() - pbase()));
    setp(buf_, buf_ + sizeof buf_);
    return ok;
  }
  char buf_[64 << 10];
  int err_ = 0;
  bool line_;
};

StdoutBuffer* g_stdout = nullptr;

}  // namespace

void setup_stdout() {
  for (int fd : {1, 2})
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int n = ::open("/dev/null", O_RDONLY);  // lowest free descriptor: fd itself
      if (n >= 0 && n != fd) {
        ::dup2(n, fd);
        ::close(n);
      }
    }
  g_stdout = new StdoutBuffer;  // never freed: std::cout may flush at exit
  std::cout.rdbuf(g_stdout);
}

int finish_stdout(int rc) {
  std::cout.flush();
  const int e = g_stdout ? g_stdout->error() : 0;
  if (e == 0 && std::cout) return rc;
  std::fprintf(stderr, "apsp: error: stdout: %s\n", e ? std::strerror(e) : "write failed");
  return rc == 0 ? 1 : rc;
}

namespace {
/// The options (long names) that each generator reads; --kind, --seed and --format: all.
struct KindOptions {
  const char* kind;
  std::vector<std::string_view> uses;
};
const KindOptions kKindOptions[] = {
    {"uniform", {"--vertices", "--edges", "--wmin", "--wmax"}},
    {"rmat", {"--scale", "--edges", "--wmin", "--wmax"}},
    {"grid", {"--rows", "--cols", "--wmin", "--wmax"}},
    {"geometric", {"--vertices", "--neighbors", "--unit"}},
    {"mesh", {"--rows", "--cols", "--unit"}},
};

/// An option given for a kind that would ignore it is a usage error naming both.
void check_generate_options(const GenerateArgs& a) {
  const KindOptions* k = nullptr;
  for (const auto& c : kKindOptions)
    if (a.kind == c.kind) k = &c;
  if (!k)
    throw apsp::UsageError("unknown generator '" + a.kind +
                           "' (expected uniform, rmat, grid, geometric or mesh)");
  for (std::string name : a.given) {  // "-V,--vertices"
    const std::string_view lname = std::string_view(name).substr(name.rfind(',') + 1);
    if (lname == "--kind" || lname == "--seed" || lname == "--format" ||
        std::find(k->uses.begin(), k->uses.end(), lname) != k->uses.end())
      continue;
    std::replace(name.begin(), name.end(), ',', '/');
    std::string uses;
    for (std::string_view u : k->uses) uses.append(uses.empty() ? "" : ", ").append(u);
    throw apsp::UsageError("generate --kind " + a.kind + " does not use " + name + " (it takes " +
                           uses + ", --seed)");
  }
  if ((a.kind == "grid" || a.kind == "mesh") && (a.rows == 0 || a.cols == 0))
    throw apsp::UsageError("generate --kind " + a.kind +
                           " needs --rows and --cols (each at least 1)");
}
}  // namespace

int run_generate(const GenerateArgs& a) {
  check_generate_options(a);
  const apsp::GraphFormat f = apsp::parse_graph_format(a.format);
  if (f == apsp::GraphFormat::Auto)
    (void)apsp::graph_format_for(a.out);  // refused before generating
  apsp::Graph g;
  if (a.kind == "uniform") {
    const std::int64_t e =
        a.edges >= 0 ? a.edges : std::min<std::int64_t>(5000000, a.vertices * (a.vertices - 1) / 4);
    g = apsp::generate_uniform(a.vertices, e, a.wmin, a.wmax, a.seed);
  } else if (a.kind == "rmat") {
    const std::int64_t e = a.edges >= 0 ? a.edges : (std::int64_t{16} << a.scale);
    g = apsp::generate_rmat(a.scale, e, a.wmin, a.wmax, a.seed);
  } else if (a.kind == "grid") {
    g = apsp::generate_grid(a.rows, a.cols, a.wmin, a.wmax, a.seed);
  } else if (a.kind == "geometric") {
    g = apsp::generate_geometric(a.vertices, a.k, a.unit, a.seed);
  } else {  // mesh (check_generate_options)
    g = apsp::generate_mesh(a.rows, a.cols, a.unit, a.seed);
  }
  apsp::write_graph(a.out, g, f);
  return 0;
}

namespace {

/// One version of a file: the inode (device, number), size and modification time.
struct FileVersion {
  bool regular = false;  // only regular files are compared (a FIFO or device has no versions)
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
};

FileVersion version_of(const struct stat& st) {
  return {S_ISREG(st.st_mode), st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

bool same_time(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool same_version(const FileVersion& a, const FileVersion& b) {
  return a.regular == b.regular && a.dev == b.dev && a.ino == b.ino && a.size == b.size &&
         same_time(a.mtime, b.mtime);
}

/// The version now at `path` (regular = false where it cannot be told).
FileVersion version_at(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? version_of(st) : FileVersion{};
}

/// Reads the matrix at `path` and tells which version of the file was read: a regular file is
/// held open over the read (so its inode is not reused meanwhile), and the name must still lead
/// to that unchanged inode afterwards; `stable` is false when it did not (replaced or written
/// during the read: read again). Errors are read_matrix()'s.
/// max_bytes / why: read_matrix_at_most()'s bound (a next-hop file of DIST's shape).
apsp::Matrix read_versioned(const std::string& path, FileVersion& v, bool& stable,
                            std::uint64_t max_bytes = UINT64_MAX, const std::string& why = "") {
  stable = true;
  const auto read = [&] {
    return apsp::io::read_matrix_at_most(path, apsp::OutputFormat::Auto, max_bytes, why);
  };
  v = version_at(path);
  const int fd = v.regular ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    if (fd >= 0) ::close(fd);
    v = FileVersion{};
    return read();  // not a regular file, or its own error message
  }
  v = version_of(st);
  apsp::Matrix m;
  try {
    m = read();
  } catch (...) {
    ::close(fd);
    throw;
  }
  struct stat after {};
  stable = ::fstat(fd, &after) == 0 && same_version(version_of(after), v) &&
           same_version(version_at(path), v);
  ::close(fd);
  return m;
}

/// The most bytes a V x V int32 matrix takes in any format apsp writes: text (up to 11
/// characters and a separator per entry), .npy (a header below 64 KiB) or NTHU binary.
std::uint64_t next_hop_file_bound(std::int64_t V) {
  return 12 * std::uint64_t(V) * std::uint64_t(V) + (std::uint64_t{64} << 10);
}

/// Whether d(i, j) is a distance (not the dtype's "unreachable").
bool finite_distance(const apsp::Matrix& dist, std::int64_t i, std::int64_t j) {
  return apsp::visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T d = dist.at<T>(i, j);
    if constexpr (std::is_floating_point_v<T>)
      return std::isfinite(d);
    else
      return d != apsp::unreachable<T>();
  });
}

/// The pair must agree on (i, j): a path where d(i, j) is finite, none where it is not.
void check_pair_agrees(const apsp::Matrix& dist, const std::string& next_file, std::int64_t i,
                       std::int64_t j, bool has_path) {
  if (i == j || i < 0 || j < 0 || i >= dist.rows() || j >= dist.rows()) return;
  const bool finite = finite_distance(dist, i, j);
  if (finite == has_path) return;
  throw apsp::Error(next_file + " does not match the distances: d(" + std::to_string(i) + "," +
                    std::to_string(j) + ") is " + (finite ? "finite" : "unreachable") +
                    " but the next hops give " + (has_path ? "a path" : "none") +
                    " (a corrupt or foreign next-hop file?)");
}

/// The vertex names beside DIST (DIST.labels written with it: same modification time), one a
/// line; empty when there are none. `stale` tells of a DIST.labels from another solve.
std::vector<std::string> read_labels(const std::string& dist_path, bool& stale) {
  stale = false;
  const std::string path = apsp::labels_path_for(dist_path);
  struct stat ls {
  }, ds{};
  if (path == "/dev/null" || ::stat(path.c_str(), &ls) != 0 || !S_ISREG(ls.st_mode) ||
      ::stat(dist_path.c_str(), &ds) != 0)
    return {};
  if (!same_time(ls.st_mtim, ds.st_mtim)) {
    stale = true;
    return {};
  }
  return apsp::read_labels(path);
}

/// A vertex of `apsp path`: a name where there are names, else a 0-based number.
std::int64_t vertex_arg(const char* which, const std::string& arg,
                        const std::vector<std::string>& names, const std::string& dist_path,
                        bool stale) {
  if (!names.empty()) {
    const auto it = std::find(names.begin(), names.end(), arg);
    if (it == names.end())
      throw apsp::UsageError(std::string(which) + ": no vertex named '" + arg + "' in " +
                             apsp::labels_path_for(dist_path));
    return it - names.begin();
  }
  std::int64_t v = -1;
  const char* end = arg.data() + arg.size();
  const auto r = std::from_chars(arg.data(), end, v);
  if (arg.empty() || r.ec != std::errc() || r.ptr != end || v < 0) {
    if (stale)
      throw apsp::UsageError(std::string(which) + ": '" + arg + "' is no vertex number, and " +
                             apsp::labels_path_for(dist_path) + " was not written with " +
                             dist_path + " (their modification times differ)");
    throw apsp::UsageError(std::string(which) + ": must be a non-negative integer, got '" + arg +
                           "' (names need DIST.labels, from a graph with names)");
  }
  return v;
}

}  // namespace

int run_path(const std::string& dist_path, const std::string& next_arg, const std::string& i_arg,
             const std::string& j_arg) {
  constexpr int kExitNoPath = 8;  // general errors are 1
  bool stale_labels = false;
  const std::vector<std::string> names = read_labels(dist_path, stale_labels);
  const std::int64_t i = vertex_arg("i", i_arg, names, dist_path, stale_labels);
  const std::int64_t j = vertex_arg("j", j_arg, names, dist_path, stale_labels);
  const auto name = [&](std::int64_t v) {
    return names.empty() ? std::to_string(v) : names[std::size_t(v)];
  };
  const std::string next_file = next_arg.empty() ? apsp::next_path_for(dist_path) : next_arg;
  if (apsp::io::same_file(dist_path, next_file))
    throw apsp::UsageError(next_file + ": the next-hop file is the distance matrix " + dist_path +
                           " itself (--next names the OUT.next that `solve --paths` wrote)");
  // The two files must be one solve's pair: `solve --paths` gives both the same modification
  // time (docs/paths.md, "Which files belong together"). Both are read as they are at one
  // moment: a solve replacing them meanwhile makes this read them again.
  apsp::Matrix dist, next;
  FileVersion dv, nv;
  for (int attempt = 0;; ++attempt) {
    bool d_stable = true, n_stable = true;
    dist = read_versioned(dist_path, dv, d_stable);
    next = read_versioned(next_file, nv, n_stable, next_hop_file_bound(dist.rows()),
                          "that a next-hop matrix of " + dist_path + "'s shape (" +
                              std::to_string(dist.rows()) + " x " + std::to_string(dist.rows()) +
                              ") can take");
    if (d_stable && n_stable && (!dv.regular || same_version(version_at(dist_path), dv))) break;
    if (attempt == 20)
      throw apsp::Error(dist_path + " and " + next_file +
                        " kept changing while being read (a solve writing them?); try again "
                        "once it has finished");
    std::this_thread::sleep_for(std::chrono::milliseconds(10 * (attempt + 1)));
  }
  if (next.dtype() != apsp::Dtype::Int32 || next.rows() != dist.rows() ||
      next.cols() != dist.cols())
    throw apsp::UsageError(next_file + ": not an int32 next-hop matrix of the same shape as " +
                           dist_path);
  if (dv.regular && nv.regular && !same_time(dv.mtime, nv.mtime)) {
    const std::string solve_again = "`apsp solve IN " + dist_path + " --paths`";
    const std::string touch = "`touch -r " + dist_path + " " + next_file + "`";
    throw apsp::Error(next_file + " was not written with " + dist_path +
                      " (their modification times differ): they may come from different "
                      "solves. Run " +
                      solve_again +
                      " again; for one solve's pair copied without its times (cp without -p) "
                      "or written by an apsp older than this check, " +
                      touch);
  }
  if (!names.empty() && std::int64_t(names.size()) != dist.rows())
    throw apsp::Error(apsp::labels_path_for(dist_path) + " names " + std::to_string(names.size()) +
                      " vertices, but " + dist_path + " has " + std::to_string(dist.rows()));
  const auto p = apsp::path_from_next(next, i, j);
  check_pair_agrees(dist, next_file, i, j, !p.empty());
  if (p.empty()) {
    std::cout << "no path from " << name(i) << " to " << name(j) << "\n";
    return kExitNoPath;
  }
  for (std::size_t k = 0; k < p.size(); ++k) std::cout << (k ? " -> " : "") << name(p[k]);
  std::cout << "\n";
  // The shortest text that reads back as the same value, as `solve` writes text matrices (an
  // ostream's 6 significant digits printed 1234567.75 as 1.23457e+06).
  char buf[64];
  const char* end = apsp::visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return std::to_chars(buf, buf + sizeof buf, dist.at<T>(i, j)).ptr;
  });
  std::cout << "length: " << std::string_view(buf, std::size_t(end - buf)) << "\n";
  return 0;
}

int run_info(bool config, bool markdown) {
  if (config) {
    std::cout << apsp::config::describe(markdown);
    if (!markdown) apsp::config::check_all();  // after the table, which marks the bad value
    return 0;
  }
  std::cout << "apsp "
            << "0.1.0"
            << "\n\nbackends:\n";
  for (const auto& b : apsp::backends()) {  // through std::cout: its errors are checked at exit
    char line[64];
    std::snprintf(line, sizeof line, "  %-10s %-10s ", b.name.c_str(),
                  !b.built   ? "not built"
                  : b.usable ? "usable"
                             : "unusable");
    std::cout << line << b.detail << "\n";
  }
  print_ceilings(std::cout);  // this machine's, from `apsp bench`, or how to measure them
  return 0;
}

}  // namespace apsp_cli
