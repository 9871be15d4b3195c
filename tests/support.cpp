// tests/support.cpp — shared test helpers (see support.hpp).
#include "support.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "apsp/generate.hpp"
#include "apsp/types.hpp"

namespace apsp::test {

Graph random_graph(const RandomGraphSpec& s) {
  Graph g;
  g.num_vertices = s.V;
  g.directed = s.directed;
  std::mt19937_64 rng(s.seed);
  const std::int64_t parts = std::max<std::int64_t>(1, std::min(s.components, s.V));
  const std::int64_t part = (s.V + parts - 1) / parts;
  std::uniform_real_distribution<double> wr(s.wmin, s.wmax);
  std::uniform_int_distribution<std::int64_t> wi(std::int64_t(std::ceil(s.wmin)),
                                                 std::int64_t(std::floor(s.wmax)));
  std::unordered_set<std::uint64_t> seen;
  g.reserve(std::size_t(s.E));
  for (std::int64_t e = 0, tries = 0; e < s.E && tries < 50 * s.E + 100; ++tries) {
    const std::int64_t u = std::int64_t(rng() % std::uint64_t(s.V));
    const std::int64_t lo = u / part * part, hi = std::min(s.V, lo + part);
    const std::int64_t v = lo + std::int64_t(rng() % std::uint64_t(hi - lo));
    if (u == v && !s.self_loops) continue;
    if (!s.duplicates) {
      const std::uint64_t key = std::uint64_t(u) * std::uint64_t(s.V) + std::uint64_t(v);
      if (!seen.insert(key).second) continue;
    }
    g.add_edge(std::int32_t(u), std::int32_t(v), s.integer ? double(wi(rng)) : wr(rng));
    ++e;
  }
  return g;
}

namespace {
double value(const Matrix& m, std::int64_t i, std::int64_t j) {
  return visit_dtype(m.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    const T v = m.at<T>(i, j);
    return v >= unreachable<T>() ? INFINITY : double(v);
  });
}
}  // namespace

std::string compare(const Matrix& got, const Matrix& want, double tol) {
  std::ostringstream os;
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    os << "shape " << got.rows() << "x" << got.cols() << " vs " << want.rows() << "x"
       << want.cols();
    return os.str();
  }
  if (got.dtype() != want.dtype())
    return std::string("dtype ") + dtype_name(got.dtype()) + " vs " + dtype_name(want.dtype());
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < got.rows(); ++i)
    for (std::int64_t j = 0; j < got.cols(); ++j) {
      const double a = value(got, i, j), b = value(want, i, j);
      const bool ok = (a == b) || (tol > 0 && std::isfinite(a) && std::isfinite(b) &&
                                   std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)));
      if (!ok && bad++ < 5) os << "(" << i << "," << j << "): got " << a << " want " << b << "; ";
    }
  if (bad) os << bad << " mismatches";
  return os.str();
}

RowSink StripeCollector::sink() {
  return [this](const RowBlock& b) {
    if (m.empty()) m = Matrix(b.cols, b.cols, b.dtype);
    if (!problem.empty()) return;
    if (b.cols != m.cols() || b.dtype != m.dtype() || b.rows < 0 || b.row0 + b.rows > m.rows()) {
      problem = "stripe of rows " + std::to_string(b.row0) + "+" + std::to_string(b.rows) +
                " out of shape";
      return;
    }
    if (b.row0 != next_row) {
      problem = "stripe starts at row " + std::to_string(b.row0) + ", expected " +
                std::to_string(next_row);
      return;
    }
    const std::size_t es = dtype_size(b.dtype);
    for (std::int64_t r = 0; r < b.rows; ++r)
      std::memcpy(
          static_cast<char*>(m.raw()) + std::size_t(b.row0 + r) * std::size_t(m.stride()) * es,
          static_cast<const char*>(b.data) + std::size_t(r) * std::size_t(b.stride) * es,
          std::size_t(b.cols) * es);
    next_row += b.rows;
  };
}

std::string StripeCollector::check() const {
  if (!problem.empty()) return problem;
  if (m.empty()) return "no stripe was handed out";
  if (next_row != m.rows())
    return "stripes covered " + std::to_string(next_row) + " of " + std::to_string(m.rows()) +
           " rows";
  return "";
}

std::int64_t finite_off_diagonal(const Matrix& m) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < m.rows(); ++i)
    for (std::int64_t j = 0; j < m.cols(); ++j)
      if (i != j && std::isfinite(value(m, i, j))) ++c;
  return c;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "apsp-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
std::string slurp_fd(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) s.append(buf, std::size_t(n));
  return s;
}
}  // namespace

CommandResult run_program(const std::string& program, const std::vector<std::string>& args) {
  TempDir io;
  const std::string out_path = io / "out", err_path = io / "err";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0) _exit(127);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult r;
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.exit_code = 128 + WTERMSIG(status);
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  const int o = open(out_path.c_str(), O_RDONLY), e = open(err_path.c_str(), O_RDONLY);
  if (o >= 0) {
    r.out = slurp_fd(o);
    close(o);
  }
  if (e >= 0) {
    r.err = slurp_fd(e);
    close(e);
  }
  return r;
}

CommandResult run_cli(const std::vector<std::string>& args) { return run_program(APSP_CLI, args); }

void write_bytes(const std::string& path, const void* data, std::size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(n));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<std::string> temps_in(const std::filesystem::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.find(".tmp.") != std::string::npos) v.push_back(n);
  }
  return v;
}

