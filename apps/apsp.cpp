// apps/apsp.cpp — the `apsp` command-line tool: parses the command line and calls one command.
//
//   apsp IN OUT                       NTHU drop-in: same bytes as the course's `hw3-2 IN OUT`
//   apsp solve IN OUT [options]       any input/output format, any backend, --paths, --verify,
//   --stats apsp generate OUT (uniform, rmat, grid, geometric, mesh) | metrics IN [OUT] | path DIST
//   i j | info [--config] | bench --backend B
// Every error is one line "apsp: error: ..." on stderr and a non-zero exit (see errors.hpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "apsp/config.hpp"
#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/limits.hpp"
#include "apsp/solve.hpp"
#include "bench/bench.hpp"
#include "commands.hpp"
#include "metrics_command.hpp"
#include "process.hpp"

namespace {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

/// A vertex id or a count. (CLI::NonNegativeNumber checks a double and prints its bound, a number
/// of 309 digits.)
const CLI::Validator kNonNegativeInteger(
    [](std::string& s) -> std::string {
      std::int64_t v = 0;
      const char* end = s.data() + s.size();
      const auto r = std::from_chars(s.data(), end, v);
      if (s.empty() || r.ec != std::errc() || r.ptr != end || v < 0)
        return "must be a non-negative integer, got '" + s + "'";
      return std::string();
    },
    "NONNEGATIVE");

constexpr const char* kCommands[] = {"solve", "generate", "metrics", "path", "info", "bench"};

bool is_command(const std::string& s) {
  for (const char* c : kCommands)
    if (s == c) return true;
  return false;
}

/// Edit distance with adjacent transpositions ("sovle" is one edit from "solve").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// `apsp solv g.gr`: a first word that names no file and is within two edits of a subcommand
/// (not the course's `apsp IN OUT`, which would only fail to open it) -> "'solve'", else "".
std::string misspelt_command(const std::vector<std::string>& args) {
  if (args.size() < 2 || args[1].size() < 3 || args[1][0] == '-' || is_command(args[1])) return {};
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(args[1], ec))) return {};
  std::string best;
  std::size_t best_d = 3;
  for (const char* c : kCommands)
    if (const std::size_t d =
            std::string_view(c).starts_with(args[1]) ? 1 : edit_distance(args[1], c);
        d < best_d) {
      best_d = d;
      best = std::string("'") + c + "'";
    }
  return best;
}

/// `apsp IN OUT` (the NTHU drop-in) is `solve` with every default, and `apsp -q IN OUT` solve
/// with those options: a first word that is a file (or "-", stdin), or options before any
/// subcommand (other than --help and --version).
/// -q and --progress (which excludes -q) on a subcommand that shows `what` on stderr.
void add_progress_flags(CLI::App* cmd, bool& quiet, bool& progress, const std::string& what) {
  CLI::Option* q = cmd->add_flag("-q,--quiet", quiet, "no progress output");
  cmd->add_flag("--progress", progress,
                "show " + what + " on stderr also when it is not a terminal (on a terminal they "
                "show once a run lasts a second)")
      ->excludes(q);
}

bool course_mode(const std::vector<std::string>& args) {
  if (args.size() < 2 || args[1].empty()) return false;
  if (args[1][0] != '-' || args[1] == "-") return !is_command(args[1]);
  for (std::size_t k = 1; k < args.size(); ++k)
    if (args[k] == "-h" || args[k] == "--help" || args[k] == "--version" || is_command(args[k]))
      return false;
  return true;
}

/// APSP_* variables of the project's own scripts and builds, which are no settings of the tool.
bool script_variable(std::string_view name) {
  for (const std::string_view p :
       {"APSP_TEST_",  "APSP_CMAKE_",  "APSP_PIP_",   "APSP_BENCH_",  "APSP_FUZZ_", "APSP_MPI",
        "APSP_GPU_",   "APSP_KEEP_",   "APSP_CHECK_", "APSP_SCALING", "APSP_SH",    "APSP_PYTHON",
        "APSP_SCIPY_", "APSP_CPU_DIR", "APSP_CLI",    "APSP_WITH_",   "APSP_HAVE_", "APSP_PY_",
        "APSP_HIP",    "APSP_SPARSE_", "APSP_ASAN_",  "APSP_STDCXX_"})
    if (name.starts_with(p)) return true;
  return false;
}

