// tests/test_io_formats.cpp — what a file's name and content make of it (issue 15): one weight
// rule in every text reader (integers exact or refused, no silent rounding), CSV fields and
// header lines, the vertex count of edge lists, input formats by content and gzip, output and
// graph formats by extension, and graph writers whose files read back as the same graph.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "io/formats.hpp"
#include "io/weight_parse.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& s) {
  test::write_bytes(path, s.data(), s.size());
}

/// Reads `path` expecting an InputError whose one-line message names the file, `where` and `what`.
std::string expect_input_error(const std::string& path, const std::string& where,
                               const std::string& what = "", const ReadOptions& o = {}) {
  try {
    (void)read_graph(path, o);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << "message does not name the file: " << msg;
    EXPECT_NE(msg.find(where), std::string::npos)
        << "message does not say '" << where << "': " << msg;
    EXPECT_NE(msg.find(what), std::string::npos)
        << "message does not say '" << what << "': " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": expected InputError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << path << ": read_graph accepted bad input (expected an error at " << where << ")";
  return "";
}

/// Expects `f()` to throw UsageError whose message contains `what`.
template <class F>
void expect_usage_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no UsageError (expected one saying '" << what << "')";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected UsageError, got: " << e.what();
  }
}

void expect_same_graph(const Graph& got, const Graph& want, const std::string& what) {
  EXPECT_EQ(got.num_vertices, want.num_vertices) << what;
  EXPECT_EQ(got.directed, want.directed) << what;
  EXPECT_EQ(got.integer_weights, want.integer_weights) << what;
  ASSERT_EQ(got.num_edges(), want.num_edges()) << what;
  for (std::size_t e = 0; e < got.num_edges(); ++e) {
    ASSERT_EQ(got.src[e], want.src[e]) << what << " edge " << e;
    ASSERT_EQ(got.dst[e], want.dst[e]) << what << " edge " << e;
    ASSERT_EQ(got.weight[e], want.weight[e]) << what << " edge " << e;
  }
}

/// /usr/bin/gzip -c of `path` into `out` (an independent compressor); false when there is none.
bool system_gzip(const std::string& path, const std::string& out) {
  if (!fs::exists("/usr/bin/gzip")) return false;
  const auto r = test::run_program("/usr/bin/gzip", {"-k", "-f", "-n", path});
  if (r.exit_code != 0) return false;
  fs::rename(path + ".gz", out);
  return true;
}

// ---- one weight rule in every text reader ------------------------------------------------------

TEST(IoWeights, IntegersBeyond2To53AreRefusedTheSameWayInEveryReader) {
  // 2^53 + 1 was rounded to 2^53 through double by the Matrix Market and edge-list readers.
  test::TempDir dir;
  const std::string too_big = "9007199254740993", beyond_int64 = "99999999999999999999";
  for (const std::string& w : {too_big, "-" + too_big, beyond_int64, "+" + too_big}) {
    write_text(dir / "g.txt", "0 1 5\n1 0 " + w + "\n");
    expect_input_error(dir / "g.txt", "line 2", "is beyond");
    write_text(dir / "g.csv", "0,1," + w + "\n");
    expect_input_error(dir / "g.csv", "line 1", "is beyond");
    write_text(dir / "g.gr", "p sp 2 1\na 1 2 " + w + "\n");
    expect_input_error(dir / "g.gr", "line 2", "is beyond");
    for (const char* field : {"integer", "real"}) {
      write_text(dir / "g.mtx", std::string("%%MatrixMarket matrix coordinate ") + field +
                                    " general\n2 2 1\n1 2 " + w + "\n");
      expect_input_error(dir / "g.mtx", "line 3", "is beyond");
    }
  }
  write_text(dir / "g.txt", "0 1 " + too_big + "\n");
  const std::string msg = expect_input_error(dir / "g.txt", "line 1");
  EXPECT_NE(msg.find("weight 9007199254740993 is beyond 2^53, which apsp holds exactly"),
            std::string::npos)
      << msg;
}

TEST(IoWeights, IntegersUpTo2To53AreExact) {
  test::TempDir dir;
  const double max = 9007199254740992.0, odd = 9007199254740991.0;  // 2^53, 2^53 - 1
  write_text(dir / "g.txt", "0 1 9007199254740992\n1 0 -9007199254740991\n");
  Graph g = read_graph(dir / "g.txt");
  EXPECT_EQ(g.weight[0], max);
  EXPECT_EQ(g.weight[1], -odd);
  EXPECT_TRUE(g.integer_weights);
  write_text(dir / "g.mtx",
             "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 9007199254740991\n");
  EXPECT_EQ(read_graph(dir / "g.mtx").weight[0], odd);
  write_text(dir / "g.gr", "p sp 2 1\na 1 2 9007199254740992\n");
  EXPECT_EQ(read_graph(dir / "g.gr").weight[0], max);
}

