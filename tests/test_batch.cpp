// tests/test_batch.cpp — apsp::solve_batch against apsp::solve per graph, byte for byte.
//
// Random batches of odd sizes (1 .. 300: one cpu tile, its edges, beyond it), directed and
// undirected, disconnected, zero and duplicate edges, self loops, negative weights (Johnson,
// through solve()), every dtype, with and without next hops; packed graphs; the output layouts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"
#include "support.hpp"

namespace apsp {
namespace {

using i64 = std::int64_t;

Graph case_graph(i64 V, std::uint64_t seed, bool directed, bool fractional, bool negative) {
  test::RandomGraphSpec s;
  s.V = V;
  s.E = V * 2 + 1;
  s.wmin = 0;
  s.wmax = fractional ? 7.3 : 9;
  s.integer = !fractional;
  s.self_loops = true;
  s.components = V > 8 ? 3 : 1;
  s.directed = directed;
  s.seed = seed;
  Graph g = test::random_graph(s);
  return negative ? test::with_potentials(std::move(g), seed) : g;
}

std::vector<Graph> mixed_batch(std::uint64_t seed, bool fractional, bool negative) {
  const i64 sizes[] = {1, 2, 3, 17, 31, 32, 33, 63, 64, 65, 100, 129, 255, 256, 257, 300};
  std::vector<Graph> gs;
  for (i64 V : sizes)
    gs.push_back(  // undirected only without negative weights (an edge both ways is a cycle)
        case_graph(V, seed + std::uint64_t(V), negative || V % 2 == 1, fractional, negative));
  return gs;
}

std::vector<const Graph*> pointers(const std::vector<Graph>& gs) {
  std::vector<const Graph*> p;
  for (const Graph& g : gs) p.push_back(&g);
  return p;
}

// Rows of a and b (n x n, any strides) byte for byte; at most a few mismatches reported.
void expect_same(const Matrix& a, const Matrix& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  const std::size_t es = dtype_size(a.dtype());
  int bad = 0;
  for (i64 i = 0; i < a.rows() && bad < 3; ++i) {
    const char* x = static_cast<const char*>(a.raw()) + i * a.stride() * i64(es);
    const char* y = static_cast<const char*>(b.raw()) + i * b.stride() * i64(es);
    if (std::memcmp(x, y, std::size_t(a.rows()) * es) != 0) {
      ADD_FAILURE() << what << ": row " << i << " differs";
      ++bad;
    }
  }
}

i64 finite_off_diagonal(const Matrix& d) {
  i64 count = 0;
  visit_dtype(d.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (i64 i = 0; i < d.rows(); ++i)
      for (i64 j = 0; j < d.rows(); ++j) count += i != j && d.at<T>(i, j) != unreachable<T>();
  });
  return count;
}

void check_against_solve(const std::vector<Graph>& gs, BatchOptions o, const std::string& label) {
  const std::vector<const Graph*> ptrs = pointers(gs);
  const BatchGraphs batch{std::span<const Graph* const>(ptrs)};
  const BatchResult r = solve_batch(batch, o);
  i64 finite = 0;
  for (std::size_t b = 0; b < gs.size(); ++b) {
    SolveOptions so;
    so.backend = Backend::Cpu;
    so.dtype = r.dtype();
    so.paths = o.paths;
    const Result want = solve(gs[b], so);
    const BatchView got = batch_item(r, i64(b));
    const std::string what =
        label + " graph " + std::to_string(b) + " (V=" + std::to_string(gs[b].num_vertices) + ")";
    expect_same(got.dist, want.dist, what + " dist");
    if (o.paths) expect_same(got.next, want.next, what + " next");
    finite += finite_off_diagonal(got.dist);
  }
  EXPECT_GT(finite, 1000) << label << ": the batch is too trivial to test anything";
}

TEST(Batch, EqualsSolvePerGraphEveryDtype) {
  for (bool paths : {false, true})
    for (Dtype t : {Dtype::Int32, Dtype::Int64, Dtype::Float32, Dtype::Float64}) {
      BatchOptions o;
      o.dtype = t;
      o.paths = paths;
      o.threads = 2;
      const bool fractional = !is_integer(t);
      check_against_solve(mixed_batch(11, fractional, false), o,
                          std::string(dtype_name(t)) + (paths ? " paths" : ""));
    }
}

TEST(Batch, NegativeWeightsGoThroughJohnson) {
  BatchOptions o;
  o.paths = true;
  check_against_solve(mixed_batch(23, false, true), o, "negative");
}

TEST(Batch, DtypeIsTheWidestOfTheGraphs) {
  std::vector<Graph> gs = mixed_batch(5, false, false);
  BatchOptions o;
  const std::vector<const Graph*> p1 = pointers(gs);
  EXPECT_EQ(choose_batch_dtype(BatchGraphs{std::span<const Graph* const>(p1)}, o), Dtype::Int32);
  gs[3].weight[0] = 1e9;  // (V-1) * 1e9 >= 2^30 - 1: int64
  const std::vector<const Graph*> p2 = pointers(gs);
  EXPECT_EQ(choose_batch_dtype(BatchGraphs{std::span<const Graph* const>(p2)}, o), Dtype::Int64);
  gs[5].weight[0] = 0.5;
  gs[5].integer_weights = false;
  check_against_solve(gs, o, "widest");
  EXPECT_EQ(choose_batch_dtype(BatchGraphs{std::span<const Graph* const>(p2)}, o), Dtype::Float64);
  o.dtype = Dtype::Int32;
  EXPECT_THROW(choose_batch_dtype(BatchGraphs{std::span<const Graph* const>(p2)}, o), UsageError);
  try {  // the explicit type is checked per graph in the solve itself
    solve_batch(BatchGraphs{std::span<const Graph* const>(p2)}, o);
    FAIL() << "int32 accepted for a graph that needs int64";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("graph 3: ", 0), 0u) << e.what();
  }
  o.dtype.reset();
  o.backend = Backend::Mpi;
  EXPECT_THROW(solve_batch(BatchGraphs{std::span<const Graph* const>(p2)}, o), UsageError);
}

