// src/io/npy.cpp — NumPy .npy files (format version 1.0, or 2.0 when the header needs it).
//
// Layout: "\x93NUMPY", major, minor, header length (uint16 in 1.0, uint32 in 2.0), then a Python
// dict literal {'descr': '<i4', 'fortran_order': False, 'shape': (R, C), } padded with spaces and
// a newline so that the data starts on a 64-byte boundary, then R*C elements in C order. Only the
// logical rows x cols block of the matrix is written, so np.load(path, mmap_mode="r") sees a
// plain (V, V) array. Unreachable stays the dtype's sentinel: 1073741823 = 2^30-1 (int32),
// 4611686018427387903 = 2^62-1 (int64), inf (float32/float64); docs/io.md says so for users.
#include <string>

#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"

namespace apsp::io {

namespace {

const char* npy_descr(Dtype t) {
  switch (t) {
    case Dtype::Int32:
      return "<i4";
    case Dtype::Int64:
      return "<i8";
    case Dtype::Float32:
      return "<f4";
    case Dtype::Float64:
      return "<f8";
  }
  return "<f8";
}

constexpr char kMagic[] = "\x93NUMPY";

}  // namespace

void write_npy_header(OutputFile& f, Dtype dtype, std::int64_t rows, std::int64_t cols) {
  std::string dict = std::string("{'descr': '") + npy_descr(dtype) +
                     "', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "), }";
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string head(kMagic, 6);
  head += char(v2 ? 2 : 1);
  head += char(0);
  const std::uint32_t len = std::uint32_t(dict.size());
  head += char(len & 0xff);
  head += char((len >> 8) & 0xff);
  if (v2) {
    head += char((len >> 16) & 0xff);
    head += char((len >> 24) & 0xff);
  }
  head += dict;
  f.write(head.data(), head.size());
}

void write_npy_body(OutputFile& f, const Matrix& m) {
  const std::size_t es = dtype_size(m.dtype());
  const std::int64_t rows = m.rows(), cols = m.cols();
  if (rows == 0 || cols == 0) return;
  f.write_strided(m.raw(), rows, std::size_t(cols) * es, std::size_t(m.stride()) * es);
}

Matrix read_matrix_npy(const InputFile& in) { return read_matrix_npy(InputBytes(in)); }

Matrix read_matrix_npy(const InputBytes& in) {
  const std::string& file = in.path();
  const std::size_t n = in.size();
  const char* p = in.chars();
  if (n < 10 || std::memcmp(p, kMagic, 6) != 0)
    fail_at_offset(file, 0, "expected the .npy magic \\x93NUMPY");
  const int major = static_cast<unsigned char>(p[6]);
  if (major < 1 || major > 3)
    fail_at_offset(file, 6, "unsupported .npy version " + std::to_string(major));
  std::size_t len = static_cast<unsigned char>(p[8]) | std::size_t(static_cast<unsigned char>(p[9]))
                                                           << 8;
  std::size_t start = 10;
  if (major >= 2) {
    if (n < 12) fail_at_offset(file, 8, "truncated .npy header length");
    len |= std::size_t(static_cast<unsigned char>(p[10])) << 16 |
           std::size_t(static_cast<unsigned char>(p[11])) << 24;
    start = 12;
  }
  if (start + len > n) fail_at_offset(file, start, "the header runs past the end of the file");
  const std::string_view dict(p + start, len);

  auto value_of = [&](std::string_view key) -> std::string_view {
    const std::size_t k = dict.find(key);
    if (k == std::string_view::npos)
      fail_at_offset(file, start, "header has no " + std::string(key));
    std::size_t v = dict.find(':', k + key.size());
    if (v == std::string_view::npos)
      fail_at_offset(file, start + k, "malformed header entry " + std::string(key));
    ++v;
    while (v < dict.size() && dict[v] == ' ') ++v;
    return dict.substr(v);
  };
  const std::string_view d = value_of("'descr'");
  Dtype t;
  if (d.starts_with("'<i4'"))
    t = Dtype::Int32;
  else if (d.starts_with("'<i8'"))
    t = Dtype::Int64;
  else if (d.starts_with("'<f4'"))
    t = Dtype::Float32;
  else if (d.starts_with("'<f8'"))
    t = Dtype::Float64;
  else
    fail_at_offset(
        file, start,
        "dtype " + quote(d.substr(0, d.find(','))) + " is not one of '<i4' '<i8' '<f4' '<f8'");
  if (!value_of("'fortran_order'").starts_with("False"))
    fail_at_offset(file, start, "only C-order (fortran_order False) arrays are supported");
  const std::string_view s = value_of("'shape'");
  std::int64_t r = -1, c = -1;
  {
    std::string_view tok[3];
    const std::size_t close = s.find(')');
    if (s.empty() || s[0] != '(' || close == std::string_view::npos)
      fail_at_offset(file, start, "malformed shape " + quote(s.substr(0, 20)));
    const std::size_t nt = split_tokens(s.substr(1, close - 1), true, tok, 3);
    if (nt != 2 || !parse_int(tok[0], r) || !parse_int(tok[1], c) || r < 0 || c < 0)
      fail_at_offset(file, start,
                     "expected a 2-D shape (rows, cols), got " + quote(s.substr(0, close + 1)));
  }
  const std::size_t data_start = start + len;
  const std::size_t es = dtype_size(t);
  const std::uint64_t avail = n - data_start;
  const bool overflow = c > 0 && std::uint64_t(r) > UINT64_MAX / std::uint64_t(c) / es;
  const std::uint64_t need = overflow ? UINT64_MAX : std::uint64_t(r) * std::uint64_t(c) * es;
  if (need != avail)
    fail_at_offset(file, data_start,
                   "the shape (" + std::to_string(r) + ", " + std::to_string(c) + ") needs " +
                       (overflow ? std::string("more than 2^64") : std::to_string(need)) +
                       " data bytes, but the file has " + std::to_string(avail));
  Matrix m(r, c, t);
  if (need) std::memcpy(m.raw(), p + data_start, std::size_t(need));
  return m;
}

}  // namespace apsp::io
