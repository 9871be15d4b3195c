// src/io/sniff.cpp — which reader a graph file needs when its name does not say: by content.
//
// NTHU binary is recognised by its size (exactly 8 + 12E bytes for the E in its header, V >= 1),
// text by its bytes (the first 64 KiB printable), and a text file's kind by its first lines: a
// '%%MatrixMarket' banner, DIMACS 'c' / 'p sp' / 'a u v w' lines, or edge lines 'u v [w]' (after
// '#'/'%' comments and at most one header line such as 'src dst weight'). Anything else is
// "unknown format": a reader is never picked by luck.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "io/formats.hpp"
#include "io/weight_parse.hpp"

namespace apsp::io {

namespace {

constexpr std::size_t kSniffBytes = std::size_t{64} << 10;

bool is_number_start(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.'; }

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}

const char* kUseFlag = "use --input-format nthu|dimacs|mtx|edgelist to name it";

/// The kind of a text file from its first lines; Auto when none fits.
InputFormat text_kind(const InputBytes& in, std::int64_t& bad_line, std::string& bad_text) {
  LineReader lines(in.chars(), std::min(in.size(), kSniffBytes));
  std::string_view line, tok[5];
  bool header_seen = false, first = true;
  while (lines.next(line)) {
    const std::size_t nt = split_tokens(line, false, tok, 5);
    if (nt == 0) continue;
    if (std::exchange(first, false) && lower(tok[0]) == "%%matrixmarket")
      return InputFormat::MatrixMarket;
    if (tok[0] == "c" || tok[0] == "p") return InputFormat::Dimacs;
    if (tok[0] == "a" && nt == 4) return InputFormat::Dimacs;
    if (tok[0][0] == '#' || tok[0][0] == '%') continue;
    if (is_number_start(tok[0][0])) return InputFormat::EdgeList;
    // One header line ('src dst weight', 'u,v,w') may precede the edges; a second such line
    // rules out an edge list.
    bad_line = lines.line_no();
    bad_text = std::string(line);
    if (header_seen) return InputFormat::Auto;
    header_seen = true;
  }
  if (!header_seen) {
    bad_line = std::max<std::int64_t>(1, lines.line_no());
    bad_text.clear();
  }
  return InputFormat::Auto;
}

}  // namespace

bool looks_like_text(const InputBytes& in) {
  const std::size_t n = std::min(in.size(), kSniffBytes);
  const unsigned char* p = in.bytes();
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = p[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
    if (c == 0x7f) return false;
  }
  return n > 0;
}

bool looks_like_utf8_text(const InputBytes& in) {
  if (!looks_like_text(in)) return false;
  const std::size_t n = std::min(in.size(), kSniffBytes);
  const unsigned char* p = in.bytes();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    const std::size_t len = utf8_sequence_length(c);
    if (len == 0) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if (i + k >= n) return n < in.size();  // a sequence cut by the sniffed prefix's end
      if ((p[i + k] & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

bool has_nthu_size(const InputBytes& in) {
  if (in.size() < 8) return false;
  std::int32_t v = 0, e = -1;
  std::memcpy(&v, in.bytes(), 4);
  std::memcpy(&e, in.bytes() + 4, 4);
  return v >= 1 && e >= 0 && std::uint64_t(in.size()) == 8 + 12 * std::uint64_t(e);
}

bool has_mtx_banner(const InputBytes& in) {
  constexpr std::string_view kBanner = "%%matrixmarket";
  if (in.size() < kBanner.size()) return false;
  return lower(std::string_view(in.chars(), kBanner.size())) == kBanner;
}

void refuse_misplaced_mtx_banner(const InputBytes& in) {
  constexpr std::string_view kBanner = "%%matrixmarket";
  LineReader lines(in.chars(), std::min(in.size(), kSniffBytes));
  std::string_view line, tok[1];
  while (lines.next(line)) {
    const std::size_t nt = split_tokens(line, true, tok, 1);
    if (nt > 0 && is_number_start(tok[0][0])) return;  // data before any banner: not one
    const std::string low = lower(line);
    const std::size_t at = low.find(kBanner);
    if (at == std::string::npos) continue;
    if (lines.line_no() == 1 && at == 0) return;  // where Matrix Market has it
    const std::string what = lines.line_no() > 1
                                 ? std::to_string(lines.line_no() - 1) + " line(s)"
                                 : std::to_string(at) + " byte(s) (blanks or a byte-order mark)";
    fail_at_line(in.path(), lines.line_no(),
                 "a Matrix Market banner ('%%MatrixMarket') after " + what +
                     ": Matrix Market starts with it on line 1 and this is no other format; "
                     "remove what precedes it, or name the format with --input-format");
  }
}

InputBytes skip_utf8_bom(const InputBytes& in) {
  if (in.size() >= 3 && std::memcmp(in.bytes(), "\xEF\xBB\xBF", 3) == 0)
    return InputBytes(in.path(), in.bytes() + 3, in.size() - 3);
  return in;
}

void refuse_npy(const InputBytes& in) {
  // NumPy's magic (as an NTHU header: V = 1297436307, E = 88400 for version 1): a result or a
  // dense matrix.
  if (in.size() >= 6 && std::memcmp(in.bytes(), "\x93NUMPY", 6) == 0)
    fail_at_offset(in.path(), 0,
                   "a .npy file holds a matrix, not a graph; apsp solve reads NTHU binary, DIMACS, "
                   "Matrix Market and edge lists (a dense adjacency matrix in .npy is solved from "
                   "Python: apsp.shortest_path(numpy.load(FILE)))");
}

InputFormat sniff_graph_format(const InputBytes& in, bool nthu_name) {
  const std::string& file = in.path();
  const std::size_t n = in.size();
  std::int32_t v = 0, e = -1;
  if (n >= 8) {
    std::memcpy(&v, in.bytes(), 4);
    std::memcpy(&e, in.bytes() + 4, 4);
  }
  refuse_npy(in);
  const bool nthu_size = has_nthu_size(in);
  if (nthu_size && nthu_name) return InputFormat::Nthu;
  if (looks_like_text(in)) {
    std::int64_t line = 0;
    std::string text;
    const InputFormat k = text_kind(in, line, text);
    if (k != InputFormat::Auto) return k;
    if (nthu_size) return InputFormat::Nthu;
    // "alice bob 3": an edge list with vertex names, which only a name or the flag may say.
    std::string_view tok[4];
    const std::size_t nt = split_tokens(text, true, tok, 4);
    double w = 0;
    bool integral = false;
    if ((nt == 2 || nt == 3) &&
        (nt == 2 || parse_weight(tok[2], false, w, integral) != WeightStatus::NotANumber))
      fail_at_line(file, line,
                   "unknown format: a text file whose lines look like an edge list with vertex "
                   "names, got " +
                       quote(text) +
                       "; name it .txt/.csv/.tsv, or use --input-format edgelist to read it so");
    fail_at_line(file, line,
                 "unknown format: a text file, but not DIMACS ('p sp' line), Matrix Market "
                 "('%%MatrixMarket' "
                 "banner) or an edge list ('u v [w]' lines)" +
                     (text.empty() ? std::string(" (no data lines)") : ", got " + quote(text)) +
                     "; " + kUseFlag);
  }
  if (nthu_size || nthu_name) return InputFormat::Nthu;
  if (n == 0)
    fail_at_offset(file, 0, std::string("unknown format: the file is empty; ") + kUseFlag);
  std::string why =
      n < 8 ? "it has only " + std::to_string(n) + " bytes"
            : "its header says V = " + std::to_string(v) + ", E = " + std::to_string(e) +
                  (v >= 1 && e >= 0
                       ? ", so it should be " + std::to_string(8 + 12 * std::uint64_t(e)) +
                             " bytes, not " + std::to_string(n)
                       : "");
  fail_at_offset(file, 0,
                 "unknown format: binary, but not NTHU (" + why + ") and not gzip; " + kUseFlag);
}

}  // namespace apsp::io
