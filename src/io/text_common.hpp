// src/io/text_common.hpp — what the text formats share: lines and tokens, number parsing, and
// the quoting of a token for a message. The helpers the CLI writes its own messages with
// (count_of, shortest_text, errno_text, parse_int) are public: apsp/text.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "apsp/text.hpp"

namespace apsp::io {

/// The length of the UTF-8 sequence that lead byte `c` starts (1 for ASCII), 0 for a byte that
/// cannot start one (a continuation byte, C0, C1, F5..FF).
constexpr std::size_t utf8_sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}
/// Quotes a token for a message, shortened to a readable length.
std::string quote(std::string_view token);

/// Splits a text buffer into lines (LF or CRLF), counting line numbers from 1.
class LineReader {
 public:
  LineReader(const char* begin, std::size_t n) : p_(begin), end_(begin + n) {}
  /// Next line without its terminator (and without a trailing '\r'); false at end of input.
  bool next(std::string_view& line) {
    if (p_ >= end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', std::size_t(end_ - p_)));
    const char* stop = nl ? nl : end_;
    const char* e = stop;
    if (e > p_ && e[-1] == '\r') --e;
    line = std::string_view(p_, std::size_t(e - p_));
    p_ = nl ? nl + 1 : end_;
    ++line_no_;
    return true;
  }
  /// Number of the line last returned by next() (0 before the first).
  std::int64_t line_no() const { return line_no_; }

 private:
  const char* p_;
  const char* end_;
  std::int64_t line_no_ = 0;
};

/// Splits a line into tokens separated by spaces/tabs (and commas when `commas`).
inline std::size_t split_tokens(std::string_view line, bool commas, std::string_view* out,
                                std::size_t max_out) {
  std::size_t n = 0, i = 0;
  auto is_sep = [commas](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || (commas && c == ',');
  };
  while (i < line.size()) {
    while (i < line.size() && is_sep(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_sep(line[j])) ++j;
    if (n < max_out) out[n] = line.substr(i, j - i);
    ++n;
    i = j;
  }
  return n;
}

/// Parses the whole token as a finite real number; false otherwise (inf/nan are refused).
bool parse_real(std::string_view t, double& v);

}  // namespace apsp::io
