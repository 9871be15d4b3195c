// apsp/io.hpp — reading graphs and writing results in the supported file formats.
//
// Inputs: NTHU binary (int32 V, int32 E, E x (src, dst, w) int32, little-endian), DIMACS .gr,
// Matrix Market .mtx, edge lists (.txt .csv .tsv .el .wel), each also gzip-compressed (NAME.gz).
// A name that does not say the format is read by its content (docs/io.md: "Formats"). Outputs:
// NTHU binary (V*V int32), .npy, text. Every reader validates sizes before allocating and throws
// InputError naming the file and the offset or line. Every writer writes to a temporary file in
// the same directory and renames it over the target only on success.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp {

enum class InputFormat { Auto, Nthu, Dimacs, MatrixMarket, EdgeList };
enum class OutputFormat { Auto, Nthu, Npy, Text };
/// The format of a graph file, for writing as for reading.
using GraphFormat = InputFormat;

/// "nthu", "dimacs", "mtx", "edgelist" (and "auto"); throws UsageError otherwise.
InputFormat parse_input_format(const std::string& s);
/// The same names, for a graph to write; the UsageError speaks of a graph format.
GraphFormat parse_graph_format(const std::string& s);
/// "nthu", "npy", "text" (and "auto"); throws UsageError otherwise.
OutputFormat parse_output_format(const std::string& s);
/// By name, a final ".gz" set aside: .gr -> Dimacs, .mtx -> MatrixMarket, .txt .csv .tsv .el .wel
/// -> EdgeList; no extension, .bin, .in, .nthu and numeric extensions (the course's c01.1) ->
/// Nthu; anything else -> Auto: read_graph() then goes by the content alone.
InputFormat input_format_for(const std::string& path);
/// By extension: .npy -> Npy; .txt .tsv .csv -> Text (values separated by a space, a tab, a
/// comma); no extension, .bin, .out, .nthu, .next, numeric extensions -> Nthu. Throws UsageError
/// for any other extension ("use --output-format"), so a name is never written in a format it
/// does not say.
OutputFormat output_format_for(const std::string& path);
/// The format write_graph() gives `path`, by the same names as input_format_for (a final ".gz"
/// compresses). Throws UsageError for .npy (a graph is not a matrix) and unknown extensions.
GraphFormat graph_format_for(const std::string& path);

/// How an edge list's vertex tokens are read: Ids (0-based integers only), Labels (every token is
/// a name; vertex k is the k-th distinct name in file order, Graph::labels), Auto (Ids, unless a
/// vertex token is not an integer: then the whole file as Labels).
enum class VertexNames { Ids, Auto, Labels };

struct ReadOptions {
  InputFormat format = InputFormat::Auto;
  /// Treat every edge as undirected (sets Graph::directed = false).
  bool undirected = false;
  /// Keep the graph directed where the file says it is undirected (SNAP's "# Undirected graph").
  bool directed = false;
  /// Every edge weighs 1 (weights in the file are ignored).
  bool unweighted = false;
  /// Edge lists only (other formats number their vertices).
  VertexNames names = VertexNames::Ids;
  /// Called with a one-line note about the file that changed or may change what was read (a
  /// SNAP header that disagrees with the edges, "# Undirected graph" honoured); none if unset.
  std::function<void(const std::string&)> warning;
  /// > 0: the graph has this many vertices (isolated high-numbered vertices included). An edge
  /// list's ids must then be below it (InputError naming the line otherwise); a format whose
  /// header states V (NTHU, DIMACS, Matrix Market) may only be widened by it. 0: from the file
  /// (an edge list's "# vertices: N" / "# Nodes: N" comment, else the largest id + 1).
  std::int64_t num_vertices = 0;
};

/// Reads a graph. Throws InputError (exit code 3) for bad content and for an unreadable path.
Graph read_graph(const std::string& path, const ReadOptions& options = {});

/// Writes the rows() x cols() block of `m` (any dtype; NTHU requires int32-representable values,
/// text and npy take any dtype). Unreachable: `inf` in text whatever the dtype; in .npy the
/// dtype's sentinel, 1073741823 (int32), 4611686018427387903 = 2^62-1 (int64), inf (floats); in
/// NTHU output 1073741823. Atomic: temp file + rename. Throws Error on I/O failure or when a
/// value cannot be represented in the format (e.g. int64 distance >= 2^30-1 in NTHU output).
void write_matrix(const std::string& path, const Matrix& m,
                  OutputFormat format = OutputFormat::Auto);

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
  /// Whether stripes of type t may come: the writer's dtype, or for NTHU (int32 on disk) any
  /// integer type whose values fit (an int64 result's exact int32 stripes,
  /// SolveOptions::int32_stripes).
  bool accepts(Dtype t) const;
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

/// Reads a matrix written by write_matrix: NTHU (int32, must be square), npy or text. Auto: .npy
/// content (its magic) or name -> npy, a text name -> text (int32, else int64, when every value
/// is an integer below the type's sentinel, `inf` reading as the sentinel; else float64), else
/// NTHU.
Matrix read_matrix(const std::string& path, OutputFormat format = OutputFormat::Auto);

namespace io {
/// apsp::read_matrix() of an input of at most max_bytes (else InputError "FILE: offset N: the
/// input is larger than the max_bytes bytes `why`"): a stream (/dev/zero) is not read further.
Matrix read_matrix_at_most(const std::string& path, OutputFormat format, std::uint64_t max_bytes,
                           const std::string& why);
}  // namespace io

/// Writes a graph in the format `format` names, or (Auto) its path names (graph_format_for), so
/// that read_graph() reads back the same graph; NAME.gz is gzip-compressed. Throws UsageError
/// for .npy, an unknown extension, an explicit format that contradicts the extension, or a graph
/// the format cannot hold. Used by `apsp generate`.
void write_graph(const std::string& path, const Graph& g, GraphFormat format = GraphFormat::Auto);
/// Writes a graph in NTHU binary (ids and weights must fit int32). An undirected graph is written
/// in both directions.
void write_graph_nthu(const std::string& path, const Graph& g);
/// Writes a graph as a text edge list "u v w" per line (commas for .csv, tabs for .tsv) after a
/// comment header "# Nodes: V Edges: M" that keeps isolated high-numbered vertices.
void write_graph_edgelist(const std::string& path, const Graph& g);
/// Writes a graph as DIMACS .gr ("p sp V M", "a u v w", 1-based). Weights must be integers within
/// +-2^53; an undirected graph is written in both directions.
void write_graph_dimacs(const std::string& path, const Graph& g);
/// Writes a graph as Matrix Market coordinate (integer or real; an undirected graph as symmetric).
void write_graph_mtx(const std::string& path, const Graph& g);

}  // namespace apsp
