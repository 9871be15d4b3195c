// src/batch/gpu_engine.hpp — what the batch engine asks of a GPU (internal): close many small
// graphs in one launch, one thread block per graph in shared memory.
//
// The batch engine (batch.cpp) lays the graphs' arcs out on the host (local ids, self loops
// dropped, undirected edges both ways, weights converted as build_matrix converts them) and hands
// them over as a SmallGraphsJob. The GPU side is src/cuda/batch_small.cu; the batch engine reaches
// it through gpu_engine(), defined at link time as the backend factories are: by batch_small.cu
// in apsp_lib with CUDA, by plugin/loader.cpp in the Python package's libapsp_core.so (through
// libapsp_cuda.so's table), and as a stand-in returning nullptr by gpu_engine.cpp without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "apsp/batch.hpp"
#include "apsp/types.hpp"

namespace apsp::detail::batch {

/// f(T{}) for the C++ type T of an output type (the host's writer and the GPU's share it).
template <class F>
decltype(auto) visit_out(OutType t, F&& f) {
  switch (t) {
    case OutType::Int8:
      return f(std::int8_t{});
    case OutType::Int16:
      return f(std::int16_t{});
    case OutType::Int32:
      return f(std::int32_t{});
    case OutType::Int64:
      return f(std::int64_t{});
    case OutType::Float32:
      return f(float{});
    case OutType::Float64:
      break;
  }
  return f(double{});
}

/// Graphs for the GPU: graph k has sizes[k] vertices (1 .. small_cap) and the arcs
/// [arc_ptr[k], arc_ptr[k+1]) of src/dst (local ids) and weight (`dtype` elements, >= 0). Its
/// closed n x n distances (row-major) go to out + out_offset[k] elements.
struct SmallGraphsJob {
  Dtype dtype = Dtype::Int32;
  std::int64_t count = 0;
  const std::int32_t* sizes = nullptr;       ///< count entries
  const std::int64_t* arc_ptr = nullptr;     ///< count + 1 entries
  const std::int32_t* src = nullptr;         ///< arc_ptr[count] entries
  const std::int32_t* dst = nullptr;         ///< arc_ptr[count] entries
  const void* weight = nullptr;              ///< arc_ptr[count] elements of dtype
  const std::int64_t* out_offset = nullptr;  ///< count entries
  std::int64_t out_cells = 0;                ///< elements of out
  void* out = nullptr;  ///< host memory, or device memory on `device` with out_on_device
  bool out_on_device = false;
  int device = 0;
};

/// The GPU's side. Every function throws apsp::Error (ResourceError for memory) on CUDA errors.
struct GpuEngine {
  /// The largest graph close_small_graphs takes for element type t.
  int (*small_cap)(Dtype t);
  /// Closes every graph of the job (synchronous: the results are in `out` on return).
  void (*close_small_graphs)(const SmallGraphsJob& job);
  /// Closes every graph of the job and writes it as write_distances() would, as out.type:
  /// padded (out.n_max > 0: n_max x n_max cells, `out.pad` beyond the graph) or flat, at
  /// job.out_offset[k] elements of out.data (host memory, or device memory on out_device >= 0;
  /// job.out and job.out_on_device are not used). out was checked (check_batch_output). Returns
  /// -1, or the first job graph with a distance out.type cannot hold exactly (its cells are
  /// not meaningful: the caller reports it).
  std::int64_t (*close_small_graphs_into)(const SmallGraphsJob& job, const BatchOutput& out,
                                          int out_device);
  /// Copies `bytes` from host memory to device memory on `device`.
  void (*copy_to_device)(void* dst, const void* src, std::size_t bytes, int device);
};

/// The GPU engine; nullptr where CUDA is not built or its plugin did not load. Whether a GPU is
/// usable is cuda_backend_info()'s question (core/backend.hpp).
const GpuEngine* gpu_engine();

}  // namespace apsp::detail::batch
