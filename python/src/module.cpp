// python/src/module.cpp — apsp._core, the compiled half of the `apsp` Python package.
//
// Converts NumPy edge arrays straight into apsp::Graph vectors (one pass, no intermediate arrays)
// and wraps a dense matrix as a Graph that views it in place (no copy; the array is kept alive by
// the Graph object), runs apsp::solve() with the GIL released (Ctrl-C still interrupts it
// between rounds), and hands every result apsp::Matrix to NumPy without copying: its padded rows
// are moved together in place and an "apsp.Matrix" capsule owns the memory. The SciPy-style
// argument handling lives in apsp/_csgraph.py and _inputs.py; csgraph_bindings.cpp holds the
// dense scan and the per-source solver's binding. This file touches the O(E) and O(V^2) data.
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
#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"
#include "apsp/types.hpp"
#include "csgraph_bindings.hpp"
#include "metrics_bindings.hpp"
#include "numpy_view.hpp"

namespace py = pybind11;

namespace {

using apsp_python::dtype_str;
using apsp_python::num_str;
using apsp_python::View;
using apsp_python::view_of;
using apsp_python::visit_numeric;

// ---- exceptions ---------------------------------------------------------------------------------
// Created once at import and kept for the life of the process (a module's exception types are
// never freed anyway); the translator below raises them.
PyObject* g_negative_cycle_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_backend_unavailable_error = nullptr;
PyObject* g_error = nullptr;

PyObject* new_exception(py::module_& m, const char* name, const char* doc, PyObject* base) {
  const std::string qualified = std::string("apsp.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (!type) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(type));
  return type;
}

void raise_negative_cycle(const apsp::NegativeCycleError& e) {
  py::object type = py::reinterpret_borrow<py::object>(g_negative_cycle_error);
  py::object inst = type(e.what());
  inst.attr("cycle") = py::cast(e.cycle());
  PyErr_SetObject(g_negative_cycle_error, inst.ptr());
}

/// The library's messages are written for the command line ("use --type int64"); Python users
/// pass keywords, so the flags are renamed: --type X -> dtype=np.X, --backend -> backend=, ...
std::string python_message(std::string msg) {
  static const std::pair<const char*, const char*> kFlags[] = {
      {"--type ", "dtype=np."}, {"--backend ", "backend="}, {"--block ", "block="}, {"--threads ", "threads="},
      {"--input-format ", "format="}, {"--vertices ", "num_vertices="}, {"--undirected", "directed=False"}};
  for (const auto& [flag, keyword] : kFlags)
    for (std::size_t at = msg.find(flag); at != std::string::npos; at = msg.find(flag, at))
      msg.replace(at, std::strlen(flag), keyword);
  return msg;
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const apsp::NegativeCycleError& e) {
    raise_negative_cycle(e);
  } catch (const apsp::InputError& e) {
    PyErr_SetString(g_input_error, python_message(e.what()).c_str());
  } catch (const apsp::UsageError& e) {
    PyErr_SetString(PyExc_ValueError, python_message(e.what()).c_str());
  } catch (const apsp::ResourceError& e) {
    PyErr_SetString(PyExc_MemoryError, python_message(e.what()).c_str());
  } catch (const apsp::BackendUnavailable& e) {
    PyErr_SetString(g_backend_unavailable_error, python_message(e.what()).c_str());
  } catch (const apsp::Error& e) {
    PyErr_SetString(g_error, python_message(e.what()).c_str());
  }
}

// ---- Matrix <-> NumPy ---------------------------------------------------------------------------
constexpr const char* kCapsuleName = "apsp.Matrix";

void free_matrix_capsule(PyObject* cap) {
  delete static_cast<apsp::Matrix*>(PyCapsule_GetPointer(cap, kCapsuleName));
}

py::dtype numpy_dtype(apsp::Dtype t) {
  switch (t) {
    case apsp::Dtype::Int32: return py::dtype::of<std::int32_t>();
    case apsp::Dtype::Int64: return py::dtype::of<std::int64_t>();
    case apsp::Dtype::Float32: return py::dtype::of<float>();
    case apsp::Dtype::Float64: break;
  }
  return py::dtype::of<double>();
}

/// Moves the rows of a padded matrix together (row i to offset i * cols), in place: the logical
/// block becomes C-contiguous at the start of the same allocation. Forward order is safe, as no
/// row moves past a row that has not moved yet.
void compact_rows(apsp::Matrix& m) {
  if (m.stride() == m.cols() || m.rows() <= 1) return;
  const auto es = std::int64_t(apsp::dtype_size(m.dtype()));
  char* base = static_cast<char*>(m.raw());
  const auto row_bytes = std::size_t(m.cols() * es);
  for (std::int64_t i = 1; i < m.rows(); ++i)
    std::memmove(base + i * m.cols() * es, base + i * m.stride() * es, row_bytes);
}

/// Hands `m` to NumPy without a copy: the array views its rows() x cols() block, made
/// C-contiguous in place first (compact_rows), and a capsule in the array's base owns the matrix.
py::array to_numpy(apsp::Matrix&& m) {
  if (m.stride() != m.cols()) {
    py::gil_scoped_release nogil;
    compact_rows(m);
  }
  auto* heap = new apsp::Matrix(std::move(m));
  PyObject* cap = PyCapsule_New(heap, kCapsuleName, free_matrix_capsule);
  if (!cap) {
    delete heap;
    throw py::error_already_set();
  }
  auto owner = py::reinterpret_steal<py::object>(cap);
  const auto es = py::ssize_t(apsp::dtype_size(heap->dtype()));
  return py::array(numpy_dtype(heap->dtype()), {py::ssize_t(heap->rows()), py::ssize_t(heap->cols())},
                   {py::ssize_t(heap->cols()) * es, es}, heap->raw(), owner);
}

/// A Matrix viewing `a` in place when its rows are runs of native int32/int64/float32/float64
/// elements (C order, or any row stride that is a whole number of elements); nullopt otherwise.
std::optional<apsp::Matrix> matrix_view(const py::array& a) {
  if (a.ndim() != 2 || !a.dtype().attr("isnative").cast<bool>()) return std::nullopt;
  std::optional<apsp::Dtype> t;
  const char kind = a.dtype().kind();
  if (kind == 'i' && a.itemsize() == 4) t = apsp::Dtype::Int32;
  else if (kind == 'i' && a.itemsize() == 8) t = apsp::Dtype::Int64;
  else if (kind == 'f' && a.itemsize() == 4) t = apsp::Dtype::Float32;
  else if (kind == 'f' && a.itemsize() == 8) t = apsp::Dtype::Float64;
  const auto es = a.itemsize();
  if (!t || a.strides(1) != es || a.strides(0) < a.shape(1) * es || a.strides(0) % es != 0) return std::nullopt;
  return apsp::Matrix::view(a.data(), a.shape(0), a.shape(1), a.strides(0) / es, *t);
}

/// Copies vertex ids into `out`, checking 0 <= id < limit. Returns the largest id (-1 if none).
std::int64_t copy_ids(const View& v, const char* name, std::vector<std::int32_t>& out) {
  std::int64_t max_id = -1;
  out.resize(std::size_t(v.rows));
  visit_numeric(v, name, false, [&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t e = 0; e < v.rows; ++e) {
      const T x = v.at<T>(e);
      if constexpr (std::is_signed_v<T>)
        if (x < 0) throw py::value_error(std::string(name) + "[" + std::to_string(e) + "] = " + num_str(x) + " is negative (vertex ids are 0..V-1)");
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

template <class T> Weight classify(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return Weight::NaN;
    if (std::isinf(x)) return x < 0 ? Weight::MinusInf : Weight::NoEdge;
  }
  (void)x;
  return Weight::Edge;
}

/// For Weight::NaN / MinusInf: the ValueError naming the entry (`where` is only built then).
template <class Where> void check_weight(Weight k, Where&& where) {
  if (k == Weight::NaN) throw py::value_error(where() + " is NaN (use 0 or inf for 'no edge')");
  if (k == Weight::MinusInf) throw py::value_error(where() + " is -inf");
}

struct EdgeArgs {
  std::int64_t num_vertices = -1;  // -1: infer as max id + 1
  bool directed = true, reverse = false, unweighted = false;
};

/// Builds a Graph from 1-D src, dst (and optional weight) views; edges with weight +inf are dropped.
apsp::Graph graph_from_edges(const View& s, const View& d, const std::optional<View>& w, const EdgeArgs& a) {
  if (s.rows != d.rows || (w && w->rows != s.rows))
    throw py::value_error("edge arrays differ in length: src has " + std::to_string(s.rows) + ", dst " +
                          std::to_string(d.rows) + (w ? ", weight " + std::to_string(w->rows) : std::string()));
  apsp::Graph g;
  g.directed = a.directed;
  const std::int64_t max_id = std::max(copy_ids(s, "src", g.src), copy_ids(d, "dst", g.dst));
  g.num_vertices = a.num_vertices >= 0 ? a.num_vertices : max_id + 1;
  if (a.num_vertices < 0 && max_id < 0)
    throw py::value_error("cannot infer the number of vertices from an empty edge list; pass num_vertices=");
  if (max_id >= g.num_vertices) {
    const auto& ids = std::find(g.src.begin(), g.src.end(), std::int32_t(max_id)) != g.src.end() ? g.src : g.dst;
    const auto e = std::find(ids.begin(), ids.end(), std::int32_t(max_id)) - ids.begin();
    throw py::value_error(std::string(&ids == &g.src ? "src" : "dst") + "[" + std::to_string(e) + "] = " +
                          std::to_string(max_id) + " is out of range for num_vertices = " +
                          std::to_string(g.num_vertices));
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
    throw py::value_error("a dense graph must be square, got shape (" + std::to_string(m.rows) + ", " +
                          std::to_string(m.cols) + ")");
  if (m.rows > apsp::kMaxVertices) throw py::value_error("too many vertices for int32 ids");
  apsp::DenseAdjacency d;
  d.data = m.data;
  if (m.kind == 'i' && m.itemsize == 4) d.kind = apsp::Dtype::Int32;
  else if (m.kind == 'i' && m.itemsize == 8) d.kind = apsp::Dtype::Int64;
  else if (m.kind == 'f' && m.itemsize == 4) d.kind = apsp::Dtype::Float32;
  else if (m.kind == 'f' && m.itemsize == 8) d.kind = apsp::Dtype::Float64;
  else throw py::type_error("graph: a dense matrix must be int32, int64, float32 or float64 here");
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
  if (num_vertices < -1) throw py::value_error("num_vertices must be >= 0, got " + std::to_string(num_vertices));
  return {num_vertices, directed, reverse, unweighted};
}

// ---- result post-processing (in place where possible, GIL released) ----------------------------
// O(V^2) passes; below this side a parallel region costs more than it saves (a loaded machine
// can take milliseconds to schedule the team).
constexpr std::int64_t kParallelSide = 512;

struct MutView {
  char* data;
  std::int64_t n, row_stride, col_stride;
  template <class T> T& at(std::int64_t i, std::int64_t j) const {
    return *reinterpret_cast<T*>(data + i * row_stride + j * col_stride);
  }
};

MutView square_mut_view(py::array& a, const char* what) {
  if (a.ndim() != 2 || a.shape(0) != a.shape(1)) throw py::value_error(std::string(what) + " must be a square matrix");
  if (!a.writeable()) throw py::value_error(std::string(what) + " is read-only");
  if (reinterpret_cast<std::uintptr_t>(a.data()) % std::size_t(a.itemsize()) != 0 || a.strides(0) % a.itemsize() ||
      a.strides(1) % a.itemsize())
    throw py::value_error(std::string(what) + " is not aligned");
  return {static_cast<char*>(a.mutable_data()), a.shape(0), a.strides(0), a.strides(1)};
}

template <class T> void transpose_in_place(const MutView& v) {
  constexpr std::int64_t kB = 64;
  const std::int64_t n = v.n;
#pragma omp parallel for schedule(dynamic) if (n > kParallelSide)
  for (std::int64_t ib = 0; ib < n; ib += kB)
    for (std::int64_t jb = ib; jb < n; jb += kB)
      for (std::int64_t i = ib; i < std::min(ib + kB, n); ++i)
        for (std::int64_t j = std::max(jb, i + 1); j < std::min(jb + kB, n); ++j) std::swap(v.at<T>(i, j), v.at<T>(j, i));
}

void transpose_square(py::array a) {
  const MutView v = square_mut_view(a, "matrix");
  const auto size = a.itemsize();
  py::gil_scoped_release nogil;
  if (size == 4) transpose_in_place<std::int32_t>(v);
  else if (size == 8) transpose_in_place<std::int64_t>(v);
  else throw py::type_error("transpose: 4- or 8-byte elements expected");
}

/// SciPy's predecessor matrix from the next-hop matrix of the REVERSED graph, in place:
/// pred[i][j] = next_rev[j][i] (the vertex before j on a shortest i -> j path), -9999 for none
/// and on the diagonal.
void predecessors_from_reversed_next(py::array a) {
  if (!a.dtype().is(py::dtype::of<std::int32_t>())) throw py::type_error("next-hop matrix must be int32");
  const MutView v = square_mut_view(a, "next-hop matrix");
  py::gil_scoped_release nogil;
  transpose_in_place<std::int32_t>(v);
#pragma omp parallel for schedule(static) if (v.n > kParallelSide)
  for (std::int64_t i = 0; i < v.n; ++i)
    for (std::int64_t j = 0; j < v.n; ++j) {
      std::int32_t& p = v.at<std::int32_t>(i, j);
      if (p < 0 || i == j) p = -9999;
    }
}

/// A new float64 copy of a distance matrix: the integer "unreachable" sentinel becomes +inf.
py::array to_float64(const py::array& a) {
  const View v = view_of(a, 2, "matrix");
  apsp::Matrix out(v.rows, v.cols, apsp::Dtype::Float64);
  {
    py::gil_scoped_release nogil;
    auto convert = [&](auto tag) {
      using T = decltype(tag);
      constexpr double kInf = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) if (v.rows * v.cols > kParallelSide * kParallelSide)
      for (std::int64_t i = 0; i < v.rows; ++i) {
        double* o = out.row<double>(i);
        for (std::int64_t j = 0; j < v.cols; ++j) {
          const T x = v.at<T>(i, j);
          if constexpr (std::is_integral_v<T>) o[j] = x >= apsp::unreachable<T>() ? kInf : double(x);
          else o[j] = double(x);
        }
      }
    };
    if (v.kind == 'i' && v.itemsize == 4) convert(std::int32_t{});
    else if (v.kind == 'i' && v.itemsize == 8) convert(std::int64_t{});
    else if (v.kind == 'f' && v.itemsize == 4) convert(float{});
    else if (v.kind == 'f' && v.itemsize == 8) convert(double{});
    else throw py::type_error("to_float64: int32, int64, float32 or float64 matrix expected");
  }
  return to_numpy(std::move(out));
}

/// An apsp::Matrix copy of a 2-D int32/int64/float32/float64 array (for writers).
apsp::Matrix matrix_copy(const py::array& a) {
  const View v = view_of(a, 2, "matrix");
  std::optional<apsp::Dtype> t;
  if (v.kind == 'i' && v.itemsize == 4) t = apsp::Dtype::Int32;
  else if (v.kind == 'i' && v.itemsize == 8) t = apsp::Dtype::Int64;
  else if (v.kind == 'f' && v.itemsize == 4) t = apsp::Dtype::Float32;
  else if (v.kind == 'f' && v.itemsize == 8) t = apsp::Dtype::Float64;
  else throw py::type_error("matrix must be int32, int64, float32 or float64, got " + dtype_str(a));
  apsp::Matrix m(v.rows, v.cols, *t);
  py::gil_scoped_release nogil;
  const auto es = std::int64_t(apsp::dtype_size(*t));
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j)
      std::memcpy(static_cast<char*>(m.raw()) + (i * m.stride() + j) * es, v.data + i * v.row_stride + j * v.col_stride,
                  std::size_t(es));
  return m;
}

// ---- Graph helpers --------------------------------------------------------------------------------
/// A read-only 1-D view of a vector held by the Graph object `owner`.
template <class T> py::array vector_view(const std::vector<T>& vec, py::handle owner) {
  py::array a(py::dtype::of<T>(), {py::ssize_t(vec.size())}, {py::ssize_t(sizeof(T))}, vec.data(), owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

/// A 1-D array that takes `vec` over (no copy): a capsule in the array's base owns it.
template <class T> py::array adopt_vector(std::vector<T>&& vec) {
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

py::dict info_dict(const apsp::Result& r) {
  py::dict t;
  t["build"] = r.timings.build;
  t["h2d"] = r.timings.h2d;
  t["compute"] = r.timings.compute;
  t["d2h"] = r.timings.d2h;
  py::dict info;
  info["backend"] = r.backend;
  info["block"] = r.block;
  info["dtype"] = apsp::dtype_name(r.dtype());
  info["rounds"] = r.rounds;
  info["timings"] = t;
  info["notes"] = r.notes;
  info["order"] = r.order;
  info["work_fraction"] = r.work_fraction;
  return info;
}

py::tuple solve(const apsp::Graph& g, const std::string& backend, const std::optional<std::string>& dtype, int block,
                int threads, bool paths, const std::string& order) {
  apsp::SolveOptions o;
  o.backend = apsp::parse_backend(backend);
  o.order = apsp::parse_order(order);
  if (dtype) o.dtype = apsp::parse_dtype(*dtype);
  if (block < 0) throw py::value_error("block must be a positive tile size, got " + std::to_string(block));
  if (threads < 0) throw py::value_error("threads must be >= 0, got " + std::to_string(threads));
  o.block = block;
  o.threads = threads;
  o.paths = paths;
  // Ctrl-C: between rounds, the solver's thread looks for a pending signal and unwinds with
  // KeyboardInterrupt. Only for backends whose rounds run on this thread and can unwind alone
  // (an MPI rank or a multi-GPU worker must not leave the others waiting).
  if (o.backend == apsp::Backend::Auto || o.backend == apsp::Backend::Cpu || o.backend == apsp::Backend::Cuda) {
    o.progress = [caller = std::this_thread::get_id()](std::int64_t, std::int64_t) {
      if (std::this_thread::get_id() != caller) return;
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
  }
  apsp::Result r;
  {
    py::gil_scoped_release nogil;
    r = apsp::solve(g, o);
  }
  py::dict info = info_dict(r);
  py::object next = paths ? py::object(to_numpy(std::move(r.next))) : py::object(py::none());
  return py::make_tuple(to_numpy(std::move(r.dist)), next, info);
}


}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "apsp._core: the compiled part of the apsp package (use the functions in `apsp`).";

  g_negative_cycle_error = new_exception(
      m, "NegativeCycleError",
      "The graph has a negative cycle. `.cycle` lists its vertices in order (the edge from the last "
      "back to the first closes it).",
      PyExc_ValueError);
  PyObject_SetAttrString(g_negative_cycle_error, "cycle", Py_None);
  g_input_error = new_exception(m, "InputError", "A malformed input file; the message names the file and the offset or line.",
                                PyExc_ValueError);
  g_backend_unavailable_error = new_exception(
      m, "BackendUnavailableError", "The requested backend is not built into this module or has no device here.",
      PyExc_RuntimeError);
  g_error = new_exception(m, "Error", "Any other failure reported by the apsp library.", PyExc_RuntimeError);
  py::register_exception_translator(&translate);

#ifdef APSP_VERSION
  m.attr("__version__") = APSP_VERSION;
#endif
  m.attr("UNREACHABLE_INT32") = apsp::unreachable<std::int32_t>();
  m.attr("UNREACHABLE_INT64") = apsp::unreachable<std::int64_t>();

  py::class_<apsp::Graph>(m, "Graph",
                          "An edge-list graph (vertices 0..num_vertices-1; int32 ids, float64 weights) as read "
                          "from a file (apsp.read), generated (apsp.generate), or built from arrays (apsp.graph).")
      .def_readonly("num_vertices", &apsp::Graph::num_vertices)
      .def_readonly("directed", &apsp::Graph::directed)
      .def_readonly("integer_weights", &apsp::Graph::integer_weights, "True when every weight is an integer.")
      .def_property_readonly(
          "num_edges",
          [](const apsp::Graph& g) {
            py::gil_scoped_release nogil;
            return g.num_edges();
          },
          "Number of edges (for a dense graph: its entries that are edges, counted by a scan).")
      .def_property_readonly("is_dense", &apsp::Graph::is_dense,
                             "True when the graph views a dense matrix in place instead of holding an edge list.")
      .def_property_readonly("src", [](py::object self) { return edge_array(self, 0); },
                             "Source vertex of each edge (read-only int32 view; a new array for a dense graph).")
      .def_property_readonly("dst", [](py::object self) { return edge_array(self, 1); },
                             "Target vertex of each edge (read-only int32 view; a new array for a dense graph).")
      .def_property_readonly("weight", [](py::object self) { return edge_array(self, 2); },
                             "Weight of each edge (read-only float64 view; a new array for a dense graph).")
      .def("__repr__", [](const apsp::Graph& g) {
        return "apsp.Graph(num_vertices=" + std::to_string(g.num_vertices) + ", num_edges=" +
               std::to_string(g.num_edges()) + ", directed=" + (g.directed ? "True" : "False") +
               (g.is_dense() ? ", dense=True)" : ")");
      });

  m.def(
      "graph_from_edges",
      [](const py::array& src, const py::array& dst, const std::optional<py::array>& weight, std::int64_t num_vertices,
         bool directed, bool reverse, bool unweighted) {
        const EdgeArgs a = edge_args(num_vertices, directed, reverse, unweighted);
        const View s = view_of(src, 1, "src"), d = view_of(dst, 1, "dst");
        std::optional<View> w;
        if (weight) w = view_of(*weight, 1, "weight");
        py::gil_scoped_release nogil;
        return graph_from_edges(s, d, w, a);
      },
      py::arg("src"), py::arg("dst"), py::arg("weight"), py::arg("num_vertices"), py::arg("directed"),
      py::arg("reverse"), py::arg("unweighted"));
  m.def(
      "graph_from_dense",
      [](const py::array& a, bool directed, bool reverse, bool unweighted, bool scan) {
        const EdgeArgs args = edge_args(-1, directed, reverse, unweighted);
        const View v = view_of(a, 2, "graph");
        py::gil_scoped_release nogil;
        return graph_from_dense(v, args, scan);
      },
      py::arg("graph"), py::arg("directed"), py::arg("reverse"), py::arg("unweighted"), py::arg("scan") = true,
      py::keep_alive<0, 1>(),  // the Graph views the array: the array lives as long as the Graph
      "A dense Graph viewing `graph` (a square int32/int64/float32/float64 ndarray) in place.");
  m.def("transformed", &transformed, py::arg("graph"), py::arg("directed"), py::arg("reverse"), py::arg("unweighted"),
        py::keep_alive<0, 1>(),  // a dense copy views the original's matrix
        "Copy of a Graph, made undirected / reversed (directed only) / unweighted as asked.");

  m.def("solve", &solve, py::arg("graph"), py::arg("backend"), py::arg("dtype"), py::arg("block"), py::arg("threads"),
        py::arg("paths"), py::arg("order") = "auto", "apsp::solve() with the GIL released -> (dist, next or None, info dict).");
  m.def("transpose_square", &transpose_square, py::arg("matrix"));
  m.def("predecessors_from_reversed_next", &predecessors_from_reversed_next, py::arg("next_rev"));
  m.def("to_float64", &to_float64, py::arg("matrix"));
  apsp_python::bind_csgraph(m);
  apsp_python::bind_metrics(m);

  m.def("backends", [] {
    py::list out;
    for (const auto& b : apsp::backends()) {
      py::dict d;
      d["name"] = b.name;
      d["built"] = b.built;
      d["usable"] = b.usable;
      d["detail"] = b.detail;
      out.append(d);
    }
    return out;
  });

  m.def(
      "read_graph",
      [](const std::string& path, const std::string& format, bool undirected, std::int64_t num_vertices) {
        apsp::ReadOptions o;
        o.format = apsp::parse_input_format(format);
        o.undirected = undirected;
        o.num_vertices = num_vertices;
        py::gil_scoped_release nogil;
        return apsp::read_graph(path, o);
      },
      py::arg("path"), py::arg("format"), py::arg("undirected"), py::arg("num_vertices") = 0);
  m.def(
      "write_matrix",
      [](const std::string& path, const py::array& a, const std::string& format) {
        const apsp::OutputFormat f = apsp::parse_output_format(format);
        if (const std::optional<apsp::Matrix> view = matrix_view(a)) {
          py::gil_scoped_release nogil;
          apsp::write_matrix(path, *view, f);
          return;
        }
        const apsp::Matrix copy = matrix_copy(a);
        py::gil_scoped_release nogil;
        apsp::write_matrix(path, copy, f);
      },
      py::arg("path"), py::arg("matrix"), py::arg("format"));
  m.def(
      "read_matrix",
      [](const std::string& path, const std::string& format) {
        const apsp::OutputFormat f = apsp::parse_output_format(format);
        apsp::Matrix mat;
        {
          py::gil_scoped_release nogil;
          mat = apsp::read_matrix(path, f);
        }
        return to_numpy(std::move(mat));
      },
      py::arg("path"), py::arg("format"));
  m.def(
      "write_graph",
      [](const std::string& path, const apsp::Graph& graph, const std::string& format) {
        py::gil_scoped_release nogil;
        const apsp::Graph edges = graph.is_dense() ? graph.edges_from_dense() : apsp::Graph{};  // writers read edges
        const apsp::Graph& g = graph.is_dense() ? edges : graph;
        if (format == "nthu") apsp::write_graph_nthu(path, g);
        else if (format == "edgelist") apsp::write_graph_edgelist(path, g);
        else throw apsp::UsageError("unknown graph output format '" + format + "' (expected nthu or edgelist)");
      },
      py::arg("path"), py::arg("graph"), py::arg("format"));

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
      [](std::int64_t rows, std::int64_t cols, std::int64_t wmin, std::int64_t wmax, std::uint64_t seed) {
        py::gil_scoped_release nogil;
        return apsp::generate_grid(rows, cols, wmin, wmax, seed);
      },
      py::arg("rows"), py::arg("cols"), py::arg("wmin"), py::arg("wmax"), py::arg("seed"));
}
