// python/src/metrics_bindings.cpp — apsp._core.metrics and apsp._core.MetricsReducer.
//
// metrics(graph, ...) runs apsp::compute_metrics (the engine its cost model or `engine` picks,
// GIL released) and returns a dict of NumPy arrays indexed by vertex plus the graph-wide values
// (those that need strong connectivity computed with inf allowed; apsp/_metrics.py raises as
// NetworkX does). MetricsReducer is the reducer itself for callers that stream their own
// distance rows (2-D arrays of int32/int64/float32/float64, unreachable = apsp's sentinel).
#include "metrics_bindings.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/metrics.hpp"
#include "apsp/solve.hpp"

namespace py = pybind11;

namespace apsp_python {

namespace {

template <class S, class T>
py::array_t<T> to_array(const std::vector<S>& v) {
  py::array_t<T> a(py::ssize_t(v.size()));
  T* p = a.mutable_data();
  for (std::size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  return a;
}

/// The graph-wide values (those that need strong connectivity with inf allowed); the bounds
/// engine's result has the extremes only.
void graph_wide(py::dict& d, const apsp::Metrics& m) {
  d["diameter"] = m.diameter(true);
  d["radius"] = m.radius(true);
  d["center"] = m.center(true);
  d["periphery"] = m.periphery(true);
  if (m.extremes) {
    d["searches"] = m.extremes->searches;
    return;
  }
  d["average_shortest_path_length"] = m.average_shortest_path_length(true);
  d["wiener_index"] = static_cast<double>(m.wiener_index());
  d["histogram"] = to_array<std::int64_t, std::int64_t>(m.histogram);
  d["effective_diameter"] = m.histogram.empty() ? 0.0 : m.effective_diameter();
}

py::dict to_dict(const apsp::Metrics& m) {
  py::dict d;
  d["num_vertices"] = m.num_vertices;
  d["directed"] = m.directed;
  d["dtype"] = apsp::dtype_name(m.dtype);
  d["backend"] = m.backend;
  d["engine"] = m.engine;
  d["plan"] = m.plan;
  d["eccentricity"] = to_array<long double, double>(m.eccentricity);
  d["reachable_out"] = to_array<std::int64_t, std::int64_t>(m.reachable_out);
  d["reachable_in"] = to_array<std::int64_t, std::int64_t>(m.reachable_in);
  d["out_sum"] = to_array<long double, double>(m.out_sum);
  d["in_sum"] = to_array<long double, double>(m.in_sum);
  d["closeness"] = to_array<double, double>(m.closeness);
  d["harmonic"] = to_array<double, double>(m.harmonic);
  d["total_sum"] = static_cast<double>(m.total_sum);
  const bool sc = m.strongly_connected();
  d["strongly_connected"] = sc;
  graph_wide(d, m);
  std::string why;
  if (!sc) {
    try {
      (void)m.diameter();
    } catch (const apsp::UsageError& e) {
      why = e.what();
      why = why.substr(why.find(':') + 2);
    }
  }
  d["not_connected_reason"] = why;
  return d;
}

/// What to compute, as the Python layer asks it.
struct Wanted {
  bool closeness = true, harmonic = true, wf_improved = true, histogram = false;
  std::string engine = "auto";
  /// Graph-wide extremes only (diameter, radius, center, periphery: those named).
  std::vector<std::string> extremes_only;
};

apsp::MetricsOptions metrics_options(const Wanted& w) {
  apsp::MetricsOptions mo;
  mo.closeness = w.closeness;
  mo.harmonic = w.harmonic;
  mo.wf_improved = w.wf_improved;
  mo.histogram = w.histogram;
  mo.engine = apsp::parse_metrics_engine(w.engine);
  mo.extremes_only = !w.extremes_only.empty();
  if (mo.extremes_only) {
    auto has = [&](const char* name) {
      for (const std::string& x : w.extremes_only)
        if (x == name) return true;
      return false;
    };
    mo.extremes = {has("diameter"), has("radius"), has("center"), has("periphery")};
  }
  return mo;
}

py::dict metrics(const apsp::Graph& g, const std::string& backend,
                 const std::optional<std::string>& dtype, int block, int threads, const Wanted& w) {
  apsp::SolveOptions o;
  o.backend = apsp::parse_backend(backend);
  if (dtype) o.dtype = apsp::parse_dtype(*dtype);
  if (block < 0)
    throw py::value_error("block must be a positive tile size, got " + std::to_string(block));
  if (threads < 0) throw py::value_error("threads must be >= 0, got " + std::to_string(threads));
  o.block = block;
  o.threads = threads;
  // Ctrl-C between rounds (or batches of sources), as in _core.solve (only where they run on
  // this thread).
  if (o.backend == apsp::Backend::Auto || o.backend == apsp::Backend::Cpu ||
      o.backend == apsp::Backend::Cuda) {
    o.progress = [caller = std::this_thread::get_id()](std::int64_t, std::int64_t) {
      if (std::this_thread::get_id() != caller) return;
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
  }
  const apsp::MetricsOptions mo = metrics_options(w);
  apsp::Metrics m;
  {
    py::gil_scoped_release nogil;
    m = apsp::compute_metrics(g, o, mo);
  }
  return to_dict(m);
}

void reducer_add(apsp::MetricsReducer& r, const py::array& rows, std::int64_t row0) {
  if (rows.ndim() != 2) throw py::value_error("rows must be a 2-D array");
  const auto kind = py::dtype(rows.dtype());
  apsp::Dtype t;
  if (kind.equal(py::dtype::of<std::int32_t>()))
    t = apsp::Dtype::Int32;
  else if (kind.equal(py::dtype::of<std::int64_t>()))
    t = apsp::Dtype::Int64;
  else if (kind.equal(py::dtype::of<float>()))
    t = apsp::Dtype::Float32;
  else if (kind.equal(py::dtype::of<double>()))
    t = apsp::Dtype::Float64;
  else
    throw py::type_error("rows must be int32, int64, float32 or float64, got " +
                         std::string(py::str(py::handle(kind))));
  const auto item = py::ssize_t(apsp::dtype_size(t));
  if (rows.strides(1) != item || rows.strides(0) % item != 0 ||
      rows.strides(0) < rows.shape(1) * item)
    throw py::value_error("rows must be C-contiguous within each row");
  apsp::RowBlock b;
  b.row0 = row0;
  b.rows = rows.shape(0);
  b.cols = rows.shape(1);
  b.stride = rows.strides(0) / item;
  b.dtype = t;
  b.data = rows.data();
  py::gil_scoped_release nogil;
  r.add(b);
}

}  // namespace

void bind_metrics(py::module_& m) {
  m.def(
      "metrics",
      [](const apsp::Graph& g, const std::string& backend, const std::optional<std::string>& dtype,
         int block, int threads, bool closeness, bool harmonic, bool wf_improved, bool histogram,
         const std::string& engine, const std::vector<std::string>& extremes_only) {
        Wanted w{closeness, harmonic, wf_improved, histogram, engine, extremes_only};
        return metrics(g, backend, dtype, block, threads, w);
      },
      py::arg("graph"), py::arg("backend"), py::arg("dtype"), py::arg("block"), py::arg("threads"),
      py::arg("closeness"), py::arg("harmonic"), py::arg("wf_improved"),
      py::arg("histogram") = false, py::arg("engine") = "auto",
      py::arg("extremes_only") = std::vector<std::string>{},
      "apsp::compute_metrics() with the GIL released -> dict of per-vertex arrays and graph-wide "
      "values. extremes_only: the extremes asked when nothing else is (the bounds engine may "
      "answer).");
  py::class_<apsp::MetricsReducer>(
      m, "MetricsReducer",
      "Streaming reduction of distance rows to graph metrics (apsp/metrics.hpp).")
      .def(py::init(
               [](std::int64_t n, bool directed, bool closeness, bool harmonic, bool wf_improved) {
                 apsp::MetricsOptions o;
                 o.closeness = closeness;
                 o.harmonic = harmonic;
                 o.wf_improved = wf_improved;
                 return apsp::MetricsReducer(n, directed, o);
               }),
           py::arg("num_vertices"), py::arg("directed") = true, py::arg("closeness") = true,
           py::arg("harmonic") = true, py::arg("wf_improved") = true)
      .def("add", &reducer_add, py::arg("rows"), py::arg("row0"),
           "Adds distance rows [row0, row0 + len(rows)); rows must continue the previous ones.")
      .def(
          "finish", [](apsp::MetricsReducer& r) { return to_dict(r.finish()); },
          "The metrics as a dict (as _core.metrics returns); the reducer is spent afterwards.");
}

}  // namespace apsp_python
