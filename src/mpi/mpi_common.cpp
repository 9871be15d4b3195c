// src/mpi/mpi_common.cpp — MPI errors, start-up and the collective agreements of mpi_common.hpp.
#include "mpi/mpi_common.hpp"

#include <cstdio>
#include <exception>

#include "cpu/blocked_fw.hpp"

namespace apsp::detail::mpi {

[[noreturn]] void throw_mpi_error(int code, const char* what, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(std::string("MPI error: ") + std::string(text, std::size_t(len)) + " (" + what +
              " at " + file + ":" + std::to_string(line) + ")");
}

namespace {

/// Finalises MPI at exit if this library initialised it.
struct MpiLifetime {
  bool we_initialised = false;
  ~MpiLifetime() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (we_initialised && !finalized) MPI_Finalize();
  }
};

}  // namespace

void ensure_mpi_initialised() {
  static MpiLifetime lifetime;
  int initialised = 0;
  APSP_MPI_TRY(MPI_Initialized(&initialised));
  if (initialised) return;
  int provided = 0;
  APSP_MPI_TRY(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  lifetime.we_initialised = true;
}

cpu::Mode next_hop_mode(const Graph& g, Dtype t, bool paths, bool streamed) {
  if (!paths) return cpu::Mode::Distances;
  return !streamed || cpu::positive_weights(g, t) ? cpu::Mode::NextHops : cpu::Mode::HopCounts;
}

Grid agreed_grid(MPI_Comm world, int size) {
  Grid g;
  std::string error;
  try {
    g = Grid::for_run(size);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const std::string p = first_problem(world, error); !p.empty()) throw UsageError(p);
  int mine[2] = {g.Pr, -g.Pr}, all[2] = {0, 0};
  APSP_MPI_TRY(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, world));
  if (all[0] != -all[1])
    throw UsageError(
        "the ranks do not agree on the grid (APSP_GRID differs between them: mpirun -x APSP_GRID)");
  return g;
}

std::string first_problem(MPI_Comm comm, const std::string& problem) {
  int rank = 0, size = 1;
  APSP_MPI_TRY(MPI_Comm_rank(comm, &rank));
  APSP_MPI_TRY(MPI_Comm_size(comm, &size));
  int mine = problem.empty() ? size : rank, first = size;
  APSP_MPI_TRY(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return "";
  char text[512] = {};
  if (rank == first) problem.copy(text, sizeof(text) - 1);
  APSP_MPI_TRY(MPI_Bcast(text, int(sizeof(text)), MPI_CHAR, first, comm));
  return size > 1 ? "rank " + std::to_string(first) + ": " + text : std::string(text);
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g GiB", bytes / double(std::size_t(1) << 30));
  return text;
}

}  // namespace apsp::detail::mpi
