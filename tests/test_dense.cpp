// tests/test_dense.cpp — dense graphs (Graph::from_dense, a view of a V x V matrix) against the
// same graph as an edge list.
//
// Each case fills a V x V matrix of weights (0 or +inf = no edge, as SciPy reads a dense graph)
// into a buffer of one element kind (int32, int64, float32, float64) and one layout (row-major,
// column-major = a transposed view, a padded and unaligned sub-block, negative strides), views it,
// and builds the edge list of the same entries with a plain loop of its own. Both go through
// solve() with the same options and must give bit-identical distances (and next hops); the
// Graph queries (edge count, weight range, integer_weights, edges_from_dense) must agree too.
// Weights are small integers or halves, so every dtype is exact. Seeds are printed on failure.
// The cuda and multi-gpu backends build their device matrices straight from the view (no edge
// list); their cases (Dense.Cuda*, Dense.MultiGpu*) compare them with the cpu backend on the same
// view and with the same backend on the edge list, and skip without a usable GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#ifdef APSP_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include "apsp/errors.hpp"
#include "apsp/io.hpp"
#include "apsp/solve.hpp"
#include "core/reference.hpp"
#include "support.hpp"

namespace apsp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Layout { RowMajor, ColMajor, PaddedUnaligned, Reversed };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::RowMajor:
      return "row-major";
    case Layout::ColMajor:
      return "col-major";
    case Layout::PaddedUnaligned:
      return "padded+unaligned";
    case Layout::Reversed:
      return "negative strides";
  }
  return "?";
}

/// A V x V matrix stored in a byte buffer with one element kind and layout, plus its view.
class DenseBuffer {
 public:
  DenseBuffer(std::int64_t n, Dtype kind, Layout layout) : n_(n), kind_(kind) {
    const auto es = std::int64_t(dtype_size(kind));
    std::int64_t base = 0;
    switch (layout) {
      case Layout::RowMajor:
        bytes_.resize(std::size_t(n * n * es));
        rs_ = n * es, cs_ = es;
        break;
      case Layout::ColMajor:
        bytes_.resize(std::size_t(n * n * es));
        rs_ = es, cs_ = n * es;
        break;
      case Layout::PaddedUnaligned:  // every other column of a wider buffer, one byte off
        bytes_.resize(std::size_t(n * (2 * n + 3) * es + 1));
        base = 1, rs_ = (2 * n + 3) * es, cs_ = 2 * es;
        break;
      case Layout::Reversed:  // rows and columns both in reverse order in memory
        bytes_.resize(std::size_t(n * n * es));
        base = (n * n - 1) * es, rs_ = -n * es, cs_ = -es;
        break;
    }
    data_ = bytes_.data() + base;
  }

  void set(std::int64_t i, std::int64_t j, double w) {
    char* p = data_ + i * rs_ + j * cs_;
    visit_dtype(kind_, [&](auto tag) {
      using S = decltype(tag);
      S x;
      if constexpr (std::is_integral_v<S>)
        x = std::isinf(w) ? S(0) : S(w);  // integers: 0 = no edge
      else
        x = S(w);
      std::memcpy(p, &x, sizeof x);
    });
  }

  DenseAdjacency view(bool unweighted = false) const {
    DenseAdjacency a;
    a.data = data_;
    a.kind = kind_;
    a.row_stride = rs_;
    a.col_stride = cs_;
    a.unweighted = unweighted;
    return a;
  }

 private:
  std::int64_t n_;
  Dtype kind_;
  std::vector<char> bytes_;
  char* data_ = nullptr;
  std::int64_t rs_ = 0, cs_ = 0;
};

struct Weights {
  std::int64_t n = 0;
  std::vector<double> w;  // row-major; 0 or +inf = no edge
  double at(std::int64_t i, std::int64_t j) const { return w[std::size_t(i * n + j)]; }
};

