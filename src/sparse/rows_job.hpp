// src/sparse/rows_job.hpp — what the sparse direct engine hands a GPU backend: every row of the
// closure from host factors (internal). The backend answers BackendImpl::run_sparse_rows(); the
// host's CPU threads run the rows where it does not (engine.cpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/solve.hpp"
#include "sparse/plan.hpp"
#include "sparse/row_sums.hpp"

namespace apsp::detail::sparse {

struct RowsJob {
  const SupernodalPlan* plan = nullptr;
  Dtype dtype = Dtype::Int32;
  const void* factors = nullptr;  ///< the Factors<T> of dtype (factor.hpp)
  int device = 0;
  /// With `sums`: the GPUs that share the rows (a block of sources each in turn; empty: device).
  std::vector<int> devices;
  /// Where the rows go, in the user's order: the host matrix `dist` (n x n, its stride), or
  /// `sink` in stripes (ascending rows), or nowhere when `keep_on_device` (device_result then
  /// holds the n x n row-major device matrix, rows n apart, freed with the last reference).
  Matrix* dist = nullptr;
  RowSink sink;
  bool keep_on_device = false;
  /// Or only the rows' sums (no n x n result; the row blocks as wide as memory allows).
  RowSums* sums = nullptr;
  ProgressFn progress;
  // Filled by the backend.
  double h2d_s = 0, compute_s = 0, d2h_s = 0;
  std::shared_ptr<void> device_result;
  std::function<void(void* host)> download;  ///< keep_on_device: copies the n x n result to host
  std::string detail;                        ///< e.g. "cuda: 16 blocks of 8192 rows"
};

}  // namespace apsp::detail::sparse