TEST(IoWeights, IntegersWrittenAsRealsFollowTheIntegerRule) {
  // 9007199254740993.0 and 9.007199254740993e15 were read as ...992 (and solved as int64) where
  // 9007199254740993 is refused.
  test::TempDir dir;
  for (const std::string w : {"9007199254740993.0", "9.007199254740993e15", "-9007199254740993.",
                              "90071992547409930e-1", "1.00000000000000001E17"}) {
    write_text(dir / "g.txt", "0 1 5\n1 0 " + w + "\n");
    expect_input_error(dir / "g.txt", "line 2", "weight " + w + " is beyond");
    write_text(dir / "g.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 " + w + "\n");
    expect_input_error(dir / "g.mtx", "line 3", "2^53, which apsp holds exactly");
  }
  // 2^53 itself, fractions (a real, rounded) and digits that stop above the ones (a rounded
  // real, as the graph writers put integral weights beyond 2^53) are read.
  write_text(dir / "g.txt",
             "0 1 9007199254740992.0\n1 2 9007199254740992.5\n2 3 1e20\n3 0 "
             "1.152921504606847e+18\n");
  const Graph g = read_graph(dir / "g.txt");
  ASSERT_EQ(g.num_edges(), 4u);
  EXPECT_EQ(g.weight[0], 9007199254740992.0);
  EXPECT_EQ(g.weight[1], 9007199254740992.0);
  EXPECT_EQ(g.weight[2], 1e20);
  EXPECT_EQ(g.weight[3], 1152921504606846976.0);
}

TEST(IoWeights, WholeDoublesBeyond2To53ReadBackAsWritten) {
  // put_weight writes 2^53 + 2 as 9.007199254740994e+15, which states ...994 to its ones digit;
  // it was refused as an integer beyond 2^53, though it reads back as exactly that double.
  std::vector<double> ws = {9007199254740994.0, 1152921504606846976.0, 12345678901234568.0, 1e18};
  std::uint64_t x = 20261127;  // SplitMix64
  for (int i = 0; i < 20000; ++i) {
    x += 0x9e3779b97f4a7c15u;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    // Whole doubles spread over [2^53, 1e18] by their exponent; every one beyond 2^53 is whole.
    const double lo = std::log2(9007199254740992.0), hi = std::log2(1e18);
    const double w = std::exp2(lo + (hi - lo) * double(z >> 11) / double(std::uint64_t{1} << 53));
    ws.push_back(i % 2 ? w : -w);
  }
  for (const double w : ws) {
    ASSERT_EQ(w, std::floor(w));
    char buf[32];
    const char* end = io::put_weight(buf, buf + sizeof buf, w);
    const std::string t(buf, std::size_t(end - buf));
    double back = 0;
    bool integral = false;
    ASSERT_EQ(io::parse_weight(t, false, back, integral), io::WeightStatus::Ok) << t;
    EXPECT_EQ(back, w) << t;
    EXPECT_TRUE(integral) << t;
  }
  // The same tokens through a reader: 2^53 + 2 and 2^60 as put_weight writes them, and stated
  // in full.
  test::TempDir dir;
  write_text(dir / "g.txt",
             "0 1 9.007199254740994e+15\n1 2 1.2345678901234568e+16\n2 3 9007199254740994.0\n"
             "3 0 1152921504606846976e0\n");
  const Graph g = read_graph(dir / "g.txt");
  ASSERT_EQ(g.num_edges(), 4u);
  EXPECT_EQ(g.weight[0], 9007199254740994.0);
  EXPECT_EQ(g.weight[1], 12345678901234568.0);
  EXPECT_EQ(g.weight[2], 9007199254740994.0);
  EXPECT_EQ(g.weight[3], 1152921504606846976.0);
  // What would round is still refused: these state integers no double holds.
  for (const std::string w : {"9.007199254740993e15", "-9007199254740995.0",
                              "1.2345678901234567e+16", "1152921504606846977.0"}) {
    double v = 0;
    bool integral = false;
    EXPECT_EQ(io::parse_weight(w, false, v, integral), io::WeightStatus::BeyondExact) << w;
  }
}

