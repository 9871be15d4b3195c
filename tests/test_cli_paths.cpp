// tests/test_cli_paths.cpp — the CLI side of paths and negative weights:
//   apsp solve IN OUT --paths   writes the next hops beside OUT: OUT + ".next" (raw int32, V*V,
//                               no header, like the NTHU output) or STEM.next.npy for OUT =
//                               STEM.npy;
//   apsp path DIST i j [--next FILE]   prints "0 -> 4 -> 2" and "length: 17";
//   a negative cycle exits 5 with one line "apsp: error: [IN: ]negative cycle: ..." and writes
//   nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "support.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

/// Writes g as an NTHU binary graph (int32 V, E, then E triples).
void write_nthu(const std::string& path, const Graph& g) {
  std::vector<std::int32_t> words{std::int32_t(g.num_vertices), std::int32_t(g.num_edges())};
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    words.push_back(g.src[e]);
    words.push_back(g.dst[e]);
    words.push_back(std::int32_t(g.weight[e]));
  }
  test::write_bytes(path, words.data(), words.size() * sizeof(std::int32_t));
}

std::vector<std::int32_t> read_int32s(const std::string& path) {
  const std::vector<char> bytes = test::read_bytes(path);
  std::vector<std::int32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

/// 0 -> 4 (5), 4 -> 2 (12), 0 -> 2 (20), 2 -> 1 (1); vertex 3 isolated.
Graph example() {
  Graph g;
  g.num_vertices = 5;
  g.add_edge(0, 4, 5);
  g.add_edge(4, 2, 12);
  g.add_edge(0, 2, 20);
  g.add_edge(2, 1, 1);
  return g;
}

std::string context(const test::CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

/// The error line for a negative cycle: "apsp: error: [IN: ]negative cycle: ..." and nothing else
/// (the CLI may name the input file first).
void expect_cycle_line(const test::CommandResult& r, const std::string& in,
                       const std::string& cycle) {
  EXPECT_EQ(r.exit_code, 5) << context(r);
  EXPECT_EQ(count_lines(r.err), 1) << context(r);
  const std::string plain = "apsp: error: negative cycle: " + cycle + "\n";
  const std::string named = "apsp: error: " + in + ": negative cycle: " + cycle + "\n";
  EXPECT_TRUE(r.err == plain || r.err == named) << context(r);
}

TEST(CliPaths, SolveWritesRawNextBesideOut) {
  test::TempDir dir;
  const Graph g = example();
  write_nthu(dir / "in.bin", g);
  const auto r = test::run_cli(
      {"solve", dir / "in.bin", dir / "out.bin", "--paths", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  ASSERT_TRUE(fs::exists(dir / "out.bin.next")) << context(r);
  const auto next = read_int32s(dir / "out.bin.next");
  ASSERT_EQ(fs::file_size(dir / "out.bin.next"), 5u * 5u * 4u);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Result want = solve(g, o);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(next[std::size_t(i * 5 + j)], want.next.at<std::int32_t>(i, j)) << i << "," << j;
  EXPECT_EQ(next[0 * 5 + 2], 4);
  EXPECT_EQ(next[0 * 5 + 3], -1);
  EXPECT_EQ(next[2 * 5 + 2], -1);

  // The distances are the same bytes as without --paths.
  const auto plain =
      test::run_cli({"solve", dir / "in.bin", dir / "plain.bin", "--backend", "cpu", "-q"});
  ASSERT_EQ(plain.exit_code, 0) << context(plain);
  EXPECT_EQ(test::read_bytes(dir / "out.bin"), test::read_bytes(dir / "plain.bin"));
  EXPECT_FALSE(fs::exists(dir / "plain.bin.next"));
}

TEST(CliPaths, NpyOutputGetsStemNextNpy) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", example());
  const auto r = test::run_cli(
      {"solve", dir / "in.bin", dir / "res.npy", "--paths", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  ASSERT_TRUE(fs::exists(dir / "res.next.npy")) << context(r);
  EXPECT_FALSE(fs::exists(dir / "res.npy.next"));
  const Matrix next = read_matrix(dir / "res.next.npy");
  ASSERT_EQ(next.dtype(), Dtype::Int32);
  ASSERT_EQ(next.rows(), 5);
  EXPECT_EQ(next.at<std::int32_t>(0, 2), 4);
  EXPECT_EQ(next.at<std::int32_t>(4, 1), 2);
  EXPECT_EQ(next.at<std::int32_t>(1, 0), -1);

  const auto p = test::run_cli({"path", dir / "res.npy", "0", "1"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "0 -> 4 -> 2 -> 1\nlength: 18\n");
}

TEST(CliPaths, PathPrintsVerticesAndLength) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", example());
  ASSERT_EQ(
      test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--paths", "--backend", "cpu", "-q"})
          .exit_code,
      0);

  auto p = test::run_cli({"path", dir / "out.bin", "0", "2"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "0 -> 4 -> 2\nlength: 17\n");

  // --next names the next-hop file explicitly (here: a copy somewhere else, with its time kept
  // as `cp -p` keeps it: the pair is told by equal modification times, docs/paths.md).
  fs::copy_file(dir / "out.bin.next", dir / "hops.bin");
  fs::last_write_time(dir / "hops.bin", fs::last_write_time(dir / "out.bin.next"));
  p = test::run_cli({"path", dir / "out.bin", "4", "1", "--next", dir / "hops.bin"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "4 -> 2 -> 1\nlength: 13\n");

  p = test::run_cli({"path", dir / "out.bin", "2", "2"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "2\nlength: 0\n");
}

// Float lengths in the shortest text that reads back the same (std::to_chars, as solve's text
// output): an ostream's default 6 digits printed 1.23457e+06, 6e+15 and 0.3 for these.
TEST(CliPaths, PathPrintsFloatLengthsExactly) {
  test::TempDir dir;
  const std::string el =
      "0 1 1234567.75\n2 3 0.1\n3 4 0.2\n5 6 3000000000000002\n6 7 3000000000000002\n";
  test::write_bytes(dir / "g.txt", el.data(), el.size());
  const auto s =
      test::run_cli({"solve", dir / "g.txt", dir / "out.npy", "--paths", "--backend", "cpu", "-q"});
  ASSERT_EQ(s.exit_code, 0) << context(s);
  ASSERT_EQ(read_matrix(dir / "out.npy").dtype(), Dtype::Float64);
  const std::map<std::string, std::string> want{
      {"0 1", "0 -> 1\nlength: 1234567.75\n"},
      {"2 4", "2 -> 3 -> 4\nlength: 0.30000000000000004\n"},
      {"5 7", "5 -> 6 -> 7\nlength: 6000000000000004\n"},
      {"5 6", "5 -> 6\nlength: 3000000000000002\n"},
      {"3 3", "3\nlength: 0\n"}};
  for (const auto& [ij, text] : want) {
    const auto p = test::run_cli({"path", dir / "out.npy", ij.substr(0, 1), ij.substr(2)});
    ASSERT_EQ(p.exit_code, 0) << ij << ": " << context(p);
    EXPECT_EQ(p.out, text) << ij;
  }
  const auto none = test::run_cli({"path", dir / "out.npy", "1", "0"});
  EXPECT_EQ(none.exit_code, 8) << context(none);  // docs/paths.md said 1
  EXPECT_EQ(none.out, "no path from 1 to 0\n");
}

// A graph without arcs between distinct vertices: its next-hop matrix is -1 everywhere, all 0xFF
// bytes in NTHU form, which read_matrix took for text (bytes >= 0x80 are printable there) and
// refused with a line of raw bytes.
TEST(CliPaths, PathOnAGraphWithoutArcs) {
  test::TempDir dir;
  const std::string el = "# vertices: 3\n1 1 5\n";  // a self loop only
  test::write_bytes(dir / "g.txt", el.data(), el.size());
  for (const char* out : {"out.bin", "out.txt", "out"}) {
    const auto s =
        test::run_cli({"solve", dir / "g.txt", dir / out, "--paths", "--backend", "cpu", "-q"});
    ASSERT_EQ(s.exit_code, 0) << out << ": " << context(s);
    const auto none = test::run_cli({"path", dir / out, "0", "1"});
    EXPECT_EQ(none.exit_code, 8) << out << ": " << context(none);
    EXPECT_EQ(none.out, "no path from 0 to 1\n") << out;
    const auto self = test::run_cli({"path", dir / out, "1", "1"});
    EXPECT_EQ(self.exit_code, 0) << out << ": " << context(self);
    EXPECT_EQ(self.out, "1\nlength: 0\n") << out;
  }
}

TEST(CliPaths, PathUnreachableAndBadArguments) {
  test::TempDir dir;
  write_nthu(dir / "in.bin", example());
  ASSERT_EQ(
      test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--paths", "--backend", "cpu", "-q"})
          .exit_code,
      0);

  auto p = test::run_cli({"path", dir / "out.bin", "0", "3"});
  EXPECT_NE(p.exit_code, 0) << context(p);
  EXPECT_NE((p.out + p.err).find("no path"), std::string::npos) << context(p);

  p = test::run_cli({"path", dir / "out.bin", "0", "9"});
  EXPECT_EQ(p.exit_code, 2) << context(p);
  EXPECT_EQ(p.err.rfind("apsp: error: ", 0), 0u) << context(p);
  EXPECT_EQ(count_lines(p.err), 1) << context(p);

  // Distances without a next-hop file beside them: the error names the file it looked for.
  ASSERT_EQ(test::run_cli({"solve", dir / "in.bin", dir / "bare.bin", "--backend", "cpu", "-q"})
                .exit_code,
            0);
  p = test::run_cli({"path", dir / "bare.bin", "0", "2"});
  EXPECT_NE(p.exit_code, 0) << context(p);
  EXPECT_NE(p.err.find("bare.bin.next"), std::string::npos) << context(p);
  EXPECT_EQ(count_lines(p.err), 1) << context(p);
}

TEST(CliPaths, NegativeWeightsWithPaths) {
  // 0 -> 1 (4), 1 -> 2 (-3), 0 -> 2 (2), 2 -> 3 (-1), 3 -> 1 (5): shortest 0 -> 3 is 0 -> 1 -> 2 ->
  // 3 = 0.
  test::TempDir dir;
  Graph g;
  g.num_vertices = 4;
  g.add_edge(0, 1, 4);
  g.add_edge(1, 2, -3);
  g.add_edge(0, 2, 2);
  g.add_edge(2, 3, -1);
  g.add_edge(3, 1, 5);
  write_nthu(dir / "in.bin", g);
  const auto r = test::run_cli(
      {"solve", dir / "in.bin", dir / "out.bin", "--paths", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  const auto dist = read_int32s(dir / "out.bin");
  EXPECT_EQ(dist[0 * 4 + 3], 0);
  EXPECT_EQ(dist[0 * 4 + 2], 1);
  EXPECT_EQ(dist[3 * 4 + 2], 2);
  auto p = test::run_cli({"path", dir / "out.bin", "0", "3"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "0 -> 1 -> 2 -> 3\nlength: 0\n");
  p = test::run_cli({"path", dir / "out.bin", "3", "2"});
  ASSERT_EQ(p.exit_code, 0) << context(p);
  EXPECT_EQ(p.out, "3 -> 1 -> 2\nlength: 2\n");
}

TEST(CliPaths, NegativeCycleExitsFiveWithOneLine) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 9;
  g.add_edge(0, 3, 1);
  g.add_edge(3, 7, 2);
  g.add_edge(7, 5, -4);
  g.add_edge(5, 3, -2);
  g.add_edge(5, 8, 1);
  write_nthu(dir / "in.bin", g);
  for (bool paths : {false, true}) {
    std::vector<std::string> args{"solve",     dir / "in.bin", dir / "out.bin",
                                  "--backend", "cpu",          "-q"};
    if (paths) args.push_back("--paths");
    const auto r = test::run_cli(args);
    expect_cycle_line(r, dir / "in.bin", "3 -> 7 -> 5 -> 3 (weight -4)");
    EXPECT_FALSE(fs::exists(dir / "out.bin"));
    EXPECT_FALSE(fs::exists(dir / "out.bin.next"));
  }
  // The NTHU drop-in form behaves the same.
  const auto r = test::run_cli({dir / "in.bin", dir / "out.bin"});
  expect_cycle_line(r, dir / "in.bin", "3 -> 7 -> 5 -> 3 (weight -4)");
}

TEST(CliPaths, UndirectedNegativeEdgeIsANegativeCycle) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 2);
  g.add_edge(1, 2, -1);
  write_nthu(dir / "in.bin", g);
  const auto r = test::run_cli(
      {"solve", dir / "in.bin", dir / "out.bin", "--undirected", "--backend", "cpu", "-q"});
  expect_cycle_line(r, dir / "in.bin", "1 -> 2 -> 1 (weight -2)");
  // Directed, the same file is fine.
  const auto ok =
      test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--backend", "cpu", "-q"});
  EXPECT_EQ(ok.exit_code, 0) << context(ok);
}

TEST(CliPaths, EveryPairMatchesTheLibrary) {
  // A graph with zero-weight cycles; each CLI path must be the library's path.
  test::TempDir dir;
  test::RandomGraphSpec s;
  s.V = 9, s.E = 30, s.wmin = 0, s.wmax = 2, s.seed = 3;
  const Graph g = test::random_graph(s);
  write_nthu(dir / "in.bin", g);
  ASSERT_EQ(
      test::run_cli({"solve", dir / "in.bin", dir / "out.bin", "--paths", "--backend", "cpu", "-q"})
          .exit_code,
      0);
  SolveOptions o;
  o.backend = Backend::Cpu;
  o.paths = true;
  const Result want = solve(g, o);
  for (std::int64_t i = 0; i < 9; i += 2)
    for (std::int64_t j = 0; j < 9; ++j) {
      const auto p = test::run_cli({"path", dir / "out.bin", std::to_string(i), std::to_string(j)});
      const auto route = path(want, i, j);
      if (route.empty()) {
        EXPECT_NE(p.exit_code, 0) << i << "," << j;
        continue;
      }
      std::string line;
      for (std::size_t k = 0; k < route.size(); ++k)
        line += (k ? " -> " : "") + std::to_string(route[k]);
      EXPECT_EQ(p.out,
                line + "\nlength: " + std::to_string(want.dist.at<std::int32_t>(i, j)) + "\n")
          << context(p);
    }
}

// Whatever backend `auto` picks here (cuda on a GPU machine), the next hops written beside OUT
// must spell real shortest paths, also on a graph full of zero-weight cycles.
TEST(CliPaths, AutoBackendNextHopsAreValid) {
  test::TempDir dir;
  test::RandomGraphSpec s;
  s.V = 150, s.E = 900, s.wmin = 0, s.wmax = 2, s.seed = 12;
  const Graph g = test::random_graph(s);
  write_nthu(dir / "in.bin", g);
  for (const char* out : {"out.bin", "out.npy"}) {
    const auto r = test::run_cli({"solve", dir / "in.bin", dir / out, "--paths", "-q"});
    ASSERT_EQ(r.exit_code, 0) << context(r);
    const std::string next_file =
        std::string(out) == "out.npy" ? dir / "out.next.npy" : dir / "out.bin.next";
    const Matrix dist = read_matrix(dir / out), next = read_matrix(next_file);
    ASSERT_EQ(next.rows(), 150);
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> w;
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      if (g.src[e] == g.dst[e]) continue;
      auto [it, fresh] = w.try_emplace({g.src[e], g.dst[e]}, std::int64_t(g.weight[e]));
      if (!fresh) it->second = std::min(it->second, std::int64_t(g.weight[e]));
    }
    int bad = 0;
    std::int64_t reachable = 0;
    for (std::int64_t i = 0; i < 150; ++i)
      for (std::int64_t j = 0; j < 150; ++j) {
        const std::int32_t d = dist.at<std::int32_t>(i, j);
        if (i == j || d == kNthuInf) {
          if (next.at<std::int32_t>(i, j) != -1 && bad++ < 5)
            ADD_FAILURE() << out << " (" << i << "," << j << "): next not -1";
          continue;
        }
        ++reachable;
        std::vector<std::int64_t> p;
        try {
          p = path_from_next(next, i, j);
        } catch (const Error& e) {
          if (bad++ < 5) ADD_FAILURE() << out << " (" << i << "," << j << "): " << e.what();
          continue;
        }
        std::int64_t total = 0;
        bool ok = p.size() >= 2;
        for (std::size_t k = 0; ok && k + 1 < p.size(); ++k) {
          auto it = w.find({p[k], p[k + 1]});
          ok = it != w.end();
          if (ok) total += it->second;
        }
        if ((!ok || total != d) && bad++ < 5)
          ADD_FAILURE() << out << " (" << i << "," << j << "): path weighs " << total
                        << ", distance " << d;
      }
    EXPECT_GT(reachable, 1000);
  }
}

// Negative weights through whatever `auto` picks (cuda on a GPU machine, which streams the
// restored stripes to the writer) must give the cpu backend's distances byte for byte.
TEST(CliPaths, AutoBackendNegativeWeightsMatchCpu) {
  test::TempDir dir;
  test::RandomGraphSpec s;
  s.V = 300, s.E = 3000, s.wmin = 0, s.wmax = 50, s.seed = 21;
  const Graph g0 = test::random_graph(s);
  Graph g;
  g.num_vertices = g0.num_vertices;
  for (std::size_t e = 0; e < g0.num_edges(); ++e)  // w + p(u) - p(v) with p(v) = 7v mod 101 - 50
    g.add_edge(g0.src[e], g0.dst[e],
               g0.weight[e] + double(7 * g0.src[e] % 101 - 50) - double(7 * g0.dst[e] % 101 - 50));
  ASSERT_LT(g.min_weight(), 0);
  write_nthu(dir / "in.bin", g);
  SolveOptions o;
  o.backend = Backend::Cpu;
  const Result want = solve(g, o);
  ASSERT_EQ(want.dtype(), Dtype::Int32);
  for (const char* out : {"out.bin", "out.npy"}) {
    const auto r = test::run_cli({"solve", dir / "in.bin", dir / out, "-q"});
    ASSERT_EQ(r.exit_code, 0) << context(r);
    const Matrix got = read_matrix(dir / out);
    ASSERT_EQ(got.rows(), 300);
    int bad = 0;
    for (std::int64_t i = 0; i < 300; ++i)
      for (std::int64_t j = 0; j < 300; ++j)
        if (got.at<std::int32_t>(i, j) != want.dist.at<std::int32_t>(i, j) && bad++ < 5)
          ADD_FAILURE() << out << " (" << i << "," << j << "): got " << got.at<std::int32_t>(i, j)
                        << " want " << want.dist.at<std::int32_t>(i, j);
  }
}

// 0 -> 1 -> ... -> 6, every edge -4e8: the reweighted graph is all zeros (fits int32), but
// d(0,6) = -2.4e9 does not fit int32. Asked for int32, every backend must refuse (usage error,
// exit 2) rather than write a wrapped number; unasked, the result is int64.
TEST(CliPaths, ExplicitInt32NeverWrapsRestoredDistances) {
  test::TempDir dir;
  Graph g;
  g.num_vertices = 7;
  for (std::int32_t v = 0; v + 1 < 7; ++v) g.add_edge(v, v + 1, -400000000);
  write_nthu(dir / "in.bin", g);
  for (const char* backend : {"auto", "cpu"}) {
    const auto r = test::run_cli(
        {"solve", dir / "in.bin", dir / "out.npy", "--type", "int32", "--backend", backend, "-q"});
    EXPECT_EQ(r.exit_code, 2) << backend << ": " << context(r);
    EXPECT_FALSE(fs::exists(dir / "out.npy")) << backend << ": a result was written";
    fs::remove(dir / "out.npy");
  }
  const auto r = test::run_cli({"solve", dir / "in.bin", dir / "out.npy", "-q"});
  ASSERT_EQ(r.exit_code, 0) << context(r);
  const Matrix d = read_matrix(dir / "out.npy");
  ASSERT_EQ(d.dtype(), Dtype::Int64);
  EXPECT_EQ(d.at<std::int64_t>(0, 6), -2400000000LL);
}

}  // namespace
}  // namespace apsp
