// tests/test_io.cpp — file formats: round trips, format detection, the text formats' tolerances
// (comments, blank lines, CRLF, commas, duplicates, self loops), the .npy header, atomic writes,
// large writes split over threads (same bytes, failures, FIFOs), and one test per kind of bad
// input, each checking that the message names the file and the offset or line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <thread>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "core/host_copy.hpp"
#include "io/output_common.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& s) {
  test::write_bytes(path, s.data(), s.size());
}

struct Edge {
  std::int32_t u, v, w;
};

/// An NTHU binary graph file: header (V, E as given, which may lie) + the edges.
std::vector<char> nthu_bytes(std::int32_t V, std::int32_t E, const std::vector<Edge>& edges) {
  std::vector<char> b(8 + 12 * edges.size());
  std::memcpy(b.data(), &V, 4);
  std::memcpy(b.data() + 4, &E, 4);
  for (std::size_t i = 0; i < edges.size(); ++i) std::memcpy(b.data() + 8 + 12 * i, &edges[i], 12);
  return b;
}

void write_nthu(const std::string& path, std::int32_t V, std::int32_t E,
                const std::vector<Edge>& edges) {
  const auto b = nthu_bytes(V, E, edges);
  test::write_bytes(path, b.data(), b.size());
}

/// Reads `path` expecting an InputError whose one-line message names the file and `where`.
std::string expect_input_error(const std::string& path, const std::string& where,
                               const ReadOptions& o = {}) {
  try {
    (void)read_graph(path, o);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << "message does not name the file: " << msg;
    EXPECT_NE(msg.find(where), std::string::npos)
        << "message does not say '" << where << "': " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    EXPECT_EQ(e.exit_code(), 3);
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << path << ": read_graph accepted bad input (expected an error at " << where << ")";
  return "";
}

/// Files in `dir` other than the ones named.
std::vector<std::string> stray_files(const test::TempDir& dir, std::vector<std::string> keep) {
  std::vector<std::string> stray;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) stray.push_back(name);
  }
  return stray;
}

/// Names in `dir` that contain `part`.
std::vector<std::string> stray_files_in(const std::string& dir, const std::string& part) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(part) != std::string::npos) v.push_back(name);
  }
  return v;
}

void expect_same_graph(const Graph& got, const Graph& want) {
  EXPECT_EQ(got.num_vertices, want.num_vertices);
  EXPECT_EQ(got.directed, want.directed);
  EXPECT_EQ(got.integer_weights, want.integer_weights);
  ASSERT_EQ(got.num_edges(), want.num_edges());
  for (std::size_t e = 0; e < got.num_edges(); ++e) {
    ASSERT_EQ(got.src[e], want.src[e]) << "edge " << e;
    ASSERT_EQ(got.dst[e], want.dst[e]) << "edge " << e;
    ASSERT_EQ(got.weight[e], want.weight[e]) << "edge " << e;
  }
}

/// A padded rows x cols matrix (stride > cols, extra rows) with distinct values and sentinels, so
/// a writer that ignores the stride or the logical shape gets caught.
template <class T>
Matrix padded_matrix(std::int64_t rows, std::int64_t cols) {
  Matrix m(rows, cols, cols + 5, rows + 3, DtypeOf<T>::value);
  for (std::int64_t i = 0; i < rows + 3; ++i)
    for (std::int64_t j = 0; j < cols + 5; ++j) m.at<T>(i, j) = T(-7);  // padding garbage
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      m.at<T>(i, j) = (i + j) % 7 == 3 ? unreachable<T>() : T(i * 1000 + j - 50);
  return m;
}

template <class T>
void expect_same_values(const Matrix& got, const Matrix& want) {
  ASSERT_EQ(got.rows(), want.rows());
  ASSERT_EQ(got.cols(), want.cols());
  for (std::int64_t i = 0; i < want.rows(); ++i)
    for (std::int64_t j = 0; j < want.cols(); ++j)
      ASSERT_EQ(got.at<T>(i, j), want.at<T>(i, j)) << "(" << i << "," << j << ")";
}

// ---- format names and detection -----------------------------------------------------------------

TEST(IoFormat, DetectsInputFormatByExtension) {
  EXPECT_EQ(input_format_for("a/b/graph.gr"), InputFormat::Dimacs);
  EXPECT_EQ(input_format_for("x.mtx"), InputFormat::MatrixMarket);
  EXPECT_EQ(input_format_for("X.MTX"), InputFormat::MatrixMarket);
  for (const char* p : {"e.txt", "e.csv", "e.tsv", "e.el"})
    EXPECT_EQ(input_format_for(p), InputFormat::EdgeList) << p;
  for (const char* p : {"c01.1", "in.bin", "input", "dir.gr/file"})
    EXPECT_EQ(input_format_for(p), InputFormat::Nthu) << p;
}

TEST(IoFormat, DetectsOutputFormatByExtension) {
  EXPECT_EQ(output_format_for("d.npy"), OutputFormat::Npy);
  EXPECT_EQ(output_format_for("d.txt"), OutputFormat::Text);
  EXPECT_EQ(output_format_for("d.out"), OutputFormat::Nthu);
  EXPECT_EQ(output_format_for("d"), OutputFormat::Nthu);
}

TEST(IoFormat, ParsesFormatNames) {
  EXPECT_EQ(parse_input_format("nthu"), InputFormat::Nthu);
  EXPECT_EQ(parse_input_format("dimacs"), InputFormat::Dimacs);
  EXPECT_EQ(parse_input_format("mtx"), InputFormat::MatrixMarket);
  EXPECT_EQ(parse_input_format("edgelist"), InputFormat::EdgeList);
  EXPECT_EQ(parse_input_format("auto"), InputFormat::Auto);
  EXPECT_EQ(parse_output_format("nthu"), OutputFormat::Nthu);
  EXPECT_EQ(parse_output_format("npy"), OutputFormat::Npy);
  EXPECT_EQ(parse_output_format("text"), OutputFormat::Text);
  EXPECT_THROW(parse_input_format("csv2"), UsageError);
  EXPECT_THROW(parse_output_format("hdf5"), UsageError);
}

TEST(IoFormat, ExplicitFormatOverridesExtension) {
  test::TempDir dir;
  const std::string p = dir / "graph.bin";
  write_text(p, "0 1 5\n1 2 7\n");
  ReadOptions o;
  o.format = InputFormat::EdgeList;
  const Graph g = read_graph(p, o);
  EXPECT_EQ(g.num_vertices, 3);
  EXPECT_EQ(g.num_edges(), 2u);
}

// ---- graph round trips --------------------------------------------------------------------------

TEST(IoRoundTrip, NthuGraph) {
  test::TempDir dir;
  const std::uint64_t seed = 11;
  const Graph g = generate_uniform(60, 500, 0, 1000, seed);
  const std::string p = dir / "g.bin";
  write_graph_nthu(p, g);
  EXPECT_EQ(fs::file_size(p), 8 + 12 * g.num_edges()) << "seed " << seed;
  // Byte layout: int32 V, int32 E, then (src, dst, w) triples.
  const auto bytes = test::read_bytes(p);
  std::int32_t head[5];
  std::memcpy(head, bytes.data(), sizeof head);
  EXPECT_EQ(head[0], 60);
  EXPECT_EQ(head[1], 500);
  EXPECT_EQ(head[2], g.src[0]);
  EXPECT_EQ(head[3], g.dst[0]);
  EXPECT_EQ(head[4], std::int32_t(g.weight[0]));
  expect_same_graph(read_graph(p), g);
  EXPECT_TRUE(stray_files(dir, {"g.bin"}).empty());
}

TEST(IoRoundTrip, NthuGraphNegativeWeightsAndSelfLoops) {
  test::TempDir dir;
  const std::string p = dir / "g";
  write_nthu(p, 4, 4,
             {{0, 1, -5}, {1, 1, 3}, {3, 0, std::numeric_limits<std::int32_t>::min()}, {0, 1, 2}});
  const Graph g = read_graph(p);
  EXPECT_EQ(g.num_vertices, 4);
  ASSERT_EQ(g.num_edges(), 4u);
  EXPECT_EQ(g.weight[0], -5);
  EXPECT_EQ(g.src[1], 1);  // self loop kept; the matrix build decides what it means
  EXPECT_EQ(g.dst[1], 1);
  EXPECT_EQ(g.weight[2], double(std::numeric_limits<std::int32_t>::min()));
  EXPECT_EQ(g.weight[3], 2);  // duplicate pair kept
  EXPECT_TRUE(g.integer_weights);
  EXPECT_TRUE(g.directed);
  const std::string q = dir / "again";
  write_graph_nthu(q, g);
  EXPECT_EQ(test::read_bytes(q), test::read_bytes(p));
}