TEST(IoWeights, RealsThatDoNotFitFloat64AreRefused) {
  test::TempDir dir;
  write_text(dir / "g.txt", "0 1 1e400\n");
  expect_input_error(dir / "g.txt", "line 1", "beyond the largest float64");
  write_text(dir / "g.txt", "0 1 2\n1 0 -1e400\n");
  expect_input_error(dir / "g.txt", "line 2", "beyond the largest float64");
  write_text(dir / "g.txt", "0 1 1e-400\n");
  expect_input_error(dir / "g.txt", "line 1", "would read as 0");
  write_text(dir / "g.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e400\n");
  expect_input_error(dir / "g.mtx", "line 3", "beyond the largest float64");
  write_text(dir / "g.gr", "p sp 2 1\na 1 2 1.5\n");
  expect_input_error(dir / "g.gr", "line 2", "expected an integer weight");
  // What fits is kept as written: 1e308 is finite, 0 is 0, a subnormal stays non-zero.
  write_text(dir / "g.txt", "0 1 1e308\n1 0 0e-400\n1 1 5e-324\n");
  const Graph g = read_graph(dir / "g.txt");
  EXPECT_EQ(g.weight[0], 1e308);
  EXPECT_EQ(g.weight[1], 0.0);
  EXPECT_GT(g.weight[2], 0.0);
}

// ---- CSV fields and header lines ----------------------------------------------------------------

TEST(IoCsv, AnEmptyFieldIsAnErrorNamingItsColumn) {
  test::TempDir dir;
  const std::string p = dir / "g.csv";
  write_text(p, "0,,5\n");  // was read as the edge 0 -> 5 of weight 1
  expect_input_error(p, "line 1", "column 2 is empty");
  write_text(p, "0,1,5\n1,2,\n");
  expect_input_error(p, "line 2", "column 3 is empty");
  write_text(p, ",1,5\n");
  expect_input_error(p, "line 1", "column 1 is empty");
  write_text(p, "0 , 1 , 5\n1,2 # comment\n");  // blanks around fields and comments are fine
  const Graph g = read_graph(p);
  ASSERT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.dst[0], 1);
  EXPECT_EQ(g.weight[0], 5);
  EXPECT_EQ(g.weight[1], 1);
}

TEST(IoCsv, OneHeaderLineIsSkipped) {
  test::TempDir dir;
  for (const std::string& text :
       {std::string("u,v,w\n0,1,5\n1,2,3\n"), std::string("src dst weight\n0 1 5\n1 2 3\n"),
        std::string("# SNAP comment\n\nFromNodeId\tToNodeId\tw\n0\t1\t5\n1\t2\t3\n")}) {
    write_text(dir / "g.csv", text);
    const Graph g = read_graph(dir / "g.csv");
    EXPECT_EQ(g.num_vertices, 3) << text;
    ASSERT_EQ(g.num_edges(), 2u) << text;
    EXPECT_EQ(g.weight[0], 5) << text;
  }
  // Only one, and only before the first edge: a second or a later one is an error with its line.
  write_text(dir / "g.txt", "u v w\nsource target weight\n0 1 5\n");
  expect_input_error(dir / "g.txt", "line 2");
  write_text(dir / "g.txt", "0 1 5\nu v w\n");
  expect_input_error(dir / "g.txt", "line 2");
  // A line with a number in it is data, not a header.
  write_text(dir / "g.txt", "0 x 1\n");
  expect_input_error(dir / "g.txt", "line 1", "'x'");
}

// ---- the vertex count of an edge list -----------------------------------------------------------

TEST(IoVertexCount, TheWritersHeaderKeepsIsolatedHighVertices) {
  // `apsp generate rt.txt -V 1000 -E 50` read back as 995 vertices: the top ids had no edges.
  test::TempDir dir;
  Graph g;
  g.num_vertices = 1000;
  g.add_edge(0, 1, 3);
  g.add_edge(7, 2, 4);
  for (const char* name : {"g.txt", "g.csv", "g.tsv", "g.el", "g.wel"}) {
    write_graph_edgelist(dir / name, g);
    const Graph r = read_graph(dir / name);
    EXPECT_EQ(r.num_vertices, 1000) << name;
    expect_same_graph(r, g, name);
  }
  Graph empty;  // no edges at all: V alone
  empty.num_vertices = 5;
  write_graph_edgelist(dir / "e.txt", empty);
  EXPECT_EQ(read_graph(dir / "e.txt").num_vertices, 5);
}

