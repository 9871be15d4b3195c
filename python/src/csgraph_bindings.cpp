// python/src/csgraph_bindings.cpp — the compiled side of apsp's scipy.sparse.csgraph face:
// the scan that tells a dense matrix's edges, NaN / -inf entries ("no edge", as SciPy reads them)
// and weight range before a solver is chosen, the binding of the library's per-source solver
// (apsp::shortest_paths_from_sources, apsp/paths.hpp: Dijkstra per source, Johnson's potentials
// for negative weights), and the bounds the Python layer checks (memory, threads). Long loops
// release the GIL and look for Ctrl-C every few milliseconds.
#include "csgraph_bindings.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "apsp/paths.hpp"
#include "host_memory.hpp"
#include "numpy_view.hpp"

namespace apsp_python {

namespace {

using apsp::shortest_paths_from_sources;
using apsp::SourcePathsOptions;

/// Calls PyErr_CheckSignals (GIL held) and raises what it set, e.g. KeyboardInterrupt.
void check_signals() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

/// What the Python layer needs to know about a dense V x V array before choosing a solver: its
/// edge count (entries not 0, NaN or +-inf, off the diagonal), NaN / -inf entries (SciPy: no
/// edge), the weight range and integer-ness, and int64 entries beyond +-2^53 (float64 weights
/// would round them: _inputs.exact_weights refuses them). Stripes of rows are scanned in parallel
/// with the GIL released; between stripes Ctrl-C is looked for, so a long scan stays
/// interruptible.
py::dict dense_scan(const py::array& a) {
  const View v = view_of(a, 2, "graph");
  if (v.rows != v.cols) throw py::value_error("graph should be a square array");
  const std::int64_t n = v.rows;
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  std::int64_t edges = 0, specials = 0, negatives = 0, beyond_exact = 0;
  double max_abs = 0, min_w = 0;
  bool integral = true;
  const std::int64_t stripe =
      std::max<std::int64_t>(1, (std::int64_t(1) << 24) / std::max<std::int64_t>(n, 1));
  for (std::int64_t r0 = 0; r0 < n; r0 += stripe) {
    const std::int64_t r1 = std::min(n, r0 + stripe);
    {
      py::gil_scoped_release nogil;
      visit_numeric(v, "graph", true, [&](auto tag) {
        using T = decltype(tag);
        std::int64_t e = 0, sp = 0, neg = 0, big = 0;
        double hi = max_abs, lo = min_w;
        bool whole = integral;
#pragma omp parallel for schedule(static) reduction(+ : e, sp, neg, big) reduction(max : hi) \
    reduction(min : lo) reduction(&& : whole) if ((r1 - r0) * n > (1 << 18))
        for (std::int64_t i = r0; i < r1; ++i) {
          const char* row = v.data + i * v.row_stride;
          for (std::int64_t j = 0; j < n; ++j) {
            T x;
            std::memcpy(&x, row + j * v.col_stride, sizeof x);
            if constexpr (std::is_floating_point_v<T>) {
              if (!(x > -std::numeric_limits<T>::infinity())) {  // NaN or -inf
                ++sp;
                continue;
              }
              if (x == std::numeric_limits<T>::infinity()) continue;
            }
            if (x == T(0) || i == j) continue;
            if constexpr (std::is_same_v<T, std::int64_t>) big += x > kExact || x < -kExact;
            const double w = double(x);
            ++e;
            neg += w < 0;
            hi = std::max(hi, std::fabs(w));
            lo = std::min(lo, w);
            // whole: from 2^52 on every double is; below, the round trip through int64 is exact
            if constexpr (std::is_floating_point_v<T>)
              whole = whole && (!(std::fabs(w) < 0x1p52) || double(std::int64_t(w)) == w);
          }
        }
        edges += e;
        specials += sp;
        negatives += neg;
        beyond_exact += big;
        max_abs = hi;
        min_w = lo;
        integral = whole;
      });
    }
    check_signals();
  }
  py::dict out;
  out["edges"] = edges;
  out["specials"] = specials;
  out["negatives"] = negatives;
  out["beyond_exact"] = beyond_exact;
  out["max_abs"] = max_abs;
  out["min_weight"] = min_w;
  out["integral"] = integral;
  return out;
}

/// Per-source shortest paths (apsp/paths.hpp) -> (dist, pred or None, sources or None).
/// Without min_only dist is len(sources) x V; with it dist, pred and sources have V entries.
py::tuple per_source(const apsp::Graph& g,
                     const py::array_t<std::int32_t, py::array::c_style>& sources, double limit,
                     bool min_only, bool want_pred, int threads) {
  const std::int64_t n = g.num_vertices, k = sources.size();
  const std::int64_t rows = min_only ? 1 : k;
  const double need = double(rows) * double(n) * (8.0 + (want_pred ? 4.0 : 0.0));
  const std::size_t have = host_memory_limit();
  if (need > double(have))
    throw apsp::ResourceError(std::to_string(rows) + " rows of " + std::to_string(n) +
                              " distances need " + std::to_string(std::llround(need)) +
                              " bytes, more than this machine's " + std::to_string(have) +
                              " bytes of memory (set APSP_HOST_MEMORY to override)");
  std::vector<std::int32_t> src(sources.data(), sources.data() + k);
  for (const std::int32_t s : src)
    if (s < 0 || s >= n) throw py::value_error("indices out of range 0...N");
  std::vector<py::ssize_t> shape =
      min_only ? std::vector<py::ssize_t>{n} : std::vector<py::ssize_t>{rows, n};
  py::array_t<double> dist(shape);
  py::object pred = py::none(), source_of = py::none();
  std::int32_t* pred_data = nullptr;
  std::int32_t* source_data = nullptr;
  if (want_pred) {
    py::array_t<std::int32_t> p(shape);
    pred_data = p.mutable_data();
    pred = p;
    if (min_only) {
      py::array_t<std::int32_t> s2(shape);
      source_data = s2.mutable_data();
      source_of = s2;
    }
  }
  SourcePathsOptions o;
  o.limit = limit;
  o.min_only = min_only;
  o.threads = threads;
  o.interrupted = [] {  // on the calling thread only; a pending error stays set for below
    py::gil_scoped_acquire acquire;
    return PyErr_CheckSignals() != 0;
  };
  double* dist_data = dist.mutable_data();
  bool done = false;
  {
    py::gil_scoped_release nogil;
    done = shortest_paths_from_sources(g, src, o, dist_data, pred_data, source_data);
  }
  if (!done) {
    if (PyErr_Occurred()) throw py::error_already_set();
    check_signals();
  }
  return py::make_tuple(dist, pred, source_of);
}

/// The most threads= accepts: 4 per processor this process may run on, within OpenMP's limit.
int max_threads() {
  const std::int64_t procs = std::max(1, omp_get_num_procs());
  return int(std::min<std::int64_t>(4 * procs, std::max(1, omp_get_thread_limit())));
}

}  // namespace

void bind_csgraph(py::module_& m) {
  m.def("dense_scan", &dense_scan, py::arg("graph"),
        "Edge count, NaN/-inf count, negatives, weight range, integer-ness of a dense matrix "
        "(interruptible).");
  m.def("per_source", &per_source, py::arg("graph"), py::arg("sources"), py::arg("limit"),
        py::arg("min_only"), py::arg("predecessors"), py::arg("threads"),
        "Dijkstra from each source (Johnson potentials for negative weights) -> (dist, pred, "
        "sources).");
  m.def(
      "host_memory_limit", [] { return host_memory_limit(); },
      "Bytes the checks plan for: APSP_HOST_MEMORY, else min(physical RAM, cgroup limit).");
  m.def("max_threads", &max_threads, "The largest threads= accepted.");
}

}  // namespace apsp_python