TEST(IoRoundTrip, NthuUndirectedGraphIsWrittenBothWays) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 3;
  g.directed = false;
  g.add_edge(0, 1, 4);
  g.add_edge(2, 2, 1);  // a self loop is written once
  const std::string p = dir / "g";
  write_graph_nthu(p, g);
  const Graph r = read_graph(p);
  ASSERT_EQ(r.num_edges(), 3u);
  EXPECT_EQ(r.src[0], 0);
  EXPECT_EQ(r.dst[0], 1);
  EXPECT_EQ(r.src[1], 1);
  EXPECT_EQ(r.dst[1], 0);
  EXPECT_EQ(r.src[2], 2);
  EXPECT_EQ(r.dst[2], 2);
  ReadOptions o;
  o.undirected = true;
  EXPECT_FALSE(read_graph(p, o).directed);
}

TEST(IoRoundTrip, NthuGraphRefusesWhatTheFormatCannotHold) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 2;
  g.add_edge(0, 1, 1.5);
  EXPECT_THROW(write_graph_nthu(dir / "g", g), Error);
  g.weight[0] = 3e9;
  EXPECT_THROW(write_graph_nthu(dir / "g", g), Error);
  EXPECT_TRUE(stray_files(dir, {}).empty()) << "a refused write left a file behind";
}

TEST(IoRoundTrip, EdgeListIntegerAndRealWeights) {
  test::TempDir dir;
  Graph g = generate_uniform(40, 200, -20, 20, 5);
  // make sure the largest id is used so V = largest id + 1 reads back the same V
  g.add_edge(39, 0, 3);
  const std::string p = dir / "g.el";
  write_graph_edgelist(p, g);
  expect_same_graph(read_graph(p), g);

  Graph h;
  h.num_vertices = 5;
  h.add_edge(0, 4, 0.1);
  h.add_edge(4, 3, 1e-300);
  h.add_edge(3, 0, -2.5e10);
  const std::string q = dir / "h.csv";
  write_graph_edgelist(q, h);
  const Graph r = read_graph(q);
  EXPECT_FALSE(r.integer_weights);
  expect_same_graph(r, h);  // shortest round-trip formatting: exact
}

// ---- the text graph formats ---------------------------------------------------------------------

TEST(IoText, EdgeListCommentsBlankLinesCrlfCommasTabs) {
  test::TempDir dir;
  const std::string p = dir / "g.txt";
  write_text(p,
             "# SNAP style header\r\n"
             "% another comment\r\n"
             "\r\n"
             "0 1 5\r\n"
             "1,2,7\r\n"
             "  2\t3  \r\n"  // no weight: 1
             "3 0 2 # trailing comment\r\n"
             "0 1 4\r\n"  // duplicate: kept
             "2 2 9\r\n"  // self loop: kept
             "   \r\n"
             "4 0 +6");  // no final newline, explicit plus sign
  const Graph g = read_graph(p);
  EXPECT_EQ(g.num_vertices, 5);
  ASSERT_EQ(g.num_edges(), 7u);
  const std::vector<Edge> want{{0, 1, 5}, {1, 2, 7}, {2, 3, 1}, {3, 0, 2},
                               {0, 1, 4}, {2, 2, 9}, {4, 0, 6}};
  for (std::size_t e = 0; e < want.size(); ++e) {
    EXPECT_EQ(g.src[e], want[e].u) << e;
    EXPECT_EQ(g.dst[e], want[e].v) << e;
    EXPECT_EQ(g.weight[e], want[e].w) << e;
  }
  EXPECT_TRUE(g.integer_weights);
  EXPECT_TRUE(g.directed);
}

TEST(IoText, EdgeListLargeParallelParseKeepsOrderAndLineNumbers) {
  // Over 1 MiB, so the reader cuts the file into pieces parsed by separate threads.
  test::TempDir dir;
  const std::string p = dir / "big.txt";
  std::string s = "# big\n";
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    s += std::to_string(i) + " " + std::to_string((i * 7919) % n) + " " + std::to_string(i % 1000) +
         "\n";
    if (i % 1000 == 0) s += "\n# comment\n";
  }
  write_text(p, s);
  ASSERT_GT(s.size(), std::size_t{1} << 21);
  const Graph g = read_graph(p);
  ASSERT_EQ(g.num_edges(), std::size_t(n));
  EXPECT_EQ(g.num_vertices, n);
  for (int i = 0; i < n; i += 997) {
    ASSERT_EQ(g.src[std::size_t(i)], i);
    ASSERT_EQ(g.dst[std::size_t(i)], (i * 7919) % n);
    ASSERT_EQ(g.weight[std::size_t(i)], i % 1000);
  }
  // An error near the end must report the line number of the whole file.
  std::int64_t lines = std::count(s.begin(), s.end(), '\n');
  s += "12 oops 3\n";
  write_text(p, s);
  expect_input_error(p, "line " + std::to_string(lines + 1));
}

TEST(IoText, DimacsWithCommentsBlankLinesCrlf) {
  test::TempDir dir;
  const std::string p = dir / "g.gr";
  write_text(p,
             "c 9th DIMACS challenge style\r\n"
             "c\r\n"
             "p sp 4 5\r\n"
             "\r\n"
             "a 1 2 10\r\n"
             "c comment between arcs\r\n"
             "a 2 3 -4\r\n"
             "a 3 4 +2\r\n"
             "a 4 1 0\r\n"
             "a 1 2 3\r\n");
  const Graph g = read_graph(p);
  EXPECT_EQ(g.num_vertices, 4);
  ASSERT_EQ(g.num_edges(), 5u);
  EXPECT_EQ(g.src[0], 0);
  EXPECT_EQ(g.dst[0], 1);
  EXPECT_EQ(g.weight[0], 10);
  EXPECT_EQ(g.src[1], 1);
  EXPECT_EQ(g.dst[1], 2);
  EXPECT_EQ(g.weight[1], -4);
  EXPECT_EQ(g.weight[2], 2);
  EXPECT_EQ(g.src[3], 3);
  EXPECT_EQ(g.dst[3], 0);
  EXPECT_EQ(g.weight[4], 3);
  EXPECT_TRUE(g.integer_weights);
  EXPECT_TRUE(g.directed);
}

TEST(IoText, DimacsArcCountMustMatchTheProblemLine) {
  test::TempDir dir;
  const std::string p = dir / "g.gr";
  write_text(p, "p sp 3 3\na 1 2 1\na 2 3 1\n");
  expect_input_error(p, "line 3");
  write_text(p, "p sp 3 1\na 1 2 1\na 2 3 1\n");
  expect_input_error(p, "line 3");
}

TEST(IoText, MatrixMarketGeneralIntegerRealPatternSymmetric) {
  test::TempDir dir;
  const std::string p = dir / "g.mtx";
  write_text(p,
             "%%MatrixMarket matrix coordinate integer general\n"
             "% comment\n"
             "\n"
             "3 3 3\n"
             "1 2 7\n"
             "2 3 -1\n"
             "3 1 4\n");
  Graph g = read_graph(p);
  EXPECT_EQ(g.num_vertices, 3);
  EXPECT_TRUE(g.directed);
  EXPECT_TRUE(g.integer_weights);
  ASSERT_EQ(g.num_edges(), 3u);
  EXPECT_EQ(g.src[1], 1);
  EXPECT_EQ(g.dst[1], 2);
  EXPECT_EQ(g.weight[1], -1);

  write_text(p, "%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 2 0.25\r\n");
  g = read_graph(p);
  EXPECT_FALSE(g.integer_weights);
  ASSERT_EQ(g.num_edges(), 1u);
  EXPECT_EQ(g.weight[0], 0.25);

  write_text(p, "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 2\n2 1\n4 3\n");
  g = read_graph(p);
  EXPECT_FALSE(g.directed) << "symmetric = both directions";
  ASSERT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.src[0], 1);
  EXPECT_EQ(g.dst[0], 0);
  EXPECT_EQ(g.weight[0], 1);
  EXPECT_EQ(g.src[1], 3);
  EXPECT_EQ(g.dst[1], 2);
  EXPECT_EQ(g.weight[1], 1);

  write_text(p, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  expect_input_error(p, "line 1");
  write_text(p, "%%MatrixMarket matrix coordinate integer general\n2 3 0\n");
  expect_input_error(p, "line 2");  // not square
}

// ---- matrix writers -----------------------------------------------------------------------------

TEST(IoMatrix, NthuInt32PaddedAndUnpadded) {
  test::TempDir dir;
  const Matrix m = padded_matrix<std::int32_t>(7, 7);
  const std::string p = dir / "d.out";
  write_matrix(p, m);
  ASSERT_EQ(fs::file_size(p), 7u * 7u * 4u);
  const Matrix r = read_matrix(p);
  EXPECT_EQ(r.dtype(), Dtype::Int32);
  expect_same_values<std::int32_t>(r, m);
  EXPECT_EQ(r.at<std::int32_t>(0, 3), 1073741823);
  // Unpadded: the single-write path must give the same bytes.
  Matrix u(7, 7, Dtype::Int32);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) u.at<std::int32_t>(i, j) = m.at<std::int32_t>(i, j);
  const std::string q = dir / "u.out";
  write_matrix(q, u);
  EXPECT_EQ(test::read_bytes(q), test::read_bytes(p));
  EXPECT_TRUE(stray_files(dir, {"d.out", "u.out"}).empty());
}