/// Random weights: about `density` of the entries are edges (1..9, or halves when !integer;
/// with `negative` shifted by a potential, w + p(i) - p(j), so no cycle turns negative), the rest
/// 0 or +inf at random (only 0 when !allow_inf). A few diagonal entries are self loops.
Weights random_weights(std::int64_t n, double density, bool integer, bool negative, bool allow_inf,
                       std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> wi(1, 9), pi(-6, 6), half(2, 19);
  std::vector<double> p(std::size_t(n), 0);
  if (negative)
    for (double& x : p) x = pi(rng);
  Weights W;
  W.n = n;
  W.w.resize(std::size_t(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double x;
      if (u(rng) < (i == j ? 0.2 : density))
        x = (integer ? wi(rng) : half(rng) / 2.0) + p[i] - p[j];
      else
        x = allow_inf && u(rng) < 0.5 ? kInf : 0.0;
      W.w[std::size_t(i * n + j)] = x;
    }
  if (n > 1 && W.at(0, 1) == 0) W.w[1] = 3;  // never edgeless
  return W;
}

/// The edge list of W as SciPy reads a dense graph: every entry but 0 and +inf, row-major.
Graph edge_list(const Weights& W, bool directed, bool unweighted) {
  Graph g;
  g.num_vertices = W.n;
  g.directed = directed;
  for (std::int64_t i = 0; i < W.n; ++i)
    for (std::int64_t j = 0; j < W.n; ++j) {
      const double x = W.at(i, j);
      if (x != 0 && !std::isinf(x))
        g.add_edge(std::int32_t(i), std::int32_t(j), unweighted ? 1.0 : x);
    }
  return g;
}

/// W in a buffer of `kind` and `layout` (the buffer must outlive the Graph).
Graph dense_graph(const Weights& W, DenseBuffer& buf, bool directed, bool unweighted) {
  for (std::int64_t i = 0; i < W.n; ++i)
    for (std::int64_t j = 0; j < W.n; ++j) buf.set(i, j, W.at(i, j));
  return Graph::from_dense(W.n, buf.view(unweighted), directed);
}

bool mentions_copy(const Result& r) {
  for (const auto& note : r.notes)
    if (note.find("copied into an edge list") != std::string::npos) return true;
  return false;
}

/// Sets an environment variable for one scope; restores the old value (or unsets) after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct Case {
  std::int64_t V;
  Dtype kind;
  Layout layout;
  bool directed = true, negative = false, unweighted = false, paths = false;
  std::optional<Dtype> dtype;
  int block = 32;
  std::uint64_t seed = 1;
  Backend backend = Backend::Cpu;

  std::string str() const {
    std::ostringstream os;
    os << "V=" << V << " kind=" << dtype_name(kind) << " layout=" << layout_name(layout)
       << (directed ? "" : " undirected") << (negative ? " negative" : "")
       << (unweighted ? " unweighted" : "") << (paths ? " paths" : "")
       << " dtype=" << (dtype ? dtype_name(*dtype) : "auto") << " block=" << block
       << " seed=" << seed << " backend=" << backend_name(backend);
    return os.str();
  }
};

/// Solves the case as a dense view and as an edge list; both must agree exactly.
void check_case(const Case& c) {
  SCOPED_TRACE(c.str());
  const bool integer = is_integer(c.kind) || c.seed % 2 == 0;
  const Weights W = random_weights(c.V, 0.15, integer, c.negative, !is_integer(c.kind), c.seed);
  DenseBuffer buf(c.V, c.kind, c.layout);
  const Graph dense = dense_graph(W, buf, c.directed, c.unweighted);
  const Graph edges = edge_list(W, c.directed, c.unweighted);

  // The queries agree, and the materialized edge list is exactly the reference one.
  ASSERT_TRUE(dense.is_dense());
  EXPECT_EQ(dense.num_edges(), edges.num_edges());
  EXPECT_EQ(dense.min_weight(), edges.min_weight());
  EXPECT_EQ(dense.max_abs_weight(), edges.max_abs_weight());
  EXPECT_EQ(dense.integer_weights, edges.integer_weights);
  const Graph copied = dense.edges_from_dense();
  EXPECT_FALSE(copied.is_dense());
  EXPECT_EQ(copied.src, edges.src);
  EXPECT_EQ(copied.dst, edges.dst);
  EXPECT_EQ(copied.weight, edges.weight);
  EXPECT_EQ(copied.directed, edges.directed);

  SolveOptions o;
  o.backend = c.backend;
  o.dtype = c.dtype;
  o.block = c.block;
  o.paths = c.paths;
  const Result got = solve(dense, o);
  const Result want = solve(edges, o);
  ASSERT_EQ(got.dtype(), want.dtype());
  if (c.V >= 8) {
    ASSERT_GT(test::finite_off_diagonal(want.dist), c.V) << "trivial input";
  }
  EXPECT_EQ(test::compare(got.dist, want.dist), "");
  if (c.paths) {
    EXPECT_EQ(test::compare(got.next, want.next), "");
  }
  // The edge list is built only where edges are needed (and the notes say so): the cpu, cuda and
  // multi-gpu backends build their matrices from the view, and next hops read its arcs in place.
  const bool from_view = c.backend != Backend::Mpi;
  const bool copy_expected = edges.min_weight() < 0 || !from_view;
  EXPECT_EQ(mentions_copy(got), copy_expected);
  EXPECT_FALSE(mentions_copy(want));
}

