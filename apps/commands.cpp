// apps/commands.cpp — the small `apsp` subcommands (generate, path, info) and the progress line.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "apsp/pipeline.hpp"
#include "commands.hpp"
#include "core/config.hpp"

namespace apsp_cli {

namespace {
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Progress::Progress(bool enabled)
    : enabled_(enabled && isatty(2)),
      delay_(apsp::config::get_double(apsp::config::Knob::ProgressDelay)),
      t0_(std::chrono::steady_clock::now()) {}

void Progress::operator()(std::int64_t done, std::int64_t total) {
  if (!enabled_ || since(t0_) < delay_) return;
  std::fprintf(stderr, "\rapsp: round %lld/%lld (%3.0f%%)", (long long)done, (long long)total,
               100.0 * done / total);
  shown_ = true;
  if (done == total) finish();
}

void Progress::finish() {
  if (shown_) std::fputc('\n', stderr);
  shown_ = false;
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

int run_path(const std::string& dist_path, const std::string& next_arg, std::int64_t i,
             std::int64_t j) {
  constexpr int kExitNoPath = 8;  // general errors are 1
  const std::string next_file = next_arg.empty() ? apsp::next_path_for(dist_path) : next_arg;
  const apsp::Matrix dist = apsp::read_matrix(dist_path);
  const apsp::Matrix next = apsp::read_matrix(next_file);
  if (next.dtype() != apsp::Dtype::Int32 || next.rows() != dist.rows() ||
      next.cols() != dist.cols())
    throw apsp::UsageError(next_file + ": not an int32 next-hop matrix of the same shape as " +
                           dist_path);
  const auto p = apsp::path_from_next(next, i, j);
  if (p.empty()) {
    std::cout << "no path from " << i << " to " << j << "\n";
    return kExitNoPath;
  }
  for (std::size_t k = 0; k < p.size(); ++k) std::cout << (k ? " -> " : "") << p[k];
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
  for (const auto& b : apsp::backends()) {
    std::printf("  %-10s %-10s %s\n", b.name.c_str(),
                !b.built   ? "not built"
                : b.usable ? "usable"
                           : "unusable",
                b.detail.c_str());
  }
  std::cout << "\nmeasured min-plus ceilings (../shared/DESIGN.md, 2026-11-21; `apsp bench` "
               "re-measures):\n"
               "  NVIDIA H100 80GB  16.6 T updates/s int32 (DPX), 33.0 T int16x2, DRAM 3.0 TB/s, "
               "H2D 55 GB/s\n"
               "  NVIDIA H200       16.6 T updates/s int32 (DPX), 33.0 T int16x2, DRAM 4.3 TB/s, "
               "H2D 55 GB/s\n"
               "  2-core AVX-512    250 G updates/s int32 (127 per core)\n";
  return 0;
}

}  // namespace apsp_cli