bool wait_for_temp(const std::filesystem::path& dir, double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    if (!temps_in(dir).empty()) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return false;
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string nthu_cases_dir() {
  const auto p = std::filesystem::path(APSP_SOURCE_DIR) / ".." / "shared" / "nthu-testcases";
  return std::filesystem::is_directory(p) ? std::filesystem::canonical(p).string() : std::string();
}

std::string check_next_hop_walks(const Graph& g, const Matrix& dist, const Matrix& next) {
  const std::int64_t n = g.num_vertices;
  std::unordered_map<std::uint64_t, double> w;
  auto add = [&](std::int64_t u, std::int64_t v, double x) {
    const std::uint64_t key = std::uint64_t(u) * std::uint64_t(n) + std::uint64_t(v);
    auto it = w.find(key);
    if (it == w.end() || x < it->second) w[key] = x;
  };
  const Graph edges = g.is_dense() ? g.edges_from_dense() : Graph{};
  const Graph& e = g.is_dense() ? edges : g;
  for (std::size_t k = 0; k < e.src.size(); ++k) {
    add(e.src[k], e.dst[k], e.weight[k]);
    if (!e.directed) add(e.dst[k], e.src[k], e.weight[k]);
  }
  return visit_dtype(dist.dtype(), [&](auto tag) -> std::string {
    using T = decltype(tag);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const T d = dist.at<T>(i, j);
        auto fail = [&](const char* what, double x = 0) {
          std::ostringstream os;
          os << "(" << i << "," << j << "): " << what << x;
          return os.str();
        };
        if (d >= unreachable<T>()) {
          if (next.at<std::int32_t>(i, j) != -1) return fail("unreachable but next hop set");
          continue;
        }
        double len = 0;
        std::int64_t v = i, steps = 0;
        while (v != j) {
          const std::int32_t u = next.at<std::int32_t>(v, j);
          if (u < 0 || u >= n || ++steps > n)
            return fail("the walk breaks or loops at step ", double(steps));
          const auto it = w.find(std::uint64_t(v) * std::uint64_t(n) + std::uint64_t(u));
          if (it == w.end()) return fail("the walk uses a missing edge from vertex ", double(v));
          len += it->second;
          v = u;
        }
        const double want = double(d);
        if (std::fabs(len - want) > 1e-4 * std::max(1.0, std::fabs(want)))
          return fail("walk length differs by ", len - want);
      }
    return "";
  });
}

std::string cuda_unavailable() {
  for (const BackendInfo& b : backends())
    if (b.name == "cuda")
      return b.usable ? "" : (b.built ? b.detail : "not built (" + b.detail + ")");
  return "no cuda backend in this build";
}

std::pair<std::int64_t, std::int64_t> grid_shape_of(std::int64_t V) {
  std::int64_t r = std::int64_t(std::sqrt(double(V)));
  while (V % r) --r;
  return {r, V / r};
}

Graph with_potentials(Graph g, std::uint64_t seed) {
  auto phi = [&](std::int32_t v) { return double((std::uint64_t(v) * 2654435761u + seed) % 50); };
  for (std::size_t e = 0; e < g.src.size(); ++e) g.weight[e] += phi(g.src[e]) - phi(g.dst[e]);
  return g;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value)
    ::setenv(name, value, 1);
  else
    ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (old_)
    ::setenv(name_.c_str(), old_->c_str(), 1);
  else
    ::unsetenv(name_.c_str());
}

std::vector<NamedGraph> sparse_cases(std::int64_t V, bool all) {
  const auto [rows, cols] = grid_shape_of(V);
  std::vector<NamedGraph> out;
  out.push_back({"grid", generate_grid(rows, cols, 0, 9, std::uint64_t(V))});  // zero weights too
  out.push_back({"geometric", generate_geometric(V, 4, 10, std::uint64_t(V) + 1)});
  if (!all) return out;
  RandomGraphSpec s;
  s.V = V;
  s.E = 2 * V;
  s.wmin = 0;
  s.wmax = 50;
  s.seed = std::uint64_t(V) + 3;
  s.components = std::min<std::int64_t>(V, 3);
  s.directed = false;
  out.push_back({"disconnected undirected", random_graph(s)});
  s.directed = true;
  s.seed += 1;
  out.push_back({"disconnected directed", random_graph(s)});
  out.push_back({"negative weights",
                 with_potentials(generate_grid(rows, cols, 0, 20, std::uint64_t(V) + 5), 7)});
  return out;
}

std::vector<NamedGraph> sparse_cases_with_mesh(std::int64_t V) {
  std::vector<NamedGraph> out = sparse_cases(V, true);
  const auto [rows, cols] = grid_shape_of(V);
  out.push_back({"mesh", generate_mesh(rows, cols, 10, std::uint64_t(V) + 2)});
  return out;
}

double path_sum_tolerance(Dtype t) {
  return t == Dtype::Float32 ? 1e-5 : t == Dtype::Float64 ? 1e-12 : 0;
}

bool backend_usable(const std::string& name) {
  for (const auto& b : backends())
    if (b.name == name) return b.usable;
  return false;
}

void PackedBatch::add(const Graph& g) {
  const std::int64_t base = node_ptr.back();
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    src.push_back(base + g.src[e]);
    dst.push_back(base + g.dst[e]);
    w.push_back(g.weight[e]);
  }
  node_ptr.push_back(base + g.num_vertices);
  edge_ptr.push_back(std::int64_t(src.size()));
}

PackedGraphs PackedBatch::view() const {
  return {std::int64_t(node_ptr.size()) - 1, node_ptr.data(), edge_ptr.data(), src.data(),
          dst.data(), w.data(), directed};
}

}  // namespace apsp::test