const Dtype kKinds[] = {Dtype::Float64, Dtype::Float32, Dtype::Int64, Dtype::Int32};
const Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor, Layout::PaddedUnaligned,
                           Layout::Reversed};

TEST(Dense, EveryKindAndLayoutMatchesTheEdgeList) {
  std::uint64_t seed = 100;
  for (const std::int64_t V : {1, 2, 31, 33, 67})
    for (const Dtype kind : kKinds)
      for (const Layout layout : kLayouts)
        check_case({V, kind, layout, true, false, false, false, {}, 32, ++seed});
}

TEST(Dense, UndirectedTakesTheLighterOfBothEntries) {
  std::uint64_t seed = 200;
  for (const std::int64_t V : {2, 37, 97})
    for (const Dtype kind : kKinds)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
        check_case({V, kind, layout, false, false, false, false, {}, 32, ++seed});
}

TEST(Dense, NegativeWeightsGoThroughJohnson) {
  std::uint64_t seed = 300;
  for (const std::int64_t V : {3, 41, 99})
    for (const Dtype kind : kKinds)
      for (const Layout layout : {Layout::RowMajor, Layout::Reversed})
        check_case({V, kind, layout, true, true, false, false, {}, 32, ++seed});
}

TEST(Dense, UndirectedNegativeEdgeIsANegativeCycle) {
  Weights W = random_weights(9, 0.3, true, false, true, 7);
  W.w[std::size_t(2 * 9 + 5)] = -1;
  DenseBuffer buf(9, Dtype::Float64, Layout::RowMajor);
  const Graph dense = dense_graph(W, buf, false, false);
  SolveOptions o;
  o.backend = Backend::Cpu;
  try {
    solve(dense, o);
    FAIL() << "expected a negative cycle";
  } catch (const NegativeCycleError& e) {
    EXPECT_EQ(e.cycle().size(), 2u);
  }
}

TEST(Dense, UnweightedCountsEdges) {
  std::uint64_t seed = 400;
  for (const Dtype kind : kKinds)
    for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      check_case({53, kind, layout, true, false, true, false, {}, 32, ++seed});
      check_case(
          {53, kind, layout, false, true, true, false, {}, 32, ++seed});  // negatives count 1 too
    }
}

TEST(Dense, PathsMatchTheEdgeList) {
  // Next hops from the view's arcs read in place equal those of its edge-list copy, entry for
  // entry, by either cpu method (the edges method walks arcs in input order: row-major for a view).
  for (const char* method : {"edges", "tracked", ""}) {
    SCOPED_TRACE(std::string("APSP_CPU_NEXT=") + method);
    std::optional<ScopedEnv> env;  // restored even when a case fails
    if (*method) env.emplace("APSP_CPU_NEXT", method);
    std::uint64_t seed = 500;
    for (const Dtype kind : kKinds)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        check_case({45, kind, layout, true, false, false, true, {}, 32, ++seed});
        check_case({45, kind, layout, false, false, false, true, {}, 32, ++seed});
        check_case({45, kind, layout, true, true, false, true, {}, 32, ++seed});
      }
    check_case({300, Dtype::Float32, Layout::ColMajor, false, false, false, true, {}, 0, 551});
    check_case({300, Dtype::Int64, Layout::RowMajor, true, false, false, true, {}, 0, 552});
  }
}

