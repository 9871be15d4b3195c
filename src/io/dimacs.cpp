// src/io/dimacs.cpp — DIMACS shortest-path graphs (.gr), as in the 9th DIMACS Implementation
// Challenge: `c` comment lines, one `p sp n m` problem line before any arc, then m lines
// `a u v w` with 1-based vertex ids and signed integer weights. Blank lines are allowed. The
// number of arc lines must equal m. Weights are integers within +-2^53 (weight_parse.hpp). The
// writer puts an undirected graph's edges in both directions, as DIMACS has no undirected form.
#include <charconv>
#include <cmath>
#include <limits>

#include "io/formats.hpp"
#include "io/weight_parse.hpp"
#include "io/input_common.hpp"

namespace apsp::io {

Graph read_dimacs(const InputFile& in) { return read_dimacs(InputBytes(in)); }

Graph read_dimacs(const InputBytes& in) {
  const std::string& file = in.path();
  if (in.size() == 0)
    fail_at_line(file, 1,
                 "expected the problem line 'p sp <vertices> <arcs>', but the file is empty");
  LineReader lines(in.chars(), in.size());
  std::string_view line;
  std::string_view tok[5];
  Graph g;
  g.integer_weights = true;
  bool have_header = false;
  std::int64_t n = 0, m = 0, arcs = 0;
  while (lines.next(line)) {
    const std::int64_t ln = lines.line_no();
    const std::size_t nt = split_tokens(line, false, tok, 5);
    if (nt == 0 || tok[0] == "c") continue;
    if (tok[0] == "p") {
      if (have_header) fail_at_line(file, ln, "a second problem line ('p ...')");
      if (nt != 4 || tok[1] != "sp")
        fail_at_line(file, ln,
                     "expected the problem line 'p sp <vertices> <arcs>', got " + quote(line));
      if (!parse_int(tok[2], n))
        fail_at_line(file, ln, "expected an integer vertex count, got " + quote(tok[2]));
      if (!parse_int(tok[3], m))
        fail_at_line(file, ln, "expected an integer arc count, got " + quote(tok[3]));
      if (!vertex_count_ok(n))
        fail_at_line(
            file, ln,
            "vertex count " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxVertices));
      if (m < 0) fail_at_line(file, ln, "arc count " + std::to_string(m) + " is negative");
      // Each arc line takes at least 8 bytes ("a 1 1 0\n"): never reserve more than the file holds.
      g.num_vertices = n;
      g.reserve(std::size_t(std::min<std::int64_t>(m, std::int64_t(in.size() / 8) + 1)));
      have_header = true;
      continue;
    }
    if (tok[0] == "a") {
      if (!have_header)
        fail_at_line(file, ln,
                     "arc before the problem line: expected 'p sp <vertices> <arcs>' first");
      if (nt != 4)
        fail_at_line(file, ln, "expected an arc 'a <from> <to> <weight>', got " + quote(line));
      std::int64_t u, v;
      if (!parse_int(tok[1], u))
        fail_at_line(file, ln, "expected an integer vertex id, got " + quote(tok[1]));
      if (!parse_int(tok[2], v))
        fail_at_line(file, ln, "expected an integer vertex id, got " + quote(tok[2]));
      double w = 0;
      bool integral = true;
      if (const WeightStatus st = parse_weight(tok[3], true, w, integral); st != WeightStatus::Ok)
        fail_at_line(file, ln, weight_error(st, tok[3]));
      if (u < 1 || u > n)
        fail_at_line(file, ln,
                     "vertex " + std::to_string(u) + " is outside 1.." + std::to_string(n));
      if (v < 1 || v > n)
        fail_at_line(file, ln,
                     "vertex " + std::to_string(v) + " is outside 1.." + std::to_string(n));
      if (++arcs > m)
        fail_at_line(file, ln, "more arcs than the problem line's " + std::to_string(m));
      g.add_edge(std::int32_t(u - 1), std::int32_t(v - 1), w);
      continue;
    }
    fail_at_line(file, ln, "expected a 'c', 'p' or 'a' line, got " + quote(line));
  }
  if (!have_header)
    fail_at_line(file, lines.line_no(), "no problem line 'p sp <vertices> <arcs>' in the file");
  if (arcs != m)
    fail_at_line(file, lines.line_no(),
                 "the file ends after " + count_of(arcs, "arc", "arcs") +
                     ", but the problem line says " + std::to_string(m));
  g.integer_weights = true;
  return g;
}

}  // namespace apsp::io

namespace apsp {

void write_graph_dimacs(const std::string& path, const Graph& graph) {
  const Graph copied = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? copied : graph;
  io::check_graph_path(path, GraphFormat::Dimacs);
  if (g.num_vertices < 1 || g.num_vertices > kMaxVertices)
    throw UsageError(path + ": cannot write DIMACS: V = " + std::to_string(g.num_vertices) +
                     " is outside 1.." + std::to_string(kMaxVertices));
  std::int64_t arcs = 0;
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    const double w = g.weight[e];
    if (!(w == std::floor(w) && std::fabs(w) <= double(io::kMaxExactWeight)))
      throw UsageError(path + ": cannot write DIMACS: edge " + std::to_string(e) + " has weight " +
                       io::shortest_text(w) +
                       ", not an integer within +-2^53 (DIMACS weights are integers); "
                       "write .mtx or .txt instead");
    arcs += (!g.directed && g.src[e] != g.dst[e]) ? 2 : 1;
  }
  std::string out;
  out.reserve(std::size_t(arcs) * 20 + 128);
  out += "c apsp graph: " + std::to_string(g.num_vertices) + " vertices, " + std::to_string(arcs) +
         " arcs" + (g.directed ? "" : " (undirected, written in both directions)") + "\n";
  out += "p sp " + std::to_string(g.num_vertices) + " " + std::to_string(arcs) + "\n";
  auto put_int = [&out](std::int64_t v, char after) {
    char buf[24];
    out.append(buf, std::size_t(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
    out += after;
  };
  auto put_arc = [&](std::int64_t u, std::int64_t v, double w) {
    out += "a ";
    put_int(u + 1, ' ');
    put_int(v + 1, ' ');
    put_int(std::int64_t(w), '\n');
  };
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    put_arc(g.src[e], g.dst[e], g.weight[e]);
    if (!g.directed && g.src[e] != g.dst[e]) put_arc(g.dst[e], g.src[e], g.weight[e]);
  }
  io::write_graph_file(path, out.data(), out.size());
}

}  // namespace apsp