/// An APSP_* variable that is no setting (a typo: APSP_PROGRES_DELAY, or a guess: APSP_THREADS)
/// would be ignored silently: one warning line for each, naming the nearest setting.
void warn_unknown_settings() {
  using apsp::config::Knob;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    if (!entry.starts_with("APSP_")) continue;
    const std::string name(entry.substr(0, entry.find('=')));
    if (script_variable(name)) continue;
    std::string nearest;
    std::size_t best = 4;  // at most 3 edits away
    bool known = false;
    for (int k = 0; k < int(Knob::kCount); ++k) {
      const std::string knob = apsp::config::name(Knob(k));
      known |= knob == name;
      if (const std::size_t d = edit_distance(name, knob); d < best) {
        best = d;
        nearest = knob;
      }
    }
    if (known) continue;
    std::fprintf(stderr,
                 "apsp: warning: %s is no apsp setting, ignored (%s`apsp info --config` "
                 "lists them)\n",
                 one_line(name).c_str(),
                 nearest.empty() ? "" : ("did you mean " + nearest + "? ").c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  apsp_cli::setup_stdout();
  std::vector<std::string> args(argv, argv + argc);
  if (const std::string typo = misspelt_command(args); !typo.empty()) {
    std::fprintf(stderr,
                 "apsp: error: '%s' is neither a subcommand nor a file; did you mean %s? (see "
                 "apsp --help)\n",
                 one_line(args[1]).c_str(), typo.c_str());
    return 2;
  }
  if (course_mode(args)) args.insert(args.begin() + 1, "solve");
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());

  CLI::App app{
      "apsp: all-pairs shortest paths by blocked Floyd-Warshall (CPU, CUDA, multi-GPU, MPI).\n"
      "`apsp IN OUT` reads an NTHU-format graph and writes its distance matrix (course drop-in)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("apsp 0.1.0"));

  using apsp::kMaxBlock;
  constexpr int kMaxThreads = apsp::kMaxThreadsOption;  // more are clamped (thread_cap)
  apsp_cli::SolveArgs sa;
  auto* solve =
      app.add_subcommand("solve", "Solve APSP: read IN, write the V x V distance matrix to OUT");
  solve
      ->add_option("IN", sa.in,
                   "input graph (.gr DIMACS, .mtx Matrix Market, .txt/.csv/.tsv/.el/.wel edge "
                   "list, .bin NTHU binary, each also .gz; other names by content)")
      ->required();
  solve
      ->add_option("OUT", sa.out,
                   "output matrix (.npy NumPy, .txt/.csv/.tsv text, .bin/.out/no extension NTHU "
                   "binary int32). Unreachable: inf in text and float .npy; 1073741823 in int32 "
                   ".npy and NTHU, 2^62-1 in int64 .npy (--type float64 writes inf)")
      ->required();
  solve
      ->add_option("--backend", sa.backend,
                   "auto|cpu|cuda|multi-gpu|mpi|hip (auto: cuda, else hip, when a GPU is usable "
                   "and runs the type, else cpu)")
      ->capture_default_str();
  solve->add_option("--type", sa.type,
                    "int32|int64|float32|float64 (default: int32, int64 when int32 cannot be "
                    "exact, float64 for fractional weights)");
  solve
      ->add_option("--block", sa.block,
                   "cpu, mpi CPU ranks: tile size, rounded up to a multiple of 32 (default: 256, "
                   "128 for 8-byte types); the GPU backends use their own")
      ->check(CLI::Range(1, kMaxBlock));
  solve->add_option("--threads", sa.threads, "CPU threads (default: all)")
      ->check(CLI::Range(1, kMaxThreads));
  solve
      ->add_option("--devices", sa.devices,
                   "GPU ordinals for cuda/multi-gpu; for mpi GPU ranks, the GPU of each local rank")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  solve->add_option("--input-format", sa.input_format, "auto|nthu|dimacs|mtx|edgelist")
      ->capture_default_str();
  solve->add_option("--output-format", sa.output_format, "auto|nthu|npy|text")
      ->capture_default_str();
  auto* undirected_flag =
      solve->add_flag("--undirected", sa.undirected, "every edge goes both ways");
  solve
      ->add_flag("--directed", sa.directed,
                 "keep every edge one way where the file says it is undirected (SNAP's "
                 "'# Undirected graph', otherwise honoured)")
      ->excludes(undirected_flag);
  solve->add_flag("--unweighted", sa.unweighted,
                  "every edge weighs 1 (weights in the file are ignored): hop counts");
  solve->add_flag("--labels", sa.labels,
                  "edge lists: read every vertex token as a name (any text, numbers too), "
                  "numbered 0.. in order of first appearance; the names go to OUT.labels, one a "
                  "line, and `apsp path OUT NAME NAME` takes them. Without it a file whose first "
                  "edge names its vertices (not integers) is read so too");
  solve
      ->add_option("--order", sa.order,
                   "auto|none|nd|sn: vertex order of the rounds; nd = METIS nested dissection, "
                   "only tiles that can hold a path; sn = the sparse direct engine (minimum-degree "
                   "supernodes, factorization, then every row; cpu and cuda backends) (sparse "
                   "graphs; docs/sparse.md)")
      ->capture_default_str();
  solve->add_option("--vertices", sa.vertices,
                    "the graph has N vertices (isolated high-numbered ones included; edge-list ids "
                    "must be below N)");
  solve
      ->add_option("--sources", sa.sources,
                   "rows of these sources only, comma-separated 0-based numbers (or names, for a "
                   "graph with names), in that order: one Dijkstra each (cpu), as SciPy's "
                   "indices=; OUT .npy or text")
      ->delimiter(',');
  solve->add_flag("--paths", sa.paths,
                  "also write the next-hop matrix to OUT.next (STEM.next.npy for .npy)");
  solve->add_flag("--verify", sa.verify,
                  "check against a reference (full for V <= 2048, else 16 sampled sources)");
  auto* stats_opt = solve
                        ->add_option("--stats", sa.stats_file,
                                     "print stage timings to stderr, or append JSON to FILE "
                                     "(- = stdout)")
                        ->expected(0, 1)
                        ->type_name("[FILE]");
  add_progress_flags(solve, sa.quiet, sa.progress, "the stages (read, solve, write) and rounds");
  solve->add_flag("-v,--verbose", sa.verbose,
                  "with --stats: also the solve plan (backend, type and rungs, Johnson, engine and "
                  "order, memory, sinks, paths), as apsp.explain() gives it");

  apsp_cli::GenerateArgs ga;
  auto* gen = app.add_subcommand("generate", "Write a random graph (deterministic per seed)");
  gen->add_option("OUT", ga.out, "output file")->required();
  gen->add_option("--kind", ga.kind,
                  "uniform (-V, -E, --wmin, --wmax) | rmat (--scale, -E, --wmin, --wmax) | grid "
                  "(--rows, --cols, --wmin, --wmax) | geometric (-V, -k, --unit) | mesh (--rows, "
                  "--cols, --unit); another kind's option is an error")
      ->capture_default_str();
  gen->add_option("-V,--vertices", ga.vertices, "uniform, geometric: vertices")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("-E,--edges", ga.edges,
                  "uniform, rmat: edges (default: uniform min(5000000, V*(V-1)/4), rmat "
                  "16 * 2^scale)")
      ->check(kNonNegativeInteger);
  gen->add_option("--scale", ga.scale, "rmat: 2^scale vertices")
      ->capture_default_str()
      ->check(CLI::Range(0, 30));
  gen->add_option("--rows", ga.rows, "grid, mesh: rows (required)")
      ->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("--cols", ga.cols, "grid, mesh: columns (required)")
      ->check(CLI::Range(std::int64_t{1}, apsp::kMaxVertices));
  gen->add_option("-k,--neighbors", ga.k, "geometric: links to the k nearest points")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  gen->add_option("--unit", ga.unit,
                  "geometric, mesh: weight of a link one mean point spacing long (lengths rounded)")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1e9));
  gen->add_option("--wmin", ga.wmin, "uniform, rmat, grid: smallest weight")->capture_default_str();
  gen->add_option("--wmax", ga.wmax, "uniform, rmat, grid: largest weight")->capture_default_str();
  gen->add_option("--seed", ga.seed, "random seed")->capture_default_str();
  gen->add_option("--format", ga.format, "auto|nthu|dimacs|mtx|edgelist (auto: by OUT's extension)")
      ->capture_default_str();

  apsp_cli::MetricsArgs ma;
  auto* metrics =
      app.add_subcommand("metrics",
                         "Closeness, harmonic centrality, eccentricity, diameter, ... from a "
                         "streamed solve (no V x V output; docs/metrics.md)");
  metrics->add_option("IN", ma.in, "input graph (as for solve)")->required();
  metrics->add_option(
      "OUT", ma.out,
      "OUT.csv: per-vertex table (summary on stdout); OUT.json: summary and per-vertex "
      "arrays; none: summary on stdout");
  metrics->add_option("--backend", ma.backend, "auto|cpu|cuda|multi-gpu|mpi|hip")
      ->capture_default_str();
  metrics
      ->add_option("--order", ma.order,
                   "auto|none|nd|sn: vertex order of the rounds (as for solve; docs/sparse.md)")
      ->capture_default_str();
  metrics->add_option("--type", ma.type, "int32|int64|float32|float64 (default as for solve)");
  metrics->add_option("--threads", ma.threads, "CPU threads (default: all)")
      ->check(CLI::Range(1, kMaxThreads));
  metrics->add_option("--devices", ma.devices, "GPU ordinals for cuda/multi-gpu")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  metrics->add_option("--input-format", ma.input_format, "auto|nthu|dimacs|mtx|edgelist")
      ->capture_default_str();
  metrics->add_option("--vertices", ma.vertices, "the graph has N vertices");
  metrics->add_flag("--undirected", ma.undirected, "every edge goes both ways");
  metrics
      ->add_option("--metrics", ma.metrics,
                   "comma-separated: eccentricity,closeness,harmonic,reachable,diameter,"
                   "radius,average_shortest_path_length,wiener_index,center,periphery,"
                   "histogram,effective_diameter (default: all but the last two)")
      ->check(CLI::Validator(
          [](std::string& v) {  // "" is no list: leave the option out for the default
            return v.empty() ? std::string(
                                   "unknown metric '' (name at least one; without "
                                   "--metrics every metric but the last two)")
                             : std::string();
          },
          "LIST"));
  metrics
      ->add_option("--engine", ma.engine,
                   "auto|fw|bfs|dijkstra|bounds|sparse: how distances are found (docs/metrics.md)")
      ->capture_default_str();
  metrics->add_flag("--infinite", ma.infinite,
                    "report graph-wide values of a graph that is not strongly connected "
                    "as infinite instead of refusing");
  metrics->add_flag("--labels", ma.labels,
                    "edge lists: read every vertex token as a name (numbers too), as solve "
                    "--labels does; the output then names the vertices (CSV column vertex, JSON "
                    "labels, center, periphery). Without it a file whose first edge names its "
                    "vertices (not integers) is read so too");
  add_progress_flags(metrics, ma.quiet, ma.progress,
                     "the stages (read, metrics, write) and the work done");

  std::string path_dist, path_next, path_i, path_j;
  auto* pathc = app.add_subcommand("path", "Print a shortest path from a `solve --paths` result");
  pathc->add_option("DIST", path_dist, "distance matrix written by solve --paths")->required();
  pathc
      ->add_option("i", path_i,
                   "source vertex, 0-based (DIMACS and Matrix Market ids on disk minus 1), or its "
                   "name where DIST.labels lies beside DIST (a graph read with names)")
      ->required();
  pathc->add_option("j", path_j, "target vertex, 0-based, or its name")->required();
  pathc->add_option("--next", path_next, "next-hop matrix (default: DIST.next / STEM.next.npy)");

  bool info_config = false, info_markdown = false;
  auto* info = app.add_subcommand("info", "Backends built, devices found, their ceilings");
  auto* info_config_flag = info->add_flag(
      "--config", info_config, "every APSP_* environment variable: value, type, what it does");
  info->add_flag("--markdown", info_markdown, "the --config table as docs/configuration.md has it")
      ->needs(info_config_flag);

  apsp::detail::BenchConfig bc;
  std::string bench_backend = "cpu", bench_type = "int32";
  bool no_baselines = false;
  auto* bench = app.add_subcommand(
      "bench", "Benchmark a backend against its baselines (T updates/s, % of ceiling)");
  bench->add_option("--backend", bench_backend, "cpu|cuda")->capture_default_str();
  bench->add_option("--sizes", bc.sizes, "V values, comma separated")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  bench->add_option("--type", bench_type, "int32|int64|float32|float64")->capture_default_str();
  bench->add_option("--trials", bc.trials, "timed trials per size (median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  bench->add_option("--threads", bc.threads, "CPU threads (default: all)")
      ->check(CLI::Range(1, kMaxThreads));
  bench->add_option("--block", bc.block, "tile size (default: the backend's)")
      ->check(CLI::Range(1, kMaxBlock));
  bench
      ->add_option("--edge-factor", bc.edge_factor,
                   "E = factor * V (default: course-like min(5M, V^2/4))")
      ->check(CLI::Range(0.0, 1e6));
  bench->add_option("--seed", bc.seed, "random seed")->capture_default_str();
  bench->add_option("--csv", bc.csv, "also write the rows as CSV");
  bench->add_flag("--no-baselines", no_baselines, "only time the production kernels");

  try {
    app.parse(int(av.size()), av.data());
  } catch (const CLI::ParseError& e) {
    // --help / --version: printed to std::cout, whose write errors count as any command's.
    if (e.get_exit_code() == 0) return apsp_cli::finish_stdout(app.exit(e));
    std::fprintf(stderr, "apsp: error: %s (see apsp --help)\n", one_line(e.what()).c_str());
    return 2;
  }

  apsp_cli::install_stop_handlers();
  // Every command's stdout is checked once it has finished (finish_stdout): a write that failed
  // (/dev/full, a closed descriptor) is one error line and a non-zero exit, not a silent 0.
  using apsp_cli::finish_stdout;
  try {
    if (!*info) apsp::config::check_all();  // a bad APSP_* value stops every command up front
    warn_unknown_settings();
    if (*solve) {
      sa.stats = stats_opt->count() > 0;
      const int rc = finish_stdout(apsp_cli::run_solve(sa));
      apsp_cli::report_exit(rc);
      return rc;
    }
    if (*gen) {
      for (const CLI::Option* o : gen->get_options())
        if (o->count() > 0 && o->nonpositional()) ga.given.push_back(o->get_name(false, true));
      return finish_stdout(apsp_cli::run_generate(ga));
    }
    if (*metrics) return finish_stdout(apsp_cli::run_metrics(ma));
    if (*pathc) return finish_stdout(apsp_cli::run_path(path_dist, path_next, path_i, path_j));
    if (*info) return finish_stdout(apsp_cli::run_info(info_config, info_markdown));
    if (*bench) {
      bc.dtype = apsp::parse_dtype(bench_type);
      bc.baselines = !no_baselines;
      bc.threads = std::min(bc.threads, apsp::thread_cap());
      const apsp::Backend b = apsp::parse_backend(bench_backend);
      if (b == apsp::Backend::Cpu) return finish_stdout(apsp::detail::bench_cpu(bc, std::cout));
      if (b == apsp::Backend::Cuda) return finish_stdout(apsp::detail::bench_cuda(bc, std::cout));
      throw apsp::UsageError("apsp bench supports --backend cpu or cuda");
    }
  } catch (const apsp::detail::OutputStreamFailed&) {  // bench: stdout failed, stop early
    return finish_stdout(1);
  } catch (const apsp::Error& e) {
    std::fprintf(stderr, "apsp: error: %s\n", one_line(e.what()).c_str());
    std::cout.flush();  // what was printed before the error; the error line is the one reported
    apsp_cli::report_exit(e.exit_code());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "apsp: error: out of memory\n");
    std::cout.flush();
    apsp_cli::report_exit(4);
    return 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apsp: error: %s\n", one_line(e.what()).c_str());
    std::cout.flush();
    apsp_cli::report_exit(1);
    return 1;
  }
  return 0;
}