TEST(Dense, EveryResultDtype) {
  std::uint64_t seed = 600;
  for (const Dtype t : kKinds)
    for (const Dtype kind : kKinds)
      check_case({71, kind, Layout::ColMajor, true, false, false, false, t, 32, ++seed * 2});
}

TEST(Dense, LargerThanOneParallelChunk) {
  // Above the parallel thresholds of the scans and of the matrix fill (V^2 > 2^18), default block.
  check_case({613, Dtype::Float64, Layout::RowMajor, true, false, false, false, {}, 0, 701});
  check_case({613, Dtype::Int32, Layout::ColMajor, false, false, false, false, {}, 0, 702});
}

TEST(Dense, GpuBackendsMatchTheEdgeList) {
  int ran = 0;
  std::uint64_t seed = 900;
  for (const BackendInfo& b : backends()) {
    if (b.name == "cpu" || b.name == "mpi" || !b.usable) continue;
    const Backend backend = parse_backend(b.name);
    for (const Dtype kind : kKinds) {
      check_case({131, kind, Layout::ColMajor, true, false, false, false, Dtype::Float32, 0,
                  ++seed * 2, backend});
      check_case({131, kind, Layout::RowMajor, false, false, false, true, Dtype::Int32, 0,
                  ++seed * 2, backend});
    }
    ++ran;
  }
  if (!ran) GTEST_SKIP() << "no usable GPU backend";
}

TEST(Dense, BuildMatrixPadsLikeTheEdgeList) {
  std::uint64_t seed = 800;
  for (const Dtype kind : kKinds)
    for (const Dtype t : kKinds)
      for (const bool directed : {true, false}) {
        SCOPED_TRACE(std::string(dtype_name(kind)) + " -> " + dtype_name(t) +
                     (directed ? "" : " undirected"));
        const Weights W = random_weights(45, 0.2, true, true, !is_integer(kind), ++seed);
        DenseBuffer buf(45, kind, Layout::PaddedUnaligned);
        const Graph dense = dense_graph(W, buf, directed, false);
        const Graph edges = edge_list(W, directed, false);
        const Matrix a = detail::build_matrix(dense, t, 64, 96);
        const Matrix b = detail::build_matrix(edges, t, 64, 96);
        ASSERT_EQ(a.bytes(), b.bytes());
        EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.bytes()), 0) << "padded matrices differ";
      }
}

TEST(Dense, VerifyAcceptsADenseGraph) {
  const Weights W = random_weights(40, 0.2, true, true, true, 9);
  DenseBuffer buf(40, Dtype::Float64, Layout::RowMajor);
  const Graph dense = dense_graph(W, buf, true, false);
  SolveOptions o;
  o.backend = Backend::Cpu;
  const Result r = solve(dense, o);
  EXPECT_EQ(detail::verify(dense, r.dist), "");
  EXPECT_EQ(detail::verify(dense, r.dist, /*full_limit=*/10, 4), "");  // Bellman-Ford from sources
}

TEST(Dense, NanAndMinusInfAreNamedErrors) {
  for (const Layout layout : kLayouts)
    for (const Dtype kind : {Dtype::Float64, Dtype::Float32}) {
      SCOPED_TRACE(std::string(layout_name(layout)) + " " + dtype_name(kind));
      DenseBuffer buf(5, kind, layout);
      const Weights W = random_weights(5, 0.5, true, false, true, 3);
      for (std::int64_t i = 0; i < 5; ++i)
        for (std::int64_t j = 0; j < 5; ++j) buf.set(i, j, W.at(i, j));
      buf.set(3, 1, std::nan(""));
      buf.set(4, 0, std::nan(""));
      try {
        (void)Graph::from_dense(5, buf.view(), true);
        FAIL() << "NaN accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("graph[3, 1] is NaN"), std::string::npos) << e.what();
      }
      buf.set(3, 1, -kInf);
      try {
        (void)Graph::from_dense(5, buf.view(true), true);  // unweighted too
        FAIL() << "-inf accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("graph[3, 1] is -inf"), std::string::npos) << e.what();
      }
      // A Graph made by hand is checked by validate() (solve() calls it) the same way.
      Graph g;
      g.num_vertices = 5;
      g.dense = buf.view();
      EXPECT_THROW(g.validate(), UsageError);
      SolveOptions o;
      o.backend = Backend::Cpu;
      EXPECT_THROW(solve(g, o), UsageError);
    }
}