TEST(IoMatrix, PaddedWritesOverManyWritevBatches) {
  // More rows than one writev() takes (1024), each row a few bytes from the next one's start.
  test::TempDir dir;
  const Matrix m = padded_matrix<std::int32_t>(2500, 3);
  write_matrix(dir / "d.out", m, OutputFormat::Nthu);
  const auto b = test::read_bytes(dir / "d.out");
  ASSERT_EQ(b.size(), 2500u * 3u * 4u);
  for (std::int64_t i = 0; i < 2500; i += 7)
    for (std::int64_t j = 0; j < 3; ++j) {
      std::int32_t v;
      std::memcpy(&v, b.data() + 4 * (i * 3 + j), 4);
      ASSERT_EQ(v, m.at<std::int32_t>(i, j)) << "(" << i << "," << j << ")";
    }
  const Matrix d = padded_matrix<double>(2100, 5);
  write_matrix(dir / "d.npy", d);
  expect_same_values<double>(read_matrix(dir / "d.npy"), d);
}

TEST(IoMatrix, NthuFromInt64AndFloatConvertsUnreachable) {
  test::TempDir dir;
  const Matrix want = padded_matrix<std::int32_t>(5, 5);
  const Matrix m64 = padded_matrix<std::int64_t>(5, 5);
  write_matrix(dir / "a", m64, OutputFormat::Nthu);
  expect_same_values<std::int32_t>(read_matrix(dir / "a"), want);
  const Matrix mf = padded_matrix<float>(5, 5);
  write_matrix(dir / "b", mf, OutputFormat::Nthu);
  expect_same_values<std::int32_t>(read_matrix(dir / "b"), want);
  const Matrix md = padded_matrix<double>(5, 5);
  write_matrix(dir / "c", md, OutputFormat::Nthu);
  expect_same_values<std::int32_t>(read_matrix(dir / "c"), want);
}

TEST(IoMatrix, NthuRefusesValuesItCannotHoldAndLeavesNoFile) {
  test::TempDir dir;
  const std::string p = dir / "d.out";
  write_text(p, "previous result");
  auto refused = [&](const Matrix& m, const std::string& what) {
    try {
      write_matrix(p, m);
      ADD_FAILURE() << what << ": accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p), std::string::npos) << msg;
      EXPECT_NE(msg.find("d(2,1)"), std::string::npos) << msg;
    }
    EXPECT_EQ(std::string(test::read_bytes(p).data(), 15), "previous result")
        << what << ": old output clobbered";
    EXPECT_TRUE(stray_files(dir, {"d.out"}).empty()) << what << ": temp file left behind";
  };
  Matrix m64 = padded_matrix<std::int64_t>(4, 4);
  m64.at<std::int64_t>(2, 1) = 1073741823;  // a finite distance equal to the NTHU sentinel
  refused(m64, "int64 == 2^30-1");
  m64.at<std::int64_t>(2, 1) = std::int64_t(std::numeric_limits<std::int32_t>::min()) - 1;
  refused(m64, "int64 < INT32_MIN");
  Matrix mf = padded_matrix<float>(4, 4);
  mf.at<float>(2, 1) = 2.5f;
  refused(mf, "fractional float");
  Matrix md = padded_matrix<double>(4, 4);
  md.at<double>(2, 1) = std::nan("");
  refused(md, "NaN");
  md.at<double>(2, 1) = -std::numeric_limits<double>::infinity();
  refused(md, "-inf");
  md.at<double>(2, 1) = 4e9;
  refused(md, "too large");
}

template <class T>
void npy_round_trip(const char* descr) {
  test::TempDir dir;
  const Matrix m = padded_matrix<T>(9, 9);
  const std::string p = dir / "d.npy";
  write_matrix(p, m);
  const auto b = test::read_bytes(p);
  ASSERT_GE(b.size(), 10u);
  EXPECT_EQ(std::string(b.data(), 6), "\x93NUMPY");
  EXPECT_EQ(b[6], 1);
  EXPECT_EQ(b[7], 0);
  const std::size_t hlen = std::size_t(static_cast<unsigned char>(b[8])) |
                           std::size_t(static_cast<unsigned char>(b[9])) << 8;
  EXPECT_EQ((10 + hlen) % 64, 0u) << "data must start 64-byte aligned";
  const std::string header(b.data() + 10, hlen);
  EXPECT_EQ(
      header.rfind(
          std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (9, 9), }", 0),
      0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(b.size(), 10 + hlen + 81 * sizeof(T)) << "only the logical 9x9 block is written";
  const Matrix r = read_matrix(p);
  EXPECT_EQ(r.dtype(), DtypeOf<T>::value);
  expect_same_values<T>(r, m);
}

TEST(IoMatrix, NpyRoundTripInt32) { npy_round_trip<std::int32_t>("<i4"); }
TEST(IoMatrix, NpyRoundTripInt64) { npy_round_trip<std::int64_t>("<i8"); }
TEST(IoMatrix, NpyRoundTripFloat32) { npy_round_trip<float>("<f4"); }
TEST(IoMatrix, NpyRoundTripFloat64) { npy_round_trip<double>("<f8"); }

TEST(IoMatrix, NpyNonSquareAndEmptyShapes) {
  test::TempDir dir;
  const Matrix m = padded_matrix<std::int32_t>(3, 11);
  write_matrix(dir / "r.npy", m);
  expect_same_values<std::int32_t>(read_matrix(dir / "r.npy"), m);
  const Matrix e(0, 0, Dtype::Float32);
  write_matrix(dir / "e.npy", e);
  const Matrix r = read_matrix(dir / "e.npy");
  EXPECT_EQ(r.rows(), 0);
  EXPECT_EQ(r.cols(), 0);
}

/// A python3 that has numpy, or "" (the tests using it skip and say so).
std::string python_with_numpy() {
  for (const char* py : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (!fs::exists(py)) continue;
    if (test::run_program(py, {"-c", "import numpy"}).exit_code == 0) return py;
  }
  return "";
}

TEST(IoMatrix, NpyLoadsInNumpyWithMmap) {
  const std::string py = python_with_numpy();
  if (py.empty()) GTEST_SKIP() << "no python3 with numpy (/usr/bin/python3): np.load check not run";
  test::TempDir dir;
  const char* script =
      "import sys, numpy as np\n"
      "a = np.load(sys.argv[1], mmap_mode='r')\n"
      "print(a.dtype.str, a.shape, a.flags['C_CONTIGUOUS'], int(a[2, 3]) if a.dtype.kind == 'i' "
      "else float(a[2, 3]), "
      "int(a[0, 3]) if a.dtype.kind == 'i' else float(a[0, 3]))\n";
  const std::pair<Dtype, std::string> cases[] = {
      {Dtype::Int32, "<i4 (6, 6) True 1953 1073741823"},
      {Dtype::Int64, "<i8 (6, 6) True 1953 4611686018427387903"},
      {Dtype::Float32, "<f4 (6, 6) True 1953.0 inf"},
      {Dtype::Float64, "<f8 (6, 6) True 1953.0 inf"}};
  for (const auto& [t, want] : cases) {
    Matrix m = visit_dtype(t, [](auto tag) { return padded_matrix<decltype(tag)>(6, 6); });
    const std::string p = dir / (std::string(dtype_name(t)) + ".npy");
    write_matrix(p, m);
    const auto r = test::run_program(py, {"-c", script, p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, want + "\n") << dtype_name(t);
  }
}

TEST(IoMatrix, TextRoundTripEveryDtype) {
  // Unreachable is `inf` in text whatever the dtype; reading gives the narrowest integer type
  // whose sentinel no finite value reaches, and maps `inf` to it.
  test::TempDir dir;
  const std::string p = dir / "d.txt";
  write_matrix(p, padded_matrix<std::int32_t>(4, 6));
  const auto b = test::read_bytes(p);
  const std::string s(b.begin(), b.end());
  EXPECT_EQ(s.substr(0, s.find('\n')), "-50 -49 -48 inf -46 -45");
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 4);
  EXPECT_EQ(s.find("1073741823"), std::string::npos) << s;
  Matrix r = read_matrix(p);
  EXPECT_EQ(r.dtype(), Dtype::Int32);
  expect_same_values<std::int32_t>(r, padded_matrix<std::int32_t>(4, 6));

  Matrix m64 = padded_matrix<std::int64_t>(4, 6);
  m64.at<std::int64_t>(2, 1) = std::int64_t{5} << 40;  // beyond int32: reads back as int64
  write_matrix(p, m64);
  const auto b64 = test::read_bytes(p);
  const std::string s64(b64.begin(), b64.end());
  EXPECT_EQ(s64.substr(0, s64.find('\n')), "-50 -49 -48 inf -46 -45");
  EXPECT_EQ(s64.find("4611686018427387903"), std::string::npos) << s64;
  r = read_matrix(p);
  EXPECT_EQ(r.dtype(), Dtype::Int64);
  expect_same_values<std::int64_t>(r, m64);

  Matrix md = padded_matrix<double>(3, 3);
  md.at<double>(1, 1) = 0.1;
  md.at<double>(2, 2) = -1e-300;
  write_matrix(p, md);
  const auto bd = test::read_bytes(p);
  EXPECT_NE(std::string(bd.begin(), bd.end()).find("inf"), std::string::npos);
  r = read_matrix(p);
  EXPECT_EQ(r.dtype(), Dtype::Float64);
  expect_same_values<double>(r, md);
}

TEST(IoMatrix, TextUnreachableIsInfForEveryDtype) {
  // The same distances in any dtype give the same text: d(0,1) unreachable, d(1,0) = 7.
  test::TempDir dir;
  std::vector<std::string> texts;
  for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
    Matrix m(2, 2, t);
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      m.at<T>(0, 0) = 0;
      m.at<T>(0, 1) = unreachable<T>();
      m.at<T>(1, 0) = T(7);
      m.at<T>(1, 1) = 0;
      return 0;
    });
    const std::string p = dir / (std::string("d_") + dtype_name(t) + ".txt");
    write_matrix(p, m);
    const auto b = test::read_bytes(p);
    texts.emplace_back(b.begin(), b.end());
  }
  for (const std::string& t : texts) EXPECT_EQ(t, "0 inf\n7 0\n");
}

