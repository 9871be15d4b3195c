// src/io/io.cpp — the public entry points of apsp/io.hpp: format names, detection by extension,
// and dispatch to the per-format readers and writers.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "io/io_common.hpp"

namespace apsp {

namespace {
std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}
}  // namespace

InputFormat parse_input_format(const std::string& s) {
  if (s == "auto") return InputFormat::Auto;
  if (s == "nthu") return InputFormat::Nthu;
  if (s == "dimacs" || s == "gr") return InputFormat::Dimacs;
  if (s == "mtx" || s == "matrix-market") return InputFormat::MatrixMarket;
  if (s == "edgelist" || s == "el") return InputFormat::EdgeList;
  throw UsageError("unknown input format '" + s + "' (expected nthu, dimacs, mtx, edgelist or auto)");
}

OutputFormat parse_output_format(const std::string& s) {
  if (s == "auto") return OutputFormat::Auto;
  if (s == "nthu") return OutputFormat::Nthu;
  if (s == "npy") return OutputFormat::Npy;
  if (s == "text" || s == "txt") return OutputFormat::Text;
  throw UsageError("unknown output format '" + s + "' (expected nthu, npy, text or auto)");
}

InputFormat input_format_for(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".gr") return InputFormat::Dimacs;
  if (ext == ".mtx") return InputFormat::MatrixMarket;
  if (ext == ".txt" || ext == ".csv" || ext == ".tsv" || ext == ".el") return InputFormat::EdgeList;
  return InputFormat::Nthu;
}

OutputFormat output_format_for(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return OutputFormat::Npy;
  if (ext == ".txt") return OutputFormat::Text;
  return OutputFormat::Nthu;
}

Graph read_graph(const std::string& path, const ReadOptions& options) {
  const InputFormat fmt = options.format == InputFormat::Auto ? input_format_for(path) : options.format;
  const io::InputFile in(path, io::InputKind::Graph);
  Graph g;
  switch (fmt) {
    case InputFormat::Dimacs: g = io::read_dimacs(in); break;
    case InputFormat::MatrixMarket: g = io::read_mtx(in); break;
    case InputFormat::EdgeList: g = io::read_edgelist(in); break;
    case InputFormat::Nthu:
    case InputFormat::Auto: g = io::read_nthu(in); break;
  }
  if (options.undirected) g.directed = false;
  in.check_unchanged();  // here rather than from ~InputFile: GCC 12 leaks a returned g (PR 33799)
  return g;
}

void write_matrix(const std::string& path, const Matrix& m, OutputFormat format) {
  if (m.rows() > 0 && m.cols() > 0 && m.empty()) throw UsageError("write_matrix: matrix has no storage");
  // One stripe of a MatrixStreamWriter: the same formats, and the binary ones reserved (preallocated
  // where that helps; no room is an error before the first byte).
  MatrixStreamWriter w(path, m.rows(), m.cols(), m.dtype(), format);  // (Auto: by extension)
  w.write(0, m);
  w.commit();
}

Matrix read_matrix(const std::string& path, OutputFormat format) {
  const OutputFormat fmt = format == OutputFormat::Auto ? output_format_for(path) : format;
  const io::InputFile in(path);
  switch (fmt) {
    case OutputFormat::Npy: return io::read_matrix_npy(in);
    case OutputFormat::Text: return io::read_matrix_text(in);
    case OutputFormat::Nthu:
    case OutputFormat::Auto: break;
  }
  return io::read_matrix_nthu(in);
}

}  // namespace apsp