TEST(Dense, ValidationRejectsBadShapes) {
  DenseBuffer buf(3, Dtype::Int32, Layout::RowMajor);
  EXPECT_THROW(Graph::from_dense(0, buf.view(), true), UsageError);
  EXPECT_THROW(Graph::from_dense(3, DenseAdjacency{}, true), UsageError);
  Graph g = Graph::from_dense(3, buf.view(), true);
  g.add_edge(0, 1, 1);  // both a view and an edge list
  EXPECT_THROW(g.validate(), UsageError);
}

TEST(Dense, EdgeListGraphsAreUnchanged) {
  Graph g;
  g.num_vertices = 3;
  g.add_edge(0, 1, 2.5);
  EXPECT_FALSE(g.is_dense());
  EXPECT_EQ(g.num_edges(), 1u);
  const Graph same = g.edges_from_dense();
  EXPECT_EQ(same.src, g.src);
  EXPECT_EQ(same.weight, g.weight);
  EXPECT_FALSE(same.integer_weights);
}

// The graph writers read edge arrays; a dense graph has none and is written through its edge list.
TEST(Dense, GraphWritersWriteTheMatrixEdges) {
  test::TempDir dir;
  const Weights W = random_weights(41, 0.3, true, false, true, 7);
  DenseBuffer buf(W.n, Dtype::Float64, Layout::ColMajor);
  const Graph dense = dense_graph(W, buf, true, false);
  const Result want = solve(edge_list(W, true, false));
  for (const char* name : {"g.bin", "g.txt"}) {
    const std::string path = dir / name;
    if (std::string(name) == "g.bin")
      write_graph_nthu(path, dense);
    else
      write_graph_edgelist(path, dense);
    ReadOptions ro;
    const Graph back = read_graph(path, ro);
    EXPECT_EQ(back.num_edges(), edge_list(W, true, false).num_edges()) << name;
    const Result got = solve(back);
    for (std::int64_t i = 0; i < W.n; ++i)
      for (std::int64_t j = 0; j < W.n; ++j)
        ASSERT_EQ(got.dist.at<std::int32_t>(i, j), want.dist.at<std::int32_t>(i, j))
            << name << " " << i << "," << j;
  }
}

// ---- fill_dense_rows: the conversion the GPU backends upload (runs without a GPU) ---------------

