// tests/test_metrics.cpp — MetricsReducer and compute_metrics against plain loops over the
// reference Floyd-Warshall matrix: every dtype, V in {1, 2, 63, 129, 300}, directed and
// undirected, connected (a Hamiltonian cycle added) and disconnected graphs; stripes of odd
// sizes; refusals for graph-wide values on disconnected graphs. Integer dtypes compare exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/metrics.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "order/ordering.hpp"
#include "support.hpp"

namespace apsp {
namespace {

/// NetworkX's definitions written out over a whole matrix.
struct Expected {
  std::vector<long double> ecc, out_sum, in_sum;
  std::vector<std::int64_t> out_cnt, in_cnt;
  std::vector<long double> closeness, harmonic;
  long double total = 0;
  bool connected = true;
};

template <class T>
Expected expected_from(const Matrix& d) {
  const std::int64_t n = d.rows();
  const T inf = unreachable<T>();
  Expected e;
  e.ecc.assign(n, 0);
  e.out_sum.assign(n, 0);
  e.in_sum.assign(n, 0);
  e.out_cnt.assign(n, 0);
  e.in_cnt.assign(n, 0);
  e.harmonic.assign(n, 0);
  e.closeness.assign(n, 0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const T x = d.at<T>(i, j);
      if (i == j || x == inf) continue;
      e.out_cnt[i]++;
      e.in_cnt[j]++;
      e.out_sum[i] += x;
      e.in_sum[j] += x;
      e.ecc[i] = std::max(e.ecc[i], static_cast<long double>(x));
      if (x != T(0)) e.harmonic[j] += 1.0L / x;
      e.total += x;
    }
  for (std::int64_t i = 0; i < n; ++i) {
    if (e.out_cnt[i] != n - 1) {
      e.connected = false;
      e.ecc[i] = std::numeric_limits<long double>::infinity();
    }
    const long double r = e.in_cnt[i], s = e.in_sum[i];
    e.closeness[i] = (s > 0 && n > 1) ? (r / s) * (r / (n - 1)) : 0;
  }
  return e;
}

Graph make_graph(std::int64_t V, bool directed, bool connected, std::uint64_t seed) {
  test::RandomGraphSpec s;
  s.V = V;
  s.E = 3 * V;
  s.wmin = 0;  // zero weights: d = 0 between distinct vertices (harmonic skips them)
  s.wmax = 50;
  s.directed = directed;
  s.components = connected ? 1 : std::min<std::int64_t>(V, 3);
  s.seed = seed;
  Graph g = test::random_graph(s);
  if (connected)
    for (std::int64_t v = 0; v < V && V > 1; ++v)
      g.add_edge(std::int32_t(v), std::int32_t((v + 1) % V), 40 + v % 7);
  return g;
}

void check_against(const Metrics& m, const Expected& e, bool integer, const std::string& where) {
  const std::int64_t n = m.num_vertices;
  ASSERT_EQ(std::int64_t(m.eccentricity.size()), n) << where;
  ASSERT_EQ(std::int64_t(m.closeness.size()), n) << where;
  ASSERT_EQ(std::int64_t(m.harmonic.size()), n) << where;
  int bad = 0;
  for (std::int64_t v = 0; v < n && bad < 5; ++v) {
    const auto k = std::size_t(v);
    auto near = [&](long double got, long double want) {
      if (integer || std::isinf(want)) return got == want;
      return std::fabs(got - want) <= 1e-9L * std::max(1.0L, std::fabs(want));
    };
    const bool ok = m.reachable_out[k] == e.out_cnt[k] && m.reachable_in[k] == e.in_cnt[k] &&
                    m.eccentricity[k] == e.ecc[k] && near(m.out_sum[k], e.out_sum[k]) &&
                    near(m.in_sum[k], e.in_sum[k]) &&
                    std::fabs(m.closeness[k] - double(e.closeness[k])) <=
                        1e-12 * std::max(1.0, double(e.closeness[k])) &&
                    std::fabs(m.harmonic[k] - double(e.harmonic[k])) <=
                        1e-9 * std::max(1.0, double(e.harmonic[k]));
    if (!ok) {
      ++bad;
      ADD_FAILURE() << where << " vertex " << v << ": got ecc " << double(m.eccentricity[k])
                    << " out " << m.reachable_out[k] << "/" << double(m.out_sum[k]) << " in "
                    << m.reachable_in[k] << "/" << double(m.in_sum[k]) << " closeness "
                    << m.closeness[k] << " harmonic " << m.harmonic[k] << "; want ecc "
                    << double(e.ecc[k]) << " out " << e.out_cnt[k] << "/" << double(e.out_sum[k])
                    << " in " << e.in_cnt[k] << "/" << double(e.in_sum[k]) << " closeness "
                    << double(e.closeness[k]) << " harmonic " << double(e.harmonic[k]);
    }
  }
  EXPECT_EQ(m.strongly_connected(), e.connected) << where;
  if (integer) {
    EXPECT_EQ(m.total_sum, e.total) << where;
  }
  if (e.connected) {
    long double mx = 0, mn = std::numeric_limits<long double>::infinity();
    for (auto x : e.ecc) mx = std::max(mx, x), mn = std::min(mn, x);
    EXPECT_EQ(m.diameter(), double(mx)) << where;
    EXPECT_EQ(m.radius(), double(mn)) << where;
    const double aspl = n > 1 ? double(e.total / (static_cast<long double>(n) * (n - 1))) : 0.0;
    EXPECT_NEAR(m.average_shortest_path_length(), aspl, 1e-12 * std::max(1.0, aspl)) << where;
    if (integer) {
      EXPECT_EQ(m.wiener_index(), m.directed ? e.total : e.total / 2) << where;
    }
    std::vector<std::int64_t> c, p;
    for (std::int64_t v = 0; v < n; ++v) {
      if (e.ecc[v] == mn) c.push_back(v);
      if (e.ecc[v] == mx) p.push_back(v);
    }
    EXPECT_EQ(m.center(), c) << where;
    EXPECT_EQ(m.periphery(), p) << where;
  } else {
    EXPECT_THROW(m.diameter(), UsageError) << where;
    EXPECT_THROW(m.radius(), UsageError) << where;
    EXPECT_THROW(m.average_shortest_path_length(), UsageError) << where;
    EXPECT_THROW(m.center(), UsageError) << where;
    EXPECT_THROW(m.periphery(), UsageError) << where;
    EXPECT_TRUE(std::isinf(m.diameter(true))) << where;
    EXPECT_TRUE(std::isinf(m.average_shortest_path_length(true))) << where;
    EXPECT_TRUE(std::isinf(m.wiener_index())) << where;
  }
}

struct Case {
  std::int64_t V;
  Dtype dtype;
};

void PrintTo(const Case& c, std::ostream* os) { *os << "V=" << c.V << " " << dtype_name(c.dtype); }

class MetricsSizes : public ::testing::TestWithParam<Case> {};

/// compute_metrics on `backend` against the plain loops (V, dtype, directed/undirected,
/// connected/split); with `stripes`, the reducer alone fed the reference matrix in odd stripes.
void check_metrics_case(std::int64_t V, Dtype dtype, Backend backend, bool stripes) {
  const bool integer = is_integer(dtype);
  for (bool directed : {true, false})
    for (bool connected : {true, false}) {
      const std::uint64_t seed =
          1000 + std::uint64_t(V) * 7 + (directed ? 1 : 0) + (connected ? 2 : 0);
      const std::string where = std::string("V=") + std::to_string(V) + " " + dtype_name(dtype) +
                                (directed ? " directed" : " undirected") +
                                (connected ? " connected" : " split") +
                                " seed=" + std::to_string(seed);
      const Graph g = make_graph(V, directed, connected, seed);
      Matrix ref = detail::build_matrix(g, dtype, V, V);
      detail::reference_floyd_warshall(ref);
      if (V > 2) {
        ASSERT_GT(test::finite_off_diagonal(ref), V) << where << ": trivial input";
      }
      const Expected e =
          visit_dtype(dtype, [&](auto tag) { return expected_from<decltype(tag)>(ref); });
      if (V > 2) {
        ASSERT_EQ(e.connected, connected) << where;
      }

      SolveOptions so;
      so.backend = backend;
      so.dtype = dtype;
      const Metrics m = compute_metrics(g, so);
      EXPECT_EQ(m.dtype, dtype) << where;
      EXPECT_EQ(m.backend, backend_name(backend)) << where;
      check_against(m, e, integer, where + " solve on " + backend_name(backend));
      if (!stripes) continue;

      // The reducer alone, fed the reference matrix in stripes of uneven sizes.
      MetricsReducer red(V, directed);
      std::mt19937_64 rng(seed);
      for (std::int64_t r0 = 0; r0 < V;) {
        const std::int64_t rows = std::min<std::int64_t>(V - r0, 1 + std::int64_t(rng() % 37));
        RowBlock b;
        b.row0 = r0;
        b.rows = rows;
        b.cols = V;
        b.stride = ref.stride();
        b.dtype = dtype;
        b.data = ref.data<char>() + std::size_t(r0 * ref.stride()) * dtype_size(dtype);
        red.add(b);
        r0 += rows;
      }
      check_against(red.finish(), e, integer, where + " stripes");
    }
}

TEST_P(MetricsSizes, SolveAndStripesMatchPlainLoops) {
  check_metrics_case(GetParam().V, GetParam().dtype, Backend::Cpu, true);
}

// The same cases on every usable GPU backend (sizes past one tile and odd, every dtype: the
// int16x2 / int32 ladder, int64 and float64 rounds feed the reducer); skipped, and saying so,
// where no GPU backend is usable.
TEST(Metrics, GpuBackendsMatchPlainLoops) {
  int ran = 0;
  for (const BackendInfo& b : backends()) {
    if (b.name == "cpu" || b.name == "mpi" || !b.usable) continue;
    for (std::int64_t V : {2, 129, 300, 777})
      for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
        check_metrics_case(V, t, parse_backend(b.name), false);
    ++ran;
  }
  if (!ran) GTEST_SKIP() << "no usable GPU backend here: metrics on the GPU not checked";
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::int64_t V : {1, 2, 63, 129, 300})
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64})
      out.push_back({V, t});
  return out;
}
INSTANTIATE_TEST_SUITE_P(All, MetricsSizes, ::testing::ValuesIn(cases()), [](const auto& p) {
  return "V" + std::to_string(p.param.V) + "_" + dtype_name(p.param.dtype);
});

