// apsp/pipeline.hpp — solve_file(): read a graph file, solve, write the result files, with the
// stages overlapped where the hardware allows (what `apsp solve` and apsp.solve_file() run).
//
// GPU start-up overlaps the read; result stripes go to the writers as the backend hands them out;
// a GPU solve's idle host fills the output's page cache first; on the CPU path the distance
// matrix's memory (2 MB pages) is faulted in beside the read. Outputs are atomic (temporary file
// + rename, apsp/io.hpp): a failure or a signal never leaves a half-written file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apsp/io.hpp"
#include "apsp/solve.hpp"

namespace apsp {

/// Where the next-hop matrix of a paths run goes: OUT.next, or STEM.next.npy for OUT = STEM.npy;
/// /dev/null where OUT is the null device (also through links).
std::string next_path_for(const std::string& output);
/// Where the vertex names of a graph read with names go: OUT.labels, one name a line (line k+1
/// names vertex k); /dev/null where OUT is the null device.
std::string labels_path_for(const std::string& output);
/// Writes labels_path_for(output) (atomic, as every output); nothing for no labels or a stream.
void write_labels(const std::string& output, const std::vector<std::string>& labels);
/// The names in a file write_labels() wrote (`path` is that file, labels_path_for(output)): line
/// k+1 names vertex k. Throws InputError for an unreadable path.
std::vector<std::string> read_labels(const std::string& path);

struct FileSolveOptions {
  std::string input, output;
  ReadOptions read;
  OutputFormat output_format = OutputFormat::Auto;
  /// Backend, dtype, block, threads, devices, paths, progress. Its sinks must be empty: the
  /// pipeline streams to its own writers.
  SolveOptions solve;
  /// Keep the whole result in memory, write it after the solve and compare it with a reference
  /// (full Floyd-Warshall for V <= 2048, else sampled sources): FileSolveResult::verification.
  bool verify = false;
  /// Called as each stage starts: "read", "solve", "write", "verify" (with verify), "done".
  std::function<void(const char*)> phase;
};

struct FileSolveResult {
  /// The solve's result. dist / next are empty where they were streamed to the files;
  /// timings.read and timings.write are the pipeline's.
  Result result;
  std::int64_t vertices = 0;
  std::size_t edges = 0;
  /// False on an MPI rank other than 0: it holds no result and wrote nothing.
  bool wrote = false;
  /// With verify: "" when the result agrees with the reference, else a short report.
  std::optional<std::string> verification;
};

/// The checks solve_file() makes before it reads anything (a caller that forks or prints first
/// may make them itself): every output can be created, none is the input or another output
/// (also through links), and a paths run has a file to put the next hops beside (a regular file
/// or a new one; the null device discards both). Throws UsageError / Error naming the path.
/// Under mpirun only rank 0 checks (the others' hosts need not have its folders).
void check_file_outputs(const FileSolveOptions& options);

/// False under mpirun / srun for a rank other than 0 (OMPI_COMM_WORLD_RANK, PMI_RANK): such a
/// rank holds no result and writes nothing, so a caller prints and checks outputs on rank 0 only.
bool launcher_rank_is_zero();
/// Whether a GPU solve can run here for `backend` ("auto", "cuda", "multi-gpu", ...), told
/// without starting the GPU driver: a CUDA build, a GPU-capable backend, NVIDIA device files,
/// devices not hidden by CUDA_VISIBLE_DEVICES. For a caller that prepares before the driver
/// starts (the CLI forks its worker then).
bool gpu_solve_possible(const std::string& backend);

/// Reads options.input, solves, writes options.output (and with paths next_path_for(output),
/// both with one modification time). Without paths, the next-hop file of the output it replaces
/// (next_path_for(output) with that output's time to the nanosecond) is removed (docs/paths.md,
/// "Which files belong together"). NTHU output that certainly cannot hold a distance is refused
/// before the solve. Throws what read_graph, solve and the writers throw; solve's UsageError,
/// ResourceError and NegativeCycleError name the input file.
FileSolveResult solve_file(const FileSolveOptions& options);

}  // namespace apsp
