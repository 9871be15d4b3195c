// python/src/module.cpp — apsp._core, the compiled half of the `apsp` Python package: the
// exception types, solve() with the GIL released (Ctrl-C still interrupts it between rounds),
// solve_file() (the library's file pipeline, as the CLI runs it) and the module's bindings.
// Graphs from NumPy: graph_bindings.cpp; results to NumPy without copies: matrix_convert.cpp;
// the SciPy-style argument handling lives in apsp/_csgraph.py and _inputs.py.
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
#include "apsp/matrix.hpp"
#include "apsp/order_plan.hpp"
#include "apsp/pipeline.hpp"
#include "apsp/solve.hpp"
#include "apsp/types.hpp"
#include "batch_bindings.hpp"
#include "csgraph_bindings.hpp"
#include "device_array.hpp"
#include "graph_bindings.hpp"
#include "matrix_convert.hpp"
#include "metrics_bindings.hpp"

namespace py = pybind11;

namespace {

using apsp_python::to_numpy;

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
  const std::string what = e.what();  // a file name in it may not be UTF-8
  py::object msg = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(what.data(), Py_ssize_t(what.size()), "replace"));
  if (!msg) throw py::error_already_set();
  py::object inst = type(msg);
  inst.attr("cycle") = py::cast(e.cycle());
  PyErr_SetObject(g_negative_cycle_error, inst.ptr());
}

/// The library's messages are written for the command line ("use --type int64"); Python users
/// pass keywords, so the flags are renamed: --type X -> dtype=np.X, --backend -> backend=, ...
std::string python_message(std::string msg) {
  static const std::pair<const char*, const char*> kFlags[] = {{"--type ", "dtype=np."},
                                                               {"--backend ", "backend="},
                                                               {"--block ", "block="},
                                                               {"--threads ", "threads="},
                                                               {"--input-format ", "format="},
                                                               {"--vertices ", "num_vertices="},
                                                               {"--undirected", "directed=False"},
                                                               {"keep_on_device", "device_result=True"}};
  for (const auto& [flag, keyword] : kFlags)
    for (std::size_t at = msg.find(flag); at != std::string::npos; at = msg.find(flag, at))
      msg.replace(at, std::strlen(flag), keyword);
  return msg;
}

/// PyErr_SetString for a message that may hold bytes that are not UTF-8 (a file name, a token of
/// a binary file): decoded with U+FFFD for such bytes; PyErr_SetString would give an empty str.
void set_error(PyObject* type, const std::string& msg) {
  const std::string text = python_message(msg);
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), Py_ssize_t(text.size()), "replace");
  if (!s) return;  // MemoryError (or a codec error) already set
  PyErr_SetObject(type, s);
  Py_DECREF(s);
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const apsp::NegativeCycleError& e) {
    raise_negative_cycle(e);
  } catch (const apsp::InputError& e) {
    set_error(g_input_error, e.what());
  } catch (const apsp::UsageError& e) {
    set_error(PyExc_ValueError, e.what());
  } catch (const apsp::ResourceError& e) {
    set_error(PyExc_MemoryError, e.what());
  } catch (const apsp::BackendUnavailable& e) {
    set_error(g_backend_unavailable_error, e.what());
  } catch (const apsp::Error& e) {
    set_error(g_error, e.what());
  }
}