TEST(Metrics, KnownSmallDigraph) {
  // 0 -> 1 (2), 1 -> 2 (3), 2 -> 0 (4), 0 -> 2 (10): strongly connected.
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 2);
  g.add_edge(1, 2, 3);
  g.add_edge(2, 0, 4);
  g.add_edge(0, 2, 10);
  SolveOptions so;
  so.backend = Backend::Cpu;
  const Metrics m = compute_metrics(g, so);
  // d: 0->1 2, 0->2 5, 1->2 3, 1->0 7, 2->0 4, 2->1 6.
  EXPECT_EQ(m.eccentricity, (std::vector<long double>{5, 7, 6}));
  EXPECT_EQ(m.diameter(), 7);
  EXPECT_EQ(m.radius(), 5);
  EXPECT_EQ(m.center(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(m.periphery(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(m.wiener_index(), 27);
  EXPECT_DOUBLE_EQ(m.average_shortest_path_length(), 27.0 / 6);
  // Incoming: to 0 from 1 (7) and 2 (4): 2 / 11.
  EXPECT_DOUBLE_EQ(m.closeness[0], 2.0 / 11);
  EXPECT_DOUBLE_EQ(m.harmonic[0], 1.0 / 7 + 1.0 / 4);
}

TEST(Metrics, WassermanFaustScalingAndUnscaled) {
  // 0 -> 1 (1), 2 isolated: closeness(1) = (1/1) * (1/2) with wf, 1 without.
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 1);
  SolveOptions so;
  so.backend = Backend::Cpu;
  Metrics m = compute_metrics(g, so);
  EXPECT_DOUBLE_EQ(m.closeness[1], 0.5);
  EXPECT_EQ(m.closeness[0], 0);
  EXPECT_EQ(m.closeness[2], 0);
  MetricsOptions mo;
  mo.wf_improved = false;
  m = compute_metrics(g, so, mo);
  EXPECT_DOUBLE_EQ(m.closeness[1], 1.0);
  EXPECT_FALSE(m.strongly_connected());
  try {
    (void)m.diameter();
    ADD_FAILURE() << "diameter of a disconnected graph did not throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not strongly connected"), std::string::npos) << e.what();
  }
}

