// src/batch/gpu_batch.cpp — the batch engine with a GPU (apsp/batch.hpp, backend cuda / auto).
//
// Graphs of 1 .. small_cap vertices without negative weights are closed on the GPU, one thread
// block each (gpu_engine.hpp), while the host's threads close the others that fit one cpu tile
// exactly as the cpu engine does; graphs beyond that (or with negative weights) go to solve()
// afterwards. The GPU runs plain Floyd-Warshall, as the cpu backend's pivot closure does at those
// sizes, so every graph's distances are byte for byte the cpu engine's. Next hops are made on the
// host from the GPU's distances where the cpu engine's rule picks the edges pass (which reads
// only distances), else the graph is closed again on the host with the tracked kernels.
#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apsp/errors.hpp"
#include "batch/batch_detail.hpp"
#include "core/backend.hpp"
#include "core/reference.hpp"

namespace apsp::detail::batch {

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

enum class Where : char { Empty, Gpu, Host, Later };

// Joins a thread on every way out of a scope (an exception from the host's loop included).
struct Joiner {
  std::thread& t;
  ~Joiner() {
    if (t.joinable()) t.join();
  }
};

// The arcs of the GPU's graphs, laid out for the job (gpu_engine.hpp).
template <class T>
struct JobArrays {
  std::vector<i64> graph;  // the batch index of job graph k
  std::vector<i32> sizes;
  std::vector<i64> arc_ptr{0}, out_offset;
  std::vector<i32> src, dst;
  std::vector<T> weight;
  std::unique_ptr<T[]> out;  // not zeroed: the GPU writes every cell of every graph
  i64 cells = 0;
};

// Graph b's smallest weight (0 for none), without building a packed graph.
double min_weight_of(const BatchGraphs& graphs, i64 b) {
  const PackedGraphs* p = graphs.packed_arrays();
  if (!p) {
    Graph scratch;
    return graphs.get(b, scratch).min_weight();
  }
  double m = 0;
  for (i64 e = p->edge_ptr[b]; p->weight && e < p->edge_ptr[b + 1]; ++e)
    m = e == p->edge_ptr[b] ? p->weight[e] : std::min(m, p->weight[e]);
  return m;
}

// for_each_arc over graph b (the same arcs in the same order), reading packed arrays in place.
template <class F>
void for_each_batch_arc(const BatchGraphs& graphs, i64 b, F&& f) {
  const PackedGraphs* p = graphs.packed_arrays();
  if (!p) {
    Graph scratch;
    return for_each_arc(graphs.get(b, scratch), f);
  }
  const i64 base = p->node_ptr[b];
  for (i64 e = p->edge_ptr[b]; e < p->edge_ptr[b + 1]; ++e) {
    const i32 u = i32(p->src[e] - base), v = i32(p->dst[e] - base);
    if (u == v) continue;
    const double w = p->weight ? p->weight[e] : 1.0;
    f(u, v, w);
    if (!p->directed) f(v, u, w);
  }
}

template <class T>
void fill_arcs(const BatchGraphs& graphs, JobArrays<T>& a, int threads) {
  const i64 arcs = a.arc_ptr.back();
  a.src.resize(std::size_t(arcs));
  a.dst.resize(std::size_t(arcs));
  a.weight.resize(std::size_t(arcs));
  for_each_graph(i64(a.graph.size()), threads, [&](i64 k) {
    i64 e = a.arc_ptr[std::size_t(k)];
    for_each_batch_arc(graphs, a.graph[std::size_t(k)], [&](i32 u, i32 v, double w) {
      a.src[std::size_t(e)] = u;
      a.dst[std::size_t(e)] = v;
      a.weight[std::size_t(e)] = weight_as<T>(w + 0.0);  // -0 as +0, as build_matrix stores it
      ++e;
    });
  });
}

// Which graphs go where, and the GPU's job arrays (without an output). `empty_on_gpu`: graphs
// of no vertex join the job too (the padded layout's blocks of pad cells), at out_at(b).
template <class T, class OutAt>
std::vector<Where> plan(const BatchGraphs& graphs, const BatchOptions& options, Dtype t,
                        bool derived, int cap, bool empty_on_gpu, OutAt&& out_at, JobArrays<T>& a) {
  const i64 count = graphs.size();
  const int threads = threads_for(options.threads);
  std::vector<Where> where(std::size_t(count), Where::Empty);
  std::vector<i64> arcs(std::size_t(count), 0);
  SolveOptions check;
  check.dtype = t;
  for_each_graph(count, threads, [&](i64 b) {
    const i64 n = graphs.num_vertices(b);
    Where& w = where[std::size_t(b)];
    if (n == 0) {
      w = empty_on_gpu ? Where::Gpu : Where::Empty;
      return;
    }
    if (!derived) {
      Graph scratch;
      const Graph& g = graphs.get(b, scratch);
      if (!graphs.packed()) g.validate();
      choose_dtype(g, check);  // throws where t cannot be exact for g
    }
    if (n <= cap && min_weight_of(graphs, b) >= 0) {
      w = Where::Gpu;
      i64 m = 0;
      for_each_batch_arc(graphs, b, [&](i32, i32, double) { ++m; });
      arcs[std::size_t(b)] = m;
    } else {
      Graph scratch;
      w = in_loop(graphs.get(b, scratch), t) ? Where::Host : Where::Later;
    }
  });
  for (i64 b = 0; b < count; ++b) {
    if (where[std::size_t(b)] != Where::Gpu) continue;
    const i64 n = graphs.num_vertices(b);
    a.graph.push_back(b);
    a.sizes.push_back(i32(n));
    a.arc_ptr.push_back(a.arc_ptr.back() + arcs[std::size_t(b)]);
    a.out_offset.push_back(out_at(b, a.cells));
    a.cells += n * n;
  }
  fill_arcs(graphs, a, threads);
  return where;
}

template <class T>
SmallGraphsJob job_of(const JobArrays<T>& a, Dtype t, int device) {
  SmallGraphsJob job;
  job.dtype = t;
  job.count = i64(a.graph.size());
  job.sizes = a.sizes.data();
  job.arc_ptr = a.arc_ptr.data();
  job.src = a.src.data();
  job.dst = a.dst.data();
  job.weight = a.weight.data();
  job.out_offset = a.out_offset.data();
  job.out_cells = a.cells;
  job.out = a.out.get();
  job.device = device;
  return job;
}

// The graphs `where` leaves to the host: those of one cpu tile on the host's threads (as the cpu
// engine closes them), then the others through solve(). Integer distances are exact on every
// backend, so the cuda backend takes the large ones; floats and next hops stay with the cpu
// backend, whose sums and tie rules the batch promises.
void solve_on_host(const BatchGraphs& graphs, const BatchOptions& options, Dtype t,
                   const std::vector<Where>& where, const BatchSink& sink) {
  const i64 count = graphs.size();
  for_each_graph(count, threads_for(options.threads), [&](i64 b) {
    const Where w = where[std::size_t(b)];
    if (w == Where::Gpu || w == Where::Later) return;
    Matrix dist(0, 0, t), next(0, 0, Dtype::Int32);
    if (w == Where::Host) {
      Graph scratch;
      close_on_thread(graphs.get(b, scratch), t, options.paths, dist, next);
    }
    sink({b, &dist, options.paths ? &next : nullptr});
  });
  std::vector<char> later(std::size_t(count), 0);
  for (i64 b = 0; b < count; ++b) later[std::size_t(b)] = where[std::size_t(b)] == Where::Later;
  const bool exact = is_integer(t) && !options.paths;
  const Backend rest = exact && cuda_backend_info().usable ? Backend::Cuda : Backend::Cpu;
  solve_later(graphs, later, solve_options(t, options, rest), sink);
}

template <class T>
void run_typed(const BatchGraphs& graphs, const BatchOptions& options, Dtype t, bool derived,
               const GpuEngine& gpu, const BatchSink& sink) {
  JobArrays<T> a;
  const std::vector<Where> where = plan(
      graphs, options, t, derived, gpu.small_cap(t), false, [](i64, i64 cells) { return cells; },
      a);
  a.out.reset(new T[std::size_t(std::max<i64>(a.cells, 1))]);
  const SmallGraphsJob job = job_of(a, t, options.device);

  // The GPU's graphs on a thread of their own, the host's meanwhile.
  std::exception_ptr gpu_error;
  std::thread worker([&] {
    try {
      gpu.close_small_graphs(job);
    } catch (...) {
      gpu_error = std::current_exception();
    }
  });
  {
    Joiner joiner{worker};
    solve_on_host(graphs, options, t, where, sink);
  }
  if (gpu_error) std::rethrow_exception(gpu_error);

  for_each_graph(job.count, threads_for(options.threads), [&](i64 k) {
    const i64 b = a.graph[std::size_t(k)], n = a.sizes[std::size_t(k)];
    const T* closed = a.out.get() + a.out_offset[std::size_t(k)];
    if (!options.paths) {
      const Matrix dist = Matrix::view(closed, n, n, n, t);
      sink({b, &dist, nullptr});
      return;
    }
    Graph scratch;
    Matrix dist, next;
    close_on_thread(graphs.get(b, scratch), t, true, dist, next, closed);
    sink({b, &dist, &next});
  });
}

// Graph b's distances written to a scratch output of one graph: throws write_distances' error,
// which the GPU saw as a distance out.type cannot hold.
[[noreturn]] void report_unfit(const BatchGraphs& graphs, Dtype t, i64 b, const BatchOutput& out) {
  try {
    Graph scratch;
    const Graph& g = graphs.get(b, scratch);
    Matrix dist, next;
    close_on_thread(g, t, false, dist, next);
    const i64 n = g.num_vertices;
    std::vector<double> cells(std::size_t(n * n));  // 8 bytes: any output type fits
    const std::int64_t offsets[] = {0, n * n};
    BatchOutput one = out;
    one.data = cells.data();
    one.n_max = 0;
    one.offsets = offsets;
    write_distances({0, &dist, nullptr}, one);
  } catch (...) {
    rethrow_for_graph(b, std::current_exception());
  }
  throw Error("graph " + std::to_string(b) + ": the GPU found a distance " +
              "its output type cannot hold, the host none");
}

template <class T>
void run_into_typed(const BatchGraphs& graphs, const BatchOptions& options, Dtype t, bool derived,
                    const GpuEngine& gpu, const BatchOutput& out, int out_device) {
  JobArrays<T> a;
  const bool padded = out.n_max > 0;
  const i64 count = graphs.size();
  const i64 total = padded ? count * out.n_max * out.n_max : out.offsets[count];
  const std::vector<Where> where = plan(
      graphs, options, t, derived, gpu.small_cap(t), padded,
      [&](i64 b, i64) { return padded ? b * out.n_max * out.n_max : out.offsets[b]; }, a);
  SmallGraphsJob job = job_of(a, t, options.device);
  job.out_cells = total;
  const i64 bad = gpu.close_small_graphs_into(job, out, out_device);
  if (bad >= 0) report_unfit(graphs, t, a.graph[std::size_t(bad)], out);
  if (job.count == count) return;
  if (out_device < 0) {  // the GPU's copy wrote every cell: the host's graphs go over it
    solve_on_host(graphs, options, t, where,
                  [&](const BatchItem& item) { write_distances(item, out); });
    return;
  }
  // A device output: the host's graphs laid out in host memory, then each block copied over.
  const std::size_t es = out_type_size(out.type);
  std::unique_ptr<char[]> host(new char[std::size_t(total) * es]);
  BatchOutput staged = out;
  staged.data = host.get();
  solve_on_host(graphs, options, t, where,
                [&](const BatchItem& item) { write_distances(item, staged); });
  for (i64 b = 0; b < count; ++b) {
    if (where[std::size_t(b)] == Where::Gpu) continue;
    const i64 n = graphs.num_vertices(b);
    const i64 at = padded ? b * out.n_max * out.n_max : out.offsets[b];
    const i64 cells = padded ? out.n_max * out.n_max : n * n;
    gpu.copy_to_device(static_cast<char*>(out.data) + at * i64(es), host.get() + at * i64(es),
                       std::size_t(cells) * es, out_device);
  }
}

}  // namespace