TEST(IoVertexCount, CommentsAndTheOptionSetV) {
  test::TempDir dir;
  const std::string p = dir / "g.txt";
  write_text(p, "# vertices: 10\n0 1 2\n");
  EXPECT_EQ(read_graph(p).num_vertices, 10);
  write_text(p, "# Directed graph\n# Nodes: 10 Edges: 1\n0 1 2\n");
  EXPECT_EQ(read_graph(p).num_vertices, 10);
  // SNAP's Nodes counts distinct ids, which may be fewer than the largest id + 1.
  write_text(p, "# Nodes: 3 Edges: 2\n0 1 2\n1 12 2\n");
  EXPECT_EQ(read_graph(p).num_vertices, 13);
  // `vertices:` is a bound: an id at or above it is an error naming both lines.
  write_text(p, "# vertices: 3\n0 1 2\n1 12 2\n");
  std::string msg = expect_input_error(p, "line 3", "vertex id 12 is outside 0..2");
  EXPECT_NE(msg.find("line 1 says vertices: 3"), std::string::npos) << msg;
  write_text(p, "# vertices: 0\n0 1 2\n");
  expect_input_error(p, "line 1", "vertex count");
  // A number after the key is a count in digits: 3.5 read as 3, 5abc as 5; -5 and +4 were
  // ignored.
  for (const char* bad : {"3.5", "5abc", "-5", "+4", ".5", "12.;", "77360.5."}) {
    write_text(p, "# comment\n# vertices: " + std::string(bad) + "\n0 1 2\n");
    expect_input_error(p, "line 2", "expected a vertex count in 1..");
  }
  write_text(p, "# Nodes: 7.5 Edges: 1\n0 1 2\n");
  expect_input_error(p, "line 1", "after 'nodes:'");
  write_text(p, "# vertices: 12, directed\n0 1 2\n");
  EXPECT_EQ(read_graph(p).num_vertices, 12);
  // Prose is no count (it stopped the read): a word that is not a number is ignored, and a
  // sentence's '.', ';' or ',' may end the digits.
  for (const char* prose : {"# Number of nodes: unknown", "# vertices:", "# vertices: x",
                            "# Nodes: -", "# vertices: ... later"}) {
    write_text(p, std::string(prose) + "\n0 1 2\n");
    EXPECT_EQ(read_graph(p).num_vertices, 2) << prose;
  }
  for (const char* count :
       {"# Nodes: 77360.", "# vertices: 77360;", "# The graph has Nodes: 77360."}) {
    write_text(p, std::string(count) + "\n0 1 2\n");
    EXPECT_EQ(read_graph(p).num_vertices, 77360) << count;
  }

  ReadOptions o;
  o.num_vertices = 20;
  write_text(p, "0 1 2\n");
  EXPECT_EQ(read_graph(p, o).num_vertices, 20);
  write_text(p, "# vertices: 50\n0 1 2\n");
  EXPECT_EQ(read_graph(p, o).num_vertices, 20) << "the option wins over the file's comment";
  o.num_vertices = 2;
  write_text(p, "0 1 2\n1 2 2\n");
  expect_input_error(p, "line 2", "num_vertices = 2", o);
  // Formats that state V: the option may only widen it.
  write_graph_nthu(dir / "g.bin", generate_uniform(6, 10, 1, 9, 4));
  o.num_vertices = 9;
  EXPECT_EQ(read_graph(dir / "g.bin", o).num_vertices, 9);
  o.num_vertices = 4;
  expect_input_error(dir / "g.bin", "V = 6", "", o);
  o.num_vertices = -1;
  EXPECT_THROW(read_graph(dir / "g.bin", o), UsageError);
}

// ---- input formats by content -------------------------------------------------------------------

TEST(IoSniff, NamesThatDoNotSayTheFormatAreReadByContent) {
  test::TempDir dir;
  const Graph g = generate_uniform(12, 30, 1, 50, 21);
  write_graph_nthu(dir / "ref.bin", g);
  const Graph want = read_graph(dir / "ref.bin");
  // GAPBS .wel / .el are edge lists.
  write_graph_edgelist(dir / "g.wel", g);
  expect_same_graph(read_graph(dir / "g.wel"), want, "g.wel");
  // Unknown extensions: by content, whatever is in them.
  fs::copy_file(dir / "ref.bin", dir / "nthu.data");
  expect_same_graph(read_graph(dir / "nthu.data"), want, "nthu.data");
  fs::copy_file(dir / "g.wel", dir / "edges.data");
  expect_same_graph(read_graph(dir / "edges.data"), want, "edges.data");
  write_graph_dimacs(dir / "g.gr", g);
  fs::copy_file(dir / "g.gr", dir / "dimacs.data");
  expect_same_graph(read_graph(dir / "dimacs.data"), want, "dimacs.data");
  write_graph_mtx(dir / "g.mtx", g);
  fs::copy_file(dir / "g.mtx", dir / "mm.data");
  expect_same_graph(read_graph(dir / "mm.data"), want, "mm.data");
  // An NTHU-like name (the course's c01.1, none, .bin) holding text is read as that text.
  fs::copy_file(dir / "g.wel", dir / "c01.1");
  expect_same_graph(read_graph(dir / "c01.1"), want, "c01.1");
  fs::copy_file(dir / "g.gr", dir / "noext");
  expect_same_graph(read_graph(dir / "noext"), want, "noext");
}

