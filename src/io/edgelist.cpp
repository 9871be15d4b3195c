// src/io/edgelist.cpp — text edge lists (.txt .csv .tsv .el .wel, SNAP and GAPBS style).
//
// One edge per line, `u v [w]` (blanks or commas), 0-based ids or names, w = 1 by default;
// `#`/`%` comments, one optional header line, `# vertices: N` or SNAP's `# Nodes: N Edges: M` for
// V, SNAP's `# Undirected graph`. Big files of ids are parsed in parallel, cut at line boundaries;
// the first error by line number wins, so messages match a serial parse. Names (ReadOptions::
// names) are numbered in order of first appearance, serially. Rules: docs/io.md ("Reading a
// graph").
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "io/edgelist_text.hpp"
#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/weight_parse.hpp"

namespace apsp::io {

namespace {

using namespace edgelist;

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

/// The largest id the file may use, and what to say when one is larger.
struct IdLimit {
  std::int64_t max_id = kMaxId;
  std::string why;  // "" for the format's own limit
};

bool parse_id(std::string_view t, const IdLimit& limit, std::int64_t& v, std::string& err) {
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
  if (v > limit.max_id) {
    err = limit.why.empty()
              ? "vertex id " + std::to_string(v) + " is too large: ids must be at most " +
                    std::to_string(kMaxId) + " so that V = largest id + 1 fits in int32"
              : "vertex id " + std::to_string(v) + " is outside 0.." +
                    std::to_string(limit.max_id) + " (" + limit.why + ")";
    return false;
  }
  return true;
}

/// Splits a line that has commas into its fields, blanks around each trimmed. Returns the field
/// count (out holds the first max_out); `empty_col` is the 1-based column of the first empty
/// field, 0 when none is.
std::size_t split_csv(std::string_view line, std::string_view* out, std::size_t max_out,
                      std::size_t& empty_col) {
  std::size_t n = 0;
  empty_col = 0;
  for (;;) {
    const std::size_t comma = line.find(',');
    const std::string_view f = trim(line.substr(0, comma));
    if (f.empty() && empty_col == 0) empty_col = n + 1;
    if (n < max_out) out[n] = f;
    ++n;
    if (comma == std::string_view::npos) return n;
    line.remove_prefix(comma + 1);
  }
}

void parse_piece(const char* begin, std::size_t n, const IdLimit& limit, Piece& out) {
  LineReader lines(begin, n);
  std::string_view line;
  std::string_view tok[4];
  out.src.reserve(n / 8);
  out.dst.reserve(n / 8);
  out.w.reserve(n / 8);
  while (lines.next(line)) {
    line = strip_comment(line);
    auto fail = [&](std::string msg) {
      out.error_line = lines.line_no();
      out.error = std::move(msg);
    };
    std::size_t nt;
    if (std::memchr(line.data(), ',', line.size())) {
      std::size_t empty_col = 0;
      nt = split_csv(line, tok, 4, empty_col);
      if (empty_col) {
        fail("column " + std::to_string(empty_col) +
             " is empty: expected 'u,v[,w]' with every field filled, got " + quote(trim(line)));
        break;
      }
    } else {
      nt = split_tokens(line, false, tok, 4);
      if (nt == 0) continue;
    }
    if (nt < 2 || nt > 3) {
      fail("expected an edge 'u v [w]', got " + quote(trim(line)));
      break;
    }
    std::int64_t u, v;
    std::string err;
    if (!parse_id(tok[0], limit, u, err) || !parse_id(tok[1], limit, v, err)) {
      fail(err);
      break;
    }
    double w = 1;
    if (nt == 3) {
      bool integral = true;
      const WeightStatus st = parse_weight(tok[2], false, w, integral);
      if (st != WeightStatus::Ok) {
        fail(weight_error(st, tok[2]));
        break;
      }
      out.integer &= integral;
    }
    out.src.push_back(std::int32_t(u));
    out.dst.push_back(std::int32_t(v));
    out.w.push_back(w);
    out.max_id = std::max(out.max_id, std::max(u, v));
  }
  out.lines = lines.line_no();
}

/// Finds "key" (lower case) in a comment and the count after it: "# Nodes: 12 Edges: 30".
/// Returns -1 when the key is absent or the word after it (up to a blank or a comma) is not
/// number-like (prose: "Nodes: unknown"), -2 when a number-like word (a digit, or a sign or '.'
/// before one, first) is not a count in 1..kMaxVertices in digits (3.5, 5abc, -5, +4 are
/// refused). One '.', ';' or ',' after the digits ends a sentence: "Nodes: 77360." is 77360.
std::int64_t count_after(std::string_view comment, std::string_view key) {
  std::string low(comment);
  std::transform(low.begin(), low.end(), low.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  const std::size_t k = low.find(key);
  if (k == std::string::npos) return -1;
  std::string_view rest = std::string_view(comment).substr(k + key.size());
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  std::size_t d = 0;
  while (d < rest.size() && !is_blank(rest[d]) && rest[d] != ',') ++d;
  std::string_view word = rest.substr(0, d);
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t lead =
      !word.empty() && (word[0] == '+' || word[0] == '-' || word[0] == '.') ? 1 : 0;
  if (lead >= word.size() || !is_digit(word[lead])) return -1;
  if (word.back() == '.' || word.back() == ';' || word.back() == ',') word.remove_suffix(1);
  bool digits = true;
  for (const char c : word) digits &= is_digit(c);
  std::int64_t v = 0;
  if (!digits || !parse_int(word, v) || v < 1 || v > kMaxVertices) return -2;
  return v;
}

/// What comes before the first edge line: comments (one may state the vertex count) and at most
/// one header line.
struct Prelude {
  std::size_t body = 0;         // byte offset of the first line the pieces parse
  std::int64_t body_line = 0;   // lines before it
  std::int64_t vertices = 0;    // "# vertices: N" (strict), 0 = none
  std::int64_t nodes = 0;       // "# Nodes: N" (SNAP, V = max(N, largest id + 1)), 0 = none
  std::int64_t count_line = 0;  // the line that stated `vertices`
  std::int64_t nodes_line = 0;  // the line that stated `nodes`
  std::int64_t edges = 0;       // "# ... Edges: M" (SNAP), 0 = none
  std::int64_t edges_line = 0;
  std::int64_t undirected_line = 0;  // SNAP's "# Undirected graph ...", 0 = none
};

/// SNAP's "# Undirected graph: ..." (the first words of the comment, any case).
bool says_undirected(std::string_view comment) {
  while (!comment.empty() &&
         (comment.front() == '#' || comment.front() == '%' || is_blank(comment.front())))
    comment.remove_prefix(1);
  constexpr std::string_view kKey = "undirected graph";
  if (comment.size() < kKey.size()) return false;
  for (std::size_t i = 0; i < kKey.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(comment[i])) != kKey[i]) return false;
  return true;
}

/// `labels`: the header rule of a named edge list (a line of names is an edge unless it has a
/// third field or every field is a column name); else any line without a number is a header.
Prelude read_prelude(const std::string& file, const char* data, std::size_t n, bool labels) {
  Prelude p;
  LineReader lines(data, n);
  std::string_view line;
  std::string_view tok[8];
  bool header_done = false;
  while (lines.next(line)) {
    const std::size_t line_start = std::size_t(line.data() - data);
    const std::string_view data_part = strip_comment(line);
    if (data_part.size() != line.size()) {  // a comment: a vertex count?
      const std::string_view comment = line.substr(data_part.size());
      for (const auto& [key, slot] :
           {std::pair<std::string_view, std::int64_t*>{"vertices:", &p.vertices},
            std::pair<std::string_view, std::int64_t*>{"nodes:", &p.nodes}}) {
        const std::int64_t c = count_after(comment, key);
        if (c == -2)
          fail_at_line(file, lines.line_no(),
                       "expected a vertex count in 1.." + std::to_string(kMaxVertices) +
                           " (digits only) after '" + std::string(key) + "', got " +
                           quote(trim(comment)));
        if (c > 0) {
          *slot = c;
          (slot == &p.vertices ? p.count_line : p.nodes_line) = lines.line_no();
        }
      }
      if (const std::int64_t m = count_after(comment, "edges:"); m > 0) {
        p.edges = m;
        p.edges_line = lines.line_no();
      }
      if (p.undirected_line == 0 && says_undirected(comment)) p.undirected_line = lines.line_no();
    }
    const std::size_t nt = split_tokens(data_part, true, tok, 8);
    if (nt == 0) continue;
    // One header line ('src dst weight', 'u,v,w'): no field is a number.
    bool numeric = false;
    for (std::size_t i = 0; i < std::min<std::size_t>(nt, 8); ++i) {
      double w;
      bool integral;
      numeric |= parse_weight(tok[i], false, w, integral) != WeightStatus::NotANumber;
    }
    bool header_shape = !labels;
    if (labels) {  // by the fields names are split into ("New York,Boston" is two)
      std::string_view field[8];
      std::size_t empty_col = 0;
      const std::size_t nf = split_fields(data_part, field, 8, empty_col);
      bool names_only = true;
      for (std::size_t i = 0; i < std::min<std::size_t>(nf, 8); ++i)
        names_only &= is_column_name(field[i]);
      header_shape = nf >= 3 || names_only;
    }
    if (!numeric && header_shape && !header_done &&
        data_part.find(",,") == std::string_view::npos) {
      header_done = true;
      continue;
    }
    p.body = line_start;
    p.body_line = lines.line_no() - 1;
    return p;
  }
  p.body = n;
  p.body_line = lines.line_no();
  return p;
}

/// What a SNAP header says beside the edges: "# Undirected graph" is honoured (unless
/// ReadOptions::directed), counts that disagree with the edges are told (ReadOptions::warning).
void apply_header(const std::string& file, const Prelude& pre, const ReadOptions& o,
                  std::int64_t max_id, std::size_t edges, Graph& g) {
  const auto warn = [&](const std::string& msg) {
    if (o.warning) o.warning(file + ": " + msg);
  };
  if (pre.undirected_line > 0 && !o.directed && !o.undirected) {
    g.directed = false;
    warn("line " + std::to_string(pre.undirected_line) +
         " says 'Undirected graph': every edge is read in both directions (--directed keeps "
         "them one way)");
  }
  if (pre.nodes > 0 && g.labels.empty() && o.num_vertices == 0 && pre.vertices == 0 &&
      max_id + 1 > pre.nodes)
    warn("line " + std::to_string(pre.nodes_line) + " says Nodes: " + std::to_string(pre.nodes) +
         ", but the ids go up to " + std::to_string(max_id) + ": V = " +
         std::to_string(max_id + 1) + ", every id no edge uses an isolated vertex (--labels " +
         "numbers only the ids that occur)");
  if (pre.edges > 0 && std::int64_t(edges) != pre.edges)
    warn("line " + std::to_string(pre.edges_line) + " says Edges: " + std::to_string(pre.edges) +
         ", but the file has " + count_of(std::int64_t(edges), "edge", "edges") +
         " (a truncated file?)");
}

}  // namespace

Graph read_edgelist(const InputFile& in) { return read_edgelist(InputBytes(in)); }

Graph read_edgelist(const InputBytes& in, const ReadOptions& o) {
  const std::string& file = in.path();
  const std::int64_t num_vertices = o.num_vertices;
  // Read as an edge list, the banner would be a comment and the size line an edge.
  if (has_mtx_banner(in))
    fail_at_line(file, 1,
                 "a Matrix Market file (its first line is the '%%MatrixMarket' banner), not an "
                 "edge list: name it .mtx, or use --input-format mtx");
  const bool named =
      o.names == VertexNames::Labels ||
      (o.names == VertexNames::Auto && first_lines_have_names(in.chars(), in.size()));
  const Prelude pre = read_prelude(file, in.chars(), in.size(), named);
  const char* data = in.chars() + pre.body;
  const std::size_t n = in.size() - pre.body;
  if (named) {
    if (num_vertices > 0)
      throw UsageError(file + ": --vertices / num_vertices with named vertices: V is the number " +
                       "of names");
    Graph g = parse_named(file, data, n, pre.body_line);
    apply_header(file, pre, o, g.num_vertices - 1, g.num_edges(), g);
    return g;
  }

  IdLimit limit;
  if (num_vertices > 0) {
    limit.max_id = num_vertices - 1;
    limit.why = "num_vertices = " + std::to_string(num_vertices) + " (--vertices)";
  } else if (pre.vertices > 0) {
    limit.max_id = pre.vertices - 1;
    limit.why = "line " + std::to_string(pre.count_line) +
                " says vertices: " + std::to_string(pre.vertices);
  }

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
  for (std::size_t i = 0; i < pieces.size(); ++i)
    parse_piece(data + cut[i], cut[i + 1] - cut[i], limit, pieces[i]);

  std::int64_t line_base = pre.body_line, max_id = -1, edges = 0;
  bool integer = true;
  for (const Piece& p : pieces) {
    if (p.error_line)
      fail_at_line(file, line_base + p.error_line,
                   o.names == VertexNames::Auto && p.error.starts_with("expected an integer vertex")
                       ? p.error + " (to read every vertex token as a name: --labels)"
                       : p.error);
    line_base += p.lines;
    max_id = std::max(max_id, p.max_id);
    edges += std::int64_t(p.src.size());
    integer &= p.integer;
  }
  const std::int64_t stated = num_vertices > 0   ? num_vertices
                              : pre.vertices > 0 ? pre.vertices
                                                 : pre.nodes;
  if (edges == 0 && stated == 0)
    fail_at_line(
        file, std::max<std::int64_t>(line_base, 1),
        "no edges: expected at least one line 'u v [w]' (V is the largest id + 1), or a comment "
        "'# vertices: N' for a graph without edges");

  Graph g;
  g.num_vertices = std::max(max_id + 1, stated);
  g.directed = true;
  g.integer_weights = integer;
  g.src.resize(std::size_t(edges));
  g.dst.resize(std::size_t(edges));
  g.weight.resize(std::size_t(edges));
  std::vector<std::size_t> offset(pieces.size() + 1, 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) offset[i + 1] = offset[i] + pieces[i].src.size();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::copy(pieces[i].src.begin(), pieces[i].src.end(),
              g.src.begin() + std::ptrdiff_t(offset[i]));
    std::copy(pieces[i].dst.begin(), pieces[i].dst.end(),
              g.dst.begin() + std::ptrdiff_t(offset[i]));
    std::copy(pieces[i].w.begin(), pieces[i].w.end(), g.weight.begin() + std::ptrdiff_t(offset[i]));
  }
  apply_header(file, pre, o, max_id, std::size_t(edges), g);
  return g;
}

}  // namespace apsp::io