TEST(IoMatrix, CsvAndTsvOutputsUseTheirSeparatorAndReadBack) {
  test::TempDir dir;
  const Matrix m = padded_matrix<std::int32_t>(3, 4);
  write_matrix(dir / "d.csv", m);
  write_matrix(dir / "d.tsv", m);
  const auto c = test::read_bytes(dir / "d.csv"), t = test::read_bytes(dir / "d.tsv");
  const std::string cs(c.begin(), c.end()), ts(t.begin(), t.end());
  EXPECT_EQ(cs.substr(0, cs.find('\n')), "-50,-49,-48,inf");
  EXPECT_EQ(ts.substr(0, ts.find('\n')), "-50\t-49\t-48\tinf");
  expect_same_values<std::int32_t>(read_matrix(dir / "d.csv"), m);
  expect_same_values<std::int32_t>(read_matrix(dir / "d.tsv"), m);
}

TEST(IoMatrix, WriteReplacesAnExistingFileAtomically) {
  test::TempDir dir;
  const std::string p = dir / "d.out";
  write_text(p, std::string(1000, 'x'));
  write_matrix(p, padded_matrix<std::int32_t>(2, 2));
  EXPECT_EQ(fs::file_size(p), 16u);
  EXPECT_TRUE(stray_files(dir, {"d.out"}).empty());
}

TEST(IoMatrix, WriteToADeviceWritesIntoItInsteadOfReplacingIt) {
  // `apsp IN /dev/null` (or /dev/stdout) must not rename a temporary file over the device node.
  write_matrix("/dev/null", padded_matrix<std::int32_t>(3, 3));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a character device";
  EXPECT_TRUE(stray_files_in("/dev", ".null.tmp.").empty());
}