TEST(IoSniff, WhatFitsNoFormatIsUnknownNotNthuByLuck) {
  test::TempDir dir;
  // Text that was read as NTHU binary: "header says E = 540084789, so the file should be ...".
  write_text(dir / "g.foo", "hello world\nthis is prose\n");
  expect_input_error(dir / "g.foo", "line 2", "unknown format");
  std::string bytes(100, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 37 + 11) & 0xff);
  write_text(dir / "g.foo", bytes);
  const std::string msg = expect_input_error(dir / "g.foo", "offset 0", "unknown format");
  EXPECT_NE(msg.find("--input-format"), std::string::npos) << msg;
  write_text(dir / "g.foo", "");
  expect_input_error(dir / "g.foo", "offset 0", "empty");
  // The same bytes under an NTHU name get the NTHU reader's precise message.
  write_text(dir / "g.bin", bytes);
  expect_input_error(dir / "g.bin", "offset", "truncated edge list");
  // An explicit format is obeyed.
  write_text(dir / "g.foo", "0 1 5\n");
  ReadOptions o;
  o.format = InputFormat::Nthu;
  expect_input_error(dir / "g.foo", "offset", "", o);
}

// A .npy (a result, or a dense matrix saved by NumPy) given as a graph: was "binary, but not NTHU
// (its header says V = 1297436307 ...)".
TEST(IoSniff, NpyInputIsNamedAsAMatrix) {
  test::TempDir dir;
  Matrix m(3, 3, Dtype::Int32);
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 3; ++j) m.at<std::int32_t>(i, j) = std::int32_t(i + j);
  write_matrix(dir / "d.npy", m);
  fs::copy_file(dir / "d.npy", dir / "d.bin");
  for (const char* name : {"d.npy", "d.bin"}) {
    const std::string msg =
        expect_input_error(dir / name, "offset 0", "holds a matrix, not a graph");
    EXPECT_NE(msg.find("apsp.shortest_path"), std::string::npos) << msg;
  }
}

// Messages print weights as they read back ("3312482775", not "3312482775.000000") and counts
// with their noun ("1 arc").
TEST(IoSniff, MessagesShowWeightsAndCountsAsWritten) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 2;
  g.add_edge(0, 1, 3312482775.0);
  try {
    write_graph_nthu(dir / "g.bin", g);
    ADD_FAILURE() << "an int32 NTHU graph took 3312482775";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("weight 3312482775, not an int32"), std::string::npos)
        << e.what();
  }
  write_text(dir / "t.gr", "p sp 3 2\na 1 2 3\n");
  expect_input_error(dir / "t.gr", "line 2", "ends after 1 arc, but");
  write_text(dir / "t.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 3\n");
  expect_input_error(dir / "t.mtx", "line", "ends after 1 entry, but");
}

TEST(IoSniff, MatrixMarketUnderAnEdgeListNameIsReadAsMatrixMarket) {
  // The banner was a `%` comment, the size line an edge, ids 1-based read 0-based, `symmetric`
  // ignored: a wrong answer with exit 0.
  test::TempDir dir;
  const std::string mm =
      "%%MatrixMarket matrix coordinate integer symmetric\n% a comment\n3 3 2\n2 1 4\n3 2 5\n";
  write_text(dir / "g.mtx", mm);
  const Graph want = read_graph(dir / "g.mtx");
  ASSERT_EQ(want.num_vertices, 3);
  ASSERT_FALSE(want.directed);
  for (const char* name : {"g.txt", "g.csv", "g.el"}) {
    write_text(dir / name, mm);
    expect_same_graph(read_graph(dir / name), want, name);
  }
  // Told to read an edge list, the reader says what the file is.
  ReadOptions o;
  o.format = InputFormat::EdgeList;
  const std::string msg = expect_input_error(dir / "g.txt", "line 1", "a Matrix Market file", o);
  EXPECT_NE(msg.find("--input-format mtx"), std::string::npos) << msg;
}

