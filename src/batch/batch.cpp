// src/batch/batch.cpp — the cpu batch engine: OpenMP over graphs (apsp/batch.hpp).
//
// A graph that fits one cpu tile is solved on one thread exactly as the cpu backend solves it:
// the same matrix build, blocked_floyd_warshall (one tile: its pivot closure), the same next-hop
// method choice and pass, and solve()'s repair of next-hop loops. Larger graphs and graphs with
// negative weights (Johnson) go to solve() itself, one at a time with every thread, after the
// parallel loop. So each graph's bytes are those of solve() with the cpu backend.
// With a GPU (gpu_batch.cpp) the small graphs are closed there instead, with the same bytes.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apsp/batch.hpp"
#include "apsp/errors.hpp"
#include "apsp/paths.hpp"
#include "batch/batch_detail.hpp"
#include "core/backend.hpp"
#include "core/reference.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/kernels.hpp"
#include "cpu/next_hops.hpp"

namespace apsp {

namespace detail::batch {

using i64 = std::int64_t;

[[noreturn]] void rethrow_for_graph(i64 b, std::exception_ptr e) {
  const std::string at = "graph " + std::to_string(b) + ": ";
  try {
    std::rethrow_exception(e);
  } catch (const NegativeCycleError& x) {
    throw NegativeCycleError(at + x.what(), x.cycle());
  } catch (const UsageError& x) {
    throw UsageError(at + x.what());
  } catch (const ResourceError& x) {
    throw ResourceError(at + x.what());
  } catch (const BackendUnavailable& x) {
    throw;
  } catch (const InputError& x) {
    throw UsageError(at + x.what());
  } catch (const Error& x) {
    throw Error(at + x.what());
  }
}

int threads_for(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

bool fits_one_tile(i64 n, Dtype t) {
  return round_up(n, cpu::kPadMultiple) <= cpu::default_block(t);
}

bool in_loop(const Graph& g, Dtype t) {
  return g.num_vertices > 0 && fits_one_tile(g.num_vertices, t) && g.min_weight() >= 0;
}

void close_on_thread(const Graph& g, Dtype t, bool paths, Matrix& dist, Matrix& next,
                     const void* closed) {
  const i64 n = g.num_vertices, n_pad = round_up(n, cpu::kPadMultiple);
  const cpu::Isa isa = cpu::active_isa();
  dist = detail::build_matrix(g, t, n_pad, n_pad);
  // The closure: blocked_floyd_warshall's, or its result handed in (padding vertices, alone,
  // stay as build_matrix left them).
  auto close = [&] {
    if (!closed) return cpu::blocked_floyd_warshall(dist, nullptr, 0, 1, isa);
    const std::size_t es = dtype_size(t);
    for (i64 i = 0; i < n; ++i)
      std::copy_n(static_cast<const char*>(closed) + i * n * i64(es), n * i64(es),
                  static_cast<char*>(dist.raw()) + i * dist.stride() * i64(es));
  };
  if (!paths) {
    close();
  } else {
    next = detail::build_next(dist);
    if (cpu::choose_next_method(g, dist, isa).method == cpu::NextMethod::Edges) {
      close();
      cpu::next_hops_from_edges(g, dist, next, 1, isa);
    } else {
      cpu::blocked_floyd_warshall(dist, &next, 0, 1, isa, {}, /*positive_weights=*/true);
    }
    next.set_logical_shape(n, n);
  }
  dist.set_logical_shape(n, n);
  if (paths) repair_next_hops(g, dist, next);
}

SolveOptions solve_options(Dtype t, const BatchOptions& o, Backend backend) {
  SolveOptions so;
  so.backend = backend;
  so.dtype = t;
  so.paths = o.paths;
  so.threads = o.threads;
  so.devices = {o.device};
  return so;
}

void solve_later(const BatchGraphs& graphs, const std::vector<char>& later, const SolveOptions& so,
                 const BatchSink& sink) {
  for (i64 b = 0; b < graphs.size(); ++b) {
    if (!later[std::size_t(b)]) continue;
    try {
      Graph scratch;
      const Result r = solve(graphs.get(b, scratch), so);
      sink({b, &r.dist, so.paths ? &r.next : nullptr});
    } catch (...) {
      rethrow_for_graph(b, std::current_exception());
    }
  }
}

}  // namespace detail::batch

namespace {

using i64 = std::int64_t;
using namespace detail::batch;

int rank(Dtype t) { return t == Dtype::Int32 ? 0 : t == Dtype::Int64 ? 1 : 2; }

}  // namespace

Dtype choose_batch_dtype(const BatchGraphs& graphs, const BatchOptions& options) {
  std::vector<int> ranks(std::size_t(graphs.size()), 0);
  SolveOptions so;
  so.dtype = options.dtype;
  for_each_graph(graphs.size(), threads_for(options.threads), [&](i64 b) {
    Graph scratch;
    const Graph& g = graphs.get(b, scratch);
    if (g.num_vertices == 0) return;
    if (!graphs.packed()) g.validate();  // packed graphs: validated with their arrays
    ranks[std::size_t(b)] = rank(choose_dtype(g, so));
  });
  if (options.dtype) return *options.dtype;
  const int widest = ranks.empty() ? 0 : *std::max_element(ranks.begin(), ranks.end());
  return widest == 0 ? Dtype::Int32 : widest == 1 ? Dtype::Int64 : Dtype::Float64;
}

void solve_batch(const BatchGraphs& graphs, const BatchOptions& options, const BatchSink& sink) {
  const GpuEngine* gpu = gpu_for(graphs, options);
  // A derived dtype suits every graph (choose_batch_dtype checked them); an explicit one is
  // checked per graph in the loop below, without a separate pass over the graphs.
  const bool derived = !options.dtype;
  const Dtype t = derived ? choose_batch_dtype(graphs, options) : *options.dtype;
  if (gpu) return solve_batch_gpu(graphs, options, t, derived, *gpu, sink);
  const i64 count = graphs.size();
  std::vector<char> later(std::size_t(count), 0);
  SolveOptions check;
  check.dtype = t;
  for_each_graph(count, threads_for(options.threads), [&](i64 b) {
    Graph scratch;
    const Graph& g = graphs.get(b, scratch);
    Matrix dist(0, 0, t), next(0, 0, Dtype::Int32);
    if (g.num_vertices > 0 && !derived) {
      if (!graphs.packed()) g.validate();
      choose_dtype(g, check);  // throws where t cannot be exact for g
    }
    if (g.num_vertices > 0 && !in_loop(g, t)) {
      later[std::size_t(b)] = 1;
      return;
    }
    if (g.num_vertices > 0) close_on_thread(g, t, options.paths, dist, next);
    sink({b, &dist, options.paths ? &next : nullptr});
  });
  solve_later(graphs, later, solve_options(t, options, Backend::Cpu), sink);
}

void solve_batch_into(const BatchGraphs& graphs, const BatchOptions& options,
                      const BatchOutput& out, int out_device) {
  check_batch_output(out);
  const i64 count = graphs.size();
  for (i64 b = 0; out.n_max > 0 && b < count; ++b)
    if (graphs.num_vertices(b) > out.n_max)
      throw UsageError("graph " + std::to_string(b) + ": a graph of " +
                       std::to_string(graphs.num_vertices(b)) +
                       " vertices does not fit n_max = " + std::to_string(out.n_max));
  BatchOptions o = options;
  o.paths = false;
  const GpuEngine* gpu = gpu_for(graphs, o);
  const bool derived = !o.dtype;
  if (gpu) {
    const Dtype t = derived ? choose_batch_dtype(graphs, o) : *o.dtype;
    return solve_batch_gpu_into(graphs, o, t, derived, *gpu, out, out_device);
  }
  if (out_device < 0)
    return solve_batch(graphs, o, [&](const BatchItem& item) { write_distances(item, out); });
  // A cpu batch into device memory: laid out on the host, then one copy.
  const GpuEngine* copier = gpu_engine();
  if (!copier || !detail::cuda_backend_info().usable)
    throw BackendUnavailable("an output in GPU memory needs the cuda backend: " +
                             detail::cuda_backend_info().detail);
  const i64 total = out.n_max > 0 ? count * out.n_max * out.n_max : out.offsets[count];
  const std::size_t bytes = std::size_t(total) * out_type_size(out.type);
  std::unique_ptr<char[]> host(new char[std::max<std::size_t>(bytes, 1)]);
  BatchOutput staged = out;
  staged.data = host.get();
  solve_batch(graphs, o, [&](const BatchItem& item) { write_distances(item, staged); });
  copier->copy_to_device(out.data, host.get(), bytes, out_device);
}

BatchResult solve_batch(const BatchGraphs& graphs, const BatchOptions& options) {
  BatchResult r;
  const i64 count = graphs.size();
  r.sizes.resize(std::size_t(count));
  r.offsets.assign(std::size_t(count) + 1, 0);
  for (i64 b = 0; b < count; ++b) {
    const i64 n = graphs.num_vertices(b);
    r.sizes[std::size_t(b)] = n;
    r.offsets[std::size_t(b) + 1] = r.offsets[std::size_t(b)] + n * n;
  }
  const i64 total = r.offsets.back();
  const Dtype t = choose_batch_dtype(graphs, options);
  BatchOptions o = options;
  o.dtype = t;
  const i64 cells = std::max<i64>(total, 1);  // an allocation even for a batch of empty graphs
  r.dist = Matrix(1, cells, cells, 1, t);
  r.dist.set_logical_shape(1, total);
  if (options.paths) {
    r.next = Matrix(1, cells, cells, 1, Dtype::Int32);
    r.next.set_logical_shape(1, total);
  }
  solve_batch(graphs, o, [&](const BatchItem& item) {
    const i64 n = item.dist->rows(), at = r.offsets[std::size_t(item.index)];
    const std::size_t es = dtype_size(t);
    char* d = static_cast<char*>(r.dist.raw()) + at * i64(es);
    for (i64 i = 0; i < n; ++i)
      std::copy_n(static_cast<const char*>(item.dist->raw()) + i * item.dist->stride() * i64(es),
                  n * i64(es), d + i * n * i64(es));
    if (!item.next) return;
    std::int32_t* x = r.next.data<std::int32_t>() + at;
    for (i64 i = 0; i < n; ++i) std::copy_n(item.next->row<std::int32_t>(i), n, x + i * n);
  });
  return r;
}

BatchView batch_item(const BatchResult& r, std::int64_t b) {
  BatchView v;
  const i64 n = r.sizes[std::size_t(b)], at = r.offsets[std::size_t(b)];
  const char* d = static_cast<const char*>(r.dist.raw()) + at * i64(dtype_size(r.dtype()));
  v.dist = Matrix::view(d, n, n, n, r.dtype());
  if (!r.next.empty())
    v.next = Matrix::view(r.next.data<std::int32_t>() + at, n, n, n, Dtype::Int32);
  v.index = b;
  return v;
}

}  // namespace apsp
