// src/io/dimacs.cpp — DIMACS shortest-path graphs (.gr), as in the 9th DIMACS Implementation
// Challenge: `c` comment lines, one `p sp n m` problem line before any arc, then m lines
// `a u v w` with 1-based vertex ids and signed integer weights. Blank lines are allowed. The
// number of arc lines must equal m.
#include <limits>

#include "io/io_common.hpp"

namespace apsp::io {

Graph read_dimacs(const InputFile& in) {
  const std::string& file = in.path();
  if (in.size() == 0) fail_at_line(file, 1, "expected the problem line 'p sp <vertices> <arcs>', but the file is empty");
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
        fail_at_line(file, ln, "expected the problem line 'p sp <vertices> <arcs>', got " + quote(line));
      if (!parse_int(tok[2], n)) fail_at_line(file, ln, "expected an integer vertex count, got " + quote(tok[2]));
      if (!parse_int(tok[3], m)) fail_at_line(file, ln, "expected an integer arc count, got " + quote(tok[3]));
      if (!vertex_count_ok(n))
        fail_at_line(file, ln, "vertex count " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxVertices));
      if (m < 0) fail_at_line(file, ln, "arc count " + std::to_string(m) + " is negative");
      // Each arc line takes at least 8 bytes ("a 1 1 0\n"): never reserve more than the file holds.
      g.num_vertices = n;
      g.reserve(std::size_t(std::min<std::int64_t>(m, std::int64_t(in.size() / 8) + 1)));
      have_header = true;
      continue;
    }
    if (tok[0] == "a") {
      if (!have_header)
        fail_at_line(file, ln, "arc before the problem line: expected 'p sp <vertices> <arcs>' first");
      if (nt != 4) fail_at_line(file, ln, "expected an arc 'a <from> <to> <weight>', got " + quote(line));
      std::int64_t u, v, w;
      if (!parse_int(tok[1], u)) fail_at_line(file, ln, "expected an integer vertex id, got " + quote(tok[1]));
      if (!parse_int(tok[2], v)) fail_at_line(file, ln, "expected an integer vertex id, got " + quote(tok[2]));
      if (!parse_int(tok[3], w)) fail_at_line(file, ln, "expected an integer weight, got " + quote(tok[3]));
      if (u < 1 || u > n) fail_at_line(file, ln, "vertex " + std::to_string(u) + " is outside 1.." + std::to_string(n));
      if (v < 1 || v > n) fail_at_line(file, ln, "vertex " + std::to_string(v) + " is outside 1.." + std::to_string(n));
      constexpr std::int64_t kExact = std::int64_t{1} << 53;
      if (w > kExact || w < -kExact)
        fail_at_line(file, ln, "weight " + std::to_string(w) + " is beyond +-2^53 (not exact as a double)");
      if (++arcs > m)
        fail_at_line(file, ln, "more arcs than the problem line's " + std::to_string(m));
      g.add_edge(std::int32_t(u - 1), std::int32_t(v - 1), double(w));
      continue;
    }
    fail_at_line(file, ln, "expected a 'c', 'p' or 'a' line, got " + quote(line));
  }
  if (!have_header)
    fail_at_line(file, lines.line_no(), "no problem line 'p sp <vertices> <arcs>' in the file");
  if (arcs != m)
    fail_at_line(file, lines.line_no(),
                 "the file ends after " + std::to_string(arcs) + " arcs, but the problem line says " + std::to_string(m));
  g.integer_weights = true;
  return g;
}

}  // namespace apsp::io
