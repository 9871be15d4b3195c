// src/io/stream.cpp — MatrixStreamWriter: the output written stripe by stripe while a streaming
// backend hands results out (GPU D2H overlapped with the write; MPI gathers that no rank holds
// whole). Every format here is a header (npy only) followed by rows in order, so a stripe is
// written with the same per-format writer as a whole matrix, on a view of the stripe. Each stripe
// is one OutputFile append (threads, preallocation, mapping: docs/io.md).
#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "io/output_common.hpp"

namespace apsp {

struct MatrixStreamWriter::Impl {
  io::OutputFile file;
  std::int64_t rows, cols, written = 0;
  Dtype dtype;
  OutputFormat format;
  Impl(const std::string& path, std::int64_t r, std::int64_t c, Dtype t, OutputFormat f)
      : file(path), rows(r), cols(c), dtype(t), format(f) {}
};

MatrixStreamWriter::MatrixStreamWriter(const std::string& path, std::int64_t rows,
                                       std::int64_t cols, Dtype dtype, OutputFormat format) {
  if (format == OutputFormat::Auto) format = output_format_for(path);
  impl_ = std::make_unique<Impl>(path, rows, cols, dtype, format);
  if (format == OutputFormat::Npy) io::write_npy_header(impl_->file, dtype, rows, cols);
  // The binary formats' size is known now: preallocated (where that helps), and a full file system
  // fails here, before the first stripe, or a failed write says "after X of N bytes".
  if (format != OutputFormat::Text)
    impl_->file.reserve(impl_->file.size() +
                        std::uint64_t(rows) * std::uint64_t(cols) *
                            (format == OutputFormat::Npy ? dtype_size(dtype) : 4));
}

MatrixStreamWriter::~MatrixStreamWriter() = default;

std::int64_t MatrixStreamWriter::rows_written() const { return impl_->written; }

Dtype MatrixStreamWriter::dtype() const { return impl_->dtype; }

bool MatrixStreamWriter::accepts(Dtype t) const {
  const auto integer = [](Dtype d) { return d == Dtype::Int32 || d == Dtype::Int64; };
  return t == impl_->dtype ||
         (impl_->format == OutputFormat::Nthu && integer(t) && integer(impl_->dtype));
}

void MatrixStreamWriter::prefill() { impl_->file.prefill(); }

void MatrixStreamWriter::write(std::int64_t row0, const Matrix& stripe) {
  Impl& s = *impl_;
  if (row0 != s.written || stripe.cols() != s.cols || !accepts(stripe.dtype()) ||
      row0 + stripe.rows() > s.rows)
    throw Error(s.file.path() + ": internal error: stripe of rows " + std::to_string(row0) + ".." +
                std::to_string(row0 + stripe.rows()) + " out of order (next row is " +
                std::to_string(s.written) + ")");
  switch (s.format) {
    case OutputFormat::Npy:
      io::write_npy_body(s.file, stripe);
      break;
    case OutputFormat::Text:
      io::write_matrix_text(s.file, stripe);
      break;
    case OutputFormat::Nthu:
    case OutputFormat::Auto:
      io::write_matrix_nthu(s.file, stripe);
      break;
  }
  s.written += stripe.rows();
}

void MatrixStreamWriter::commit() {
  Impl& s = *impl_;
  if (s.written != s.rows)
    throw Error(s.file.path() + ": internal error: only " + std::to_string(s.written) + " of " +
                std::to_string(s.rows) + " rows were produced");
  s.file.commit();
}

}  // namespace apsp
