// src/io/mtx.cpp — Matrix Market coordinate files (.mtx) read as adjacency matrices.
//
// Banner `%%MatrixMarket matrix coordinate <integer|real|pattern> <general|symmetric>`, then `%`
// comment lines, a size line `rows cols entries` (rows == cols = V), then `i j [value]` lines with
// 1-based indices. Entry (i, j, w) is the edge i-1 -> j-1 of weight w; pattern entries weigh 1;
// a symmetric file stores one triangle, so the graph is read as undirected. Integer tokens are
// integers within +-2^53 in every field (weight_parse.hpp). The writer gives an undirected graph
// as symmetric, each edge once, and picks `integer` when every weight is one within +-2^53.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "io/formats.hpp"
#include "io/weight_parse.hpp"
#include "io/input_common.hpp"

namespace apsp::io {

namespace {
std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}

/// The banner's field and symmetry (line 1), refused with the line's text where they are not a
/// coordinate matrix of integer, real or pattern entries, general or symmetric.
struct Banner {
  bool pattern = false, integer = false, general = true;
};

Banner read_banner(const std::string& file, std::string_view line) {
  constexpr const char* kBanner =
      "'%%MatrixMarket matrix coordinate <integer|real|pattern> <general|symmetric>'";
  std::string_view tok[6];
  const std::size_t nt = split_tokens(line, false, tok, 6);
  if (nt == 0 || lower(tok[0]) != "%%matrixmarket")
    fail_at_line(file, 1, std::string("expected the header ") + kBanner + ", got " + quote(line));
  if (nt != 5 || lower(tok[1]) != "matrix")
    fail_at_line(file, 1, std::string("expected the header ") + kBanner + ", got " + quote(line));
  if (lower(tok[2]) != "coordinate")
    fail_at_line(file, 1,
                 "only 'coordinate' Matrix Market files hold graphs, got " + quote(tok[2]));
  const std::string field = lower(tok[3]), symmetry = lower(tok[4]);
  if (field != "integer" && field != "real" && field != "pattern")
    fail_at_line(
        file, 1,
        "field " + quote(tok[3]) + " is not supported (expected integer, real or pattern)");
  if (symmetry != "general" && symmetry != "symmetric")
    fail_at_line(file, 1,
                 "symmetry " + quote(tok[4]) + " is not supported (expected general or symmetric)");
  return Banner{field == "pattern", field == "integer", symmetry == "general"};
}

/// The size line, the first line after the banner that is neither a comment nor blank: the
/// vertex count (a square matrix) and the entry count.
void read_size(const std::string& file, LineReader& lines, std::int64_t& rows, std::int64_t& nnz) {
  std::string_view line, tok[6];
  std::int64_t cols = 0;
  while (lines.next(line)) {
    const std::size_t nt = split_tokens(line, false, tok, 6);
    if (nt == 0 || tok[0][0] == '%') continue;
    const std::int64_t ln = lines.line_no();
    if (nt != 3)
      fail_at_line(file, ln,
                   "expected the size line '<rows> <cols> <entries>', got " + quote(line));
    if (!parse_int(tok[0], rows) || !parse_int(tok[1], cols) || !parse_int(tok[2], nnz))
      fail_at_line(
          file, ln,
          "expected the size line '<rows> <cols> <entries>' as integers, got " + quote(line));
    if (rows != cols)
      fail_at_line(file, ln,
                   "matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
                       ", expected a square adjacency matrix");
    if (!vertex_count_ok(rows))
      fail_at_line(file, ln,
                   "vertex count " + std::to_string(rows) + " is outside 1.." +
                       std::to_string(kMaxVertices));
    if (nnz < 0) fail_at_line(file, ln, "entry count " + std::to_string(nnz) + " is negative");
    return;
  }
  fail_at_line(file, lines.line_no() + 1,
               "expected the size line '<rows> <cols> <entries>', but the file ends");
}

}  // namespace

Graph read_mtx(const InputFile& in) { return read_mtx(InputBytes(in)); }