TEST(IoMatrix, WriteIntoMissingDirectoryIsAClearError) {
  test::TempDir dir;
  const std::string p = dir / "no/such/dir/d.out";
  try {
    write_matrix(p, padded_matrix<std::int32_t>(2, 2));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

// ---- bad input: one test each -------------------------------------------------------------------

TEST(IoBadInput, EmptyFile) {
  test::TempDir dir;
  for (const char* name : {"g.bin", "g.gr", "g.mtx", "g.txt"}) {
    const std::string p = dir / name;
    write_text(p, "");
    expect_input_error(p, std::string(name) == "g.bin" ? "offset 0" : "line 1");
  }
}

TEST(IoBadInput, ShortHeader) {
  test::TempDir dir;
  const std::string p = dir / "g";
  write_text(p, "\x05\x00");
  expect_input_error(p, "offset 0");
  write_text(p, std::string("\x05\x00\x00\x00\x01\x00", 6));
  const std::string msg = expect_input_error(p, "offset 4");
  EXPECT_NE(msg.find("E"), std::string::npos) << msg;
}

TEST(IoBadInput, TruncatedEdgeList) {
  test::TempDir dir;
  const std::string p = dir / "g";
  auto b = nthu_bytes(3, 2, {{0, 1, 1}, {1, 2, 1}});
  b.resize(b.size() - 6);  // the second edge is cut in half
  test::write_bytes(p, b.data(), b.size());
  const std::string msg = expect_input_error(p, "offset 26");
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("32 bytes"), std::string::npos) << "should say the expected size: " << msg;
}

TEST(IoBadInput, EdgeCountDisagreesWithFileSize) {
  test::TempDir dir;
  const std::string p = dir / "g";
  // Header claims fewer edges than the file holds.
  write_nthu(p, 3, 1, {{0, 1, 1}, {1, 2, 1}});
  std::string msg = expect_input_error(p, "offset 20");
  EXPECT_NE(msg.find("E = 1"), std::string::npos) << msg;
  // Header claims far more edges than the file holds: refused from the size, before allocating.
  write_nthu(p, 3, 2000000000, {{0, 1, 1}});
  const auto t0 = std::chrono::steady_clock::now();
  msg = expect_input_error(p, "offset 20");
  EXPECT_NE(msg.find("E = 2000000000"), std::string::npos) << msg;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

TEST(IoBadInput, VertexCountNotPositive) {
  test::TempDir dir;
  const std::string p = dir / "g";
  write_nthu(p, 0, 0, {});
  expect_input_error(p, "offset 0");
  write_nthu(p, -5, 1, {{0, 1, 1}});
  const std::string msg = expect_input_error(p, "offset 0");
  EXPECT_NE(msg.find("-5"), std::string::npos) << msg;
  write_text(dir / "g.gr", "p sp 0 0\n");
  expect_input_error(dir / "g.gr", "line 1");
  write_text(dir / "g.mtx", "%%MatrixMarket matrix coordinate integer general\n0 0 0\n");
  expect_input_error(dir / "g.mtx", "line 2");
}

TEST(IoBadInput, HugeVertexCountIsReadWithoutAllocatingTheMatrix) {
  // The V^2 size check belongs to solve()/the CLI; the reader must accept V = 2^31-1 with a
  // single edge at once (nothing V-sized is allocated).
  test::TempDir dir;
  const std::string p = dir / "g";
  const std::int32_t V = std::numeric_limits<std::int32_t>::max();
  write_nthu(p, V, 1, {{0, V - 1, 3}});
  const auto t0 = std::chrono::steady_clock::now();
  const Graph g = read_graph(p);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  EXPECT_EQ(g.num_vertices, V);
  ASSERT_EQ(g.num_edges(), 1u);
  EXPECT_EQ(g.dst[0], V - 1);
}

TEST(IoBadInput, NegativeEdgeCount) {
  test::TempDir dir;
  const std::string p = dir / "g";
  write_nthu(p, 3, -1, {});
  const std::string msg = expect_input_error(p, "offset 4");
  EXPECT_NE(msg.find("-1"), std::string::npos) << msg;
  write_text(dir / "g.gr", "p sp 3 -2\n");
  expect_input_error(dir / "g.gr", "line 1");
  write_text(dir / "g.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 -1\n");
  expect_input_error(dir / "g.mtx", "line 2");
}

TEST(IoBadInput, VertexIdsOutOfRange) {
  test::TempDir dir;
  const std::string p = dir / "g";
  write_nthu(p, 3, 2, {{0, 1, 1}, {1, 3, 1}});  // edge 1's dst = V
  std::string msg = expect_input_error(p, "offset 24");
  EXPECT_NE(msg.find("dst = 3"), std::string::npos) << msg;
  write_nthu(p, 3, 2, {{0, 1, 1}, {-1, 2, 1}});
  expect_input_error(p, "offset 20");
  write_text(dir / "g.gr", "p sp 3 2\na 1 2 1\na 0 3 1\n");
  expect_input_error(dir / "g.gr", "line 3");
  write_text(dir / "g.gr", "p sp 3 1\na 1 4 1\n");
  expect_input_error(dir / "g.gr", "line 2");
  write_text(dir / "g.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 4 2\n");
  expect_input_error(dir / "g.mtx", "line 3");
  write_text(dir / "g.txt", "0 1\n1 -2 3\n");
  expect_input_error(dir / "g.txt", "line 2");
}

TEST(IoBadInput, VertexIdOverflowsInt32) {
  test::TempDir dir;
  const std::string p = dir / "g.txt";
  write_text(p, "0 1\n0 2147483647\n");  // V would be 2^31, beyond int32 ids
  std::string msg = expect_input_error(p, "line 2");
  EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
  write_text(p, "# x\n5 99999999999999999999999 1\n");
  msg = expect_input_error(p, "line 2");
  EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
  write_text(dir / "g.gr", "p sp 3000000000 1\na 1 2 1\n");
  expect_input_error(dir / "g.gr", "line 1");
}

TEST(IoBadInput, NonNumericText) {
  test::TempDir dir;
  write_text(dir / "g.txt", "0 1 2\n0 x 1\n");
  std::string msg = expect_input_error(dir / "g.txt", "line 2");
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  write_text(dir / "g.csv", "src,dst,weight\nsrc,dst,weight\n0,1,2\n");  // one header line only
  expect_input_error(dir / "g.csv", "line 2");
  write_text(dir / "w.txt", "0 1 1.5.2\n");
  expect_input_error(dir / "w.txt", "line 1");
  write_text(dir / "p.txt", "0 +-1 2\n");
  expect_input_error(dir / "p.txt", "line 1");
  write_text(dir / "n.txt", "0 1 nan\n");
  expect_input_error(dir / "n.txt", "line 1");
  write_text(dir / "g.gr", "c\np sp 3 1\na 1 2 ten\n");
  expect_input_error(dir / "g.gr", "line 3");
  write_text(dir / "h.gr", "p sp three 1\n");
  expect_input_error(dir / "h.gr", "line 1");
  write_text(dir / "g.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n");
  expect_input_error(dir / "g.mtx", "line 3");
}

TEST(IoBadInput, MissingHeaderDimacs) {
  test::TempDir dir;
  const std::string p = dir / "g.gr";
  write_text(p, "c no problem line\na 1 2 3\n");
  std::string msg = expect_input_error(p, "line 2");
  EXPECT_NE(msg.find("p sp"), std::string::npos) << msg;
  write_text(p, "c only comments\n");
  expect_input_error(p, "line 1");
}

TEST(IoBadInput, MissingHeaderMatrixMarket) {
  test::TempDir dir;
  const std::string p = dir / "g.mtx";
  write_text(p, "3 3 1\n1 2 3\n");
  std::string msg = expect_input_error(p, "line 1");
  EXPECT_NE(msg.find("%%MatrixMarket"), std::string::npos) << msg;
  write_text(p, "%%MatrixMarket matrix coordinate integer general\n% only comments\n");
  expect_input_error(p, "line 3");  // the size line is missing
}

TEST(IoBadInput, UnreadablePath) {
  test::TempDir dir;
  const std::string p = dir / "does-not-exist.bin";
  try {
    (void)read_graph(p);
    ADD_FAILURE() << "accepted a missing file";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
  }
  try {
    (void)read_graph(dir.path().string());
    ADD_FAILURE() << "accepted a directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  }
}

TEST(IoBadInput, RandomlyCorruptedFilesNeverCrash) {
  // Flip, insert and cut bytes of valid files in every format: each read either succeeds or
  // throws InputError naming the file; nothing else (no other exception, no crash under ASan).
  test::TempDir dir;
  Graph g = generate_uniform(12, 40, -9, 99, 3);
  write_graph_nthu(dir / "v.bin", g);
  write_graph_edgelist(dir / "v.txt", g);
  write_text(dir / "v.gr", "c x\np sp 4 3\na 1 2 5\na 2 3 -1\na 4 1 7\n");
  write_text(
      dir / "v.mtx",
      "%%MatrixMarket matrix coordinate integer general\n% c\n4 4 3\n1 2 5\n2 3 -1\n4 1 7\n");
  std::uint64_t state = 12345;  // fixed seed: a failure is reproducible
  auto rnd = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  const char alphabet[] = "0123456789 -+.,#%\n\rpacsx\x00\xff";
  int ok = 0, refused = 0;
  for (const char* name : {"v.bin", "v.txt", "v.gr", "v.mtx"}) {
    const std::vector<char> base = test::read_bytes(dir / name);
    const std::string p = dir / (std::string("m_") + name);
    for (int it = 0; it < 400; ++it) {
      std::vector<char> b = base;
      const int edits = 1 + int(rnd(4));
      for (int k = 0; k < edits && !b.empty(); ++k) {
        const std::size_t at = rnd(b.size());
        switch (rnd(3)) {
          case 0:
            b[at] = char(rnd(2) ? alphabet[rnd(sizeof alphabet - 1)] : char(rnd(256)));
            break;
          case 1:
            b.insert(b.begin() + std::ptrdiff_t(at), alphabet[rnd(sizeof alphabet - 1)]);
            break;
          default:
            b.resize(at);
            break;
        }
      }
      test::write_bytes(p, b.data(), b.size());
      try {
        const Graph r = read_graph(p);
        EXPECT_GE(r.num_vertices, 1);
        for (std::size_t e = 0; e < r.num_edges(); ++e) {
          ASSERT_TRUE(r.src[e] >= 0 && r.src[e] < r.num_vertices) << name << " iteration " << it;
          ASSERT_TRUE(r.dst[e] >= 0 && r.dst[e] < r.num_vertices) << name << " iteration " << it;
        }
        ++ok;
      } catch (const InputError& e) {
        ASSERT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        ++refused;
      } catch (const std::exception& e) {
        FAIL() << name << " iteration " << it << ": unexpected exception: " << e.what();
      }
    }
  }
  EXPECT_GT(refused, 100);  // the corruption did hit something
  EXPECT_GT(ok, 10);        // and some edits stayed valid (e.g. a changed weight digit)
}

TEST(IoBadInput, BadMatrixFiles) {
  test::TempDir dir;
  write_text(dir / "d.out", std::string(12, '\0'));  // 3 int32: not a square
  EXPECT_THROW(read_matrix(dir / "d.out"), InputError);
  write_text(dir / "d.npy", "not numpy at all");
  EXPECT_THROW(read_matrix(dir / "d.npy"), InputError);
  write_matrix(dir / "t.npy", padded_matrix<std::int32_t>(3, 3));
  auto b = test::read_bytes(dir / "t.npy");
  b.pop_back();
  test::write_bytes(dir / "t.npy", b.data(), b.size());
  EXPECT_THROW(read_matrix(dir / "t.npy"), InputError);
}

// ---- MatrixStreamWriter: stripes in, the same bytes as write_matrix out ---------------------
// (A mapped, multi-threaded fill of the output file was tried and measured slower than write()
// on ext4: bench/results/2026-11-21-startup-h200.md. One path, checked here.)
template <class T>
Matrix padded_random(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix m(rows, cols, /*stride=*/cols + 5, /*alloc_rows=*/rows + 3, DtypeOf<T>::value,
           Memory::Host);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      m.at<T>(i, j) = (x % 97 == 0) ? unreachable<T>() : T(x % 100000);
    }
  return m;
}

void stream_in_stripes(const std::string& path, const Matrix& m, OutputFormat f,
                       const std::vector<std::int64_t>& cuts, bool prefill = false) {
  MatrixStreamWriter w(path, m.rows(), m.cols(), m.dtype(), f);
  EXPECT_EQ(w.dtype(), m.dtype());
  if (prefill) w.prefill();
  std::int64_t r0 = 0;
  for (std::int64_t r1 : cuts) {
    const std::size_t es = dtype_size(m.dtype());
    w.write(r0, Matrix::view(static_cast<const char*>(m.raw()) + std::size_t(r0 * m.stride()) * es,
                             r1 - r0, m.cols(), m.stride(), m.dtype()));
    r0 = r1;
  }
  EXPECT_EQ(w.rows_written(), m.rows());
  w.commit();
}

TEST(StreamWriter, MappedAndWrittenFilesMatchWriteMatrix) {
  test::TempDir dir;
  const std::int64_t rows = 301, cols = 277;
  const std::vector<std::int64_t> cuts = {1, 2, 64, 65, 200, 301};
  const Matrix i32 = padded_random<std::int32_t>(rows, cols, 1);
  const Matrix f64 = padded_random<double>(rows, cols, 2);
  const Matrix i64 = padded_random<std::int64_t>(rows, cols, 3);
  struct Case {
    const Matrix* m;
    OutputFormat f;
    const char* ext;
  };
  const Case cases[] = {{&i32, OutputFormat::Nthu, ".bin"},
                        {&i32, OutputFormat::Npy, ".npy"},
                        {&f64, OutputFormat::Npy, ".npy"},
                        {&i64, OutputFormat::Npy, ".npy"},
                        {&i32, OutputFormat::Text, ".txt"}};
  int k = 0;
  for (const Case& c : cases) {
    const std::string want = dir / ("want" + std::to_string(k) + c.ext);
    write_matrix(want, *c.m, c.f);
    const std::string got = dir / ("got" + std::to_string(k) + c.ext);
    stream_in_stripes(got, *c.m, c.f, cuts);
    EXPECT_EQ(test::read_bytes(got), test::read_bytes(want)) << "case " << k;
    ++k;
  }
  // Read back once, so the bytes compared above are also the right ones.
  const Matrix back = read_matrix(dir / "got1.npy");  // (NTHU files must be square)
  for (std::int64_t i = 0; i < rows; i += 37)
    for (std::int64_t j = 0; j < cols; j += 11)
      EXPECT_EQ(back.at<std::int32_t>(i, j), i32.at<std::int32_t>(i, j));
}

TEST(StreamWriter, UncommittedWriterLeavesNoFileAndRejectsStripesOutOfOrder) {
  test::TempDir dir;
  const Matrix m = padded_random<std::int32_t>(100, 90, 4);
  const std::string path = dir / "out.bin";
  {
    MatrixStreamWriter w(path, 100, 90, Dtype::Int32, OutputFormat::Nthu);
    w.write(0, Matrix::view(m.raw(), 50, 90, m.stride(), Dtype::Int32));
    EXPECT_THROW(w.write(60, Matrix::view(m.raw(), 10, 90, m.stride(), Dtype::Int32)), Error);
    EXPECT_THROW(w.commit(), Error);  // only 50 of 100 rows
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary file was left behind";
}

TEST(StreamWriter, NthuWriterOfAnInt64ResultTakesExactInt32Stripes) {
  // SolveOptions::int32_stripes: an int64 result's proven-exact int32 rounds arrive as int32
  // stripes; the NTHU bytes are those of the int64 matrix. npy (its header says int64) refuses.
  test::TempDir dir;
  const std::int64_t n = 150;
  const Matrix i32 = padded_random<std::int32_t>(n, n, 7);
  Matrix i64(n, n, Dtype::Int64);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int32_t v = i32.at<std::int32_t>(i, j);
      i64.at<std::int64_t>(i, j) =
          v == unreachable<std::int32_t>() ? unreachable<std::int64_t>() : v;
    }
  const std::string want = dir / "want.bin", got = dir / "got.bin";
  write_matrix(want, i64, OutputFormat::Nthu);
  {
    MatrixStreamWriter w(got, n, n, Dtype::Int64, OutputFormat::Nthu);
    EXPECT_TRUE(w.accepts(Dtype::Int32));
    EXPECT_FALSE(w.accepts(Dtype::Float64));
    w.write(0, Matrix::view(i32.raw(), 70, n, i32.stride(), Dtype::Int32));
    w.write(70, Matrix::view(i64.row<std::int64_t>(70), n - 70, n, i64.stride(), Dtype::Int64));
    w.commit();
  }
  EXPECT_EQ(test::read_bytes(got), test::read_bytes(want));
  MatrixStreamWriter npy(dir / "x.npy", n, n, Dtype::Int64, OutputFormat::Npy);
  EXPECT_FALSE(npy.accepts(Dtype::Int32));
  EXPECT_THROW(npy.write(0, Matrix::view(i32.raw(), 1, n, i32.stride(), Dtype::Int32)), Error);
}

// ---- large writes split over threads, preallocation, replacing an old output (docs/io.md) -------

/// Sets an environment variable for one scope (unset = nullptr), restoring the old value after.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  const char* name_;
  std::string old_;
  bool had_ = false;
};

/// A whole file in one read() (test::read_bytes goes a char at a time: slow for 80 MB under ASan).
std::vector<char> file_bytes(const std::string& path) {
  std::vector<char> b(fs::file_size(path));
  std::ifstream in(path, std::ios::binary);
  in.read(b.data(), std::streamsize(b.size()));
  EXPECT_EQ(std::size_t(in.gcount()), b.size()) << path;
  return b;
}

std::vector<char> pattern_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<char> b(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
  for (std::size_t i = 0; i < n; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(b.data() + i, &x, std::min<std::size_t>(8, n - i));
  }
  return b;
}

TEST(IoParallelWrite, LargeWriteIsTheSameBytesWithAnyThreadCountOrPreallocation) {
  test::TempDir dir;
  const std::vector<char> want = pattern_bytes((std::size_t{80} << 20) + 12345, 1);
  int k = 0;
  for (const char* threads : {"0", "4", "auto"})
    for (const char* prealloc : {"0", "1", "mmap"}) {
      const bool mmap = std::string(prealloc) == "mmap";
      const ScopedEnv t("APSP_WRITE_THREADS", threads),
          p("APSP_WRITE_PREALLOCATE", mmap ? "0" : prealloc),
          m("APSP_WRITE_METHOD", mmap ? "mmap" : nullptr);
      const std::string path = dir / ("out" + std::to_string(k++));
      io::OutputFile f(path);
      if (std::string(threads) == "4") {
        EXPECT_EQ(f.write_threads(), 4);
      } else if (std::string(threads) != "auto") {
        EXPECT_EQ(f.write_threads(), 1);
      }
      f.reserve(want.size());
      f.write(want.data(), want.size());
      EXPECT_EQ(f.size(), want.size());
      f.commit();
      EXPECT_TRUE(file_bytes(path) == want) << "APSP_WRITE_THREADS=" << threads << ", " << prealloc;
    }
  EXPECT_EQ(stray_files_in(dir.path().string(), ".tmp.").size(), 0u);
}

TEST(IoParallelWrite, ConsecutiveWritesLandAtTheRightOffsets) {
  // Small and large, contiguous and strided appends mixed: each one must start where the last
  // ended.
  test::TempDir dir;
  const std::vector<char> src = pattern_bytes(std::size_t{40} << 20, 2);
  const std::size_t row = 4000, stride = 4100, rows = 3000;  // 12 MB of rows, 100 bytes apart
  for (const char* prealloc : {"0", "1", "mmap"}) {
    const bool mmap = std::string(prealloc) == "mmap";
    const ScopedEnv t("APSP_WRITE_THREADS", "4"),
        p("APSP_WRITE_PREALLOCATE", mmap ? "0" : prealloc),
        m("APSP_WRITE_METHOD", mmap ? "mmap" : "write");
    std::vector<char> want;
    auto add = [&](std::size_t from, std::size_t n) {
      want.insert(want.end(), src.begin() + long(from), src.begin() + long(from + n));
    };
    const std::string path = dir / (std::string("mixed") + prealloc);
    io::OutputFile f(path);
    f.reserve(50u << 20);  // more than written: commit cuts a preallocated file to what was written
    f.write(src.data(), 3), add(0, 3);
    f.write(src.data() + 100, (9u << 20) + 5), add(100, (9u << 20) + 5);
    f.write(src.data() + 7, 1), add(7, 1);
    f.write_strided(src.data() + 11, std::int64_t(rows), row, stride);
    for (std::size_t r = 0; r < rows; ++r) add(11 + r * stride, row);
    f.write_strided(src.data() + 5, 1, 3, 3), add(5, 3);
    f.write(src.data() + 333, (17u << 20) + 3), add(333, (17u << 20) + 3);
    EXPECT_EQ(f.size(), want.size());
    f.commit();
    EXPECT_TRUE(file_bytes(path) == want) << "APSP_WRITE_PREALLOCATE=" << prealloc;
  }
}

TEST(IoParallelWrite, WriteAtFromSeveralThreads) {
  test::TempDir dir;
  const std::vector<char> want = pattern_bytes((std::size_t{24} << 20) + 999, 3);
  for (const char* method : {"write", "mmap", "prefill"}) {
    // prefill: the page cache filled (mapped) first; the first write_at callers stop it together.
    const bool pre = std::string(method) == "prefill";
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"),
        m("APSP_WRITE_METHOD", pre ? "write" : method),
        f_("APSP_WRITE_PREFILL", pre ? "mmap" : "0");
    const std::string path = dir / (std::string("at.") + method);
    io::OutputFile f(path);
    f.reserve(want.size() - 1000);  // the last part lies past the reservation (and the mapping)
    if (pre) f.prefill();
    std::vector<std::thread> th;
    const std::size_t n = want.size(), parts = 5;
    for (std::size_t i = 0; i < parts; ++i)
      th.emplace_back([&, i] {
        const std::size_t a = n * i / parts, b = n * (i + 1) / parts;
        f.write_at(a, want.data() + a, b - a);
      });
    for (auto& t : th) t.join();
    f.commit();
    EXPECT_TRUE(file_bytes(path) == want) << method;
  }
}

TEST(IoParallelWrite, StripesMatchWithOneOrFourThreads) {
  // The CLI's way: a MatrixStreamWriter fed stripes of ~8 MB (what the GPU backend hands out).
  test::TempDir dir;
  const Matrix m = padded_random<std::int32_t>(1500, 3000, 5);  // 18 MB of int32, padded rows
  const std::vector<std::int64_t> cuts = {1, 700, 1400, 1500};
  std::vector<std::vector<char>> files;
  for (const char* threads : {"1", "4", "4mmap"})
    for (const char* ext : {".bin", ".npy"}) {
      const ScopedEnv t("APSP_WRITE_THREADS", std::string(threads).substr(0, 1).c_str()),
          how("APSP_WRITE_METHOD", std::string(threads) == "4mmap" ? "mmap" : "write");
      const std::string path = dir / (std::string("s") + threads + ext);
      stream_in_stripes(path, m, OutputFormat::Auto, cuts);
      files.push_back(file_bytes(path));
    }
  EXPECT_EQ(files[0].size(), 1500u * 3000u * 4u);
  EXPECT_TRUE(files[0] == files[2]) << "nthu output differs between 1 and 4 threads";
  EXPECT_TRUE(files[1] == files[3]) << "npy output differs between 1 and 4 threads";
  EXPECT_TRUE(files[0] == files[4]) << "nthu output differs when mapped";
  EXPECT_TRUE(files[1] == files[5]) << "npy output differs when mapped";
  write_matrix(dir / "whole.bin", m);
  EXPECT_TRUE(file_bytes(dir / "whole.bin") == files[0]);
}

TEST(IoParallelWrite, FifoAndDevNullAreWrittenInOrder) {
  test::TempDir dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<char> want = pattern_bytes((std::size_t{20} << 20) + 77, 4);
  std::vector<char> got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0)
      got.insert(got.end(), buf.data(), buf.data() + in.gcount());
  });
  {
    const ScopedEnv t("APSP_WRITE_THREADS", "4"), p("APSP_WRITE_PREALLOCATE", "1"),
        m("APSP_WRITE_METHOD", "mmap");
    io::OutputFile f(fifo);
    EXPECT_EQ(f.write_threads(), 1);
    f.reserve(want.size());  // nothing to preallocate in a pipe
    f.write(want.data(), 5);
    f.write_strided(want.data() + 5, 2, (std::size_t{6} << 20), (std::size_t{6} << 20));
    f.write(want.data() + 5 + (std::size_t{12} << 20), want.size() - 5 - (std::size_t{12} << 20));
    EXPECT_THROW(f.write_at(0, want.data(), 1), Error);
    f.commit();
  }
  reader.join();
  EXPECT_TRUE(got == want) << "got " << got.size() << " bytes of " << want.size();
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";

  const ScopedEnv t("APSP_WRITE_THREADS", "4");
  write_matrix("/dev/null", padded_random<std::int32_t>(2000, 2600, 6));  // 20 MB, strided
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

