// apsp/batch.hpp — all-pairs shortest paths of many small graphs in one call (docs/batch.md).
//
// solve_batch() closes every graph of a batch: a list of Graphs, or graphs packed in one set of
// arrays (PyG's edge_index + ptr). The cpu engine runs OpenMP over the graphs; each graph of up
// to one cpu tile (256 vertices for 4-byte types, 128 for 8-byte) is closed on one thread by the
// cpu backend's own tile kernels, larger graphs and graphs with negative weights by solve() with
// every thread. Each graph's distances (and next hops) are byte for byte those of
// solve(graph, {.backend = Cpu, .dtype = the batch's dtype, .paths = ...}).
// write_distances() / write_edge_paths() lay the results out for learning code: padded
// (B, N, N) or flat, int8 .. float64, a chosen unreachable value, clipping at max_dist, and
// edge-id paths in DGL's shortest_dist(return_paths=True) layout.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"
#include "apsp/types.hpp"

namespace apsp {

/// Graphs packed in one set of arrays (not owned). Graph b has the vertices
/// [node_ptr[b], node_ptr[b+1]) and the edges [edge_ptr[b], edge_ptr[b+1]) of src/dst/weight;
/// vertex ids are global (graph b's local vertex v is node_ptr[b] + v).
struct PackedGraphs {
  std::int64_t num_graphs = 0;
  const std::int64_t* node_ptr = nullptr;  ///< num_graphs + 1 entries, non-decreasing, from 0
  const std::int64_t* edge_ptr = nullptr;  ///< num_graphs + 1 entries, non-decreasing, from 0
  const std::int64_t* src = nullptr;
  const std::int64_t* dst = nullptr;
  const double* weight = nullptr;  ///< nullptr: every edge weighs 1
  bool directed = true;
};

/// Throws UsageError naming the first fault: a pointer array that decreases or does not start
/// at 0, an edge whose ends are not both vertices of its graph, a weight that is not finite.
void validate_packed(const PackedGraphs& p);
/// Graph b of p with local vertex ids, its edges in the packed order (p validated).
Graph packed_graph(const PackedGraphs& p, std::int64_t b);

struct BatchOptions {
  /// The batch's element type; nullopt = the widest of choose_dtype() over the graphs
  /// (int32 < int64 < float64; float32 only when asked).
  std::optional<Dtype> dtype;
  bool paths = false;  ///< next hops (int32, -1 = none), solve()'s rule and repair
  int threads = 0;     ///< CPU threads; 0 = all
  /// Cpu; Cuda (the small graphs on a GPU, the rest as the cpu engine solves them; throws
  /// BackendUnavailable without a usable GPU); Auto: Cuda where a GPU is usable and the batch
  /// has enough small graphs to pay for it (docs/batch.md), else Cpu.
  Backend backend = Backend::Cpu;
  int device = 0;  ///< the GPU ordinal for Cuda / Auto
};

/// One closed graph, valid only during the sink's call: n x n distances of the batch's dtype
/// (unreachable<T>() where unreachable; stride >= n) and, with paths, int32 next hops.
struct BatchItem {
  std::int64_t index = 0;
  const Matrix* dist = nullptr;
  const Matrix* next = nullptr;  ///< nullptr without paths
};
/// Receives each graph once; called from worker threads, concurrently for different graphs.
using BatchSink = std::function<void(const BatchItem&)>;

/// The graphs of a batch: a list of Graphs (not owned) or packed arrays.
class BatchGraphs {
 public:
  explicit BatchGraphs(std::span<const Graph* const> list) : list_(list) {}
  /// Validates the arrays (validate_packed); they must outlive this object, unchanged.
  explicit BatchGraphs(const PackedGraphs& packed);
  bool packed() const { return packed_ != nullptr; }
  /// The packed arrays (nullptr for a list).
  const PackedGraphs* packed_arrays() const { return packed_; }
  std::int64_t size() const;
  std::int64_t num_vertices(std::int64_t b) const;
  /// Graph b: the listed one, or packed graph b built into `scratch`.
  const Graph& get(std::int64_t b, Graph& scratch) const;

