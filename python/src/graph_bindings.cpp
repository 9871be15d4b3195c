// python/src/graph_bindings.cpp — apsp.Graph for Python: NumPy edge arrays straight into the
// Graph's vectors (one pass, ids and weights checked), a dense matrix viewed in place (kept
// alive by the Graph object), the edge arrays as read-only views, and the bindings of the Graph
// class, read_graph, write_graph and the generators.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/types.hpp"
#include "graph_bindings.hpp"
#include "numpy_view.hpp"

namespace apsp_python {

namespace {

using apsp_python::num_str;
using apsp_python::view_of;
using apsp_python::visit_numeric;

/// Copies vertex ids into `out`, checking 0 <= id < limit. Returns the largest id (-1 if none).
std::int64_t copy_ids(const View& v, const char* name, std::vector<std::int32_t>& out) {
  std::int64_t max_id = -1;
  out.resize(std::size_t(v.rows));
  visit_numeric(v, name, false, [&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t e = 0; e < v.rows; ++e) {
      const T x = v.at<T>(e);
      if constexpr (std::is_signed_v<T>)
        if (x < 0)
          throw py::value_error(std::string(name) + "[" + std::to_string(e) + "] = " + num_str(x) +
                                " is negative (vertex ids are 0..V-1)");
      if (std::uint64_t(x) >= std::uint64_t(apsp::kMaxVertices))
        throw py::value_error(std::string(name) + "[" + std::to_string(e) + "] = " + num_str(x) +
                              " is too large (vertex ids must fit int32)");
      out[std::size_t(e)] = std::int32_t(x);
      max_id = std::max<std::int64_t>(max_id, std::int64_t(x));
    }
  });
  return max_id;
}

/// What a weight entry means: an edge, "no edge" (+inf), or an error.
enum class Weight { Edge, NoEdge, NaN, MinusInf };

template <class T>
Weight classify(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return Weight::NaN;
    if (std::isinf(x)) return x < 0 ? Weight::MinusInf : Weight::NoEdge;
  }
  (void)x;
  return Weight::Edge;
}

/// For Weight::NaN / MinusInf: the ValueError naming the entry (`where` is only built then).
template <class Where>
void check_weight(Weight k, Where&& where) {
  if (k == Weight::NaN) throw py::value_error(where() + " is NaN (use 0 or inf for 'no edge')");
  if (k == Weight::MinusInf) throw py::value_error(where() + " is -inf");
}

struct EdgeArgs {
  std::int64_t num_vertices = -1;  // -1: infer as max id + 1
  bool directed = true, reverse = false, unweighted = false;
};

/// Builds a Graph from 1-D src, dst (and optional weight) views; edges with weight +inf are
/// dropped.
apsp::Graph graph_from_edges(const View& s, const View& d, const std::optional<View>& w,
                             const EdgeArgs& a) {
  if (s.rows != d.rows || (w && w->rows != s.rows))
    throw py::value_error("edge arrays differ in length: src has " + std::to_string(s.rows) +
                          ", dst " + std::to_string(d.rows) +
                          (w ? ", weight " + std::to_string(w->rows) : std::string()));
  apsp::Graph g;
  g.directed = a.directed;
  const std::int64_t max_id = std::max(copy_ids(s, "src", g.src), copy_ids(d, "dst", g.dst));
  g.num_vertices = a.num_vertices >= 0 ? a.num_vertices : max_id + 1;
  if (a.num_vertices < 0 && max_id < 0)
    throw py::value_error(
        "cannot infer the number of vertices from an empty edge list; pass num_vertices=");
  if (max_id >= g.num_vertices) {
    const auto& ids =
        std::find(g.src.begin(), g.src.end(), std::int32_t(max_id)) != g.src.end() ? g.src : g.dst;
    const auto e = std::find(ids.begin(), ids.end(), std::int32_t(max_id)) - ids.begin();
    throw py::value_error(std::string(&ids == &g.src ? "src" : "dst") + "[" + std::to_string(e) +
                          "] = " + std::to_string(max_id) +
                          " is out of range for num_vertices = " + std::to_string(g.num_vertices));
  }
  const std::size_t E = g.src.size();
  g.weight.assign(E, 1.0);
  g.integer_weights = true;
  std::size_t kept = E;
  if (w) {
    kept = 0;
    visit_numeric(*w, "weight", true, [&](auto tag) {
      using T = decltype(tag);
      bool integral = true;
      for (std::size_t e = 0; e < E; ++e) {
        const T raw = w->at<T>(std::int64_t(e));
        const Weight k = classify(raw);
        if (k != Weight::Edge) {
          check_weight(k, [e] { return "weight[" + std::to_string(e) + "]"; });
          continue;  // +inf: no edge
        }
        const double x = a.unweighted ? 1.0 : double(raw);
        if constexpr (std::is_floating_point_v<T>) integral = integral && x == std::floor(x);
        g.src[kept] = g.src[e];
        g.dst[kept] = g.dst[e];
        g.weight[kept] = x;
        ++kept;
      }
      g.integer_weights = integral;
    });
  }
  g.src.resize(kept);
  g.dst.resize(kept);
  g.weight.resize(kept);
  if (a.reverse) std::swap(g.src, g.dst);
  return g;
}