/// Lowers RLIMIT_FSIZE (with SIGXFSZ ignored, a write past it fails with EFBIG) for one scope.
struct FileSizeLimit {
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit r = old_;
    r.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &r) == 0;
    old_sig_ = ::signal(SIGXFSZ, SIG_IGN);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_sig_);
  }
  rlimit old_{};
  void (*old_sig_)(int) = nullptr;
  bool ok_ = false;
};

TEST(IoParallelWrite, AFailedPieceIsOneErrorAtTheFirstFailedByteAndLeavesNoFile) {
  test::TempDir dir;
  const std::vector<char> data = pattern_bytes(std::size_t{80} << 20, 7);
  const std::uint64_t limit = std::uint64_t{30} << 20;  // inside the second of four 20 MiB pieces
  for (const char* threads : {"1", "4"}) {
    const ScopedEnv t("APSP_WRITE_THREADS", threads), p("APSP_WRITE_PREALLOCATE", "0");
    const std::string path = dir / "out.bin";
    std::string msg;
    {
      FileSizeLimit lim(limit);
      ASSERT_TRUE(lim.ok_);
      try {
        io::OutputFile f(path);
        f.reserve(data.size());
        f.write(data.data(), data.size());
        f.commit();
        ADD_FAILURE() << "a write past RLIMIT_FSIZE succeeded";
      } catch (const Error& e) {
        msg = e.what();
      }
    }
    EXPECT_NE(msg.find(path + ": write failed after " + std::to_string(limit) + " bytes of " +
                       std::to_string(data.size()) + ": " + std::strerror(EFBIG)),
              std::string::npos)
        << "APSP_WRITE_THREADS=" << threads << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary file was left behind";
  }
}