// Stripes of rows, a block-cyclic local layout and the int16 element type of the cuda backend's
// int16x2 mode, each against build_matrix's whole padded matrix of the same view.
TEST(Dense, RowStripesAndTiledLayoutsMatchTheWholeMatrix) {
  std::uint64_t seed = 1000;
  for (const Dtype kind : kKinds)
    for (const Layout layout : kLayouts)
      for (const bool directed : {true, false}) {
        SCOPED_TRACE(std::string(dtype_name(kind)) + " " + layout_name(layout) +
                     (directed ? "" : " undirected"));
        const std::int64_t n = 77, n_pad = 96;
        const Weights W = random_weights(n, 0.2, true, false, !is_integer(kind), ++seed);
        DenseBuffer buf(n, kind, layout);
        const Graph dense = dense_graph(W, buf, directed, false);
        const Matrix whole = detail::build_matrix(dense, Dtype::Int32, n_pad, n_pad);
        // Identity map, stripes of 7 rows (the last one short), padding rows and columns included.
        std::vector<std::int32_t> out(std::size_t(n_pad * n_pad), -5);
        for (std::int64_t r0 = 0; r0 < n_pad; r0 += 7)
          detail::fill_dense_rows<std::int32_t>(dense, unreachable<std::int32_t>(), r0,
                                                std::min<std::int64_t>(7, n_pad - r0), {}, n_pad,
                                                {}, out.data() + r0 * n_pad, n_pad);
        EXPECT_EQ(std::memcmp(out.data(), whole.raw(), out.size() * 4), 0) << "stripes differ";
        // Tiles of 16 in a 2 x 3 block-cyclic grid: worker (1, 2) holds tiles I = 1, 3, 5 and J =
        // 2, 5.
        const detail::TileMap rows_of{16, 2, 1}, cols_of{16, 3, 2};
        const std::int64_t lr = 3 * 16, lc = 2 * 16, ld = lc + 5;
        std::vector<std::int32_t> local(std::size_t(lr * ld), -5);
        detail::fill_dense_rows<std::int32_t>(dense, unreachable<std::int32_t>(), 0, lr, rows_of,
                                              lc, cols_of, local.data(), ld);
        for (std::int64_t r = 0; r < lr; ++r)
          for (std::int64_t c = 0; c < ld; ++c) {
            const std::int32_t want = c < lc ? whole.at<std::int32_t>(rows_of(r), cols_of(c)) : -5;
            ASSERT_EQ(local[std::size_t(r * ld + c)], want) << "local (" << r << "," << c << ")";
          }
        // int16 capped at 16383 (the packed matrix of int16x2 mode): 2 * 64 columns for 96 rows.
        std::vector<std::int16_t> s16(std::size_t(n_pad * 128), -5);
        detail::fill_dense_rows<std::int16_t>(dense, std::int16_t(16383), 0, n_pad, {}, 128, {},
                                              s16.data(), 128);
        for (std::int64_t i = 0; i < n_pad; ++i)
          for (std::int64_t j = 0; j < 128; ++j) {
            const std::int32_t w = j < n_pad ? whole.at<std::int32_t>(i, j)
                                             : (i == j ? 0 : unreachable<std::int32_t>());
            ASSERT_EQ(s16[std::size_t(i * 128 + j)], std::min(w, 16383))
                << "int16 (" << i << "," << j << ")";
          }
      }
}

TEST(Dense, HugeSelfLoopOfOneVertexIsIgnored) {
  // V = 1: (V-1) * max|w| = 0 allows int32 whatever the weight; the self loop is >= 0, so ignored
  // (it once wrapped to a negative int32 and read as a negative cycle).
  const std::int64_t w = (std::int64_t{1} << 32) - 5;
  DenseBuffer buf(1, Dtype::Int64, Layout::RowMajor);
  buf.set(0, 0, double(w));
  const Graph dense = Graph::from_dense(1, buf.view(), true);
  SolveOptions o;
  o.backend = Backend::Cpu;
  const Result r = solve(dense, o);
  ASSERT_EQ(r.dtype(), Dtype::Int32);
  EXPECT_EQ(r.dist.at<std::int32_t>(0, 0), 0);
}

// ---- the cuda backend on dense views (skip without a GPU) ---------------------------------------

struct CudaCase {
  std::int64_t V;
  Dtype kind;
  Layout layout;
  bool directed = true;
  double density = 0.15;
  int wmax = 9;  ///< weights 1..wmax (integers) or halves up to wmax (float kinds, odd seeds)
  std::uint64_t seed = 1;
  std::int64_t no_in_edge = -1;  ///< a vertex whose column is emptied (no in-edge), or -1
  Backend backend = Backend::Cuda;
  int gpus = 0;  ///< multi-gpu: devices 0..gpus-1 (0: all)

  std::string str() const {
    std::ostringstream os;
    os << "V=" << V << " kind=" << dtype_name(kind) << " layout=" << layout_name(layout)
       << (directed ? "" : " undirected") << " density=" << density << " wmax=" << wmax
       << " seed=" << seed << " backend=" << backend_name(backend);
    if (no_in_edge >= 0) os << " no_in_edge=" << no_in_edge;
    if (gpus) os << " gpus=" << gpus;
    return os.str();
  }
};