/// A dense Graph viewing the square matrix `m` in place. A float matrix goes through
/// Graph::from_dense: one parallel scan that refuses NaN / -inf naming the entry and learns
/// whether the weights are integers. An integer matrix has neither NaN nor fractions, so that scan
/// would learn nothing (solve() scans for the weight range anyway): its Graph is made without one.
/// scan = false skips it for float matrices too, unless reversed (a Graph made only to be solved:
/// solve() makes the same checks and learns integer-ness from its own scan; Graph::integer_weights
/// is then not meaningful, see apsp/graph.hpp).
/// The caller keeps the array alive as long as the Graph (graph_from_dense below: keep_alive).
/// The entries must be int32, int64, float32 or float64 (apsp/__init__.py converts other dtypes
/// first). reverse: the transposed view (swapped strides), i.e. the reversed graph, at no cost.
apsp::Graph graph_from_dense(const View& m, const EdgeArgs& a, bool scan = true) {
  if (m.rows != m.cols)
    throw py::value_error("a dense graph must be square, got shape (" + std::to_string(m.rows) +
                          ", " + std::to_string(m.cols) + ")");
  if (m.rows > apsp::kMaxVertices) throw py::value_error("too many vertices for int32 ids");
  apsp::DenseAdjacency d;
  d.data = m.data;
  if (m.kind == 'i' && m.itemsize == 4)
    d.kind = apsp::Dtype::Int32;
  else if (m.kind == 'i' && m.itemsize == 8)
    d.kind = apsp::Dtype::Int64;
  else if (m.kind == 'f' && m.itemsize == 4)
    d.kind = apsp::Dtype::Float32;
  else if (m.kind == 'f' && m.itemsize == 8)
    d.kind = apsp::Dtype::Float64;
  else
    throw py::type_error("graph: a dense matrix must be int32, int64, float32 or float64 here");
  d.row_stride = m.row_stride;
  d.col_stride = m.col_stride;
  d.unweighted = a.unweighted;
  apsp::Graph g;
  // Not for a reversed view: solve()'s scan would name a bad entry in the transposed orientation.
  if ((m.kind == 'i' || (!scan && !a.reverse)) && m.rows > 0) {  // what from_dense leaves
    g.num_vertices = m.rows;
    g.directed = a.directed;
    g.integer_weights = true;
    g.dense = d;
  } else {
    g = apsp::Graph::from_dense(m.rows, d, a.directed);
  }
  if (a.reverse) std::swap(g.dense.row_stride, g.dense.col_stride);
  return g;
}

EdgeArgs edge_args(std::int64_t num_vertices, bool directed, bool reverse, bool unweighted) {
  if (num_vertices < -1)
    throw py::value_error("num_vertices must be >= 0, got " + std::to_string(num_vertices));
  return {num_vertices, directed, reverse, unweighted};
}