 private:
  std::span<const Graph* const> list_;
  const PackedGraphs* packed_ = nullptr;
};

/// The dtype solve_batch uses (validates every graph).
Dtype choose_batch_dtype(const BatchGraphs& graphs, const BatchOptions& options);

/// Solves every graph and hands each to `sink`. Throws as solve() does, for the lowest-numbered
/// graph that fails, prefixed "graph B: ".
void solve_batch(const BatchGraphs& graphs, const BatchOptions& options, const BatchSink& sink);

/// Every graph's result, flat: graph b's n_b x n_b distances (row-major, stride n_b) start at
/// element offsets[b] of dist (one row of sum n_b^2 elements), its next hops at the same place
/// in next (with paths).
struct BatchResult {
  std::vector<std::int64_t> sizes, offsets;  ///< offsets: num_graphs + 1 entries
  Matrix dist, next;
  Dtype dtype() const { return dist.dtype(); }
};
BatchResult solve_batch(const BatchGraphs& graphs, const BatchOptions& options);
/// Graph b of a flat result: views into it, and the item they make.
struct BatchView {
  std::int64_t index = 0;
  Matrix dist, next;
  BatchItem item() const { return {index, &dist, next.empty() ? nullptr : &next}; }
};
BatchView batch_item(const BatchResult& r, std::int64_t b);

// ---- laying results out ---------------------------------------------------------------------
enum class OutType : std::uint8_t { Int8, Int16, Int32, Int64, Float32, Float64 };
/// "int8", "int16", "int32", "int64", "float32", "float64"; throws UsageError otherwise.
OutType parse_out_type(const std::string& name);

/// Where write_distances puts graph b: padded (n_max > 0) at data + b * n_max^2 elements, rows
/// n_max apart, cells beyond n_b holding `pad`; or flat (n_max == 0) at data + offsets[b], rows
/// n_b apart.
struct BatchOutput {
  OutType type = OutType::Int32;
  void* data = nullptr;
  std::int64_t n_max = 0;
  const std::int64_t* offsets = nullptr;
  double unreachable = -1;         ///< written for unreachable pairs
  double pad = -1;                 ///< written in the padding cells
  std::optional<double> max_dist;  ///< finite distances above it are written as max_dist
};
/// Writes item's distances; throws UsageError when a value (a distance after clipping, the
/// unreachable or pad value) does not fit the output type exactly.
void write_distances(const BatchItem& item, const BatchOutput& out);
/// Checks unreachable, pad and max_dist against the output type (UsageError naming the value).
void check_batch_output(const BatchOutput& out);
/// Bytes of one element of t.
std::size_t out_type_size(OutType t);

/// Solves every graph and writes its distances into `out` as write_distances() would (no next
/// hops). On a GPU (options.backend cuda / auto, apsp::solve_batch's choice) the small graphs are
/// laid out in the output type on the device and copied once; the others go through
/// write_distances on the host. `out_device` >= 0: out.data is device memory on that CUDA GPU
/// (a tensor's), written there without a round trip for the GPU's graphs (the host's graphs,
/// and every graph of a cpu batch, are copied in); it needs a usable GPU (BackendUnavailable).
/// Throws as solve_batch and write_distances do, prefixed "graph B: ".
void solve_batch_into(const BatchGraphs& graphs, const BatchOptions& options,
                      const BatchOutput& out, int out_device = -1);

/// Edge-id paths (DGL's layout): out[((b * n_max + i) * n_max + j) * max_len + k] is the id of the
/// k-th edge on the i -> j path of the next hops (k < hops and k < max_len), -1 elsewhere (i == j,
/// unreachable, padding). The id of hop u -> v is the position in g's edge list (edges_from_dense
/// order for a dense view) of the lightest edge u -> v (undirected: also v -> u), the first of
/// equal ones; with `ids`, ids[position] instead. n_max == 0: flat, graph b at
/// out + offsets[b] * max_len.
void write_edge_paths(const Graph& g, const BatchItem& item, std::int64_t* out, std::int64_t n_max,
                      const std::int64_t* offsets, std::int64_t max_len,
                      const std::int64_t* ids = nullptr);
/// Hops of the longest path in item's next hops (0 when none).
std::int64_t longest_path_hops(const BatchItem& item);

}  // namespace apsp