TEST(IoSniff, AUtf8ByteOrderMarkIsSkipped) {
  // Windows editors start text with EF BB BF: "expected an integer vertex id, got '\ufeff0'".
  test::TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  for (const char* name : {"g.txt", "g.foo", "g.bin"}) {
    write_text(dir / name, bom + "0 1 5\n1 2 7\n");
    const Graph g = read_graph(dir / name);
    EXPECT_EQ(g.num_vertices, 3) << name;
    EXPECT_EQ(g.num_edges(), 2u) << name;
  }
  const std::string mm = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 3\n";
  write_text(dir / "g.mtx", bom + mm);
  EXPECT_EQ(read_graph(dir / "g.mtx").num_edges(), 1u);
  write_text(dir / "g.gr", bom + "p sp 2 1\na 1 2 3\n");
  EXPECT_EQ(read_graph(dir / "g.gr").num_edges(), 1u);
  write_text(dir / "g.txt", bom + mm);
  EXPECT_EQ(read_graph(dir / "g.txt").weight.at(0), 3.0);
  write_text(dir / "d.txt", bom + "0 1\ninf 0\n");
  const Matrix m = read_matrix(dir / "d.txt");
  EXPECT_EQ(m.dtype(), Dtype::Int32);
  EXPECT_EQ(m.at<std::int32_t>(0, 1), 1);
}

TEST(IoMatrixText, AFiniteValueAtTheSentinelWidensTheType) {
  // `0 1073741823` read as int32, where 1073741823 means unreachable: a reachable pair was lost.
  test::TempDir dir;
  const std::string p = dir / "d.txt";
  write_text(p, "0 1073741823\n1 0\n");
  Matrix m = read_matrix(p);
  EXPECT_EQ(m.dtype(), Dtype::Int64);
  EXPECT_EQ(m.at<std::int64_t>(0, 1), 1073741823);
  write_text(p, "0 1073741822\n1 0\n");
  EXPECT_EQ(read_matrix(p).dtype(), Dtype::Int32);
  write_text(p, "0 4611686018427387903\n1 0\n");  // int64's sentinel
  m = read_matrix(p);
  EXPECT_EQ(m.dtype(), Dtype::Float64);
  EXPECT_EQ(m.at<double>(0, 1), 4611686018427387903.0);
  write_text(p, "0 4611686018427387902\ninf 0\n");
  m = read_matrix(p);
  EXPECT_EQ(m.dtype(), Dtype::Int64);
  EXPECT_EQ(m.at<std::int64_t>(1, 0), std::int64_t{4611686018427387903});
}

TEST(IoSniff, InputFormatByName) {
  EXPECT_EQ(input_format_for("g.wel"), InputFormat::EdgeList);
  EXPECT_EQ(input_format_for("g.el"), InputFormat::EdgeList);
  EXPECT_EQ(input_format_for("g.mtx.gz"), InputFormat::MatrixMarket);
  EXPECT_EQ(input_format_for("g.txt.GZ"), InputFormat::EdgeList);
  EXPECT_EQ(input_format_for("g.gr.gz"), InputFormat::Dimacs);
  EXPECT_EQ(input_format_for("g.in"), InputFormat::Nthu);
  EXPECT_EQ(input_format_for("g.wel.foo"), InputFormat::Auto);
  EXPECT_EQ(input_format_for("graph.dat"), InputFormat::Auto);
}

// ---- gzip ---------------------------------------------------------------------------------------