namespace apsp {

void write_graph_edgelist(const std::string& path, const Graph& graph) {
  // A dense adjacency view has no edge arrays: write its edges (a copy, 16 B per edge).
  const Graph copied = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? copied : graph;
  io::check_graph_path(path, GraphFormat::EdgeList);
  if (g.num_vertices < 1 || g.num_vertices > kMaxVertices)
    throw UsageError(path + ": cannot write an edge list: V = " + std::to_string(g.num_vertices) +
                     " is outside 1.." + std::to_string(kMaxVertices));
  const std::string ext = io::lower_extension(io::strip_gz_suffix(path));
  const char sep = ext == ".csv" ? ',' : ext == ".tsv" ? '\t' : ' ';
  std::size_t lines = 0;
  for (std::size_t e = 0; e < g.num_edges(); ++e)
    lines += (!g.directed && g.src[e] != g.dst[e]) ? 2 : 1;
  std::string out;
  out.reserve(lines * 16 + 160);
  out += std::string("# apsp edge list, ") +
         (g.directed ? "directed" : "undirected (written in both directions)") + ": u" + sep + "v" +
         sep + "w per line, 0-based ids\n";
  out += "# Nodes: " + std::to_string(g.num_vertices) + " Edges: " + std::to_string(lines) + "\n";
  char buf[96];
  auto put_edge = [&](std::int32_t u, std::int32_t v, double w) {
    char* p = buf;
    p = std::to_chars(p, buf + sizeof buf, u).ptr;
    *p++ = sep;
    p = std::to_chars(p, buf + sizeof buf, v).ptr;
    *p++ = sep;
    p = io::put_weight(p, buf + sizeof buf, w);
    *p++ = '\n';
    out.append(buf, std::size_t(p - buf));
  };
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    put_edge(g.src[e], g.dst[e], g.weight[e]);
    if (!g.directed && g.src[e] != g.dst[e]) put_edge(g.dst[e], g.src[e], g.weight[e]);
  }
  io::write_graph_file(path, out.data(), out.size());
}

}  // namespace apsp
