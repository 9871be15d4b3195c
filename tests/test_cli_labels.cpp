// tests/test_cli_labels.cpp — edge lists as users have them (issue 33): vertices with names
// (OUT.labels beside the output, `apsp path OUT NAME NAME`), header rows, SNAP's comment header
// ("# Undirected graph", "# Nodes: N Edges: M" that disagree with the edges), --unweighted, and
// the stages of a solve on stderr (--progress); `apsp metrics` naming the vertices and showing
// its stages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "apsp/io.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) {
  const std::vector<char> b = test::read_bytes(path);
  return std::string(b.begin(), b.end());
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CliLabels, NamedVerticesAreNumberedAndTheirNamesWrittenBeside) {
  const test::TempDir d;
  const std::string in = d / "friends.txt", out = d / "d.txt";
  write_text(in, "alice bob 3\nbob carol 4\n# a comment\ncarol alice 10\n");
  auto r = test::run_cli({"solve", in, out, "--paths", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_text(out), "0 3 7\n14 0 4\n10 13 0\n");
  EXPECT_EQ(read_text(out + ".labels"), "alice\nbob\ncarol\n");
  r = test::run_cli({"path", out, "alice", "carol"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "alice -> bob -> carol\nlength: 7\n");
  r = test::run_cli({"path", out, "alice", "dave"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "j: no vertex named 'dave' in " + out + ".labels")) << r.err;
}

TEST(CliLabels, HeaderRowsOverNamesAndOverIds) {
  const test::TempDir d;
  const std::string in = d / "g.csv", out = d / "d.txt";
  // A CSV with a header row and names with blanks in them.
  write_text(in, "source,target,weight\nNew York,Boston,5\nBoston,\"Ann Arbor\",2.5\n");
  auto r = test::run_cli({"solve", in, out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "New York\nBoston\nAnn Arbor\n");
  EXPECT_EQ(read_text(out), "0 5 7.5\ninf 0 2.5\ninf inf 0\n");
  // Two names without weights: an edge, not a header (the names are no column names).
  write_text(in, "alice,bob\nbob,carol\n");
  r = test::run_cli({"solve", in, out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "alice\nbob\ncarol\n");
  // A header of any words over integer ids: ids, no names file (the old one goes with its OUT).
  write_text(in, "person,friend\n0,1\n1,2\n");
  r = test::run_cli({"solve", in, out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "0 1 2\ninf 0 1\ninf inf 0\n");
  EXPECT_FALSE(fs::exists(out + ".labels"));
}

TEST(CliLabels, NamesWithBlanksInTsvAndQuotedCsvAndAnUnknownExtension) {
  const test::TempDir d;
  const std::string out = d / "d.txt";
  write_text(d / "g.tsv", "from\tto\tkm\nNew York\tBoston\t300\n \t\nBoston\tSalem\t25\n");
  auto r = test::run_cli({"solve", d / "g.tsv", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "New York\nBoston\nSalem\n");
  EXPECT_EQ(read_text(out), "0 300 325\ninf 0 25\ninf inf 0\n");
  write_text(d / "g.csv", "\"Ann Arbor, MI\",\"Boston, MA\",3\n");
  r = test::run_cli({"solve", d / "g.csv", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "Ann Arbor, MI\nBoston, MA\n");
  // A name that says no format: refused, saying how to read it.
  write_text(d / "g.dat", "alice bob 3\nbob carol 4\n");
  r = test::run_cli({"solve", d / "g.dat", out, "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "edge list with vertex names")) << r.err;
  r = test::run_cli({"solve", d / "g.dat", out, "-q", "--input-format", "edgelist"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "alice\nbob\ncarol\n");
}

TEST(CliLabels, LabelsOptionNumbersSparseIdsAndATypoIsNoName) {
  const test::TempDir d;
  const std::string in = d / "g.txt", out = d / "d.txt";
  write_text(in, "100 2000000000 1\n2000000000 7 1\n");
  auto r = test::run_cli({"solve", in, out, "--labels", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out + ".labels"), "100\n2000000000\n7\n");
  EXPECT_EQ(read_text(out), "0 1 2\ninf 0 1\ninf inf 0\n");
  // Integer ids with a typo further down: an error naming the line, never names.
  write_text(in, "0 1 1\n1 2 1\n2 l0 1\n");
  r = test::run_cli({"solve", in, d / "e.txt"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "line 3: expected an integer vertex id, got 'l0'")) << r.err;
  EXPECT_TRUE(has(r.err, "--labels")) << r.err;
  EXPECT_FALSE(fs::exists(d / "e.txt"));
  EXPECT_FALSE(fs::exists(d / "e.txt.labels"));
  // One integer among the first line's vertex tokens: ids, the other one an error.
  write_text(in, "0 x 1\nx y 1\n");
  r = test::run_cli({"solve", in, d / "e.txt"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "line 1: expected an integer vertex id, got 'x'")) << r.err;
  write_text(in, "src dst\n0 x\n");
  r = test::run_cli({"solve", in, d / "e.txt"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "line 2: expected an integer vertex id, got 'x'")) << r.err;
  // Only edge lists have names.
  write_text(d / "g.gr", "p sp 2 1\na 1 2 5\n");
  r = test::run_cli({"solve", d / "g.gr", d / "e.txt", "--labels"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--labels reads the vertex names of edge lists; this file is DIMACS"))
      << r.err;
  // Names have no fixed count.
  write_text(in, "a b\n");
  r = test::run_cli({"solve", in, d / "e.txt", "--vertices", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "V is the number of names")) << r.err;
}

TEST(CliLabels, PathWithoutNamesSaysWhatIAndJMustBe) {
  const test::TempDir d;
  const std::string in = d / "g.txt", out = d / "d.bin";
  write_text(in, "0 1 2\n1 2 3\n");
  ASSERT_EQ(test::run_cli({"solve", in, out, "--paths", "-q"}).exit_code, 0);
  auto r = test::run_cli({"path", out, "0", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0 -> 1 -> 2\nlength: 5\n");
  r = test::run_cli({"path", out, "alice", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "i: must be a non-negative integer, got 'alice'")) << r.err;
  // A names file of another solve (another time) is not used.
  write_text(out + ".labels", "a\nb\nc\n");
  r = test::run_cli({"path", out, "a", "c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "was not written with")) << r.err;
}

TEST(CliLabels, SnapHeaderIsHonouredAndItsCountsChecked) {
  const test::TempDir d;
  const std::string in = d / "snap.txt", out = d / "d.txt";
  write_text(in,
             "# Undirected graph: ../../data/output/tiny.txt\n# Tiny\n# Nodes: 3 Edges: 2\n"
             "# FromNodeId\tToNodeId\n0\t1\n1\t2\n");
  auto r = test::run_cli({"solve", in, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "0 1 2\n1 0 1\n2 1 0\n");
  EXPECT_TRUE(has(r.err, "apsp: warning: " + in + ": line 1 says 'Undirected graph'")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = test::run_cli({"solve", in, out, "--directed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_text(out), "0 1 2\ninf 0 1\ninf inf 0\n");
  r = test::run_cli({"solve", in, out, "--directed", "--undirected"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // Nodes that the ids exceed (1-based or sparse ids), Edges that the lines do not reach.
  write_text(in, "# Directed graph\n# Nodes: 3 Edges: 4\n1 2\n2 3\n");
  r = test::run_cli({"solve", in, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "line 2 says Nodes: 3, but the ids go up to 3: V = 4")) << r.err;
  EXPECT_TRUE(has(r.err, "line 2 says Edges: 4, but the file has 2 edges")) << r.err;
  // The library says nothing unless asked (ReadOptions::warning), and reads the same.
  std::vector<std::string> notes;
  ReadOptions o;
  o.warning = [&](const std::string& w) { notes.push_back(w); };
  EXPECT_EQ(read_graph(in, o).num_vertices, 4);
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_EQ(read_graph(in).num_vertices, 4);
}

TEST(CliLabels, UnweightedCountsHops) {
  const test::TempDir d;
  const std::string in = d / "g.txt", out = d / "d.txt";
  write_text(in, "0 1 5\n1 2 7.5\n0 2 100\n");
  const auto r = test::run_cli({"solve", in, out, "--unweighted", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "0 1 1\ninf 0 1\ninf inf 0\n");
}

TEST(CliLabels, SourcesGiveTheirRowsOnly) {
  const test::TempDir d;
  const std::string in = d / "g.txt", out = d / "d.txt";
  write_text(in, "alice bob 3\nbob carol 4\ncarol alice 10\n");
  auto r = test::run_cli({"solve", in, out, "--sources", "carol,alice", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "10 13 0\n0 3 7\n");
  EXPECT_EQ(read_text(out + ".labels"), "alice\nbob\ncarol\n");
  // Negative weights (Johnson's potentials), numbers, .npy.
  write_text(in, "0 1 -2\n1 2 3\n2 0 4\n");
  r = test::run_cli({"solve", in, out, "--sources", "2", "--sources", "0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "4 2 0\n0 -2 1\n");
  r = test::run_cli({"solve", in, d / "d.npy", "--sources", "1", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Matrix m = read_matrix(d / "d.npy");
  ASSERT_EQ(m.rows(), 1);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m.dtype(), Dtype::Int32);
  EXPECT_EQ(m.at<std::int32_t>(0, 0), 7);
  // What it cannot do is refused before anything is written.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"solve", in, d / "x.bin", "--sources", "0"},
        {"solve", in, d / "x.txt", "--sources", "3"},
        {"solve", in, d / "x.txt", "--sources", "bob"},
        {"solve", in, d / "x.txt", "--sources", "0", "--paths"}}) {
    r = test::run_cli(bad);
    EXPECT_EQ(r.exit_code, 2) << bad[2] << " " << bad[4] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_TRUE(has(test::run_cli({"solve", in, d / "x.txt", "--sources", "3"}).err,
                  "vertex 3 is outside 0..2"));
  EXPECT_FALSE(fs::exists(d / "x.bin"));
  EXPECT_FALSE(fs::exists(d / "x.txt"));
}

TEST(CliLabels, ProgressShowsTheStagesWhereAsked) {
  const test::TempDir d;
  const std::string in = d / "g.txt", out = d / "d.bin";
  write_text(in, "0 1 5\n1 2 7\n");
  auto r = test::run_cli({"solve", in, out, "--progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"apsp: read the input in ", "apsp: solved in ",
                           "apsp: wrote the output in ", "apsp: done in "})
    EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  r = test::run_cli({"solve", in, out});  // not a terminal: nothing
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = test::run_cli({"solve", in, out, "--progress", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(CliLabels, MetricsNameTheVertices) {
  const test::TempDir d;
  const std::string in = d / "friends.csv";
  // carol's name needs quoting in the CSV table; x reaches everyone, no one reaches x.
  write_text(in,
             "source,target,weight\nalice,bob,3\nbob,\"carol, jr\",4\n\"carol, jr\",alice,10\n"
             "x,alice,1\n");
  auto r = test::run_cli({"metrics", in, d / "m.csv", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string table = read_text(d / "m.csv");
  EXPECT_TRUE(has(table, "vertex,eccentricity,closeness,harmonic,reachable\nalice,inf,")) << table;
  EXPECT_TRUE(has(table, "\nbob,inf,")) << table;
  EXPECT_TRUE(has(table, "\n\"carol, jr\",inf,")) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5) << table;
  r = test::run_cli({"metrics", in, d / "m.json", "-q", "--infinite"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = read_text(d / "m.json");
  EXPECT_TRUE(has(json, "\"labels\": [\"alice\", \"bob\", \"carol, jr\", \"x\"],")) << json;
  EXPECT_TRUE(has(json, "\"periphery\": [\"alice\", \"bob\", \"carol, jr\"]")) << json;
  EXPECT_TRUE(has(json, "\"center\": [\"x\"]")) << json;
  // Per-vertex values named without OUT: the names lead the arrays on stdout.
  r = test::run_cli({"metrics", in, "--metrics", "reachable", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out,
                  "\"labels\": [\"alice\", \"bob\", \"carol, jr\", \"x\"],\n"
                  "  \"reachable\": [2, 2, 2, 3]"))
      << r.out;
  // A quote in a name is escaped in JSON.
  write_text(d / "q.txt", "a say\"hi 1\n");
  r = test::run_cli({"metrics", d / "q.txt", "--metrics", "reachable", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"labels\": [\"a\", \"say\\\"hi\"]")) << r.out;
  // Integer ids: numbers, unless --labels makes them names (numbered in order of appearance).
  write_text(in, "100 7 1\n7 100 2\n");
  r = test::run_cli({"metrics", in, d / "n.csv", "-q", "--metrics", "reachable"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(d / "n.csv").substr(0, 24), "vertex,reachable\n0,0\n1,0")
      << read_text(d / "n.csv");
  r = test::run_cli(
      {"metrics", in, d / "n.csv", "-q", "--labels", "--metrics", "reachable,center"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(d / "n.csv"), "vertex,reachable\n100,1\n7,1\n");
  EXPECT_TRUE(has(r.out, "\"center\": [\"100\"]")) << r.out;  // d(100, 7) = 1, d(7, 100) = 2
}

TEST(CliLabels, MetricsProgressShowsTheStagesWhereAsked) {
  const test::TempDir d;
  const std::string in = d / "g.txt";
  write_text(in, "0 1 5\n1 2 7\n2 0 1\n");
  auto r = test::run_cli({"metrics", in, d / "m.csv", "--progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"apsp: read the input in ", "(100%), ", "apsp: computed the metrics in ",
                           "apsp: wrote the output in ", "apsp: done in "})
    EXPECT_TRUE(has(r.err, line)) << line << "\n" << r.err;
  EXPECT_LT(r.err.find("read the input"), r.err.find("computed the metrics")) << r.err;
  EXPECT_LT(r.err.find("computed the metrics"), r.err.find("wrote the output")) << r.err;
  r = test::run_cli({"metrics", in, d / "m.csv"});  // not a terminal: nothing
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = test::run_cli({"metrics", in, "--progress", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // A read error after the read stage started: one error line, no stage lines after it.
  write_text(in, "0 1 x\n");
  r = test::run_cli({"metrics", in, "--progress"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(has(r.err, "computed the metrics")) << r.err;
}

}  // namespace
}  // namespace apsp
