// python/src/batch_bindings.cpp — apsp._core.batch: apsp::solve_batch for Python (apsp/_batch.py
// prepares the arguments). The graphs are a list of apsp.Graph or packed NumPy arrays; the
// result is written straight into a NumPy array (padded B x N x N or flat), the GIL released.
#include "batch_bindings.hpp"

#include <omp.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"

namespace py = pybind11;

namespace apsp_python {

namespace {

using i64 = std::int64_t;
using I64Array = py::array_t<i64, py::array::c_style | py::array::forcecast>;

const char* out_type_name(apsp::Dtype t) { return apsp::dtype_name(t); }

// The packed arrays, kept alive by this object while the batch runs.
struct PackedArgs {
  I64Array node_ptr, edge_ptr, src, dst, ids;
  py::array_t<double, py::array::c_style | py::array::forcecast> weight;
  bool has_weight = false, has_ids = false;
  apsp::PackedGraphs view;
};

PackedArgs packed_args(const py::tuple& t) {
  if (t.size() != 7) throw py::value_error("packed graphs: 7 items expected");
  PackedArgs a;
  a.node_ptr = t[0].cast<I64Array>();
  a.edge_ptr = t[1].cast<I64Array>();
  a.src = t[2].cast<I64Array>();
  a.dst = t[3].cast<I64Array>();
  a.has_weight = !t[4].is_none();
  a.has_ids = !t[6].is_none();
  if (a.has_weight) a.weight = t[4].cast<decltype(a.weight)>();
  if (a.has_ids) a.ids = t[6].cast<I64Array>();
  const i64 B = i64(a.node_ptr.size()) - 1, E = i64(a.src.size());
  if (B < 0 || i64(a.edge_ptr.size()) != B + 1)
    throw py::value_error("node_ptr and edge_ptr must have B + 1 entries");
  if (i64(a.dst.size()) != E || (a.has_weight && i64(a.weight.size()) != E) ||
      (a.has_ids && i64(a.ids.size()) != E))
    throw py::value_error("src, dst, weight and ids must have one entry per edge");
  if (a.edge_ptr.at(B) != E) throw py::value_error("edge_ptr[-1] must be the number of edges");
  a.view = {B,
            a.node_ptr.data(),
            a.edge_ptr.data(),
            a.src.data(),
            a.dst.data(),
            a.has_weight ? a.weight.data() : nullptr,
            t[5].cast<bool>()};
  return a;
}

// A given out= array must be exactly what would be allocated.
py::array output_array(const py::object& out, const std::string& type,
                       const std::vector<py::ssize_t>& shape) {
  if (out.is_none()) return py::array(py::dtype(type), shape);
  py::array a = out.cast<py::array>();
  if (!a.dtype().is(py::dtype(type)))
    throw py::value_error("out has dtype " + std::string(py::str(a.dtype())) + ", expected " +
                          type);
  if (std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()) != shape)
    throw py::value_error("out has the wrong shape for this batch");
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw py::value_error("out must be a writable C-contiguous array");
  return a;
}

std::vector<py::ssize_t> shape_of(i64 B, i64 n_max, i64 total, i64 extra) {
  std::vector<py::ssize_t> s =
      n_max > 0 ? std::vector<py::ssize_t>{B, n_max, n_max} : std::vector<py::ssize_t>{total};
  if (extra >= 0) s.push_back(extra);
  return s;
}

struct Request {
  std::optional<std::string> out_type;
  int threads = 0;
  i64 n_max = 0;
  double unreachable = -1;
  std::optional<double> pad, max_dist;
  bool paths = false;
  i64 max_len = -1;
  apsp::Backend backend = apsp::Backend::Cpu;
  int device = 0;
  /// Not None: out_alloc(type name, shape) -> (tensor, device address, device ordinal), the
  /// caller's device output, made once the output type is known.
  py::object out_alloc = py::none();
};

// Paths: the flat result first (the longest path sizes the output), then both layouts in parallel.
py::array write_with_paths(const apsp::BatchGraphs& graphs, const apsp::BatchOptions& o,
                           apsp::BatchOutput& bo, const Request& q, const i64* ids,
                           const apsp::PackedGraphs* packed, std::atomic<int>& solved) {
  apsp::BatchResult r;
  i64 L = q.max_len;
  {
    py::gil_scoped_release nogil;
    r = apsp::solve_batch(graphs, o);
    solved.store(int(r.dtype()));
    if (L < 0) {
      L = 0;
#pragma omp parallel for num_threads(o.threads > 0 ? o.threads : omp_get_max_threads()) \
    reduction(max                                                                       \
              : L) schedule(dynamic, 16)
      for (i64 b = 0; b < graphs.size(); ++b)
        L = std::max(L, apsp::longest_path_hops(apsp::batch_item(r, b).item()));
    }
  }
  const i64 B = graphs.size();
  py::array paths(py::dtype("int64"), shape_of(B, q.n_max, r.offsets.back(), L));
  i64* out = static_cast<i64*>(paths.mutable_data());
  {
    py::gil_scoped_release nogil;
#pragma omp parallel for num_threads(o.threads > 0 ? o.threads : omp_get_max_threads()) \
    schedule(dynamic, 16)
    for (i64 b = 0; b < B; ++b) {
      const apsp::BatchView v = apsp::batch_item(r, b);
      apsp::write_distances(v.item(), bo);
      apsp::Graph scratch;
      const i64* gids = ids ? ids + packed->edge_ptr[b] : nullptr;
      apsp::write_edge_paths(graphs.get(b, scratch), v.item(), out, q.n_max, r.offsets.data(), L,
                             gids);
    }
  }
  return paths;
}

py::tuple run(const apsp::BatchGraphs& graphs, const Request& q, const py::object& out,
              const PackedArgs* packed) {
  const i64 B = graphs.size();
  std::vector<i64> offsets(std::size_t(B) + 1, 0);
  for (i64 b = 0; b < B; ++b) {
    const i64 n = graphs.num_vertices(b);
    if (q.n_max > 0 && n > q.n_max)
      throw py::value_error("graph " + std::to_string(b) + " has " + std::to_string(n) +
                            " vertices, more than n_max = " + std::to_string(q.n_max));
    offsets[std::size_t(b) + 1] = offsets[std::size_t(b)] + n * n;
  }
  apsp::BatchOptions o;
  o.threads = q.threads;
  o.paths = q.paths;
  o.backend = q.backend;
  o.device = q.device;
  // The solver's type is needed first only to name the output type or to solve fractional
  // weights in float32; otherwise solve_batch derives it in its one pass over the graphs.
  if (!q.out_type || *q.out_type == "float32") {
    py::gil_scoped_release nogil;
    o.dtype = apsp::choose_batch_dtype(graphs, o);
  }
  const std::string type = q.out_type ? *q.out_type : out_type_name(*o.dtype);
  if (type == "float32" && *o.dtype == apsp::Dtype::Float64) o.dtype = apsp::Dtype::Float32;
  std::atomic<int> solved{int(o.dtype.value_or(apsp::Dtype::Int32))};
  const bool on_device = !q.out_alloc.is_none();
  if (on_device && q.paths) throw py::value_error("a device output takes distances only");
  // A device output is the caller's tensor, made (or checked) in Python.
  py::object dist;
  void* data = nullptr;
  int out_device = -1;
  if (on_device) {
    const py::tuple made = q.out_alloc(type, shape_of(B, q.n_max, offsets.back(), -1));
    dist = made[0];
    data = reinterpret_cast<void*>(made[1].cast<std::uintptr_t>());
    out_device = made[2].cast<int>();
  } else {
    py::array a = output_array(out, type, shape_of(B, q.n_max, offsets.back(), -1));
    data = a.mutable_data();
    dist = a;
  }
  apsp::BatchOutput bo{
      apsp::parse_out_type(type),    data,      q.n_max, offsets.data(), q.unreachable,
      q.pad.value_or(q.unreachable), q.max_dist};
  apsp::check_batch_output(bo);
  py::object paths = py::none();
  if (q.paths) {
    const i64* ids = packed && packed->has_ids ? packed->ids.data() : nullptr;
    paths = write_with_paths(graphs, o, bo, q, ids, packed ? &packed->view : nullptr, solved);
  } else {
    py::gil_scoped_release nogil;
    apsp::solve_batch_into(graphs, o, bo, out_device);
  }
  I64Array off(py::ssize_t(offsets.size()));
  std::copy(offsets.begin(), offsets.end(), off.mutable_data());
  return py::make_tuple(dist, off, paths, apsp::dtype_name(apsp::Dtype(solved.load())));
}

py::tuple batch(const py::object& graphs, const py::object& packed, const Request& q,
                const py::object& out) {
  if (!packed.is_none()) {
    const PackedArgs a = packed_args(packed.cast<py::tuple>());
    std::optional<apsp::BatchGraphs> graphs_of;
    {
      py::gil_scoped_release nogil;
      graphs_of.emplace(a.view);  // validates the arrays
    }
    return run(*graphs_of, q, out, &a);
  }
  const py::list items = graphs.cast<py::list>();
  std::vector<const apsp::Graph*> ptrs;
  ptrs.reserve(items.size());
  for (const py::handle& g : items) ptrs.push_back(&g.cast<const apsp::Graph&>());
  return run(apsp::BatchGraphs(std::span<const apsp::Graph* const>(ptrs)), q, out, nullptr);
}

// Whether every edge e of [edge_ptr[b], edge_ptr[b+1]) joins two nodes of graph b (threads).
bool packed_ok(const I64Array& node_ptr, const I64Array& edge_ptr, const I64Array& src,
               const I64Array& dst) {
  const i64 B = i64(node_ptr.size()) - 1, E = i64(src.size());
  if (B < 0 || i64(edge_ptr.size()) != B + 1 || i64(dst.size()) != E) return false;
  const i64 *np_ = node_ptr.data(), *ep = edge_ptr.data(), *s = src.data(), *d = dst.data();
  if (ep[0] != 0 || ep[B] != E) return false;
  py::gil_scoped_release nogil;
  bool ok = true;
#pragma omp parallel for reduction(&& : ok) schedule(dynamic, 1024)
  for (i64 b = 0; b < B; ++b) {
    const i64 lo = np_[b], hi = np_[b + 1];
    bool good = ep[b] <= ep[b + 1] && lo <= hi;
    for (i64 e = ep[b]; good && e < ep[b + 1]; ++e)
      good = s[e] >= lo && s[e] < hi && d[e] >= lo && d[e] < hi;
    ok = ok && good;
  }
  return ok;
}

}  // namespace