TEST(IoParallelWrite, NoRoomIsFoundBeforeTheFirstStripeWhenPreallocating) {
  test::TempDir dir;
  const std::string path = dir / "out.bin";
  const std::int64_t V = 5000;  // 100 MB of output, 30 MiB allowed
  for (const char* prealloc : {"1", "0", "mmap"}) {
    // (APSP_WRITE_METHOD=mmap preallocates whatever APSP_WRITE_PREALLOCATE says: it must.)
    const bool mmap = std::string(prealloc) == "mmap";
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", mmap ? "0" : prealloc),
        t("APSP_WRITE_THREADS", "4"), m("APSP_WRITE_METHOD", mmap ? "mmap" : "write");
    const Matrix stripe = padded_random<std::int32_t>(1000, V, 8);
    std::string msg;
    {
      FileSizeLimit lim(30u << 20);
      ASSERT_TRUE(lim.ok_);
      try {
        MatrixStreamWriter w(path, V, V, Dtype::Int32, OutputFormat::Nthu);
        for (std::int64_t r0 = 0; r0 < V; r0 += 1000) w.write(r0, stripe);
        w.commit();
        ADD_FAILURE() << "an output past RLIMIT_FSIZE was committed";
      } catch (const Error& e) {
        msg = e.what();
      }
    }
    const std::string total = std::to_string(V * V * 4);
    if (std::string(prealloc) != "0")
      EXPECT_NE(msg.find(path + ": cannot reserve " + total +
                         " bytes for the output: " + std::strerror(EFBIG)),
                std::string::npos)
          << msg;
    else
      EXPECT_NE(msg.find(path + ": write failed after " + std::to_string(30u << 20) + " bytes of " +
                         total),
                std::string::npos)
          << msg;
    EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary file was left behind";
  }
}

TEST(IoParallelWrite, WriteMatrixReservesItsSizeFirst) {
  // write_matrix (--verify's output, Python's apsp.write) preallocates as MatrixStreamWriter does:
  // no room is found before the first byte, and the message has the whole size.
  test::TempDir dir;
  const Matrix m = padded_random<std::int32_t>(3000, 3000, 14);  // 36 MB; 20 MiB allowed
  const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1");
  for (const char* ext : {".bin", ".npy"}) {
    const std::string path = dir / (std::string("w") + ext);
    std::string msg;
    {
      FileSizeLimit lim(20u << 20);
      ASSERT_TRUE(lim.ok_);
      try {
        write_matrix(path, m);
        ADD_FAILURE() << "an output past RLIMIT_FSIZE was written";
      } catch (const Error& e) {
        msg = e.what();
      }
    }
    EXPECT_NE(msg.find(": cannot reserve "), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(3000 * 3000 * 4 + (std::string(ext) == ".npy" ? 128 : 0)) +
                       " bytes"),
              std::string::npos)
        << msg;
    EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary file was left behind";
  }
}

TEST(IoParallelWrite, ReplacedOutputStaysUntilCommitAndIsGoneAfter) {
  test::TempDir dir;
  const std::string path = dir / "out.bin";
  write_text(path, "old output");
  const std::vector<char> data = pattern_bytes(std::size_t{9} << 20, 9);
  {
    const ScopedEnv t("APSP_WRITE_THREADS", "4");
    io::OutputFile f(path);
    f.reserve(data.size());
    f.write(data.data(), data.size());
    EXPECT_EQ(fs::file_size(path), 10u) << "the old output changed before commit";
    f.commit();
  }
  EXPECT_TRUE(file_bytes(path) == data);
  EXPECT_TRUE(stray_files(dir, {"out.bin"}).empty());
}

// ---- prefill: the page cache filled ahead of the data (OutputFile::prefill, docs/io.md) ---------

/// Whether `dir`'s file system can fallocate (prefill needs a preallocated file).
bool can_fallocate(const std::string& dir) {
  const std::string p = dir + "/.falloc_probe";
  const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = ::fallocate(fd, 0, 0, 1 << 20) == 0;
  ::close(fd);
  ::unlink(p.c_str());
  return ok;
}

