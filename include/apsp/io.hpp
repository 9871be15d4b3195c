// apsp/io.hpp — reading graphs and writing results in the supported file formats.
//
// Inputs: NTHU binary (int32 V, int32 E, E x (src, dst, w) int32, little-endian), DIMACS .gr,
// Matrix Market .mtx, edge lists (.txt .csv .tsv .el). Outputs: NTHU binary (V*V int32), .npy,
// text. Every reader validates sizes before allocating and throws InputError naming the file and
// the offset or line. Every writer writes to a temporary file in the same directory and renames it
// over the target only on success.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp {

enum class InputFormat { Auto, Nthu, Dimacs, MatrixMarket, EdgeList };
enum class OutputFormat { Auto, Nthu, Npy, Text };

/// "nthu", "dimacs", "mtx", "edgelist" (and "auto"); throws UsageError otherwise.
InputFormat parse_input_format(const std::string& s);
/// "nthu", "npy", "text" (and "auto"); throws UsageError otherwise.
OutputFormat parse_output_format(const std::string& s);
/// By extension: .gr -> Dimacs, .mtx -> MatrixMarket, .txt .csv .tsv .el -> EdgeList, else Nthu.
InputFormat input_format_for(const std::string& path);
/// By extension: .npy -> Npy, .txt -> Text, else Nthu.
OutputFormat output_format_for(const std::string& path);

struct ReadOptions {
  InputFormat format = InputFormat::Auto;
  /// Treat every edge as undirected (sets Graph::directed = false).
  bool undirected = false;
};

/// Reads a graph. Throws InputError (exit code 3) for bad content and for an unreadable path.
Graph read_graph(const std::string& path, const ReadOptions& options = {});

/// Writes the rows() x cols() block of `m` (any dtype; NTHU requires int32-representable values,
/// text and npy take any dtype). Unreachable is written as the dtype's sentinel: 1073741823
/// (int32, and NTHU output of any dtype), 4611686018427387903 (int64), inf (floats). Atomic: temp file + rename. Throws Error on I/O failure or when a
/// value cannot be represented in the format (e.g. int64 distance >= 2^30-1 in NTHU output).
void write_matrix(const std::string& path, const Matrix& m, OutputFormat format = OutputFormat::Auto);

/// Writes a rows x cols matrix that arrives in stripes of consecutive rows, in increasing row
/// order (what a streaming solve hands to SolveOptions::dist_sink). Same formats and atomicity
/// as write_matrix: nothing appears at `path` until commit(); the destructor removes the
/// temporary file of an uncommitted writer.
class MatrixStreamWriter {
 public:
  MatrixStreamWriter(const std::string& path, std::int64_t rows, std::int64_t cols, Dtype dtype,
                     OutputFormat format = OutputFormat::Auto);
  ~MatrixStreamWriter();
  MatrixStreamWriter(const MatrixStreamWriter&) = delete;
  MatrixStreamWriter& operator=(const MatrixStreamWriter&) = delete;
  /// Appends rows [row0, row0 + stripe.rows()); row0 must equal rows_written(). Throws Error.
  void write(std::int64_t row0, const Matrix& stripe);
  std::int64_t rows_written() const;
  Dtype dtype() const;
  /// Starts filling the output file's page cache on threads of its own, so that the stripes'
  /// writes later only copy (docs/io.md: APSP_WRITE_PREFILL). Returns at once; the first stripe
  /// stops what is left. For a caller with idle host time before the first stripe (a GPU solve).
  /// Does nothing where the file is not preallocated (not ext4, text output, a FIFO).
  void prefill();
  /// Checks every row arrived, then renames into place.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads a matrix written by write_matrix: NTHU (int32, must be square), npy or text.
Matrix read_matrix(const std::string& path, OutputFormat format = OutputFormat::Auto);

/// Writes a graph in NTHU binary (ids and weights must fit int32) — used by `apsp generate`.
void write_graph_nthu(const std::string& path, const Graph& g);
/// Writes a graph as a text edge list "u v w" per line.
void write_graph_edgelist(const std::string& path, const Graph& g);

}  // namespace apsp