/// Weights 1..wmax with about `density` of the entries edges, the rest 0 (or +inf at random for
/// float kinds); integer, or halves when !integer. Faster than random_weights for large V.
Weights cuda_weights(const CudaCase& c, bool integer) {
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> wi(1, c.wmax), half(2, 2 * c.wmax);
  Weights W;
  W.n = c.V;
  W.w.assign(std::size_t(c.V * c.V), 0.0);
  for (std::int64_t i = 0; i < c.V; ++i)
    for (std::int64_t j = 0; j < c.V; ++j) {
      double& x = W.w[std::size_t(i * c.V + j)];
      if (u(rng) < c.density)
        x = integer ? wi(rng) : half(rng) / 2.0;
      else if (!is_integer(c.kind) && u(rng) < 0.5)
        x = kInf;
    }
  if (c.V > 1 && W.at(0, 1) == 0) W.w[1] = 3;  // never edgeless
  if (c.no_in_edge >= 0)
    for (std::int64_t i = 0; i < c.V; ++i) W.w[std::size_t(i * c.V + c.no_in_edge)] = 0;
  return W;
}

/// The GPU backend (cuda or multi-gpu) on the dense view against the cpu backend on the same view
/// and the same GPU backend on the edge list, entry by entry; distances only, so no edge list may
/// be made.
void check_cuda_case(const CudaCase& c) {
  SCOPED_TRACE(c.str());
  const bool integer = is_integer(c.kind) || c.seed % 2 == 0;
  const Weights W = cuda_weights(c, integer);
  DenseBuffer buf(c.V, c.kind, c.layout);
  const Graph dense = dense_graph(W, buf, c.directed, false);
  SolveOptions o;
  o.dtype = integer ? Dtype::Int32 : Dtype::Float32;  // halves are exact in float32
  o.backend = c.backend;
  for (int d = 0; d < c.gpus; ++d) o.devices.push_back(d);
  const Result got = solve(dense, o);
  EXPECT_EQ(got.backend, backend_name(c.backend));
  EXPECT_FALSE(mentions_copy(got))
      << "the " << got.backend << " backend copied the dense input into an edge list";
  const Result edges = solve(dense.edges_from_dense(), o);
  EXPECT_EQ(test::compare(got.dist, edges.dist), "")
      << got.backend << " (dense) vs " << got.backend << " (edge list)";
  o.backend = Backend::Cpu;
  o.devices.clear();
  const Result cpu = solve(dense, o);
  EXPECT_FALSE(mentions_copy(cpu));
  if (c.V >= 8) {  // sparse views (density 0.01 at V = 65: 54 reachable pairs) count too
    ASSERT_GT(test::finite_off_diagonal(cpu.dist), c.V / 2) << "trivial input";
  }
  EXPECT_EQ(test::compare(got.dist, cpu.dist), "") << got.backend << " (dense) vs cpu (dense)";
}

TEST(Dense, CudaBuildsFromTheViewAtOddSizes) {
  REQUIRE_CUDA();
  std::uint64_t seed = 2000;
  for (const std::int64_t V : {1, 2, 63, 65, 129, 1000})
    for (const Dtype kind : kKinds)
      for (const Layout layout : kLayouts)
        for (const bool directed : {true, false})
          check_cuda_case({V, kind, layout, directed, 0.15, 9, ++seed});
  for (const Dtype kind : kKinds)  // a large odd size: several upload stripes, a short last one
    check_cuda_case({5003, kind, kind == Dtype::Int32 ? Layout::RowMajor : Layout::ColMajor, true,
                     0.02, 50, ++seed});
  check_cuda_case({5003, Dtype::Float32, Layout::PaddedUnaligned, false, 0.01, 50, ++seed});
  check_cuda_case({5003, Dtype::Int64, Layout::Reversed, true, 0.01, 50, ++seed});
}

TEST(Dense, CudaHeavyWeightsAndSparseViews) {
  REQUIRE_CUDA();
  // Mostly zeros (no edge), unreachable pairs, integer weights up to 10^5 (distances far past
  // int16; even seeds, so integers in the float kinds too and int32 distances, exact).
  std::uint64_t seed = 2100;
  for (const Dtype kind : kKinds)
    for (const std::int64_t V : {65, 129, 1000})
      check_cuda_case({V, kind, Layout::ColMajor, true, 0.01, 100000, seed += 2});
}

