// src/io/input_common.hpp — what every reader shares: the whole input as one contiguous byte
// range (InputFile: mmap or read), errors located at an offset or a line, and the format readers
// on it (one file each).
//
// Readers see the whole input at once, so the binary reader can check the header against the
// file size before allocating anything and the text readers can scan lines without per-line
// system calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "io/text_common.hpp"

namespace apsp::io {

/// Throw InputError naming the file and the offset or line of bad content (or "changed while
/// being read" where a mapped input shrank under the parse: InputFile below).
[[noreturn]] void fail_at_offset(const std::string& file, std::uint64_t offset,
                                 const std::string& msg);
[[noreturn]] void fail_at_line(const std::string& file, std::int64_t line, const std::string& msg);

/// What an input is read for: a graph (a binary NTHU header then bounds a pipe's read) or
/// anything else.
enum class InputKind { Any, Graph };

/// A whole input file as bytes: mapped read-only for regular files; read into memory for "-"
/// (stdin), pipes, devices and files that report size 0 (/proc, /sys). A read that is not mapped
/// stops where a binary NTHU header says the graph ends (kind Graph), and never takes more than
/// the memory available (ResourceError naming the file and offset). A mapped file that shrinks
/// while it is parsed does not kill the process with SIGBUS: the missing pages read as zeros and
/// the read fails with InputError "FILE: changed while being read": from check_unchanged(),
/// which a caller runs after a parse that succeeded (read_graph does; the destructor runs it too
/// when no exception is in flight, but a throw there leaks a returned object under GCC 12), and
/// from fail_at_offset()/fail_at_line() when the zeros made the parse fail. The same for a file
/// whose size or modification time changed. Throws InputError(path, "", "cannot open
/// ...") for an unreadable path or a directory.
class InputFile {
 public:
  /// max_bytes: a larger input (a regular file's size, or what a stream gives) is an InputError
  /// "larger than the N bytes `why`", before more than max_bytes are read.
  explicit InputFile(const std::string& path, InputKind kind = InputKind::Any,
                     std::uint64_t max_bytes = UINT64_MAX, const std::string& why = "");
  ~InputFile() noexcept(false);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  const unsigned char* bytes() const { return data_; }
  const char* chars() const { return reinterpret_cast<const char*>(data_); }
  std::size_t size() const { return size_; }
  /// Throws InputError "PATH: changed while being read (...)" if a mapped file shrank (a page read
  /// as zeros), or its size or modification time is not what it was when it was opened.
  void check_unchanged() const;

 private:
  void read_stream(int fd, InputKind kind);
  void refuse_larger(std::uint64_t offset) const;
  std::string path_;
  std::uint64_t max_bytes_ = UINT64_MAX;
  std::string why_;  // what max_bytes_ is
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;  // munmap on destruction when non-null
  int map_fd_ = -1;      // kept open while mapped, to see whether the file changed
  int slot_ = -1;        // in the SIGBUS guard's table (input_file.cpp)
  std::int64_t mtime_ns_ = 0;
  std::vector<unsigned char> buf_;  // used when the file is not mapped
};

Graph read_nthu(const InputFile& in);
Graph read_dimacs(const InputFile& in);
Graph read_mtx(const InputFile& in);
Graph read_edgelist(const InputFile& in);

Matrix read_matrix_nthu(const InputFile& in);
Matrix read_matrix_npy(const InputFile& in);
Matrix read_matrix_text(const InputFile& in);

/// Vertex count check shared by the readers: 1 <= V <= kMaxVertices.
inline bool vertex_count_ok(std::int64_t v) { return v >= 1 && v <= kMaxVertices; }

}  // namespace apsp::io