TEST(Batch, BackendCudaWithoutGpuIsUnavailableAndAutoIsTheCpu) {
  const std::vector<Graph> gs = mixed_batch(7, false, false);
  const std::vector<const Graph*> p = pointers(gs);
  BatchOptions o;
  o.backend = Backend::Auto;  // 16 graphs: below the GPU's threshold anyway
  o.paths = true;
  check_against_solve(gs, o, "auto");
  if (test::backend_usable("cuda")) GTEST_SKIP() << "a GPU is usable here: tests/test_batch_gpu covers cuda";
  o.backend = Backend::Cuda;
  EXPECT_THROW(solve_batch(BatchGraphs{std::span<const Graph* const>(p)}, o), BackendUnavailable);
}

TEST(Batch, NegativeCycleNamesTheGraph) {
  std::vector<Graph> gs = mixed_batch(3, false, false);
  gs[4].add_edge(1, 2, -5);
  gs[4].add_edge(2, 1, 1);
  const std::vector<const Graph*> p = pointers(gs);
  try {
    solve_batch(BatchGraphs{std::span<const Graph* const>(p)}, BatchOptions{});
    FAIL() << "no error";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("graph 4: ", 0), 0u) << e.what();
    EXPECT_FALSE(e.cycle().empty());
  }
}

// Packs gs as one set of arrays with global ids, the edges of each graph in order.
test::PackedBatch pack(const std::vector<Graph>& gs, bool directed = true) {
  test::PackedBatch p;
  p.directed = directed;
  for (const Graph& g : gs) p.add(g);
  return p;
}

TEST(Batch, PackedEqualsList) {
  for (bool directed : {true, false}) {
    std::vector<Graph> gs;
    for (i64 V : {1, 2, 3, 17, 63, 64, 65, 0, 40})
      gs.push_back(V ? case_graph(V, std::uint64_t(V), directed, false, false) : Graph{});
    const test::PackedBatch p = pack(gs, directed);
    const PackedGraphs pg = p.view();
    validate_packed(pg);
    BatchOptions o;
    o.paths = true;
    const BatchResult packed = solve_batch(BatchGraphs{pg}, o);
    gs.erase(gs.begin() + 7);  // the empty graph: a list holds only real graphs
    const std::vector<const Graph*> ptrs = pointers(gs);
    const BatchResult list = solve_batch(BatchGraphs{std::span<const Graph* const>(ptrs)}, o);
    ASSERT_EQ(packed.sizes[7], 0);
    for (i64 b = 0; b < i64(gs.size()); ++b) {
      const i64 pb = b < 7 ? b : b + 1;
      expect_same(batch_item(packed, pb).dist, batch_item(list, b).dist, "packed dist");
      expect_same(batch_item(packed, pb).next, batch_item(list, b).next, "packed next");
    }
  }
}

TEST(Batch, PackedRejectsBadArrays) {
  std::vector<Graph> gs = {case_graph(5, 1, true, false, false),
                           case_graph(4, 2, true, false, false)};
  test::PackedBatch p = pack(gs);
  p.dst[2] = 7;  // a vertex of graph 1 in an edge of graph 0
  EXPECT_THROW(validate_packed(p.view()), UsageError);
  p = pack(gs);
  p.node_ptr[1] = 10;  // decreasing
  EXPECT_THROW(validate_packed(p.view()), UsageError);
  p = pack(gs);
  p.node_ptr[0] = 1;
  EXPECT_THROW(validate_packed(p.view()), UsageError);
  p = pack(gs);
  p.w[0] = std::nan("");
  EXPECT_THROW(validate_packed(p.view()), UsageError);
}

