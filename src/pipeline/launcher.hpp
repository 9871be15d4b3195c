// src/pipeline/launcher.hpp — what solve_file() reads of the process's surroundings: the MPI
// launcher's rank (apsp::launcher_rank_is_zero, apsp/pipeline.hpp), whether a GPU solve can run
// here (apsp::gpu_solve_possible) and the CUDA environment it sets before the first CUDA call
// (read with getenv here, as mpi/mpi_backend.cpp reads the MPI launchers' rank counts: neither is
// an APSP_ setting, which only core/config.cpp reads). The CLI's process policy (signals, the
// forked worker, the fast exit) is the CLI's own: apps/process.hpp.
#pragma once

#include "apsp/pipeline.hpp"
#include "apsp/solve.hpp"

namespace apsp::detail {

/// For a solve that may use the cuda backend: CUDA_DEVICE_MAX_CONNECTIONS=2 unless set (fewer
/// hardware work queues make the context faster to create). Before the first CUDA call.
void limit_gpu_queues(Backend backend);

}  // namespace apsp::detail
