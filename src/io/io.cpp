// src/io/io.cpp — the public entry points of apsp/io.hpp: format names, the format a name says
// (input, output, graph), the choice by content where the name says nothing (sniff.cpp), gzip
// inputs, and dispatch to the per-format readers and writers.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "core/memory_limit.hpp"
#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"

namespace apsp {

namespace io {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

}  // namespace io

namespace {

using io::lower_extension;

/// ".1", ".23": the NTHU course names its cases c01.1, p11k1.2.
bool numeric_extension(const std::string& ext) {
  return ext.size() > 1 &&
         std::all_of(ext.begin() + 1, ext.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool nthu_graph_extension(const std::string& ext) {
  return ext.empty() || ext == ".bin" || ext == ".in" || ext == ".nthu" || numeric_extension(ext);
}

bool edge_list_extension(const std::string& ext) {
  return ext == ".txt" || ext == ".csv" || ext == ".tsv" || ext == ".el" || ext == ".wel";
}

/// The graph format a name says, ".gz" set aside: Auto when it says none.
GraphFormat graph_format_named(const std::string& path) {
  const std::string ext = lower_extension(io::strip_gz_suffix(path));
  if (ext == ".gr") return GraphFormat::Dimacs;
  if (ext == ".mtx") return GraphFormat::MatrixMarket;
  if (edge_list_extension(ext)) return GraphFormat::EdgeList;
  if (nthu_graph_extension(ext)) return GraphFormat::Nthu;
  return GraphFormat::Auto;
}

const char* format_name(GraphFormat f) {
  switch (f) {
    case GraphFormat::Nthu:
      return "NTHU binary";
    case GraphFormat::Dimacs:
      return "DIMACS";
    case GraphFormat::MatrixMarket:
      return "Matrix Market";
    case GraphFormat::EdgeList:
      return "an edge list";
    case GraphFormat::Auto:
      break;
  }
  return "auto";
}

}  // namespace

InputFormat parse_input_format(const std::string& s) {
  if (s == "auto") return InputFormat::Auto;
  if (s == "nthu") return InputFormat::Nthu;
  if (s == "dimacs" || s == "gr") return InputFormat::Dimacs;
  if (s == "mtx" || s == "matrix-market") return InputFormat::MatrixMarket;
  if (s == "edgelist" || s == "el") return InputFormat::EdgeList;
  throw UsageError("unknown input format '" + s +
                   "' (expected nthu, dimacs, mtx, edgelist or auto)");
}

GraphFormat parse_graph_format(const std::string& s) {
  try {
    return parse_input_format(s);
  } catch (const UsageError&) {
    throw UsageError("unknown graph format '" + s +
                     "' (expected nthu, dimacs, mtx, edgelist or auto)");
  }
}

OutputFormat parse_output_format(const std::string& s) {
  if (s == "auto") return OutputFormat::Auto;
  if (s == "nthu") return OutputFormat::Nthu;
  if (s == "npy") return OutputFormat::Npy;
  if (s == "text" || s == "txt") return OutputFormat::Text;
  throw UsageError("unknown output format '" + s + "' (expected nthu, npy, text or auto)");
}

InputFormat input_format_for(const std::string& path) { return graph_format_named(path); }

OutputFormat output_format_for(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return OutputFormat::Npy;
  if (ext == ".txt" || ext == ".csv" || ext == ".tsv") return OutputFormat::Text;
  if (ext.empty() || ext == ".bin" || ext == ".out" || ext == ".nthu" || ext == ".next" ||
      numeric_extension(ext))
    return OutputFormat::Nthu;
  throw UsageError(
      path + ": unknown output extension '" + ext +
      "': name it .npy, .txt/.csv/.tsv (text) or .bin/.out (NTHU binary), or use --output-format "
      "nthu|npy|text");
}

GraphFormat graph_format_for(const std::string& path) {
  const std::string ext = lower_extension(io::strip_gz_suffix(path));
  if (ext == ".npy")
    throw UsageError(path +
                     ": a graph is not a matrix: .npy holds distance matrices; write the graph as "
                     ".bin (NTHU), .gr, .mtx or .txt/.el/.wel/.csv");
  const GraphFormat f = graph_format_named(path);
  if (f == GraphFormat::Auto)
    throw UsageError(
        path + ": unknown graph extension '" + ext +
        "': name it .bin (NTHU), .gr, .mtx or .txt/.el/.wel/.csv/.tsv (optionally .gz), or use "
        "--format nthu|dimacs|mtx|edgelist");
  return f;
}

namespace io {

void check_graph_path(const std::string& path, GraphFormat f) {
  if (lower_extension(strip_gz_suffix(path)) == ".npy")
    (void)graph_format_for(path);  // throws: not a matrix
  const GraphFormat named = graph_format_named(path);
  // An NTHU-like or unknown name is read back by its content; a name that says a text format
  // would be read in that format.
  if (named != GraphFormat::Nthu && named != GraphFormat::Auto && named != f)
    throw UsageError(path + ": the name says " + format_name(named) +
                     ", but the graph is to be written as " + format_name(f) +
                     "; rename it, or let the name choose the format");
}

void write_graph_file(const std::string& path, const void* data, std::size_t n) {
  std::vector<unsigned char> packed;
  if (has_gz_suffix(path)) {
    packed = gzip_compress(data, n, path);
    data = packed.data();
    n = packed.size();
  }
  OutputFile f(path);
  f.write(data, n);
  f.commit();
}

}  // namespace io

void write_graph(const std::string& path, const Graph& g, GraphFormat format) {
  const GraphFormat f = format == GraphFormat::Auto ? graph_format_for(path) : format;
  io::check_graph_path(path, f);
  switch (f) {
    case GraphFormat::Dimacs:
      write_graph_dimacs(path, g);
      break;
    case GraphFormat::MatrixMarket:
      write_graph_mtx(path, g);
      break;
    case GraphFormat::EdgeList:
      write_graph_edgelist(path, g);
      break;
    case GraphFormat::Nthu:
    case GraphFormat::Auto:
      write_graph_nthu(path, g);
      break;
  }
}

namespace {

/// Refuses (ResourceError naming the file) text whose lines, read as edges, could need more than
/// the memory left beside the `held` bytes of inflated input: 16 bytes an edge, twice while the
/// edge list reader joins its pieces. Lines are counted only when the bytes alone could be too
/// many (the shortest edge line, "0 1\n", is 4 bytes).
void check_edge_memory(const io::InputBytes& in, std::uint64_t held) {
  constexpr std::uint64_t kPerLine = io::kEdgeLineBytes;
  const detail::MemoryLimit mem = detail::host_memory_limit();
  if (held + in.size() / 4 * kPerLine <= mem.bytes) return;
  std::uint64_t lines = 1;
  for (const char *p = in.chars(), *end = p + in.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', std::size_t(end - p)))); ++p)
    ++lines;
  const std::uint64_t need = held + lines * kPerLine;
  if (need <= mem.bytes) return;
  throw ResourceError(in.path() + ": " + std::to_string(lines) + " lines of edges may need " +
                      std::to_string(need) + " bytes with the input held in memory, more than " +
                      "the " + std::to_string(mem.bytes) + " bytes available (" + mem.source +
                      "; set APSP_HOST_MEMORY to override)");
}

}  // namespace

Graph read_graph(const std::string& path, const ReadOptions& options) {
  if (options.num_vertices < 0 || options.num_vertices > kMaxVertices)
    throw UsageError("num_vertices = " + std::to_string(options.num_vertices) + " is outside 1.." +
                     std::to_string(kMaxVertices) + " (0: from the file)");
  if (options.undirected && options.directed)
    throw UsageError("--undirected and --directed contradict each other");
  const io::InputFile file(path, io::InputKind::Graph);  // a pipe: bounded by an NTHU header
  io::InputBytes in(file);
  // gzip content is inflated whatever the name (an NTHU header may start with the magic bytes
  // 1f 8b, but then its size says so).
  std::vector<unsigned char> inflated;
  if (io::is_gzip(in) && (io::has_gz_suffix(path) || !io::has_nthu_size(in))) {
    inflated = io::gunzip(in);
    in = io::InputBytes(path, inflated.data(), inflated.size());
  }
  // A byte-order mark before text is no part of it (never stripped from an NTHU file).
  if (options.format != InputFormat::Nthu && !io::has_nthu_size(in)) in = io::skip_utf8_bom(in);
  io::refuse_npy(in);  // under a text name or --input-format too
  InputFormat fmt = options.format;
  if (fmt == InputFormat::Auto) {
    fmt = input_format_for(path);
    if (fmt == InputFormat::Auto || fmt == InputFormat::Nthu)
      fmt = io::sniff_graph_format(in, fmt == InputFormat::Nthu);
    else if (fmt == InputFormat::EdgeList && io::has_mtx_banner(in))
      fmt = InputFormat::MatrixMarket;  // g.txt holding Matrix Market: its banner says so
    if (fmt == InputFormat::EdgeList || fmt == InputFormat::Dimacs)
      io::refuse_misplaced_mtx_banner(in);
  }
  if (options.names == VertexNames::Labels && fmt != InputFormat::EdgeList)
    throw UsageError(path + ": --labels reads the vertex names of edge lists; this file is " +
                     (fmt == InputFormat::Dimacs         ? "DIMACS"
                      : fmt == InputFormat::MatrixMarket ? "Matrix Market"
                                                         : "NTHU binary") +
                     ", whose vertices are numbered");
  if (fmt != InputFormat::Nthu && fmt != InputFormat::Auto) check_edge_memory(in, inflated.size());
  Graph g;
  switch (fmt) {
    case InputFormat::Dimacs:
      g = io::read_dimacs(in);
      break;
    case InputFormat::MatrixMarket:
      g = io::read_mtx(in);
      break;
    case InputFormat::EdgeList:
      g = io::read_edgelist(in, options);
      break;
    case InputFormat::Nthu:
    case InputFormat::Auto:
      g = io::read_nthu(in);
      break;
  }
  if (options.num_vertices > 0 && fmt != InputFormat::EdgeList) {
    if (options.num_vertices < g.num_vertices)
      throw InputError(path, "",
                       "the file has V = " + std::to_string(g.num_vertices) +
                           " vertices, more than the " + std::to_string(options.num_vertices) +
                           " asked for (--vertices / num_vertices)");
    g.num_vertices = options.num_vertices;
  }
  if (options.undirected) g.directed = false;
  if (options.unweighted) {
    std::fill(g.weight.begin(), g.weight.end(), 1.0);
    g.integer_weights = true;
  }
  file.check_unchanged();  // here rather than from ~InputFile: GCC 12 leaks a returned g (PR 33799)
  return g;
}

void write_matrix(const std::string& path, const Matrix& m, OutputFormat format) {
  if (m.rows() > 0 && m.cols() > 0 && m.empty())
    throw UsageError("write_matrix: matrix has no storage");
  // One stripe of a MatrixStreamWriter: the same formats, and the binary ones reserved
  // (preallocated where that helps; no room is an error before the first byte).
  MatrixStreamWriter w(path, m.rows(), m.cols(), m.dtype(), format);  // (Auto: by extension)
  w.write(0, m);
  w.commit();
}

Matrix read_matrix(const std::string& path, OutputFormat format) {
  return io::read_matrix_at_most(path, format, UINT64_MAX, "");
}

namespace io {

Matrix read_matrix_at_most(const std::string& path, OutputFormat format, std::uint64_t max_bytes,
                           const std::string& why) {
  const io::InputFile file(path, io::InputKind::Any, max_bytes, why);
  const io::InputBytes in(file);
  OutputFormat fmt = format;
  if (fmt == OutputFormat::Auto) {
    // By content first (an NTHU result holds zero bytes on its diagonal, so it never looks like
    // text; a next-hop matrix of -1 only is all 0xFF bytes, never UTF-8), then by name; never a
    // refusal for an unknown name: reading changes nothing.
    const std::string ext = lower_extension(path);
    if (ext == ".npy" || (in.size() >= 6 && std::memcmp(in.bytes(), "\x93NUMPY", 6) == 0))
      fmt = OutputFormat::Npy;
    else if (ext == ".txt" || ext == ".csv" || ext == ".tsv" || io::looks_like_utf8_text(in))
      fmt = OutputFormat::Text;
    else
      fmt = OutputFormat::Nthu;
  }
  switch (fmt) {
    case OutputFormat::Npy:
      return io::read_matrix_npy(in);
    case OutputFormat::Text:
      return io::read_matrix_text(in);
    case OutputFormat::Nthu:
    case OutputFormat::Auto:
      break;
  }
  return io::read_matrix_nthu(in);
}

}  // namespace io
}  // namespace apsp