TEST(Dense, CudaInt16ModeFromTheView) {
  REQUIRE_CUDA();
  // V >= 6144 with every vertex having in- and out-edges: the backend tries int16x2 mode and, with
  // small weights, keeps it; with large weights it falls back to int32 (built from the view again).
  // A vertex without in-edges (a zero column) is not tried at all.
  // Even seeds: integer weights in the float kinds too (int16x2 mode is for int32 distances).
  check_cuda_case({6144, Dtype::Int32, Layout::RowMajor, true, 0.02, 9, 2200});
  check_cuda_case({6151, Dtype::Float64, Layout::ColMajor, true, 0.02, 9, 2202});
  check_cuda_case({6144, Dtype::Float32, Layout::RowMajor, false, 0.01, 9, 2204});
  check_cuda_case({6200, Dtype::Int64, Layout::ColMajor, true, 0.02, 100000, 2206});  // falls back
  check_cuda_case({6144, Dtype::Int32, Layout::ColMajor, true, 0.02, 9, 2208, 4321});
  check_cuda_case({6144, Dtype::Float64, Layout::RowMajor, true, 0.02, 9, 2210, 17});
}

TEST(Dense, CudaInt16ModeForcedOnSmallViews) {
  REQUIRE_CUDA();
  const ScopedEnv force("APSP_CUDA_INT16", "1");
  std::uint64_t seed = 2300;
  for (const std::int64_t V : {2, 63, 65, 129, 1000})
    for (const Dtype kind : kKinds)
      for (const Layout layout : {Layout::RowMajor, Layout::Reversed}) {
        check_cuda_case(
            {V, kind, layout, true, 0.3, 9, seed += 2});  // all reachable: stays int16x2
        check_cuda_case(
            {V, kind, layout, false, 0.01, 9, seed += 2});  // unreachable pairs: falls back
        check_cuda_case(
            {V, kind, layout, true, 0.3, 100000, seed += 2});  // distances >= 2^14-1: falls back
      }
}

// ---- the multi-gpu backend on dense views (skip without it) -----------------------------------

int gpu_count() {
#ifdef APSP_WITH_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

TEST(Dense, MultiGpuBuildsFromTheView) {
  // Every GPU's block-cyclic tiles straight from the view, on 1, 2 and 4 GPUs where there are
  // that many (grids 1 x 1, 1 x 2, 2 x 2: tile rows and columns dealt to different GPUs).
  std::string why = "not built";
  for (const BackendInfo& b : backends())
    if (b.name == "multi-gpu") why = b.usable ? "" : b.detail;
  if (!why.empty()) GTEST_SKIP() << "multi-gpu backend not usable: " << why;
  if (gpu_count() == 0) GTEST_SKIP() << "no GPU";
  // Every multi-gpu solve makes its NCCL communicators (~0.3-0.5 s on 4 GPUs): the full cross
  // product of the cuda test (432 cases x 2 solves) ran past 200 s on 4 x H200, so here every
  // kind meets every layout once per size, directed and undirected alternating.
  std::uint64_t seed = 2400;
  const Layout layouts[] = {Layout::RowMajor, Layout::ColMajor, Layout::Reversed};
  for (const int gpus : {1, 2, 4}) {
    if (gpus > gpu_count()) break;
    int turn = 0;
    for (const std::int64_t V : {1, 2, 63, 129, 300, 1000})
      for (const Dtype kind : kKinds) {
        ++turn;
        check_cuda_case({V, kind, layouts[turn % 3], turn % 2 == 0, 0.15, 9, ++seed, -1,
                         Backend::MultiGpu, gpus});
      }
    check_cuda_case({2051, Dtype::Float64, Layout::ColMajor, true, 0.02, 100000, 2500, -1,
                     Backend::MultiGpu, gpus});
    check_cuda_case({2051, Dtype::Int32, Layout::PaddedUnaligned, false, 0.02, 50, 2502, -1,
                     Backend::MultiGpu, gpus});
  }
}

}  // namespace
}  // namespace apsp