// ---- Graph helpers ------------------------------------------------------------------------------
/// A read-only 1-D view of a vector held by the Graph object `owner`.
template <class T>
py::array vector_view(const std::vector<T>& vec, py::handle owner) {
  py::array a(py::dtype::of<T>(), {py::ssize_t(vec.size())}, {py::ssize_t(sizeof(T))}, vec.data(),
              owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

/// A 1-D array that takes `vec` over (no copy): a capsule in the array's base owns it.
template <class T>
py::array adopt_vector(std::vector<T>&& vec) {
  auto* heap = new std::vector<T>(std::move(vec));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({py::ssize_t(heap->size())}, {py::ssize_t(sizeof(T))}, heap->data(), owner);
}

/// The edge arrays of a Graph: read-only views of its vectors, or for a dense Graph (which has
/// none) new arrays: the asked one of its matrix's edge list, kept without a copy.
py::array edge_array(py::object self, int which) {
  const auto& g = self.cast<const apsp::Graph&>();
  if (!g.is_dense()) {
    if (which == 0) return vector_view(g.src, self);
    if (which == 1) return vector_view(g.dst, self);
    return vector_view(g.weight, self);
  }
  apsp::Graph edges;
  {
    py::gil_scoped_release nogil;
    edges = g.edges_from_dense();
  }
  if (which == 0) return adopt_vector(std::move(edges.src));
  if (which == 1) return adopt_vector(std::move(edges.dst));
  return adopt_vector(std::move(edges.weight));
}

/// A copy of a Graph, made undirected / reversed (directed only) / unweighted as asked. A dense
/// Graph stays a view of the same matrix (reversed = transposed strides); the Python binding keeps
/// `g` (and so its matrix) alive as long as the copy.
apsp::Graph transformed(const apsp::Graph& g, bool directed, bool reverse, bool unweighted) {
  apsp::Graph out;
  {
    py::gil_scoped_release nogil;
    out = g;
    out.directed = g.directed && directed;
    if (reverse && out.directed) {
      std::swap(out.src, out.dst);
      std::swap(out.dense.row_stride, out.dense.col_stride);
    }
    if (unweighted) {
      std::fill(out.weight.begin(), out.weight.end(), 1.0);
      out.dense.unweighted = true;
      out.integer_weights = true;
    }
  }
  return out;
}
}  // namespace

void bind_graph(py::module_& m) {
  py::class_<apsp::Graph>(
      m, "Graph",
      "An edge-list graph (vertices 0..num_vertices-1; int32 ids, float64 weights) as read "
      "from a file (apsp.read), generated (apsp.generate), or built from arrays (apsp.graph).")
      .def_readonly("num_vertices", &apsp::Graph::num_vertices)
      .def_readonly("directed", &apsp::Graph::directed)
      .def_readonly("integer_weights", &apsp::Graph::integer_weights,
                    "True when every weight is an integer.")
      .def_property_readonly(
          "num_edges",
          [](const apsp::Graph& g) {
            py::gil_scoped_release nogil;
            return g.num_edges();
          },
          "Number of edges (for a dense graph: its entries that are edges, counted by a scan).")
      .def_property_readonly(
          "is_dense", &apsp::Graph::is_dense,
          "True when the graph views a dense matrix in place instead of holding an edge list.")
      .def_property_readonly(
          "src", [](py::object self) { return edge_array(self, 0); },
          "Source vertex of each edge (read-only int32 view; a new array for a dense graph).")
      .def_property_readonly(
          "dst", [](py::object self) { return edge_array(self, 1); },
          "Target vertex of each edge (read-only int32 view; a new array for a dense graph).")
      .def_property_readonly(
          "weight", [](py::object self) { return edge_array(self, 2); },
          "Weight of each edge (read-only float64 view; a new array for a dense graph).")
      .def("__repr__", [](const apsp::Graph& g) {
        return "apsp.Graph(num_vertices=" + std::to_string(g.num_vertices) +
               ", num_edges=" + std::to_string(g.num_edges()) +
               ", directed=" + (g.directed ? "True" : "False") +
               (g.is_dense() ? ", dense=True)" : ")");
      });

  m.def(
      "graph_from_edges",
      [](const py::array& src, const py::array& dst, const std::optional<py::array>& weight,
         std::int64_t num_vertices, bool directed, bool reverse, bool unweighted) {
        const EdgeArgs a = edge_args(num_vertices, directed, reverse, unweighted);
        const View s = view_of(src, 1, "src"), d = view_of(dst, 1, "dst");
        std::optional<View> w;
        if (weight) w = view_of(*weight, 1, "weight");
        py::gil_scoped_release nogil;
        return graph_from_edges(s, d, w, a);
      },
      py::arg("src"), py::arg("dst"), py::arg("weight"), py::arg("num_vertices"),
      py::arg("directed"), py::arg("reverse"), py::arg("unweighted"));
  m.def(
      "graph_from_dense",
      [](const py::array& a, bool directed, bool reverse, bool unweighted, bool scan) {
        const EdgeArgs args = edge_args(-1, directed, reverse, unweighted);
        const View v = view_of(a, 2, "graph");
        py::gil_scoped_release nogil;
        return graph_from_dense(v, args, scan);
      },
      py::arg("graph"), py::arg("directed"), py::arg("reverse"), py::arg("unweighted"),
      py::arg("scan") = true,
      py::keep_alive<0, 1>(),  // the Graph views the array: the array lives as long as the Graph
      "A dense Graph viewing `graph` (a square int32/int64/float32/float64 ndarray) in place.");
  m.def("transformed", &transformed, py::arg("graph"), py::arg("directed"), py::arg("reverse"),
        py::arg("unweighted"), py::keep_alive<0, 1>(),  // a dense copy views the original's matrix
        "Copy of a Graph, made undirected / reversed (directed only) / unweighted as asked.");

  m.def(
      "read_graph",
      [](const std::string& path, const std::string& format, bool undirected,
         std::int64_t num_vertices) {
        apsp::ReadOptions o;
        o.format = apsp::parse_input_format(format);
        o.undirected = undirected;
        o.num_vertices = num_vertices;
        py::gil_scoped_release nogil;
        return apsp::read_graph(path, o);
      },
      py::arg("path"), py::arg("format"), py::arg("undirected"), py::arg("num_vertices") = 0);
  m.def(
      "write_graph",
      [](const std::string& path, const apsp::Graph& graph, const std::string& format) {
        py::gil_scoped_release nogil;
        const apsp::Graph edges =
            graph.is_dense() ? graph.edges_from_dense() : apsp::Graph{};  // writers read edges
        const apsp::Graph& g = graph.is_dense() ? edges : graph;
        apsp::write_graph(path, g, apsp::parse_graph_format(format));
      },
      py::arg("path"), py::arg("graph"), py::arg("format"),
      "Writes a graph as apsp::write_graph does (format: nthu, dimacs, mtx, edgelist or auto).");
  m.def(
      "graph_format_named",
      [](const std::string& path) -> std::string {
        switch (apsp::input_format_for(path)) {
          case apsp::InputFormat::Nthu:
            return "nthu";
          case apsp::InputFormat::Dimacs:
            return "dimacs";
          case apsp::InputFormat::MatrixMarket:
            return "mtx";
          case apsp::InputFormat::EdgeList:
            return "edgelist";
          default:
            return "auto";
        }
      },
      py::arg("path"), "The graph format a name says (a final .gz set aside), auto for none.");

  m.def(
      "generate_uniform",
      [](std::int64_t n, std::int64_t e, std::int64_t wmin, std::int64_t wmax, std::uint64_t seed) {
        py::gil_scoped_release nogil;
        return apsp::generate_uniform(n, e, wmin, wmax, seed);
      },
      py::arg("n"), py::arg("m"), py::arg("wmin"), py::arg("wmax"), py::arg("seed"));
  m.def(
      "generate_rmat",
      [](int scale, std::int64_t e, std::int64_t wmin, std::int64_t wmax, std::uint64_t seed) {
        py::gil_scoped_release nogil;
        return apsp::generate_rmat(scale, e, wmin, wmax, seed);
      },
      py::arg("scale"), py::arg("m"), py::arg("wmin"), py::arg("wmax"), py::arg("seed"));
  m.def(
      "generate_grid",
      [](std::int64_t rows, std::int64_t cols, std::int64_t wmin, std::int64_t wmax,
         std::uint64_t seed) {
        py::gil_scoped_release nogil;
        return apsp::generate_grid(rows, cols, wmin, wmax, seed);
      },
      py::arg("rows"), py::arg("cols"), py::arg("wmin"), py::arg("wmax"), py::arg("seed"));
}

}  // namespace apsp_python
