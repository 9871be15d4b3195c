// src/io/mtx.cpp — Matrix Market coordinate files (.mtx) read as adjacency matrices.
//
// Banner `%%MatrixMarket matrix coordinate <integer|real|pattern> <general|symmetric>`, then `%`
// comment lines, a size line `rows cols entries` (rows == cols = V), then `i j [value]` lines with
// 1-based indices. Entry (i, j, w) is the edge i-1 -> j-1 of weight w; pattern entries weigh 1;
// a symmetric file stores one triangle, so the graph is read as undirected.
#include <algorithm>
#include <cctype>

#include "io/io_common.hpp"

namespace apsp::io {

namespace {
std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}
}  // namespace

Graph read_mtx(const InputFile& in) {
  const std::string& file = in.path();
  constexpr const char* kBanner = "'%%MatrixMarket matrix coordinate <integer|real|pattern> <general|symmetric>'";
  if (in.size() == 0) fail_at_line(file, 1, std::string("expected the header ") + kBanner + ", but the file is empty");
  LineReader lines(in.chars(), in.size());
  std::string_view line;
  std::string_view tok[6];

  lines.next(line);
  std::size_t nt = split_tokens(line, false, tok, 6);
  if (nt == 0 || lower(tok[0]) != "%%matrixmarket")
    fail_at_line(file, 1, std::string("expected the header ") + kBanner + ", got " + quote(line));
  if (nt != 5 || lower(tok[1]) != "matrix")
    fail_at_line(file, 1, std::string("expected the header ") + kBanner + ", got " + quote(line));
  if (lower(tok[2]) != "coordinate")
    fail_at_line(file, 1, "only 'coordinate' Matrix Market files hold graphs, got " + quote(tok[2]));
  const std::string field = lower(tok[3]), symmetry = lower(tok[4]);
  if (field != "integer" && field != "real" && field != "pattern")
    fail_at_line(file, 1, "field " + quote(tok[3]) + " is not supported (expected integer, real or pattern)");
  if (symmetry != "general" && symmetry != "symmetric")
    fail_at_line(file, 1, "symmetry " + quote(tok[4]) + " is not supported (expected general or symmetric)");
  const bool pattern = field == "pattern", integer = field == "integer";

  // Size line: the first line that is neither a comment nor blank.
  std::int64_t rows = 0, cols = 0, nnz = 0;
  bool have_size = false;
  while (lines.next(line)) {
    nt = split_tokens(line, false, tok, 6);
    if (nt == 0 || tok[0][0] == '%') continue;
    const std::int64_t ln = lines.line_no();
    if (nt != 3) fail_at_line(file, ln, "expected the size line '<rows> <cols> <entries>', got " + quote(line));
    if (!parse_int(tok[0], rows) || !parse_int(tok[1], cols) || !parse_int(tok[2], nnz))
      fail_at_line(file, ln, "expected the size line '<rows> <cols> <entries>' as integers, got " + quote(line));
    if (rows != cols)
      fail_at_line(file, ln, "matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
                                 ", expected a square adjacency matrix");
    if (!vertex_count_ok(rows))
      fail_at_line(file, ln, "vertex count " + std::to_string(rows) + " is outside 1.." + std::to_string(kMaxVertices));
    if (nnz < 0) fail_at_line(file, ln, "entry count " + std::to_string(nnz) + " is negative");
    have_size = true;
    break;
  }
  if (!have_size) fail_at_line(file, lines.line_no() + 1, "expected the size line '<rows> <cols> <entries>', but the file ends");

  Graph g;
  g.num_vertices = rows;
  g.directed = symmetry == "general";
  g.integer_weights = true;
  // An entry line takes at least 4 bytes ("1 1\n"): never reserve more than the file holds.
  g.reserve(std::size_t(std::min<std::int64_t>(nnz, std::int64_t(in.size() / 4) + 1)));
  const std::size_t want_tokens = pattern ? 2 : 3;
  std::int64_t entries = 0;
  while (lines.next(line)) {
    nt = split_tokens(line, false, tok, 6);
    if (nt == 0 || tok[0][0] == '%') continue;
    const std::int64_t ln = lines.line_no();
    if (nt != want_tokens)
      fail_at_line(file, ln, std::string("expected an entry '<row> <col>") + (pattern ? "'" : " <value>'") + ", got " + quote(line));
    std::int64_t i, j;
    if (!parse_int(tok[0], i)) fail_at_line(file, ln, "expected an integer row index, got " + quote(tok[0]));
    if (!parse_int(tok[1], j)) fail_at_line(file, ln, "expected an integer column index, got " + quote(tok[1]));
    if (i < 1 || i > rows) fail_at_line(file, ln, "row " + std::to_string(i) + " is outside 1.." + std::to_string(rows));
    if (j < 1 || j > rows) fail_at_line(file, ln, "column " + std::to_string(j) + " is outside 1.." + std::to_string(rows));
    double w = 1;
    if (integer) {
      std::int64_t iw;
      if (!parse_int(tok[2], iw)) fail_at_line(file, ln, "expected an integer value, got " + quote(tok[2]));
      w = double(iw);
    } else if (!pattern && !parse_real(tok[2], w)) {
      fail_at_line(file, ln, "expected a finite real value, got " + quote(tok[2]));
    }
    if (++entries > nnz) fail_at_line(file, ln, "more entries than the size line's " + std::to_string(nnz));
    g.add_edge(std::int32_t(i - 1), std::int32_t(j - 1), w);
  }
  if (entries != nnz)
    fail_at_line(file, lines.line_no(),
                 "the file ends after " + std::to_string(entries) + " entries, but the size line says " + std::to_string(nnz));
  return g;
}

}  // namespace apsp::io
