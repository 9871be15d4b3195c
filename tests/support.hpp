// tests/support.hpp — shared test helpers: seeded random graphs, matrix comparison, temp dirs,
// running the CLI. Every random helper takes a seed and tests print it on failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"

namespace apsp::test {

struct RandomGraphSpec {
  std::int64_t V = 100;
  std::int64_t E = 400;
  double wmin = 0, wmax = 100;
  bool integer = true;          ///< integer weights (else uniform reals)
  bool self_loops = false;      ///< allow u == v (non-negative weight ones are ignored by solve)
  bool duplicates = true;       ///< allow repeated (u, v) pairs
  std::int64_t components = 1;  ///< split vertices into this many parts with no edges between
  bool directed = true;
  std::uint64_t seed = 1;
};

/// A random graph as the spec says (deterministic per seed).
Graph random_graph(const RandomGraphSpec& s);

/// rows x cols = V with rows the largest divisor of V up to sqrt(V) (a grid of V vertices).
std::pair<std::int64_t, std::int64_t> grid_shape_of(std::int64_t V);

/// Negative weights without negative cycles: w(u,v) += phi(u) - phi(v) (phi from the seed).
Graph with_potentials(Graph g, std::uint64_t seed);

/// Whether backends() lists `name` as usable.
bool backend_usable(const std::string& name);

/// Graphs packed as one set of arrays with global ids (apsp::PackedGraphs), each graph's edges
/// together and in order, as PyG lays them out.
struct PackedBatch {
  std::vector<std::int64_t> node_ptr{0}, edge_ptr{0}, src, dst;
  std::vector<double> w;
  bool directed = true;
  /// Appends g (ids shifted by the vertices before it).
  void add(const Graph& g);
  PackedGraphs view() const;
};

/// A named test graph.
struct NamedGraph {
  std::string name;
  Graph g;
};
/// The sparse-rounds test graphs of V vertices (test_sparse_gpu, test_multigpu_sparse): a grid
/// with zero weights and a random geometric graph; with `all` also disconnected random graphs
/// (undirected and directed, 3 components, weights 0..50) and a grid with negative weights
/// (Johnson).
std::vector<NamedGraph> sparse_cases(std::int64_t V, bool all = true);
/// sparse_cases(V) and a triangulated mesh (the sparse direct engine's tests, cpu and GPU).
std::vector<NamedGraph> sparse_cases_with_mesh(std::int64_t V);
/// Relative tolerance between two exact solvers that sum a path's weights in another order:
/// 0 for integers, 1e-5 float32, 1e-12 float64.
double path_sum_tolerance(Dtype t);

/// Sets (or, with nullptr, unsets) an environment variable for one scope; restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// Empty string if a and b have equal shape and equal values on the logical block (exact for
/// integers; for floats exact too unless tol > 0 relative); else "(i,j): got X want Y" for up to
/// 5 mismatches and the count.
std::string compare(const Matrix& got, const Matrix& want, double tol = 0);

/// "" if every next-hop walk i -> j ends at j along edges of g (the lightest of duplicates; both
/// directions when undirected) with total weight dist(i, j) (1e-4 relative for floats), and
/// next(i, j) = -1 exactly where j is unreachable; else the first problem.
std::string check_next_hop_walks(const Graph& g, const Matrix& dist, const Matrix& next);

/// Collects the stripes a streaming solve hands to SolveOptions::dist_sink / next_sink into a
/// whole matrix, checking the RowSink contract: consecutive stripes in increasing row order that
/// cover every row exactly once, all of one shape and dtype.
struct StripeCollector {
  Matrix m;
  std::int64_t next_row = 0;
  std::string problem;
  /// The sink to put in SolveOptions (captures this collector by reference).
  RowSink sink();
  /// "" when the stripes were well formed and covered every row; else the first problem.
  std::string check() const;
};

/// Number of finite off-diagonal entries (to assert a test input is non-trivial).
std::int64_t finite_off_diagonal(const Matrix& m);

/// A fresh empty directory under the system temp dir; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Result of running a command.
struct CommandResult {
  int exit_code = -1;  ///< exit status, or 128 + signal when killed by one
  bool signaled = false;
  std::string out, err;
};
/// Runs the apsp CLI (APSP_CLI) with the given arguments (no shell quoting needed).
CommandResult run_cli(const std::vector<std::string>& args);
/// Runs any program with arguments.
CommandResult run_program(const std::string& program, const std::vector<std::string>& args);

/// Writes raw bytes to a file.
/// The names in `dir` of apsp's temporary outputs (".tmp." in the name).
std::vector<std::string> temps_in(const std::filesystem::path& dir);
/// Waits up to `seconds` for a temporary output to appear in `dir`; true when one did.
bool wait_for_temp(const std::filesystem::path& dir, double seconds = 30);
void write_bytes(const std::string& path, const void* data, std::size_t n);
/// Reads a whole file.
std::vector<char> read_bytes(const std::string& path);

/// The NTHU course cases folder (APSP_SOURCE_DIR/../shared/nthu-testcases), or "" if absent.
std::string nthu_cases_dir();

/// "" when the cuda backend can run here, else why not (for GTEST_SKIP messages).
std::string cuda_unavailable();

}  // namespace apsp::test

/// Skips the current test, saying why, where the cuda backend cannot run.
#define REQUIRE_CUDA()                                             \
  do {                                                             \
    const std::string why_ = ::apsp::test::cuda_unavailable();     \
    if (!why_.empty()) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)
