// src/mpi/ranks.hpp — the two kinds of mpi rank (internal): CPU ranks (cpu_ranks.cpp) and GPU
// ranks (gpu_ranks.cpp), and the collective choice between them (choose_device).
#pragma once

#include <mpi.h>

#include <string>

#include "apsp/matrix.hpp"
#include "apsp/solve.hpp"
#include "core/backend.hpp"
#include "mpi/mpi_common.hpp"

namespace apsp::detail {
struct TilePlan;     // order/symbolic.hpp
struct Permutation;  // order/ordering.hpp
}

namespace apsp::detail::mpi {

/// The CUDA device this rank computes on, or -1 for CPU ranks: the same kind on every rank
/// (collective). GPU ranks need a build with NCCL (--paths: int32 or float32), and for every rank a
/// usable GPU of its own (NCCL refuses two ranks of one communicator on one GPU): local rank l
/// takes GPU l mod count of --devices (default: every GPU the rank sees, in order), and no two
/// ranks of a host may end up on one physical GPU (compared by PCI bus id, so launchers that give
/// each rank its own CUDA_VISIBLE_DEVICES work too). Otherwise CPU ranks, or with APSP_MPI_GPU=1 a
/// BackendUnavailable on every rank. A GPU rank whose device lacks the memory is a ResourceError
/// on every rank (no silent fall-back to CPU ranks); `ordered` (a sparse order's plan) counts the
/// user-order gather's buffers too.
int choose_device(MPI_Comm world, const Host& host, Dtype t, std::int64_t n, bool paths,
                  bool ordered, const SolveOptions& o);

/// CPU ranks: every rank builds its tiles, runs the rounds with the CPU kernels and hands its
/// rows to rank 0 (dist / next keep the result on rank 0 without sinks). `plan` (null: dense
/// rounds): the sparse rounds' active tiles of g (g is then the ordered graph, `perm` its
/// order: the result is handed out in the user's order, dist / next of the user's size).
/// Collective.
void run_cpu_ranks(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o,
                   Timings& timings, MPI_Comm world, int rank, int size, int threads,
                   const TilePlan* plan, const Permutation* perm);

/// GPU ranks on CUDA device `device` (choose_device's). `plan`, `perm`: as run_cpu_ranks.
/// Returns the type the rounds ran in. Collective.
std::string run_gpu_ranks(const Graph& g, Matrix& dist, Matrix* next, int device,
                          const SolveOptions& o, Timings& timings, MPI_Comm world, int rank,
                          int size, int threads, const TilePlan* plan, const Permutation* perm);

}  // namespace apsp::detail::mpi
