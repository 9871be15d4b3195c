// src/io/edgelist_text.hpp — the text edge lists' line helpers and their named edge lists
// (internal): edgelist.cpp reads ids, edgelist_names.cpp reads names (ReadOptions::names).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apsp/graph.hpp"

namespace apsp::io::edgelist {

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// The line without its comment.
inline std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' || line[i] == '%') return line.substr(0, i);
  return line;
}

/// The fields of a line of names without its comment: split at commas outside double quotes
/// (CSV: `"Ann Arbor, MI",Boston,3`) when it has one, else at tabs when it has one (TSV: names
/// with blanks), else at blanks. Fields are trimmed; `empty_col` is the 1-based column of the
/// first empty one (0 if none); quotes stay on the fields.
std::size_t split_fields(std::string_view line, std::string_view* tok, std::size_t max_out,
                         std::size_t& empty_col);

/// Column names a header line of a named edge list may hold (where its first data line has no
/// weight to tell it from an edge): "source target", "from,to", SNAP's "FromNodeId ToNodeId".
bool is_column_name(std::string_view t);

/// VertexNames::Auto: names when the first data line's vertex tokens are not integers. A first
/// line without numbers followed by a line of integer ids is a header over ids.
bool first_lines_have_names(const char* data, std::size_t n);

/// Parses a named edge list serially: every distinct vertex token is a vertex, numbered in order
/// of first appearance (Graph::labels). `line_base`: lines before `data` in the file.
Graph parse_named(const std::string& file, const char* data, std::size_t n, std::int64_t line_base);

}  // namespace apsp::io::edgelist
