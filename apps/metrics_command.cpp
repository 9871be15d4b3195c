// apps/metrics_command.cpp — `apsp metrics IN [OUT.csv|OUT.json]`.
//
// Solves with a MetricsReducer as the distance sink (apsp/metrics.hpp), so no V x V matrix is
// written or kept beyond the backend's own, then writes the per-vertex table (CSV: vertex,
// eccentricity, closeness, harmonic, reachable) and a JSON summary of the graph-wide values.
// Outputs go through apsp::io::write_output (temporary file, renamed on success). Graph-wide values
// that need strong connectivity are refused on a graph without it: named in --metrics, an error; by
// default, the summary says why instead. Eccentricity named in --metrics is refused the same way
// (by default the table has inf). --infinite reports them as infinite (JSON null). --engine picks
// how the distances are found (auto: apsp::plan_metrics's cost model). Progress (apps/progress.cpp)
// shows the stages and, while the metrics run, the work done of the total and the time left. A
// graph read with names has them in the outputs instead of numbers.
#include "metrics_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include <string_view>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/metrics.hpp"
#include "apsp/output.hpp"
#include "commands.hpp"

namespace apsp_cli {

namespace {

constexpr const char* kPerVertex[] = {"eccentricity", "closeness", "harmonic", "reachable"};
constexpr const char* kGraphWide[] = {"diameter",
                                      "radius",
                                      "average_shortest_path_length",
                                      "wiener_index",
                                      "center",
                                      "periphery",
                                      "histogram",
                                      "effective_diameter"};

struct Selection {
  bool eccentricity = false, closeness = false, harmonic = false, reachable = false;
  bool diameter = false, radius = false, aspl = false, wiener = false, center = false,
       periphery = false, histogram = false, effective = false;
  bool named = false;  // --metrics given: refusals are errors