TEST(IoGzip, CompressedInputsOfEveryFormatReadTheSame) {
  test::TempDir dir;
  const Graph g = generate_uniform(20, 60, 1, 99, 8);
  write_graph_nthu(dir / "ref.bin", g);
  const Graph want = read_graph(dir / "ref.bin");
  write_graph_nthu(dir / "g.bin", g);
  write_graph_edgelist(dir / "g.txt", g);
  write_graph_dimacs(dir / "g.gr", g);
  write_graph_mtx(dir / "g.mtx", g);
  int checked = 0;
  for (const char* name : {"g.bin", "g.txt", "g.gr", "g.mtx"}) {
    const std::string p = dir / name;
    if (!system_gzip(p, p + ".gz")) GTEST_SKIP() << "no /usr/bin/gzip to make test inputs with";
    expect_same_graph(read_graph(p + ".gz"), want, std::string(name) + ".gz");
    // Under a name that says nothing, the gzip magic and then the content decide.
    fs::copy_file(p + ".gz", dir / (std::string("blob_") + name));
    expect_same_graph(read_graph(dir / (std::string("blob_") + name)), want,
                      std::string("blob_") + name);
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  // Concatenated members read as one stream (as gunzip does).
  write_text(dir / "a.txt", "# vertices: 20\n0 1 5\n");
  write_text(dir / "b.txt", "1 2 6\n");
  ASSERT_TRUE(system_gzip(dir / "a.txt", dir / "a.gz"));
  ASSERT_TRUE(system_gzip(dir / "b.txt", dir / "b.gz"));
  auto a = test::read_bytes(dir / "a.gz");
  const auto b = test::read_bytes(dir / "b.gz");
  a.insert(a.end(), b.begin(), b.end());
  test::write_bytes(dir / "ab.txt.gz", a.data(), a.size());
  const Graph ab = read_graph(dir / "ab.txt.gz");
  EXPECT_EQ(ab.num_vertices, 20);
  ASSERT_EQ(ab.num_edges(), 2u);
  EXPECT_EQ(ab.weight[1], 6);
}

TEST(IoGzip, CorruptOrTruncatedDataIsOneErrorNamingTheFile) {
  test::TempDir dir;
  write_graph_edgelist(dir / "g.txt", generate_uniform(50, 400, 1, 99, 2));
  if (!system_gzip(dir / "g.txt", dir / "g.txt.gz"))
    GTEST_SKIP() << "no /usr/bin/gzip to make test inputs with";
  auto b = test::read_bytes(dir / "g.txt.gz");
  auto cut = b;
  cut.resize(cut.size() / 2);
  test::write_bytes(dir / "cut.txt.gz", cut.data(), cut.size());
  expect_input_error(dir / "cut.txt.gz", "offset", "truncated");
  auto bad = b;
  for (std::size_t i = 20; i < 60 && i < bad.size(); ++i) bad[i] = char(0xff);
  test::write_bytes(dir / "bad.txt.gz", bad.data(), bad.size());
  expect_input_error(dir / "bad.txt.gz", "offset", "gzip");
  auto trailing = b;
  trailing.push_back('x');
  test::write_bytes(dir / "tail.txt.gz", trailing.data(), trailing.size());
  expect_input_error(dir / "tail.txt.gz", "offset", "after the end of the gzip data");
}

TEST(IoGzip, CorruptedCompressedSniffedAndCsvFilesNeverCrash) {
  // Flip, insert and cut bytes of valid files that take the new paths (gzip, sniffing, CSV fields,
  // header and vertex-count comments): each read succeeds or throws InputError naming the file.
  test::TempDir dir;
  const Graph g = generate_uniform(12, 40, -9, 99, 3);
  write_graph(dir / "v.txt.gz", g);
  write_graph(dir / "v.csv", g);
  write_graph(dir / "v.mtx.gz", g);
  write_graph_dimacs(dir / "v.data", g);
  write_text(dir / "w.csv", "# vertices: 12\nsrc,dst,w\n0,1,5\n1,2,-3\n2,11,7\n");
  std::uint64_t state = 777;  // fixed seed: a failure is reproducible
  auto rnd = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  const char alphabet[] = "0123456789 -+.,#%\n\rpacsxe\x1f\x8b\x00\xff";
  int ok = 0, refused = 0;
  for (const char* name : {"v.txt.gz", "v.csv", "v.mtx.gz", "v.data", "w.csv"}) {
    const std::vector<char> base = test::read_bytes(dir / name);
    const std::string p = dir / (std::string("m_") + name);
    for (int it = 0; it < 300; ++it) {
      std::vector<char> b = base;
      const int edits = 1 + int(rnd(3));
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
        for (std::size_t e = 0; e < r.num_edges(); ++e) {
          ASSERT_TRUE(r.src[e] >= 0 && r.src[e] < r.num_vertices) << name << " iteration " << it;
          ASSERT_TRUE(r.dst[e] >= 0 && r.dst[e] < r.num_vertices) << name << " iteration " << it;
        }
        ++ok;
      } catch (const InputError& e) {
        ASSERT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        ++refused;
      } catch (const std::exception& e) {
        FAIL() << name << " iteration " << it << ": unexpected exception: " << e.what();
      }
    }
  }
  EXPECT_GT(refused, 200);
  EXPECT_GT(ok, 20);
}

// ---- output formats by extension ----------------------------------------------------------------

