// src/core/matrix.cpp — aligned (or pinned) matrix storage; large host matrices on huge pages.
#include "apsp/matrix.hpp"

#include <cstdlib>
#include <new>
#include <string>

#include "apsp/errors.hpp"
#include "core/host_buffer.hpp"
#include "core/pinned.hpp"

namespace apsp {

namespace {
std::string human_bytes(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu bytes (%.1f %s)", b, v, units[u]);
  return buf;
}
}  // namespace

std::size_t padded_matrix_bytes(std::int64_t n, std::int64_t block, Dtype dtype) {
  const auto p = std::size_t(round_up(n, block));
  return p * p * dtype_size(dtype);
}

Matrix::Matrix(std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t alloc_rows,
               Dtype dtype, Memory memory)
    : rows_(rows),
      cols_(cols),
      stride_(stride),
      alloc_rows_(alloc_rows),
      dtype_(dtype),
      memory_(memory) {
  APSP_EXPECTS(rows >= 0 && cols >= 0 && stride >= cols && alloc_rows >= rows, "bad matrix shape");
  const std::size_t n = bytes();
  if (n == 0) return;
  if (alloc_rows > 0 &&
      std::size_t(stride) > SIZE_MAX / std::size_t(alloc_rows) / dtype_size(dtype))
    throw ResourceError("matrix of " + std::to_string(alloc_rows) + " x " + std::to_string(stride) +
                        " " + dtype_name(dtype) + " does not fit in memory");
  void* p = nullptr;
  if (memory == Memory::Pinned) p = detail::pinned_alloc(n);
  if (!p) {
    memory_ = Memory::Host;
    p = detail::host_alloc(n);  // huge pages for large matrices (host_buffer.hpp)
  }
  if (!p)
    throw ResourceError("cannot allocate " + human_bytes(n) + " for a " + std::to_string(rows) +
                        " x " + std::to_string(cols) + " " + dtype_name(dtype) + " matrix");
  data_ = std::unique_ptr<void, Free>(p, Free{memory_});
}

Matrix Matrix::view(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride,
                    Dtype dtype) {
  APSP_EXPECTS(rows >= 0 && cols >= 0 && stride >= cols, "bad matrix view shape");
  Matrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.stride_ = stride;
  m.alloc_rows_ = rows;
  m.dtype_ = dtype;
  m.memory_ = Memory::External;
  m.data_ = std::unique_ptr<void, Free>(const_cast<void*>(data), Free{Memory::External});
  return m;
}

void Matrix::Free::operator()(void* p) const {
  if (memory == Memory::Pinned)
    detail::pinned_free(p);
  else if (memory == Memory::Host)
    std::free(p);
}

void Matrix::set_logical_shape(std::int64_t r, std::int64_t c) {
  APSP_EXPECTS(r <= alloc_rows_ && c <= stride_, "logical shape larger than the allocation");
  rows_ = r;
  cols_ = c;
}

}  // namespace apsp
