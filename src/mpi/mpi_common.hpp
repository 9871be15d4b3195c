// src/mpi/mpi_common.hpp — what every part of the mpi backend shares (internal): MPI error
// checks (APSP_MPI_TRY), MPI start-up, owned communicators, element types and counts, and the
// collective agreements (first_problem, agreed_grid) that make every rank fail alike.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "apsp/errors.hpp"
#include "apsp/graph.hpp"
#include "apsp/solve.hpp"
#include "cpu/tile_ops.hpp"
#include "dist/block_cyclic.hpp"

namespace apsp::detail::mpi {

[[noreturn]] void throw_mpi_error(int code, const char* what, const char* file, int line);

}  // namespace apsp::detail::mpi

#define APSP_MPI_TRY(call)                                                           \
  do {                                                                               \
    const int apsp_mpi_rc_ = (call);                                                 \
    if (apsp_mpi_rc_ != MPI_SUCCESS)                                                 \
      ::apsp::detail::mpi::throw_mpi_error(apsp_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)

namespace apsp::detail::mpi {

using dist::Grid;
using dist::i64;
using dist::Layout;
using dist::TileRange;
using i32 = std::int32_t;

/// MPI_Init_thread (FUNNELED) unless the program did it; MPI_Finalize at exit if we did.
void ensure_mpi_initialised();

/// A communicator we own, freed on scope exit.
struct Comm {
  MPI_Comm c = MPI_COMM_NULL;
  Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm() {
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  int size() const {
    int s = 0;
    MPI_Comm_size(c, &s);
    return s;
  }
};

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else
    return MPI_DOUBLE;
}

inline int mpi_count(i64 n) {
  APSP_EXPECTS(n >= 0 && n <= INT_MAX, "MPI message larger than 2^31-1 elements");
  return int(n);
}

/// The ranks of this rank's host (MPI_Comm_split_type SHARED): this rank's local rank (in
/// world-rank order) and how many there are.
struct Host {
  Comm comm;
  int rank = 0, size = 1;
  explicit Host(MPI_Comm world) {
    APSP_MPI_TRY(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm.c));
    APSP_MPI_TRY(MPI_Comm_rank(comm.c, &rank));
    size = comm.size();
  }
};

/// "" when `problem` is empty on every rank, else "rank R: <its problem>" for the lowest rank R
/// that has one: the same text on every rank, so that all of them fail alike. Collective.
std::string first_problem(MPI_Comm comm, const std::string& problem);

/// Grid::for_run on every rank, and the same on every rank: APSP_GRID is read per rank (mpirun
/// passes it to other hosts only with -x), so a malformed value on some rank, or shapes that
/// differ, are one UsageError on every rank instead of mismatched collectives. Collective.
Grid agreed_grid(MPI_Comm world, int size);

/// The cpu backend keeps next hops with the strict-less kernels and leaves the rare loops that
/// zero-weight edges can cause to solve()'s repair_next_hops(), which needs the whole matrix. So:
/// strict-less (identical to the cpu backend) with positive weights or when rank 0 assembles the
/// whole matrix (solve() then repairs it); hop counts when next hops are streamed and zero-weight
/// edges exist, so that every walk ends without a repair (valid shortest paths, ties may differ).
cpu::Mode next_hop_mode(const Graph& g, Dtype t, bool paths, bool streamed);

/// "1.23 GiB".
std::string gib(double bytes);

}  // namespace apsp::detail::mpi