TEST(IoOutputFormat, ByExtensionOrRefused) {
  EXPECT_EQ(output_format_for("d.csv"), OutputFormat::Text);
  EXPECT_EQ(output_format_for("d.tsv"), OutputFormat::Text);
  EXPECT_EQ(output_format_for("d.bin"), OutputFormat::Nthu);
  EXPECT_EQ(output_format_for("c01.1.out"), OutputFormat::Nthu);
  EXPECT_EQ(output_format_for("out.bin.next"), OutputFormat::Nthu);
  EXPECT_EQ(output_format_for("/dev/stdout"), OutputFormat::Nthu);
  expect_usage_error([] { (void)output_format_for("x.foo"); }, "--output-format");
  expect_usage_error([] { (void)output_format_for("x.json"); }, "unknown output extension '.json'");
  // write_matrix refuses before creating anything; an explicit format is obeyed.
  test::TempDir dir;
  Matrix m(2, 2, Dtype::Int32);  // every entry set: garbage >= 2^30 made the text read int64
  for (std::int64_t i = 0; i < 4; ++i) m.at<std::int32_t>(i / 2, i % 2) = 0;
  m.at<std::int32_t>(0, 1) = 4;
  expect_usage_error([&] { write_matrix(dir / "x.foo", m); }, "x.foo");
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a refused output left a file";
  write_matrix(dir / "x.foo", m, OutputFormat::Npy);
  EXPECT_EQ(read_matrix(dir / "x.foo", OutputFormat::Npy).at<std::int32_t>(0, 1), 4);
  // read_matrix never refuses a name: the content tells .npy and text from NTHU.
  EXPECT_EQ(read_matrix(dir / "x.foo").at<std::int32_t>(0, 1), 4);
  write_matrix(dir / "y.txt", m);
  fs::rename(dir / "y.txt", dir / "y.foo");
  EXPECT_EQ(read_matrix(dir / "y.foo").at<std::int32_t>(0, 1), 4);
}

// ---- graph writers: the format the name says, read back as the same graph -----------------------

TEST(IoGraphWriters, EveryFormatRoundTrips) {
  test::TempDir dir;
  Graph g = generate_uniform(30, 120, -40, 900, 17);
  g.num_vertices = 35;  // isolated high-numbered vertices must survive
  for (const char* name : {"g.gr", "g.mtx", "g.txt", "g.el", "g.wel", "g.csv", "g.tsv", "g.bin",
                           "g", "g.gr.gz", "g.mtx.gz", "g.txt.gz", "g.bin.gz", "c01.1"}) {
    const std::string p = dir / name;
    write_graph(p, g);
    expect_same_graph(read_graph(p), g, name);
  }
  EXPECT_EQ(graph_format_for("x.gr.gz"), GraphFormat::Dimacs);
  // Real weights, and integral ones beyond 2^53 (kept as doubles, written so they read back).
  Graph r;
  r.num_vertices = 4;
  r.add_edge(0, 1, 0.1);
  r.add_edge(1, 2, 1152921504606846976.0);  // 2^60
  r.add_edge(2, 3, -2.5e-7);
  r.add_edge(3, 0, 1e300);
  for (const char* name : {"r.mtx", "r.txt", "r.csv", "r.mtx.gz"}) {
    write_graph(dir / name, r);
    expect_same_graph(read_graph(dir / name), r, name);
  }
  // Undirected: symmetric Matrix Market keeps it; edge lists and DIMACS write both directions.
  Graph u;
  u.num_vertices = 3;
  u.directed = false;
  u.add_edge(0, 1, 4);
  u.add_edge(1, 2, 5);
  write_graph(dir / "u.mtx", u);
  expect_same_graph(read_graph(dir / "u.mtx"), u, "u.mtx");
  write_graph(dir / "u.gr", u);
  EXPECT_EQ(read_graph(dir / "u.gr").num_edges(), 4u);
}

TEST(IoGraphWriters, NamesThatCannotHoldTheGraphAreRefused) {
  test::TempDir dir;
  const Graph g = generate_uniform(5, 8, 1, 9, 1);
  expect_usage_error([&] { write_graph(dir / "g.npy", g); }, "a graph is not a matrix");
  expect_usage_error([&] { write_graph_nthu(dir / "g.npy", g); }, "a graph is not a matrix");
  expect_usage_error([&] { write_graph_edgelist(dir / "g.npy", g); }, "a graph is not a matrix");
  expect_usage_error([&] { write_graph(dir / "g.foo", g); }, "--format");
  expect_usage_error([&] { write_graph(dir / "g.gr", g, GraphFormat::EdgeList); }, "DIMACS");
  expect_usage_error([&] { write_graph_nthu(dir / "g.txt", g); }, "edge list");
  Graph f;
  f.num_vertices = 2;
  f.add_edge(0, 1, 0.5);
  expect_usage_error([&] { write_graph(dir / "f.gr", f); }, "not an integer");
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a refused write left a file";
  // An explicit format under a name that says nothing is fine: the content tells on reading.
  write_graph(dir / "g.foo", g, GraphFormat::Dimacs);
  EXPECT_EQ(read_graph(dir / "g.foo").num_edges(), g.num_edges());
  expect_usage_error([] { (void)parse_graph_format("xml"); }, "unknown graph format");
}

}  // namespace
}  // namespace apsp