TEST(Metrics, ReducerRefusesBadStripes) {
  std::vector<std::int32_t> d(4, 0);
  RowBlock b;
  b.rows = 1;
  b.cols = 2;
  b.stride = 2;
  b.data = d.data();
  MetricsReducer red(2, true);
  b.row0 = 1;  // skips row 0
  EXPECT_THROW(red.add(b), UsageError);
  b.row0 = 0;
  red.add(b);
  EXPECT_THROW((void)red.finish(), UsageError);  // row 1 missing
  MetricsReducer red2(3, true);
  EXPECT_THROW(red2.add(b), UsageError);  // 2 columns for 3 vertices
  MetricsReducer red3(2, true);
  red3.add(b);
  b.row0 = 1;
  b.dtype = Dtype::Int64;
  EXPECT_THROW(red3.add(b), UsageError);  // dtype changes
}

TEST(Metrics, Int64SumsBeyondDoubleStayExact) {
  // Distances 2^53 + 1 and 2^53 + 3 (int64 stripes): not representable as double, exact here.
  std::vector<std::int64_t> d{0, (std::int64_t{1} << 53) + 1, (std::int64_t{1} << 53) + 3, 0};
  MetricsReducer red(2, true);
  RowBlock b;
  b.rows = 2;
  b.cols = 2;
  b.stride = 2;
  b.dtype = Dtype::Int64;
  b.data = d.data();
  red.add(b);
  const Metrics m = red.finish();
  EXPECT_EQ(m.total_sum, static_cast<long double>((std::int64_t{1} << 54) + 4));
  EXPECT_EQ(m.wiener_index(), static_cast<long double>((std::int64_t{1} << 54) + 4));
  EXPECT_EQ(m.eccentricity[1], static_cast<long double>((std::int64_t{1} << 53) + 3));
}

