// apps/sources_command.cpp — `apsp solve IN OUT --sources LIST`: the rows of the distance matrix
// of a few sources only (SciPy's indices=), one Dijkstra per source with the library's
// per-source engine (apsp::shortest_paths_from_sources, apsp/paths.hpp; Johnson's potentials
// where a weight is negative): O(E + k V) memory, no V x V matrix. Rows in the order listed, in
// the dtype the whole solve would give (the same exactness rule); the output is atomic like every
// other.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/output.hpp"
#include "apsp/paths.hpp"
#include "apsp/pipeline.hpp"
#include "apsp/text.hpp"
#include "commands.hpp"

namespace apsp_cli {

namespace {

/// The vertex a --sources entry names: a name where the graph has names, else a 0-based number.
std::int32_t source_vertex(const std::string& s, const apsp::Graph& g) {
  if (!g.labels.empty()) {
    for (std::size_t k = 0; k < g.labels.size(); ++k)
      if (g.labels[k] == s) return std::int32_t(k);
    throw apsp::UsageError("--sources: no vertex named '" + s + "' in the graph");
  }
  std::int64_t v = -1;
  if (!apsp::io::parse_int(s, v) || v < 0)
    throw apsp::UsageError("--sources: expected 0-based vertex numbers, got '" + s + "'");
  if (v >= g.num_vertices)
    throw apsp::UsageError("--sources: vertex " + s + " is outside 0.." +
                           std::to_string(g.num_vertices - 1) + " (vertex ids are 0-based)");
  return std::int32_t(v);
}

/// The k x V float64 rows as a matrix of `t`: unreachable as t's marker, a float32 that would
/// overflow refused (values never change silently).
apsp::Matrix rows_as(const std::vector<double>& d, std::int64_t k, std::int64_t n, apsp::Dtype t) {
  apsp::Matrix m(k, n, t);
  apsp::visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* out = m.data<T>();
    for (std::int64_t r = 0; r < k; ++r)
      for (std::int64_t c = 0; c < n; ++c) {
        const double x = d[std::size_t(r * n + c)];
        T& y = out[r * m.stride() + c];
        if (!std::isfinite(x)) {
          y = apsp::unreachable<T>();
        } else {
          y = T(x);
          if constexpr (std::is_floating_point_v<T>)
            if (!std::isfinite(y))
              throw apsp::UsageError("a distance (" + apsp::io::shortest_text(x) +
                                     ") overflows float32: use --type float64");
        }
      }
  });
  return m;
}

}  // namespace

int run_sources(const SolveArgs& a, Progress& progress) {
  if (a.paths || a.verify || a.stats)
    throw apsp::UsageError(std::string("--sources does not take ") +
                           (a.paths    ? "--paths"
                            : a.verify ? "--verify"
                                       : "--stats") +
                           " (it runs one Dijkstra per source on the cpu, apart from the solve)");
  if (a.backend != "auto" && a.backend != "cpu")
    throw apsp::UsageError(
        "--sources runs on the cpu (one Dijkstra per source): leave out "
        "--backend " +
        a.backend);
  apsp::OutputFormat of = apsp::parse_output_format(a.output_format);
  if (of == apsp::OutputFormat::Auto) of = apsp::output_format_for(a.out);
  if (of == apsp::OutputFormat::Nthu)
    throw apsp::UsageError(a.out +
                           ": --sources writes one row per source, which NTHU binary "
                           "(V x V) cannot hold: name it .npy or .txt/.csv/.tsv, or use "
                           "--output-format npy|text");
  apsp::FileSolveOptions o;  // for the checks every output gets before the input is read
  o.input = a.in;
  o.output = a.out;
  apsp::check_file_outputs(o);

  apsp::ReadOptions ro;
  ro.format = apsp::parse_input_format(a.input_format);
  ro.undirected = a.undirected;
  ro.directed = a.directed;
  ro.unweighted = a.unweighted;
  ro.names = a.labels ? apsp::VertexNames::Labels : apsp::VertexNames::Auto;
  ro.num_vertices = a.vertices;
  ro.warning = [&progress](const std::string& w) { progress.warn(w); };
  progress.phase("read");
  const apsp::Graph g = apsp::read_graph(a.in, ro);
  if (!g.labels.empty() && apsp::io::same_file(a.in, apsp::labels_path_for(a.out)))
    throw apsp::UsageError(apsp::labels_path_for(a.out) +
                           ": the vertex names would overwrite the input (name OUT otherwise)");
  std::vector<std::int32_t> sources;
  for (const std::string& s : a.sources) sources.push_back(source_vertex(s, g));

  apsp::SolveOptions so;
  if (!a.type.empty()) so.dtype = apsp::parse_dtype(a.type);
  const auto k = std::int64_t(sources.size()), n = g.num_vertices;
  progress.phase("solve");
  std::vector<double> d;
  apsp::Dtype t{};
  try {
    t = apsp::choose_dtype(g, so);
    d.resize(std::size_t(k * n));
    apsp::SourcePathsOptions po;
    po.threads = a.threads;
    apsp::shortest_paths_from_sources(g, sources, po, d.data(), nullptr, nullptr);
  } catch (const apsp::NegativeCycleError& e) {  // name the input, as solve_file does
    throw apsp::NegativeCycleError(a.in + ": " + e.what(), e.cycle());
  } catch (const apsp::UsageError& e) {
    throw apsp::UsageError(a.in + ": " + e.what());
  }
  const apsp::Matrix m = rows_as(d, k, n, t);
  progress.phase("write");
  {
    const apsp::io::CommitTime same_time;  // the names and the rows: one modification time
    apsp::write_labels(a.out, g.labels);
    apsp::write_matrix(a.out, m, of);
  }
  progress.phase("done");
  return 0;
}

}  // namespace apsp_cli