TEST(IoPrefill, TheDataLandsWhetherThePrefillFinishedOrWasCutShort) {
  test::TempDir dir;
  if (!can_fallocate(dir.path().string()))
    GTEST_SKIP() << "no fallocate on this file system: prefill does nothing";
  const std::vector<char> src = pattern_bytes((std::size_t{30} << 20) + 4321, 11);
  int k = 0;
  for (const char* method : {"write", "mmap"})
    for (const bool wait : {false, true})
      for (const bool short_write : {false, true}) {
        const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", method),
            t("APSP_WRITE_THREADS", "4");
        const std::string path = dir / ("pre" + std::to_string(k++));
        const std::size_t n = short_write ? src.size() - (std::size_t{5} << 20) - 3 : src.size();
        io::OutputFile out(path);
        out.reserve(src.size());  // short_write: less is written than reserved (and prefilled)
        out.prefill();
        if (wait) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        // Mixed appends, as the CLI's stripes and a header would come.
        out.write(src.data(), 128);
        out.write_strided(src.data() + 128, 1000, 1000, 1000);
        out.write(src.data() + 1000128, n - 1000128);
        if (wait) {
          EXPECT_GT(out.prefilled(), 0u) << method << ": nothing prefilled in 0.3 s";
        }
        out.commit();
        const std::vector<char> got = file_bytes(path);
        EXPECT_EQ(got.size(), n) << method;
        EXPECT_TRUE(std::equal(got.begin(), got.end(), src.begin()))
            << method << " wait " << wait << " short " << short_write;
      }
  EXPECT_EQ(stray_files_in(dir.path().string(), ".tmp.").size(), 0u);
}

// Past prefill()'s limit the pages are faulted in ahead of the data (populate_ahead): the bytes
// are the data's, however the copies and the populating threads interleave; a short write and a
// dropped output stop the threads as well.
TEST(IoPrefill, PagesPastTheLimitArePopulatedAheadOfTheData) {
  test::TempDir dir;
  if (!can_fallocate(dir.path().string()))
    GTEST_SKIP() << "no fallocate on this file system: prefill does nothing";
  const std::vector<char> src = pattern_bytes((std::size_t{40} << 20) + 777, 13);
  const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", "mmap"),
      l("APSP_WRITE_PREFILL_LIMIT", std::to_string(std::size_t{4} << 20).c_str()),
      t("APSP_WRITE_PREFILL_THREADS", "4"), w("APSP_WRITE_THREADS", "4");
  for (const bool short_write : {false, true}) {
    const std::string path = dir / (short_write ? "short" : "whole");
    const std::size_t n = short_write ? src.size() - (std::size_t{9} << 20) - 5 : src.size();
    io::OutputFile out(path);
    out.reserve(src.size());
    out.prefill();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    out.write(src.data(), 1 << 20);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the window fills meanwhile
    std::size_t at = 1 << 20;
    while (at < n) {  // stripes of 64 rows of 16 KiB, the last one shorter
      const std::size_t len = std::min<std::size_t>(std::size_t{1} << 20, n - at);
      if (len % 16384 == 0)
        out.write_strided(src.data() + at, std::int64_t(len / 16384), 16384, 16384);
      else
        out.write(src.data() + at, len);
      at += len;
    }
    out.commit();
    EXPECT_GT(out.populated(), 0u) << "nothing populated past the 4 MiB limit in 0.3 s";
    const std::vector<char> got = file_bytes(path);
    EXPECT_EQ(got.size(), n);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), src.begin())) << "short " << short_write;
  }
  {
    io::OutputFile out(dir / "dropped");
    out.reserve(src.size());
    out.prefill();
    out.write(src.data(), 1 << 20);  // populating starts, then an error elsewhere
  }
  EXPECT_FALSE(fs::exists(dir / "dropped"));
  EXPECT_EQ(stray_files_in(dir.path().string(), ".tmp.").size(), 0u);
}

TEST(IoPrefill, OffOrUncommittedLeavesNothingBehind) {
  test::TempDir dir;
  if (!can_fallocate(dir.path().string()))
    GTEST_SKIP() << "no fallocate on this file system: prefill does nothing";
  const std::vector<char> src = pattern_bytes(std::size_t{12} << 20, 12);
  {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", "0");
    io::OutputFile out(dir / "off");
    out.reserve(src.size());
    out.prefill();
    out.write(src.data(), src.size());
    EXPECT_EQ(out.prefilled(), 0u);
    out.commit();
    EXPECT_TRUE(file_bytes(dir / "off") == src);
  }
  {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "0"), f("APSP_WRITE_PREFILL", "write");
    io::OutputFile out(dir / "unreserved");  // not preallocated: nothing to prefill
    out.reserve(src.size());
    out.prefill();
    out.write(src.data(), src.size());
    EXPECT_EQ(out.prefilled(), 0u);
    out.commit();
  }
  for (const char* method : {"write", "mmap"}) {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", method);
    io::OutputFile out(dir / "dropped");
    out.reserve(src.size());
    out.prefill();  // then an error elsewhere: the destructor stops it and removes the file
  }
  EXPECT_FALSE(fs::exists(dir / "dropped"));
  EXPECT_EQ(stray_files_in(dir.path().string(), ".tmp.").size(), 0u);
  EXPECT_GT(io::prefill_limit(), 0u) << "no dirty-page threshold read from /proc";
}

TEST(IoPrefill, WaitsWhileABackendsHostWorkRuns) {
  // detail::HostBusy (the cuda build's staging copies): the prefill touches nothing meanwhile,
  // and goes on once it is gone.
  test::TempDir dir;
  if (!can_fallocate(dir.path().string()))
    GTEST_SKIP() << "no fallocate on this file system: prefill does nothing";
  const std::vector<char> src = pattern_bytes(std::size_t{16} << 20, 15);
  for (const char* method : {"write", "mmap"}) {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", method);
    {
      io::OutputFile out(dir / (std::string("busy.") + method));
      out.reserve(src.size());
      {
        const detail::HostBusy busy;
        out.prefill();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        out.write(src.data(), 100);  // stops the prefill, which has waited all along
      }
      EXPECT_EQ(out.prefilled(), 0u) << method << ": prefilled while the host was busy";
      out.write(src.data() + 100, src.size() - 100);
      out.commit();
      EXPECT_TRUE(file_bytes(dir / (std::string("busy.") + method)) == src) << method;
    }
    {
      io::OutputFile out(dir / (std::string("after.") + method));
      out.reserve(src.size());
      std::optional<detail::HostBusy> busy(std::in_place);
      out.prefill();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      busy.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      out.write(src.data(), src.size());
      EXPECT_GT(out.prefilled(), 0u) << method << ": the prefill did not go on after the host work";
      out.commit();
    }
  }
}

TEST(IoPrefill, AfterAHeaderTheRestIsPrefilled) {
  // As an .npy output: a header appended first, then the reservation and the prefill, which
  // starts at the next whole page and leaves the header alone.
  test::TempDir dir;
  if (!can_fallocate(dir.path().string()))
    GTEST_SKIP() << "no fallocate on this file system: prefill does nothing";
  const std::vector<char> src = pattern_bytes((std::size_t{10} << 20) + 128, 16);
  for (const char* method : {"write", "mmap"}) {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", method);
    const std::string path = dir / (std::string("hdr.") + method);
    io::OutputFile out(path);
    out.write(src.data(), 128);
    out.reserve(src.size());
    out.prefill();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    out.write(src.data() + 128, src.size() - 128);
    EXPECT_GT(out.prefilled(), 0u) << method;
    EXPECT_LE(out.prefilled(), src.size() - 4096) << method << ": the header's page was prefilled";
    out.commit();
    EXPECT_TRUE(file_bytes(path) == src) << method;
  }
}

TEST(IoPrefill, StreamWriterStripesMatchWriteMatrix) {
  test::TempDir dir;
  const Matrix m = padded_random<std::int32_t>(1200, 2500, 13);
  const std::vector<std::int64_t> cuts = {1, 600, 1100, 1200};
  write_matrix(dir / "whole.npy", m);
  for (const char* method : {"write", "mmap"}) {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", method);
    const std::string path = dir / (std::string("s.") + method + ".npy");
    stream_in_stripes(path, m, OutputFormat::Auto, cuts, true);
    EXPECT_TRUE(file_bytes(path) == file_bytes(dir / "whole.npy")) << method;
  }
}

TEST(IoParallelWrite, BadSettingsAreUsageErrors) {
  test::TempDir dir;
  {
    const ScopedEnv t("APSP_WRITE_THREADS", "many");
    try {
      io::OutputFile f(dir / "a");
      ADD_FAILURE() << "APSP_WRITE_THREADS=many accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("APSP_WRITE_THREADS='many'"), std::string::npos)
          << e.what();
    }
  }
  {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "sometimes");  // (yes is a bool)
    io::OutputFile f(dir / "b");
    EXPECT_THROW(f.reserve(100), UsageError);
  }
  {
    const ScopedEnv m("APSP_WRITE_METHOD", "splice");
    EXPECT_THROW(io::OutputFile(dir / "c"), UsageError);
  }
  if (can_fallocate(dir.path().string())) {
    const ScopedEnv p("APSP_WRITE_PREALLOCATE", "1"), f("APSP_WRITE_PREFILL", "yes");
    io::OutputFile out(dir / "d");
    out.reserve(100);
    EXPECT_THROW(out.prefill(), UsageError);
  }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary file was left behind";
}

}  // namespace
}  // namespace apsp