/// Ctrl-C: between rounds, the solver's thread looks for a pending signal and unwinds with
/// KeyboardInterrupt. Only for backends whose rounds run on this thread and can unwind alone
/// (an MPI rank or a multi-GPU worker must not leave the others waiting).
apsp::ProgressFn interrupt_check(apsp::Backend b) {
  if (b != apsp::Backend::Auto && b != apsp::Backend::Cpu && b != apsp::Backend::Cuda) return {};
  return [caller = std::this_thread::get_id()](std::int64_t, std::int64_t) {
    if (std::this_thread::get_id() != caller) return;
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
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
  py::list plan;
  for (const apsp::PlanItem& item : r.plan) plan.append(py::make_tuple(item.key, item.value));
  info["plan"] = plan;
  return info;
}

/// apsp.plan()'s object: a sparse direct engine plan (apsp/solve.hpp SparsePlan).
struct PyPlan {
  std::shared_ptr<const apsp::SparsePlan> plan;
};

/// solve()'s and explain()'s options from the keywords of _core.solve.
apsp::SolveOptions solve_options(const std::string& backend,
                                 const std::optional<std::string>& dtype, int block, int threads,
                                 bool paths, const std::string& order, const PyPlan* plan) {
  apsp::SolveOptions o;
  o.backend = apsp::parse_backend(backend);
  o.order = apsp::parse_order(order);
  if (plan) o.sparse_plan = plan->plan;
  if (dtype) o.dtype = apsp::parse_dtype(*dtype);
  if (block < 0)
    throw py::value_error("block must be a positive tile size, got " + std::to_string(block));
  if (threads < 0) throw py::value_error("threads must be >= 0, got " + std::to_string(threads));
  o.block = block;
  o.threads = threads;
  o.paths = paths;
  return o;
}

/// apsp::explain(): solve()'s plan for g, as a list of (what, decision) pairs.
py::list explain(const apsp::Graph& g, const std::string& backend,
                 const std::optional<std::string>& dtype, int block, int threads, bool paths,
                 const std::string& order, const PyPlan* plan) {
  const apsp::SolveOptions o = solve_options(backend, dtype, block, threads, paths, order, plan);
  std::vector<apsp::PlanItem> items;
  {
    py::gil_scoped_release nogil;
    items = apsp::explain(g, o);
  }
  py::list out;
  for (const apsp::PlanItem& item : items) out.append(py::make_tuple(item.key, item.value));
  return out;
}

py::tuple solve(const apsp::Graph& g, const std::string& backend,
                const std::optional<std::string>& dtype, int block, int threads, bool paths,
                const std::string& order, const PyPlan* plan, bool keep_on_device) {
  apsp::SolveOptions o = solve_options(backend, dtype, block, threads, paths, order, plan);
  o.progress = interrupt_check(o.backend);
  o.keep_on_device = keep_on_device;
  apsp::Result r;
  {
    py::gil_scoped_release nogil;
    r = apsp::solve(g, o);
  }
  py::dict info = info_dict(r);
  py::object next = paths ? py::object(to_numpy(std::move(r.next))) : py::object(py::none());
  if (!r.device_dist.empty())
    return py::make_tuple(apsp_python::device_array(std::move(r.device_dist)), next, info);
  return py::make_tuple(to_numpy(std::move(r.dist)), next, info);
}

/// What `order="auto"` on the cpu backend decides for g in `dtype` with tile size `block` (0:
/// the default), as solve() decides it: (label, work_fraction, seconds spent ordering). For
/// method='auto''s cost model (apsp/_cost.py); METIS runs here, and again in the solve.
py::tuple cpu_order_plan(const apsp::Graph& g, const std::string& dtype, int block) {
  const apsp::Dtype t = apsp::parse_dtype(dtype);
  apsp::CpuOrderPlan p;
  {
    py::gil_scoped_release nogil;
    p = apsp::cpu_order_plan(g, t, block);
  }
  return py::make_tuple(p.label, p.work_fraction, p.seconds);
}

/// apsp::solve_file: the CLI's pipeline (read, solve, stream the result to the files) for
/// Python; Ctrl-C as in solve(). Returns solve()'s info dict plus vertices, edges, read and write
/// times.
py::dict solve_file(const std::string& input, const std::string& output, const std::string& backend,
                    const std::optional<std::string>& dtype, int block, int threads, bool paths,
                    const std::string& input_format, const std::string& output_format,
                    bool undirected, std::int64_t num_vertices) {
  apsp::FileSolveOptions o;
  o.input = input;
  o.output = output;
  o.read.format = apsp::parse_input_format(input_format);
  o.read.undirected = undirected;
  o.read.num_vertices = num_vertices;
  o.output_format = apsp::parse_output_format(output_format);
  o.solve.backend = apsp::parse_backend(backend);
  if (dtype) o.solve.dtype = apsp::parse_dtype(*dtype);
  if (block < 0)
    throw py::value_error("block must be a positive tile size, got " + std::to_string(block));
  if (threads < 0) throw py::value_error("threads must be >= 0, got " + std::to_string(threads));
  o.solve.block = block;
  o.solve.threads = threads;
  o.solve.paths = paths;
  o.solve.progress = interrupt_check(o.solve.backend);
  apsp::FileSolveResult f;
  {
    py::gil_scoped_release nogil;
    f = apsp::solve_file(o);
  }
  py::dict info = info_dict(f.result);
  info["vertices"] = f.vertices;
  info["edges"] = f.edges;
  py::dict t = info["timings"];
  t["read"] = f.result.timings.read;
  t["write"] = f.result.timings.write;
  return info;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "apsp._core: the compiled part of the apsp package (use the functions in `apsp`).";

  g_negative_cycle_error = new_exception(m, "NegativeCycleError",
                                         "The graph has a negative cycle. `.cycle` lists its "
                                         "vertices in order (the edge from the last "
                                         "back to the first closes it).",
                                         PyExc_ValueError);
  PyObject_SetAttrString(g_negative_cycle_error, "cycle", Py_None);
  g_input_error = new_exception(
      m, "InputError", "A malformed input file; the message names the file and the offset or line.",
      PyExc_ValueError);
  g_backend_unavailable_error =
      new_exception(m, "BackendUnavailableError",
                    "The requested backend is not built into this module or has no device here.",
                    PyExc_RuntimeError);
  g_error = new_exception(m, "Error", "Any other failure reported by the apsp library.",
                          PyExc_RuntimeError);
  py::register_exception_translator(&translate);

#ifdef APSP_VERSION
  m.attr("__version__") = APSP_VERSION;
#endif
  m.attr("UNREACHABLE_INT32") = apsp::unreachable<std::int32_t>();
  m.attr("UNREACHABLE_INT64") = apsp::unreachable<std::int64_t>();

  apsp_python::bind_graph(m);

  py::class_<PyPlan>(m, "SparsePlan",
                     "A sparse direct engine plan (apsp.plan): reusable for new weights.")
      .def_property_readonly(
          "vertices", [](const PyPlan& p) { return apsp::sparse_plan_info(*p.plan).vertices; })
      .def_property_readonly(
          "supernodes", [](const PyPlan& p) { return apsp::sparse_plan_info(*p.plan).supernodes; })
      .def_property_readonly(
          "work_fraction",
          [](const PyPlan& p) { return apsp::sparse_plan_info(*p.plan).work_fraction; })
      .def_property_readonly("seconds",
                             [](const PyPlan& p) {
                               const apsp::SparsePlanInfo i = apsp::sparse_plan_info(*p.plan);
                               return i.order_s + i.symbolic_s;
                             })
      .def("__repr__", [](const PyPlan& p) {
        const apsp::SparsePlanInfo i = apsp::sparse_plan_info(*p.plan);
        return "<apsp.SparsePlan: " + std::to_string(i.vertices) + " vertices, " +
               std::to_string(i.supernodes) + " supernodes>";
      });
  m.def(
      "plan_sparse",
      [](const apsp::Graph& g) {
        PyPlan p;
        py::gil_scoped_release nogil;
        p.plan = apsp::plan_sparse(g);
        return p;
      },
      py::arg("graph"), "apsp::plan_sparse() with the GIL released -> SparsePlan.");
  m.def("solve", &solve, py::arg("graph"), py::arg("backend"), py::arg("dtype"), py::arg("block"),
        py::arg("threads"), py::arg("paths"), py::arg("order") = "auto",
        py::arg("plan") = static_cast<const PyPlan*>(nullptr), py::arg("keep_on_device") = false,
        "apsp::solve() with the GIL released -> (dist, next or None, info dict); dist a "
        "DeviceArray with keep_on_device.");
  m.def("explain", &explain, py::arg("graph"), py::arg("backend"), py::arg("dtype"),
        py::arg("block"), py::arg("threads"), py::arg("paths"), py::arg("order") = "auto",
        py::arg("plan") = static_cast<const PyPlan*>(nullptr),
        "apsp::explain() with the GIL released -> [(what, decision)]: solve()'s plan.");
  m.def("cpu_order_plan", &cpu_order_plan, py::arg("graph"), py::arg("dtype"), py::arg("block"),
        "order='auto' on the cpu backend -> (label, work fraction priced as dense rounds, ordering "
        "seconds): the sparse direct engine's plan where solve() would take it, else nd's.");
  m.def("solve_file", &solve_file, py::arg("input"), py::arg("output"), py::arg("backend"),
        py::arg("dtype"), py::arg("block"), py::arg("threads"), py::arg("paths"),
        py::arg("input_format"), py::arg("output_format"), py::arg("undirected"),
        py::arg("num_vertices"),
        "apsp::solve_file() with the GIL released -> info dict (the CLI's read/solve/write "
        "pipeline).");
  apsp_python::bind_matrix(m);
  apsp_python::bind_csgraph(m);
  apsp_python::bind_metrics(m);
  apsp_python::bind_batch(m);
  apsp_python::bind_device_array(m);

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
}
