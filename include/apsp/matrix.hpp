// apsp/matrix.hpp — a dense, row-major, 64-byte aligned matrix of one Dtype.
//
// Rows are `stride` elements apart (stride >= cols, a multiple of the backend's tile size), so a
// backend can work on the padded matrix in place and hand back the leading rows() x cols() block.
// Memory comes from plain aligned host memory or, when the CUDA backend is built, pinned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "apsp/types.hpp"

namespace apsp {

/// Host: aligned heap memory; Pinned: page-locked (CUDA); External: not owned (a view).
enum class Memory { Host, Pinned, External };

class Matrix {
 public:
  Matrix() = default;
  /// rows x cols logical, `stride` elements per row, `alloc_rows` rows allocated (>= rows).
  /// Throws ResourceError naming the bytes when the allocation fails.
  Matrix(std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t alloc_rows,
         Dtype dtype, Memory memory = Memory::Host);
  Matrix(std::int64_t rows, std::int64_t cols, Dtype dtype)
      : Matrix(rows, cols, cols, rows, dtype) {}
  /// A non-owning view of rows x cols elements `stride` apart at `data` (which must outlive it).
  static Matrix view(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride,
                     Dtype dtype);

  bool empty() const { return !data_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t stride() const { return stride_; }
  std::int64_t alloc_rows() const { return alloc_rows_; }
  Dtype dtype() const { return dtype_; }
  Memory memory() const { return memory_; }
  /// Bytes allocated (alloc_rows * stride * element size).
  std::size_t bytes() const {
    return std::size_t(alloc_rows_) * std::size_t(stride_) * dtype_size(dtype_);
  }

  void* raw() { return data_.get(); }
  const void* raw() const { return data_.get(); }
  template <class T>
  T* data() {
    return static_cast<T*>(raw());
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(raw());
  }
  template <class T>
  T* row(std::int64_t i) {
    return data<T>() + i * stride_;
  }
  template <class T>
  const T* row(std::int64_t i) const {
    return data<T>() + i * stride_;
  }
  template <class T>
  T& at(std::int64_t i, std::int64_t j) {
    return row<T>(i)[j];
  }
  template <class T>
  const T& at(std::int64_t i, std::int64_t j) const {
    return row<T>(i)[j];
  }

  /// Forgets the padding: rows()/cols() become r/c (<= the allocated shape).
  void set_logical_shape(std::int64_t r, std::int64_t c);

 private:
  struct Free {
    Memory memory;
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> data_{nullptr, Free{Memory::Host}};
  std::int64_t rows_ = 0, cols_ = 0, stride_ = 0, alloc_rows_ = 0;
  Dtype dtype_ = Dtype::Int32;
  Memory memory_ = Memory::Host;
};

/// Bytes needed for an n x n matrix padded to a multiple of `block` (for messages and checks).
std::size_t padded_matrix_bytes(std::int64_t n, std::int64_t block, Dtype dtype);
/// Rounds n up to a multiple of block.
inline std::int64_t round_up(std::int64_t n, std::int64_t block) {
  return (n + block - 1) / block * block;
}

}  // namespace apsp