  bool per_vertex() const { return eccentricity || closeness || harmonic || reachable; }
  /// Only diameter, radius, center, periphery: the bounds engine can answer.
  bool extremes_only() const {
    return named && !per_vertex() && !aspl && !wiener && !histogram && !effective;
  }
};

Selection parse_selection(const std::string& list) {
  Selection s;
  if (list.empty()) {
    s.eccentricity = s.closeness = s.harmonic = s.reachable = true;
    s.diameter = s.radius = s.aspl = s.wiener = s.center = s.periphery = true;
    return s;
  }
  s.named = true;
  // Every comma separates two names, a trailing one too: "closeness," is refused as
  // "closeness,,harmonic" is (an empty name).
  std::vector<std::string> names;
  for (std::size_t at = 0;;) {
    const std::size_t comma = list.find(',', at);
    names.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  for (const std::string& name : names) {
    bool* flag = name == "eccentricity"                   ? &s.eccentricity
                 : name == "closeness"                    ? &s.closeness
                 : name == "harmonic"                     ? &s.harmonic
                 : name == "reachable"                    ? &s.reachable
                 : name == "diameter"                     ? &s.diameter
                 : name == "radius"                       ? &s.radius
                 : name == "average_shortest_path_length" ? &s.aspl
                 : name == "wiener_index"                 ? &s.wiener
                 : name == "center"                       ? &s.center
                 : name == "periphery"                    ? &s.periphery
                 : name == "histogram"                    ? &s.histogram
                 : name == "effective_diameter"           ? &s.effective
                                                          : nullptr;
    if (!flag) {
      std::string known;
      for (const char* k : kPerVertex) known.append(known.empty() ? "" : ", ").append(k);
      for (const char* k : kGraphWide) known.append(", ").append(k);
      throw apsp::UsageError("--metrics: unknown metric '" + name + "' (expected " + known + ")");
    }
    *flag = true;
  }
  return s;
}

/// Vertex v as the outputs name it: its name when the graph has names, else its number.
std::string vertex_json(const apsp::Graph& g, std::int64_t v) {
  return g.labels.empty() ? std::to_string(v) : json_string(g.labels[std::size_t(v)]);
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out.append(c == '"' ? "\"\"" : std::string(1, c));
  return out + '"';
}

/// A number as JSON / CSV text: integers exactly, others with 17 significant digits; infinity
/// as `inf_text`.
std::string num(long double x, const char* inf_text) {
  if (std::isinf(x)) return inf_text;
  char buf[64];
  if (x == std::floor(x) && std::fabs(x) < 1e30L)
    std::snprintf(buf, sizeof buf, "%.0Lf", x);
  else
    std::snprintf(buf, sizeof buf, "%.17Lg", x);
  return buf;
}

/// [[distance, pairs], ...] for the distances some pair is at.
std::string histogram_json(const std::vector<std::int64_t>& h) {
  std::string s = "[";
  for (std::size_t d = 0; d < h.size(); ++d)
    if (h[d])
      s.append(s.size() > 1 ? ", [" : "[")
          .append(std::to_string(d))
          .append(", ")
          .append(std::to_string(h[d]))
          .append("]");
  s += ']';
  return s;
}

std::string list_json(const apsp::Graph& g, const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s.append(i ? ", " : "").append(vertex_json(g, v[i]));
  s += ']';
  return s;
}

/// The summary object's members (without braces), one per line.
std::string summary_json(const MetricsArgs& a, const apsp::Graph& g, const apsp::Metrics& m,
                         const Selection& s) {
  const bool ok = m.strongly_connected() || a.infinite;
  std::ostringstream os;
  os << "  \"vertices\": " << m.num_vertices
     << ",\n  \"directed\": " << (m.directed ? "true" : "false")
     << ",\n  \"edges\": " << g.num_edges() << ",\n  \"dtype\": \"" << apsp::dtype_name(m.dtype)
     << "\",\n  \"backend\": \"" << m.backend << "\",\n  \"engine\": \"" << m.engine
     << "\",\n  \"plan\": \"" << m.plan
     << "\",\n  \"strongly_connected\": " << (m.strongly_connected() ? "true" : "false");
  if (s.diameter && ok) os << ",\n  \"diameter\": " << num(m.diameter(true), "null");
  if (s.radius && ok) os << ",\n  \"radius\": " << num(m.radius(true), "null");
  if (s.aspl && ok)
    os << ",\n  \"average_shortest_path_length\": "
       << num(m.average_shortest_path_length(true), "null");
  if (s.wiener) os << ",\n  \"wiener_index\": " << num(m.wiener_index(), "null");
  if (s.center && ok) os << ",\n  \"center\": " << list_json(g, m.center(true));
  if (s.periphery && ok) os << ",\n  \"periphery\": " << list_json(g, m.periphery(true));
  if (m.extremes) os << ",\n  \"searches\": " << m.extremes->searches;
  if (s.histogram) os << ",\n  \"histogram\": " << histogram_json(m.histogram);
  if (s.effective) os << ",\n  \"effective_diameter\": " << num(m.effective_diameter(), "null");
  if (!ok && (s.diameter || s.radius || s.aspl || s.center || s.periphery)) {
    std::string why;
    try {
      (void)m.diameter();
    } catch (const apsp::UsageError& e) {
      why = e.what();
    }
    os << ",\n  \"refused\": \"" << why.substr(why.find(':') + 2) << "\"";
  }
  return os.str();
}

std::string csv_table(const apsp::Graph& g, const apsp::Metrics& m, const Selection& s) {
  std::string t = "vertex";
  if (s.eccentricity) t += ",eccentricity";
  if (s.closeness) t += ",closeness";
  if (s.harmonic) t += ",harmonic";
  if (s.reachable) t += ",reachable";
  t += "\n";
  for (std::int64_t v = 0; v < m.num_vertices; ++v) {
    const auto k = std::size_t(v);
    t += g.labels.empty() ? std::to_string(v) : csv_field(g.labels[k]);
    if (s.eccentricity) t.append(",").append(num(m.eccentricity[k], "inf"));
    if (s.closeness) t.append(",").append(num(m.closeness[k], "inf"));
    if (s.harmonic) t.append(",").append(num(m.harmonic[k], "inf"));
    if (s.reachable) t.append(",").append(std::to_string(m.reachable_out[k]));
    t += '\n';
  }
  return t;
}

/// The per-vertex arrays (indexed by vertex number), after "labels" (the names) for a graph
/// read with names.
std::string vertices_json(const apsp::Graph& g, const apsp::Metrics& m, const Selection& s) {
  std::string t;
  auto column = [&](const char* name, auto&& value) {
    t.append(",\n  \"").append(name).append("\": [");
    for (std::int64_t v = 0; v < m.num_vertices; ++v)
      t.append(v ? ", " : "").append(value(std::size_t(v)));
    t += ']';
  };
  if (!g.labels.empty()) column("labels", [&](std::size_t k) { return json_string(g.labels[k]); });
  if (s.eccentricity)
    column("eccentricity", [&](std::size_t k) { return num(m.eccentricity[k], "null"); });
  if (s.closeness) column("closeness", [&](std::size_t k) { return num(m.closeness[k], "null"); });
  if (s.harmonic) column("harmonic", [&](std::size_t k) { return num(m.harmonic[k], "null"); });
  if (s.reachable)
    column("reachable", [&](std::size_t k) { return std::to_string(m.reachable_out[k]); });
  return t;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

int run_metrics(const MetricsArgs& a) {
  const Selection s = parse_selection(a.metrics);
  const apsp::MetricsEngine engine = apsp::parse_metrics_engine(a.engine);
  const bool json_out = ends_with(a.out, ".json");
  bool to_stream = false;
  if (!a.out.empty()) {
    to_stream = apsp::io::resolve_output(a.out).stream_fd >= 0;
    if (!json_out && !to_stream && !ends_with(a.out, ".csv"))
      throw apsp::UsageError(
          a.out + ": metrics output must be .csv (per-vertex table) or .json (everything)");
    if (apsp::io::same_file(a.in, a.out))
      throw apsp::UsageError(a.out + ": the output would overwrite the input " + a.in);
    apsp::io::check_output_path(a.out);
    // The summary of a .csv run goes to stdout: the table must not be that file too.
    if (!json_out && !to_stream && apsp::io::same_output(a.out, "-"))
      throw apsp::UsageError(a.out +
                             ": OUT and stdout (where the summary goes) name the same file");
  }
  apsp::ReadOptions ro;
  ro.format = apsp::parse_input_format(a.input_format);
  ro.undirected = a.undirected;
  ro.num_vertices = a.vertices;
  ro.names = a.labels ? apsp::VertexNames::Labels : apsp::VertexNames::Auto;
  apsp::SolveOptions so;
  so.backend = apsp::parse_backend(a.backend);
  if (!a.type.empty()) so.dtype = apsp::parse_dtype(a.type);
  so.order = apsp::parse_order(a.order);
  so.threads = a.threads;
  so.devices = a.devices;
  Progress progress(!a.quiet, a.progress);
  so.progress = progress.fn();
  so.on_stage = [&progress](std::string_view st) { progress.phase(std::string(st).c_str()); };
  ro.warning = [&progress](const std::string& w) { progress.warn(w); };
  progress.phase("read");
  const apsp::Graph g = apsp::read_graph(a.in, ro);
  progress.phase("metrics");
  apsp::MetricsOptions mo;
  mo.closeness = s.closeness;
  mo.harmonic = s.harmonic;
  mo.histogram = s.histogram || s.effective;
  mo.engine = engine;
  mo.extremes_only = s.extremes_only();
  mo.extremes = {s.diameter, s.radius, s.center, s.periphery};
  apsp::Metrics m;
  try {
    m = apsp::compute_metrics(g, so, mo);
  } catch (const apsp::NegativeCycleError& e) {
    throw apsp::NegativeCycleError(a.in + ": " + e.what(), e.cycle());
  } catch (const apsp::ResourceError& e) {
    throw apsp::ResourceError(a.in + ": " + e.what());
  } catch (const apsp::UsageError& e) {
    throw apsp::UsageError(a.in + ": " + e.what());
  }
  // Eccentricity or a graph-wide value named in --metrics that the graph cannot have (NetworkX
  // raises for each) is an error (no output).
  if (s.named && !a.infinite && !m.strongly_connected()) {
    const char* refused = s.eccentricity ? "eccentricity"
                          : s.diameter   ? "diameter"
                          : s.radius     ? "radius"
                          : s.aspl       ? "average_shortest_path_length"
                          : s.center     ? "center"
                          : s.periphery  ? "periphery"
                                         : nullptr;
    if (refused) {
      try {
        (void)m.diameter();
      } catch (const apsp::UsageError& e) {
        const std::string why = e.what();
        throw apsp::UsageError(a.in + ": " + refused + why.substr(why.find(':')) +
                               " (or pass --infinite)");
      }
    }
  }
  progress.phase("write");
  std::string summary = "{\n";
  summary.append(summary_json(a, g, m, s)).append("\n}\n");
  if (a.out.empty()) {
    // Per-vertex values named in --metrics are printed with the summary, as OUT.json has them;
    // the default run prints the summary alone.
    if (s.named && (s.eccentricity || s.closeness || s.harmonic || s.reachable))
      summary.insert(summary.size() - 3, vertices_json(g, m, s));  // before "\n}\n"
    std::cout << summary;
    progress.phase("done");
    return 0;
  }
  std::string body;
  if (json_out)
    body.append("{\n")
        .append(summary_json(a, g, m, s))
        .append(vertices_json(g, m, s))
        .append("\n}\n");
  else
    body = csv_table(g, m, s);
  apsp::io::write_output(a.out, body.data(), body.size());
  progress.phase("done");
  progress.finish();
  if (!json_out) (to_stream ? std::cerr : std::cout) << summary;
  return 0;
}

}  // namespace apsp_cli
