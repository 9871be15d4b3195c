// src/io/edgelist_names.cpp — named text edge lists (edgelist_text.hpp): the vertex tokens are
// names, numbered in order of first appearance; CSV fields may be quoted (RFC 4180).
#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "io/edgelist_text.hpp"
#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/weight_parse.hpp"

namespace apsp::io::edgelist {

namespace {

/// Whether the token reads as a number (an id or a weight).
bool is_number(std::string_view t) {
  double w;
  bool integral;
  return parse_weight(t, false, w, integral) != WeightStatus::NotANumber;
}

/// A field of a named edge list, without the double quotes of a quoted CSV field; a doubled ""
/// inside one is one " (RFC 4180), that name then kept in `store` (its strings stay put).
std::string_view unquote(std::string_view t, std::deque<std::string>& store) {
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return t;
  t = t.substr(1, t.size() - 2);
  if (t.find("\"\"") == std::string_view::npos) return t;
  std::string& name = store.emplace_back();
  for (std::size_t i = 0; i < t.size(); ++i) {
    name += t[i];
    if (t[i] == '"' && i + 1 < t.size() && t[i + 1] == '"') ++i;
  }
  return name;
}

}  // namespace

/// The fields of a line of names without its comment: split at commas outside double quotes
/// (CSV: `"Ann Arbor, MI",Boston,3`) when it has one, else at tabs when it has one (TSV: names
/// with blanks), else at blanks. Fields are trimmed; `empty_col` is the 1-based column of the
/// first empty one (0 if none); quotes stay on the fields (unquote).
std::size_t split_fields(std::string_view line, std::string_view* tok, std::size_t max_out,
                         std::size_t& empty_col) {
  empty_col = 0;
  if (trim(line).empty()) return 0;  // a blank line, tabs and all
  const bool commas = line.find(',') != std::string_view::npos;
  if (!commas && line.find('\t') == std::string_view::npos)
    return split_tokens(line, false, tok, max_out);
  const char sep = commas ? ',' : '\t';
  std::size_t n = 0, start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i < line.size() && (line[i] != sep || quoted)) continue;
    const std::string_view f = trim(line.substr(start, i - start));
    if (f.empty() && empty_col == 0) empty_col = n + 1;
    if (n < max_out) tok[n] = f;
    ++n;
    start = i + 1;
  }
  return n;
}

/// Column names a header line of a named edge list may hold (where its first data line has no
/// weight to tell it from an edge): "source target", "from,to", SNAP's "FromNodeId ToNodeId".
bool is_column_name(std::string_view t) {
  static constexpr std::string_view kNames[] = {
      "source",   "target",     "src",      "dst",       "dest",    "destination", "from",
      "to",       "u",          "v",        "w",         "weight",  "cost",        "length",
      "distance", "dist",       "node",     "node1",     "node2",   "node_1",      "node_2",
      "nodeid",   "fromnodeid", "tonodeid", "from_node", "to_node", "fromnode",    "tonode",
      "head",     "tail",       "vertex",   "vertex1",   "vertex2", "id1",         "id2",
      "origin",   "orig",       "start",    "end",       "sink",    "i",           "j",
      "value",    "label1",     "label2"};
  std::string low;
  for (const char c : t)
    if (c != '"' && c != '\'') low += char(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view n : kNames)
    if (low == n) return true;
  return false;
}

/// VertexNames::Auto: names when the first data line's vertex tokens are not integers. A first
/// line without numbers followed by a line of integer ids is a header over ids.
bool first_lines_have_names(const char* data, std::size_t n) {
  LineReader lines(data, n);
  std::string_view line, tok[8];
  bool header_seen = false;
  while (lines.next(line)) {
    std::size_t empty_col;
    const std::size_t nt = split_fields(strip_comment(line), tok, 8, empty_col);
    if (nt == 0 || (nt == 1 && tok[0].empty())) continue;
    std::int64_t v;
    const bool u_int = parse_int(tok[0], v), v_int = nt >= 2 && parse_int(tok[1], v);
    // Names only where neither vertex token is an integer: "0 x" is a typo in a file of ids
    // (an error naming the line), never names.
    const bool names = nt >= 2 && !u_int && !v_int;
    if (header_seen) return names;
    if (u_int || v_int) return false;
    bool numeric = false;
    for (std::size_t i = 0; i < std::min<std::size_t>(nt, 8); ++i) numeric |= is_number(tok[i]);
    if (numeric) return names;  // "alice bob 3"
    header_seen = true;         // "src dst" or "alice bob": the next line tells
  }
  return header_seen;
}

/// Parses a named edge list serially: every distinct vertex token is a vertex, numbered in order
/// of first appearance (Graph::labels).
Graph parse_named(const std::string& file, const char* data, std::size_t n,
                  std::int64_t line_base) {
  std::unordered_map<std::string_view, std::int32_t> ids;
  std::vector<std::string_view> names;
  std::deque<std::string> unescaped;  // names with a doubled quote, unquoted (unquote)
  Graph g;
  g.directed = true;
  g.integer_weights = true;
  LineReader lines(data, n);
  std::string_view line, tok[4];
  auto fail = [&](const std::string& msg) { fail_at_line(file, line_base + lines.line_no(), msg); };
  auto id_of = [&](std::string_view t) -> std::int32_t {
    const std::string_view name = unquote(t, unescaped);
    if (name.empty()) fail("a vertex name is empty: expected 'u v [w]', got " + quote(trim(line)));
    const auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    if (std::int64_t(names.size()) >= kMaxVertices)
      fail("more than " + std::to_string(kMaxVertices) + " distinct vertex names");
    const auto id = std::int32_t(names.size());
    ids.emplace(name, id);
    names.push_back(name);
    return id;
  };
  while (lines.next(line)) {
    std::size_t empty_col = 0;
    const std::size_t nt = split_fields(strip_comment(line), tok, 4, empty_col);
    if (nt == 0) continue;
    if (empty_col)
      fail("column " + std::to_string(empty_col) +
           " is empty: expected 'u,v[,w]' with every field filled, got " + quote(trim(line)));
    if (nt < 2 || nt > 3) fail("expected an edge 'u v [w]', got " + quote(trim(line)));
    const std::int32_t u = id_of(tok[0]), v = id_of(tok[1]);
    double w = 1;
    if (nt == 3) {
      bool integral = true;
      const WeightStatus st = parse_weight(tok[2], false, w, integral);
      if (st != WeightStatus::Ok) fail(weight_error(st, tok[2]));
      g.integer_weights &= integral;
    }
    g.add_edge(u, v, w);
  }
  g.num_vertices = std::int64_t(names.size());
  g.labels.reserve(names.size());
  for (const std::string_view name : names) g.labels.emplace_back(name);
  if (g.num_vertices == 0)
    fail_at_line(file, std::max<std::int64_t>(line_base + lines.line_no(), 1),
                 "no edges: expected at least one line 'u v [w]'");
  return g;
}

}  // namespace apsp::io::edgelist
