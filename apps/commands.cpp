// apps/commands.cpp — the small `apsp` subcommands (generate, path, info) and the progress line.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string_view>
#include <thread>
#include <type_traits>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/pipeline.hpp"
#include "ceilings.hpp"
#include "commands.hpp"
#include "core/config.hpp"
#include "io/io_common.hpp"

namespace apsp_cli {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A status line is open on the terminal (no newline after it yet): a stop signal ends it first,
/// so the shell's prompt does not land on it.
std::atomic<bool> g_line_open{false};
struct sigaction g_prev_action[NSIG];

void end_line_then_stop(int sig) {
  if (g_line_open.exchange(false)) {
    const char nl = '\n';
    (void)!::write(2, &nl, 1);
  }
  const struct sigaction& p = g_prev_action[sig];
  if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
    p.sa_handler(sig);  // the stop handler: removes the temporary files, dies of the signal
    return;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Puts end_line_then_stop in front of what handles the terminal's stop signals now.
void chain_line_end() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
          old.sa_handler == SIG_IGN)
        continue;
      g_prev_action[sig] = old;
      struct sigaction sa = old;
      sa.sa_handler = end_line_then_stop;
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

std::string seconds_text(double s) {
  char b[48];
  if (s < 10)
    std::snprintf(b, sizeof b, "%.2f s", s);
  else if (s < 120)
    std::snprintf(b, sizeof b, "%.0f s", s);
  else
    std::snprintf(b, sizeof b, "%d min %02d s", int(s) / 60, int(s) % 60);
  return b;
}
}  // namespace

struct Progress::State {
  bool enabled = false, tty = false;
  double delay = 1;
  Clock::time_point t0 = Clock::now(), phase_t0 = t0, first_round_t = t0, done_t = t0,
                    last_draw = t0;
  std::string phase;  // the stage now running, "" for none
  std::int64_t done = 0, total = 0, first_done = -1;
  int last_tenth = -1;
  bool shown = false;              // the terminal shows progress (the delay has passed)
  std::size_t line_len = 0;        // length of the status line open on the terminal, 0 for none
  std::vector<std::string> ended;  // stages that ended before anything was shown
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::thread ticker;

  std::string status() const {
    const double t = since(phase_t0);
    char b[160];
    if (total > 0 && (phase.empty() || phase == "solve")) {
      std::string left;
      if (first_done >= 0 && done > first_done && done < total) {
        // The pace of the rounds done so far, less the time the current one has run.
        const double per = std::chrono::duration<double>(done_t - first_round_t).count() /
                           double(done - first_done);
        left = ", about " +
               seconds_text(std::max(0.0, per * double(total - done) - since(done_t))) + " left";
      }
      std::snprintf(b, sizeof b, "apsp: round %lld/%lld (%3.0f%%), %s%s", (long long)done,
                    (long long)total, 100.0 * double(done) / double(total), seconds_text(t).c_str(),
                    left.c_str());
      return b;
    }
    const char* ing = phase == "read"     ? "reading the input"
                      : phase == "solve"  ? "solving"
                      : phase == "write"  ? "writing the output"
                      : phase == "verify" ? "verifying"
                                          : "working";
    std::snprintf(b, sizeof b, "apsp: %s, %s", ing, seconds_text(t).c_str());
    return b;
  }
  void put(const std::string& text) {
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }
  /// Redraws the status line in place (terminal).
  void draw() {
    const std::string text = status();
    std::string out = "\r" + text;
    if (line_len > text.size()) out.append(line_len - text.size(), ' ');
    line_len = text.size();
    g_line_open = true;
    put(out);
    last_draw = Clock::now();
  }
  /// A whole line: over the status line on a terminal.
  void line(const std::string& text) {
    std::string out = line_len ? "\r" + text : text;
    if (line_len > text.size()) out.append(line_len - text.size(), ' ');
    line_len = 0;
    g_line_open = false;
    put(out + "\n");
  }
  bool due() const { return !tty || since(t0) >= delay; }
  void show() {
    if (shown) return;
    shown = true;
    for (const std::string& l : ended) line(l);
    ended.clear();
  }
  void tick() {
    std::unique_lock lock(m);
    while (!cv.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop; }))
      if (!phase.empty() && due()) {
        show();
        draw();
      }
  }
};

Progress::Progress(bool enabled, bool force) : s_(std::make_unique<State>()) {
  s_->tty = isatty(2) == 1;
  s_->enabled = enabled && (s_->tty || force);
  s_->delay = apsp::config::get_double(apsp::config::Knob::ProgressDelay);
  if (s_->enabled && s_->tty) {
    chain_line_end();
    s_->ticker = std::thread([st = s_.get()] { st->tick(); });
  }
}

Progress::~Progress() { finish(); }

void Progress::operator()(std::int64_t done, std::int64_t total) {
  State& s = *s_;
  if (!s.enabled || total <= 0) return;
  const std::lock_guard lock(s.m);
  if (s.first_done < 0 || done < s.first_done) {
    s.first_done = done;
    s.first_round_t = Clock::now();
  }
  if (done != s.done) s.done_t = Clock::now();
  s.done = done;
  s.total = total;
  if (!s.due()) return;
  if (s.tty) {
    s.show();
    if (done == total || since(s.last_draw) >= 0.1) s.draw();
    if (done == total && s.phase.empty()) s.line(s.status());  // metrics: no stages
    return;
  }
  const int tenth = int(10 * done / total);
  if (tenth != s.last_tenth) {
    s.last_tenth = tenth;
    s.line(s.status());
  }
}

void Progress::phase(const char* name) {
  State& s = *s_;
  if (!s.enabled) return;
  const std::lock_guard lock(s.m);
  if (!s.phase.empty()) {
    const std::string& p = s.phase;
    std::string l = std::string("apsp: ") +
                    (p == "read"     ? "read the input in "
                     : p == "solve"  ? "solved in "
                     : p == "write"  ? "wrote the output in "
                     : p == "verify" ? "verified in "
                                     : (p + " took ").c_str()) +
                    seconds_text(since(s.phase_t0));
    if (p == "solve" && s.total > 0)
      l += " (" + apsp::io::count_of(s.total, "round", "rounds") + ")";
    if (!s.due())
      s.ended.push_back(l);
    else {
      s.show();
      s.line(l);
    }
  }
  s.phase = std::string_view(name) == "done" ? "" : name;
  s.phase_t0 = Clock::now();
  s.done = s.total = 0;
  s.first_done = -1;
  s.last_tenth = -1;
  if (s.phase.empty() && s.shown) s.line("apsp: done in " + seconds_text(since(s.t0)));
}

void Progress::warn(const std::string& text) {
  State& s = *s_;
  const std::lock_guard lock(s.m);
  if (s.line_len) {
    s.put("\n");
    s.line_len = 0;
  }
  s.put("apsp: warning: " + text + "\n");
  g_line_open = false;
  if (s.shown && !s.phase.empty()) s.draw();
}

void Progress::finish() {
  State& s = *s_;
  {
    const std::lock_guard lock(s.m);
    s.stop = true;
    if (s.line_len) {  // ends an open status line (an error may come next)
      s.put("\n");
      s.line_len = 0;
      g_line_open = false;
    }
  }
  s.cv.notify_all();
  if (s.ticker.joinable()) s.ticker.join();
}

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
  const apsp::io::InputFile f(path, apsp::io::InputKind::Any);
  std::vector<std::string> names;
  std::string_view text(reinterpret_cast<const char*>(f.bytes()), f.size());
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    names.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return names;
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
