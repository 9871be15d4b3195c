// src/io/text_common.cpp — messages' texts and number parsing (text_common.hpp, apsp/text.hpp).
#include "io/text_common.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

namespace apsp::io {

std::string errno_text(int e) { return std::string(std::strerror(e)); }

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  const std::string_view shown = token.substr(0, kMax);
  // Control bytes and bytes that are not part of a UTF-8 sequence are shown as '?' (binary
  // data read as text must not reach a terminal, or a Python str, raw).
  std::string s(shown.size() + 2, '\'');
  for (std::size_t i = 0; i < shown.size();) {
    const auto c = static_cast<unsigned char>(shown[i]);
    const std::size_t len = utf8_sequence_length(c);
    bool whole = len > 0 && i + len <= shown.size();
    for (std::size_t k = 1; whole && k < len; ++k)
      whole = (static_cast<unsigned char>(shown[i + k]) & 0xC0) == 0x80;
    if (!whole || (len == 1 && (c < 0x20 || c == 0x7f))) {
      s[i + 1] = '?';
      ++i;
      continue;
    }
    for (std::size_t k = 0; k < len; ++k, ++i) s[i + 1] = shown[i];
  }
  if (token.size() > kMax) s.insert(s.size() - 1, "...");
  return s;
}

std::string shortest_text(double v) {
  char buf[32];
  return std::string(buf, std::size_t(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

std::string count_of(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool parse_real(std::string_view t, double& v) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '+' || t[0] == '-') return false;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size() && std::isfinite(v);
}

}  // namespace apsp::io