const GpuEngine* gpu_for(const BatchGraphs& graphs, const BatchOptions& options) {
  const Backend b = options.backend;
  if (b == Backend::Cpu) return nullptr;
  if (b != Backend::Cuda && b != Backend::Auto)
    throw UsageError(std::string("batches run on the cpu or cuda backend (or auto), not ") +
                     backend_name(b));
  if (b == Backend::Auto) {
    i64 small = 0;  // graphs every dtype's cap takes (64 vertices)
    for (i64 g = 0; g < graphs.size() && small < kAutoMinGpuGraphs; ++g) {
      const i64 n = graphs.num_vertices(g);
      small += n >= 1 && n <= 64;
    }
    if (small < kAutoMinGpuGraphs) return nullptr;
  }
  const GpuEngine* engine = gpu_engine();
  const BackendInfo info = cuda_backend_info();
  if (engine && info.usable) return engine;
  if (b == Backend::Auto) return nullptr;
  throw BackendUnavailable("backend 'cuda' is not available: " + info.detail);
}

void solve_batch_gpu(const BatchGraphs& graphs, const BatchOptions& options, Dtype t, bool derived,
                     const GpuEngine& gpu, const BatchSink& sink) {
  visit_dtype(t,
              [&](auto tag) { run_typed<decltype(tag)>(graphs, options, t, derived, gpu, sink); });
}

void solve_batch_gpu_into(const BatchGraphs& graphs, const BatchOptions& options, Dtype t,
                          bool derived, const GpuEngine& gpu, const BatchOutput& out,
                          int out_device) {
  visit_dtype(t, [&](auto tag) {
    run_into_typed<decltype(tag)>(graphs, options, t, derived, gpu, out, out_device);
  });
}

}  // namespace apsp::detail::batch
