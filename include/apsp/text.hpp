// apsp/text.hpp — the few text helpers the library's messages are written with, for callers
// (the CLI) that write theirs in the same words: counts with their noun, the shortest text of a
// double, errno's text, and the integer token parse every reader uses.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace apsp::io {

/// A double in the shortest text that reads back as the same double (std::to_chars), for messages.
std::string shortest_text(double v);
/// "1 entry", "2 entries": a count with its noun (`one`, `many`) for messages.
std::string count_of(std::int64_t n, const char* one, const char* many);
/// strerror(e) as a std::string (the text of an errno value, for one-line errors).
std::string errno_text(int e);

/// Parses the whole token as a (signed, optionally '+') decimal integer; false on anything else
/// or overflow.
inline bool parse_int(std::string_view t, std::int64_t& v) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '+' || t[0] == '-') return false;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

}  // namespace apsp::io