// `apsp metrics --order`: a sparse order changes the rounds, not one number of the table.
TEST(MetricsCli, OrderNdGivesTheSameTableAsNone) {
  test::TempDir dir;
  ASSERT_EQ(
      test::run_cli({"generate", dir / "g.bin", "--kind", "geometric", "-V", "900", "-k", "4"})
          .exit_code,
      0);
  const auto none = test::run_cli({"metrics", dir / "g.bin", dir / "none.csv", "--backend", "cpu",
                                   "--order", "none", "--infinite", "-q"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  const auto bad = test::run_cli({"metrics", dir / "g.bin", "--order", "metis"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("unknown order 'metis'"), std::string::npos) << bad.err;
  if (!detail::metis_available()) GTEST_SKIP() << detail::metis_missing_reason();
  const auto nd = test::run_cli({"metrics", dir / "g.bin", dir / "nd.csv", "--backend", "cpu",
                                 "--order", "nd", "--infinite", "-q"});
  ASSERT_EQ(nd.exit_code, 0) << nd.err;
  EXPECT_EQ(nd.out, none.out);
  const auto table = test::read_bytes(dir / "nd.csv");
  EXPECT_GT(table.size(), 900u);
  EXPECT_EQ(table, test::read_bytes(dir / "none.csv"));
}

// NetworkX raises for the eccentricity of a graph that is not strongly connected: named in
// --metrics, so does the CLI (it wrote inf and exited 0); by default the table has inf.
TEST(MetricsCli, NamedEccentricityIsRefusedWithoutStrongConnectivity) {
  test::TempDir dir;
  const std::string in = dir / "d2.txt", out = dir / "e.csv";
  test::write_bytes(in, "0 1 1\n", 6);
  auto r = test::run_cli({"metrics", in, out, "--metrics", "eccentricity", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("eccentricity: graph is not strongly connected"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--infinite"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = test::run_cli({"metrics", in, out, "--metrics", "eccentricity", "--infinite", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = test::read_bytes(out);
  EXPECT_EQ(std::string(table.begin(), table.end()), "vertex,eccentricity\n0,1\n1,inf\n");
  r = test::run_cli({"metrics", in, out, "-q"});  // the default run: every column, inf included
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = test::read_bytes(out);
  EXPECT_EQ(std::string(all.begin(), all.end()),
            "vertex,eccentricity,closeness,harmonic,reachable\n0,1,0,0,1\n1,inf,1,1,0\n");
}

// Without OUT, per-vertex values named in --metrics were computed and then printed nowhere.
TEST(MetricsCli, NamedPerVertexValuesWithoutOutGoToStdout) {
  test::TempDir dir;
  const std::string in = dir / "d2.txt";
  test::write_bytes(in, "0 1 1\n", 6);
  auto r = test::run_cli(
      {"metrics", in, "--metrics", "eccentricity,closeness,reachable", "--infinite", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"eccentricity\": [1, null]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"closeness\": [0, 1]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"reachable\": [1, 0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"strongly_connected\": false"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 4), "]\n}\n") << r.out;  // one JSON object
  r = test::run_cli({"metrics", in, "--metrics", "wiener_index", "-q"});  // graph-wide only
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('['), std::string::npos) << r.out;
  r = test::run_cli({"metrics", in, "-q"});  // the default run: the summary alone
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\"closeness\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace apsp
