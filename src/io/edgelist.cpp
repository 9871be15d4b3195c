// src/io/edgelist.cpp — text edge lists (.txt .csv .tsv .el, SNAP style).
//
// One edge per line: `u v [w]`, separated by spaces, tabs or commas; 0-based ids; w defaults to 1
// and may be an integer or a real. `#` or `%` starts a comment (to the end of the line); blank
// lines and CRLF endings are fine. V = largest id + 1. Big files are parsed in parallel: the
// buffer is cut at line boundaries, each thread parses its piece, and the first error (by line
// number) wins, so messages are the same as a serial parse would give.
#include <omp.h>

#include <cmath>

#include "io/io_common.hpp"

namespace apsp::io {

namespace {

struct Piece {
  std::vector<std::int32_t> src, dst;
  std::vector<double> w;
  std::int64_t lines = 0;       // lines in this piece
  std::int64_t error_line = 0;  // 1-based within the piece, 0 = no error
  std::string error;
  std::int64_t max_id = -1;
  bool integer = true;
};

constexpr std::int64_t kMaxId = kMaxVertices - 1;

bool parse_id(std::string_view t, std::int64_t& v, std::string& err) {
  if (!parse_int(t, v)) {
    // A valid integer token that overflowed int64 still deserves the "does not fit" message.
    bool digits = !t.empty();
    for (std::size_t i = (t.size() > 0 && (t[0] == '-' || t[0] == '+')) ? 1 : 0; i < t.size(); ++i)
      digits &= t[i] >= '0' && t[i] <= '9';
    err = digits && t.size() > 1 ? "vertex id " + quote(t) + " does not fit in int32"
                                 : "expected an integer vertex id, got " + quote(t);
    return false;
  }
  if (v < 0) {
    err = "vertex id " + std::to_string(v) + " is negative (ids are 0-based)";
    return false;
  }
  if (v > kMaxId) {
    err = "vertex id " + std::to_string(v) + " is too large: ids must be at most " + std::to_string(kMaxId) +
          " so that V = largest id + 1 fits in int32";
    return false;
  }
  return true;
}

void parse_piece(const char* begin, std::size_t n, Piece& out) {
  LineReader lines(begin, n);
  std::string_view line;
  std::string_view tok[4];
  out.src.reserve(n / 8);
  out.dst.reserve(n / 8);
  out.w.reserve(n / 8);
  while (lines.next(line)) {
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '#' || line[i] == '%') {
        line = line.substr(0, i);
        break;
      }
    const std::size_t nt = split_tokens(line, true, tok, 4);
    if (nt == 0) continue;
    auto fail = [&](std::string msg) {
      out.error_line = lines.line_no();
      out.error = std::move(msg);
    };
    if (nt < 2 || nt > 3) {
      fail("expected an edge 'u v [w]', got " + quote(line));
      break;
    }
    std::int64_t u, v;
    std::string err;
    if (!parse_id(tok[0], u, err) || !parse_id(tok[1], v, err)) {
      fail(err);
      break;
    }
    double w = 1;
    if (nt == 3) {
      std::int64_t iw;
      if (parse_int(tok[2], iw) && iw <= (std::int64_t{1} << 53) && iw >= -(std::int64_t{1} << 53)) {
        w = double(iw);
      } else if (parse_real(tok[2], w)) {
        if (w != std::floor(w)) out.integer = false;
      } else {
        fail("expected a finite number as the weight, got " + quote(tok[2]));
        break;
      }
    }
    out.src.push_back(std::int32_t(u));
    out.dst.push_back(std::int32_t(v));
    out.w.push_back(w);
    out.max_id = std::max(out.max_id, std::max(u, v));
  }
  out.lines = lines.line_no();
}

}  // namespace

Graph read_edgelist(const InputFile& in) {
  const std::string& file = in.path();
  const char* data = in.chars();
  const std::size_t n = in.size();

  // Cut into pieces at line starts; small files are one piece.
  const int threads = n < (std::size_t{1} << 20) ? 1 : std::max(1, omp_get_max_threads());
  std::vector<std::size_t> cut{0};
  for (int t = 1; t < threads; ++t) {
    std::size_t pos = std::max(cut.back(), n * std::size_t(t) / std::size_t(threads));
    const void* nl = pos < n ? std::memchr(data + pos, '\n', n - pos) : nullptr;
    pos = nl ? std::size_t(static_cast<const char*>(nl) - data) + 1 : n;
    cut.push_back(pos);
  }
  cut.push_back(n);
  std::vector<Piece> pieces(cut.size() - 1);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (std::size_t i = 0; i < pieces.size(); ++i) parse_piece(data + cut[i], cut[i + 1] - cut[i], pieces[i]);

  std::int64_t line_base = 0, max_id = -1, edges = 0;
  bool integer = true;
  for (const Piece& p : pieces) {
    if (p.error_line) fail_at_line(file, line_base + p.error_line, p.error);
    line_base += p.lines;
    max_id = std::max(max_id, p.max_id);
    edges += std::int64_t(p.src.size());
    integer &= p.integer;
  }
  if (edges == 0)
    fail_at_line(file, std::max<std::int64_t>(line_base, 1),
                 "no edges: expected at least one line 'u v [w]' (V is the largest id + 1)");

  Graph g;
  g.num_vertices = max_id + 1;
  g.directed = true;
  g.integer_weights = integer;
  g.src.resize(std::size_t(edges));
  g.dst.resize(std::size_t(edges));
  g.weight.resize(std::size_t(edges));
  std::vector<std::size_t> offset(pieces.size() + 1, 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) offset[i + 1] = offset[i] + pieces[i].src.size();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::copy(pieces[i].src.begin(), pieces[i].src.end(), g.src.begin() + std::ptrdiff_t(offset[i]));
    std::copy(pieces[i].dst.begin(), pieces[i].dst.end(), g.dst.begin() + std::ptrdiff_t(offset[i]));
    std::copy(pieces[i].w.begin(), pieces[i].w.end(), g.weight.begin() + std::ptrdiff_t(offset[i]));
  }
  return g;
}

}  // namespace apsp::io

namespace apsp {

void write_graph_edgelist(const std::string& path, const Graph& graph) {
  // A dense adjacency view has no edge arrays: write its edges (a copy, 16 B per edge).
  const Graph copied = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? copied : graph;
  std::string out;
  out.reserve(g.num_edges() * 16 + 128);
  out += "# apsp edge list: " + std::to_string(g.num_vertices) + " vertices, " +
         (g.directed ? "directed" : "undirected (written in both directions)") + "; u v w, 0-based ids\n";
  char buf[96];
  auto put_edge = [&](std::int32_t u, std::int32_t v, double w) {
    char* p = buf;
    p = std::to_chars(p, buf + sizeof buf, u).ptr;
    *p++ = ' ';
    p = std::to_chars(p, buf + sizeof buf, v).ptr;
    *p++ = ' ';
    if (w == std::floor(w) && std::fabs(w) <= 9007199254740992.0) p = std::to_chars(p, buf + sizeof buf, std::int64_t(w)).ptr;
    else p = std::to_chars(p, buf + sizeof buf, w).ptr;
    *p++ = '\n';
    out.append(buf, std::size_t(p - buf));
  };
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    put_edge(g.src[e], g.dst[e], g.weight[e]);
    if (!g.directed && g.src[e] != g.dst[e]) put_edge(g.dst[e], g.src[e], g.weight[e]);
  }
  io::OutputFile f(path);
  f.write(out.data(), out.size());
  f.commit();
}

}  // namespace apsp