void bind_batch(py::module_& m) {
  m.def("batch_packed_ok", &packed_ok, py::arg("node_ptr"), py::arg("edge_ptr"), py::arg("src"),
        py::arg("dst"),
        "True when every edge of graph b (edge_ptr's ranges) joins two nodes of graph b.");
  m.def(
      "batch",
      [](const py::object& graphs, const py::object& packed, std::optional<std::string> out_type,
         int threads, i64 n_max, double unreachable, std::optional<double> pad,
         std::optional<double> max_dist, bool paths, i64 max_len, const py::object& out,
         const std::string& backend, int device, const py::object& out_alloc) {
        if (threads < 0) throw py::value_error("threads must be >= 0");
        if (device < 0) throw py::value_error("device must be >= 0");
        const Request q{std::move(out_type),
                        threads,
                        n_max,
                        unreachable,
                        pad,
                        max_dist,
                        paths,
                        max_len,
                        apsp::parse_backend(backend),
                        device,
                        out_alloc};
        return batch(graphs, packed, q, out);
      },
      py::arg("graphs"), py::arg("packed"), py::arg("out_type"), py::arg("threads"),
      py::arg("n_max"), py::arg("unreachable"), py::arg("pad"), py::arg("max_dist"),
      py::arg("paths"), py::arg("max_len"), py::arg("out"), py::arg("backend") = "cpu",
      py::arg("device") = 0, py::arg("out_alloc") = py::none(),
      "apsp::solve_batch -> (dist, offsets, paths or None, solver dtype name); graphs: a list of "
      "apsp.Graph, or packed = (node_ptr, edge_ptr, src, dst, weight|None, directed, ids|None). "
      "out_alloc(type, shape) -> (tensor, address, device): distances into device memory.");
}

}  // namespace apsp_python