TEST(BatchOutput, PaddedClippedAndUnreachable) {
  Graph g;  // 0 -> 1 -> 2 -> 3, weights 2: distances 2, 4, 6; vertex 4 isolated
  g.num_vertices = 5;
  for (int v = 0; v < 3; ++v) g.add_edge(v, v + 1, 2);
  std::vector<const Graph*> ptrs = {&g, &g};
  const BatchResult r = solve_batch(BatchGraphs{std::span<const Graph* const>(ptrs)}, {});
  std::vector<std::int8_t> out(2 * 6 * 6, 99);
  BatchOutput o{OutType::Int8, out.data(), 6, nullptr, -1, -2, 5.0};
  check_batch_output(o);
  for (i64 b = 0; b < 2; ++b) write_distances(batch_item(r, b).item(), o);
  const std::int8_t* g1 = out.data() + 36;
  EXPECT_EQ(g1[0 * 6 + 1], 2);
  EXPECT_EQ(g1[0 * 6 + 2], 4);
  EXPECT_EQ(g1[0 * 6 + 3], 5);   // 6 clipped at max_dist 5
  EXPECT_EQ(g1[1 * 6 + 0], -1);  // unreachable
  EXPECT_EQ(g1[0 * 6 + 5], -2);  // pad column
  EXPECT_EQ(g1[5 * 6 + 5], -2);  // pad row
  o.max_dist.reset();
  o.unreachable = 510;
  EXPECT_THROW(check_batch_output(o), UsageError);  // 510 does not fit int8
}

TEST(BatchOutput, DistanceThatDoesNotFitIsRefused) {
  Graph g;
  g.num_vertices = 2;
  g.add_edge(0, 1, 300);
  std::vector<const Graph*> ptrs = {&g};
  const BatchResult r = solve_batch(BatchGraphs{std::span<const Graph* const>(ptrs)}, {});
  std::vector<std::int8_t> out(4);
  const BatchOutput o{OutType::Int8, out.data(), 2, nullptr, -1, -1, std::nullopt};
  EXPECT_THROW(write_distances(batch_item(r, 0).item(), o), UsageError);
}

TEST(BatchOutput, EdgePathsWalkToTheDistance) {
  std::vector<Graph> gs = mixed_batch(7, false, false);
  gs.resize(10);  // up to 65 vertices
  const std::vector<const Graph*> ptrs = pointers(gs);
  BatchOptions o;
  o.paths = true;
  const BatchResult r = solve_batch(BatchGraphs{std::span<const Graph* const>(ptrs)}, o);
  i64 L = 0;
  for (i64 b = 0; b < 10; ++b) L = std::max(L, longest_path_hops(batch_item(r, b).item()));
  ASSERT_GT(L, 3);
  const i64 N = 65;
  std::vector<i64> paths(std::size_t(10 * N * N * L));
  i64 walked = 0;
  for (i64 b = 0; b < 10; ++b) {
    const BatchView v = batch_item(r, b);
    write_edge_paths(gs[std::size_t(b)], v.item(), paths.data(), N, nullptr, L);
    const Graph& g = gs[std::size_t(b)];
    for (i64 i = 0; i < g.num_vertices; ++i)
      for (i64 j = 0; j < g.num_vertices; ++j) {
        const i64* p = paths.data() + ((b * N + i) * N + j) * L;
        const std::int32_t d = v.dist.at<std::int32_t>(i, j);
        double sum = 0;
        i64 at = i, k = 0;
        for (; k < L && p[k] >= 0; ++k) {
          const std::size_t e = std::size_t(p[k]);
          const bool fwd = g.src[e] == at;
          ASSERT_TRUE(fwd || (!g.directed && g.dst[e] == at)) << "edge does not leave " << at;
          at = fwd ? g.dst[e] : g.src[e];
          sum += g.weight[e];
        }
        if (i == j || d == unreachable<std::int32_t>()) {
          EXPECT_EQ(k, 0);
          continue;
        }
        EXPECT_EQ(at, j) << "graph " << b << " (" << i << "," << j << ")";
        EXPECT_EQ(sum, d) << "graph " << b << " (" << i << "," << j << ")";
        ++walked;
      }
  }
  EXPECT_GT(walked, 1000);
}

}  // namespace
}  // namespace apsp