Graph read_mtx(const InputBytes& in) {
  const std::string& file = in.path();
  if (in.size() == 0)
    fail_at_line(file, 1,
                 "expected the header '%%MatrixMarket matrix coordinate <integer|real|pattern> "
                 "<general|symmetric>', but the file is empty");
  LineReader lines(in.chars(), in.size());
  std::string_view line;
  std::string_view tok[6];
  lines.next(line);
  const Banner banner = read_banner(file, line);
  const bool pattern = banner.pattern, integer = banner.integer;
  std::int64_t rows = 0, nnz = 0;
  read_size(file, lines, rows, nnz);

  Graph g;
  g.num_vertices = rows;
  g.directed = banner.general;
  g.integer_weights = true;
  // An entry line takes at least 4 bytes ("1 1\n"): never reserve more than the file holds.
  g.reserve(std::size_t(std::min<std::int64_t>(nnz, std::int64_t(in.size() / 4) + 1)));
  const std::size_t want_tokens = pattern ? 2 : 3;
  std::int64_t entries = 0;
  while (lines.next(line)) {
    const std::size_t nt = split_tokens(line, false, tok, 6);
    if (nt == 0 || tok[0][0] == '%') continue;
    const std::int64_t ln = lines.line_no();
    if (nt != want_tokens)
      fail_at_line(file, ln,
                   std::string("expected an entry '<row> <col>") + (pattern ? "'" : " <value>'") +
                       ", got " + quote(line));
    std::int64_t i, j;
    if (!parse_int(tok[0], i))
      fail_at_line(file, ln, "expected an integer row index, got " + quote(tok[0]));
    if (!parse_int(tok[1], j))
      fail_at_line(file, ln, "expected an integer column index, got " + quote(tok[1]));
    if (i < 1 || i > rows)
      fail_at_line(file, ln, "row " + std::to_string(i) + " is outside 1.." + std::to_string(rows));
    if (j < 1 || j > rows)
      fail_at_line(file, ln,
                   "column " + std::to_string(j) + " is outside 1.." + std::to_string(rows));
    double w = 1;
    bool integral = true;
    if (!pattern) {
      const WeightStatus st = parse_weight(tok[2], integer, w, integral);
      if (st == WeightStatus::NotAnInteger)
        fail_at_line(file, ln, "expected an integer value, got " + quote(tok[2]));
      if (st == WeightStatus::NotANumber)
        fail_at_line(file, ln, "expected a finite real value, got " + quote(tok[2]));
      if (st != WeightStatus::Ok) fail_at_line(file, ln, weight_error(st, tok[2]));
    }
    if (++entries > nnz)
      fail_at_line(file, ln, "more entries than the size line's " + std::to_string(nnz));
    g.add_edge(std::int32_t(i - 1), std::int32_t(j - 1), w);
  }
  if (entries != nnz)
    fail_at_line(file, lines.line_no(),
                 "the file ends after " + count_of(entries, "entry", "entries") +
                     ", but the size line says " + std::to_string(nnz));
  return g;
}

}  // namespace apsp::io

namespace apsp {

void write_graph_mtx(const std::string& path, const Graph& graph) {
  const Graph copied = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? copied : graph;
  io::check_graph_path(path, GraphFormat::MatrixMarket);
  if (g.num_vertices < 1 || g.num_vertices > kMaxVertices)
    throw UsageError(path + ": cannot write Matrix Market: V = " + std::to_string(g.num_vertices) +
                     " is outside 1.." + std::to_string(kMaxVertices));
  bool integer = true;
  for (double w : g.weight) {
    if (!std::isfinite(w))
      throw UsageError(path + ": cannot write Matrix Market: weight " + io::shortest_text(w) +
                       " is not finite");
    integer &= w == std::floor(w) && std::fabs(w) <= double(io::kMaxExactWeight);
  }
  std::string out;
  out.reserve(g.num_edges() * 24 + 160);
  out += std::string("%%MatrixMarket matrix coordinate ") + (integer ? "integer" : "real") + " " +
         (g.directed ? "general" : "symmetric") +
         "\n% written by apsp: entry (i, j, w) is the edge i-1 -> j-1\n";
  out += std::to_string(g.num_vertices) + " " + std::to_string(g.num_vertices) + " " +
         std::to_string(g.num_edges()) + "\n";
  char buf[96];
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    char* p = buf;
    p = std::to_chars(p, buf + sizeof buf, std::int64_t(g.src[e]) + 1).ptr;
    *p++ = ' ';
    p = std::to_chars(p, buf + sizeof buf, std::int64_t(g.dst[e]) + 1).ptr;
    *p++ = ' ';
    p = io::put_weight(p, buf + sizeof buf, g.weight[e]);
    *p++ = '\n';
    out.append(buf, std::size_t(p - buf));
  }
  io::write_graph_file(path, out.data(), out.size());
}

}  // namespace apsp
