// src/io/text.cpp — plain-text matrices: one row per line, values separated by one space.
//
// Integers are written in decimal; floats in the shortest form that reads back exactly. Unreachable
// is `inf` whatever the dtype (the int32 sentinel 1073741823 and int64's 2^62-1 included), so a
// text result reads the same whichever type the solver chose. Values are separated by a comma
// for NAME.csv, a tab for NAME.tsv, else a space. Rows are formatted in parallel, a chunk at a
// time. Reading back (blanks or commas) gives int32 when every finite value is an int32 below
// its sentinel 1073741823 (`inf` reads as that sentinel), likewise int64 (2^62-1), float64
// otherwise.
#include <cmath>
#include <limits>

#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"

namespace apsp::io {

namespace {

template <class T>
char* put_value(char* p, char* end, T v) {
  if constexpr (std::is_integral_v<T>) {
    if (v == unreachable<T>()) {
      std::memcpy(p, "inf", 3);
      return p + 3;
    }
  } else {
    if (std::isinf(v)) {
      if (v < 0) *p++ = '-';
      std::memcpy(p, "inf", 3);
      return p + 3;
    }
    if (std::isnan(v)) {
      std::memcpy(p, "nan", 3);
      return p + 3;
    }
  }
  return std::to_chars(p, end, v).ptr;
}

}  // namespace

void write_matrix_text(OutputFile& f, const Matrix& m) {
  const std::int64_t rows = m.rows(), cols = m.cols();
  if (rows == 0) return;
  const std::string ext = lower_extension(f.path());
  const char sep = ext == ".csv" ? ',' : ext == ".tsv" ? '\t' : ' ';
  visit_dtype(m.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr std::size_t kMaxChars = 32;  // longest value text plus the separator
    const std::size_t row_cap = std::size_t(cols) * kMaxChars + 1;
    const std::int64_t chunk =
        std::max<std::int64_t>(1, std::int64_t((std::size_t{32} << 20) / row_cap));
    std::vector<char> buf(std::size_t(std::min(chunk, rows)) * row_cap);
    std::vector<std::size_t> len(std::size_t(std::min(chunk, rows)));
    for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const std::int64_t r1 = std::min(rows, r0 + chunk);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = r0; i < r1; ++i) {
        char* const start = buf.data() + std::size_t(i - r0) * row_cap;
        char* const end = start + row_cap;
        char* p = start;
        const T* r = m.row<T>(i);
        for (std::int64_t j = 0; j < cols; ++j) {
          if (j) *p++ = sep;
          p = put_value(p, end, r[j]);
        }
        *p++ = '\n';
        len[std::size_t(i - r0)] = std::size_t(p - start);
      }
      // Close the gaps between rows in place, then write the chunk at once.
      std::size_t at = len[0];
      for (std::int64_t i = r0 + 1; i < r1; ++i) {
        const std::size_t k = std::size_t(i - r0);
        std::memmove(buf.data() + at, buf.data() + k * row_cap, len[k]);
        at += len[k];
      }
      f.write(buf.data(), at);
    }
    return 0;
  });
}

Matrix read_matrix_text(const InputFile& in) { return read_matrix_text(InputBytes(in)); }

Matrix read_matrix_text(const InputBytes& bytes) {
  const InputBytes in = skip_utf8_bom(bytes);
  const std::string& file = in.path();
  LineReader lines(in.chars(), in.size());
  std::string_view line;
  std::vector<std::string_view> tok;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  bool all_int = true, all_int32 = true;
  std::int64_t rows = 0, cols = -1, max_int = std::numeric_limits<std::int64_t>::min();
  while (lines.next(line)) {
    const std::size_t nt = split_tokens(line, true, nullptr, 0);
    if (nt == 0) continue;
    tok.resize(nt);
    split_tokens(line, true, tok.data(), nt);
    if (cols < 0) cols = std::int64_t(nt);
    if (std::int64_t(nt) != cols)
      fail_at_line(file, lines.line_no(),
                   "row has " + std::to_string(nt) + " values, expected " + std::to_string(cols));
    for (std::string_view t : tok) {
      std::int64_t iv;
      double dv;
      if (parse_int(t, iv)) {
        ints.push_back(iv);
        reals.push_back(double(iv));
        all_int32 &= iv >= std::numeric_limits<std::int32_t>::min() &&
                     iv <= std::numeric_limits<std::int32_t>::max();
        max_int = std::max(max_int, iv);
        continue;
      }
      if (t == "inf" || t == "+inf") {
        ints.push_back(0);
        reals.push_back(std::numeric_limits<double>::infinity());
        continue;
      }
      if (t == "-inf")
        dv = -std::numeric_limits<double>::infinity();
      else if (!parse_real(t, dv))
        fail_at_line(file, lines.line_no(), "expected a number, got " + quote(t));
      all_int = false;
      ints.push_back(0);
      reals.push_back(dv);
    }
    ++rows;
  }
  if (rows == 0)
    fail_at_line(file, 1, "expected at least one row of numbers, but the file has none");
  // An integer type only where no finite value reaches its sentinel, `inf` or not: the reader
  // of the matrix would take that value for unreachable.
  all_int32 &= max_int < std::int64_t(unreachable<std::int32_t>());
  const bool int64_ok = max_int < unreachable<std::int64_t>();
  const Dtype t = !all_int || !int64_ok ? Dtype::Float64 : all_int32 ? Dtype::Int32 : Dtype::Int64;
  Matrix m(rows, cols, t);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::size_t k = std::size_t(i * cols + j);
      switch (t) {
        case Dtype::Int32:
          m.at<std::int32_t>(i, j) =
              std::isinf(reals[k]) ? unreachable<std::int32_t>() : std::int32_t(ints[k]);
          break;
        case Dtype::Int64:
          m.at<std::int64_t>(i, j) = std::isinf(reals[k]) ? unreachable<std::int64_t>() : ints[k];
          break;
        default:
          m.at<double>(i, j) = reals[k];
          break;
      }
    }
  return m;
}

}  // namespace apsp::io
