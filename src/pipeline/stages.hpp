// src/pipeline/stages.hpp — the pieces of solve_file() that look at the input before the solve:
// the NTHU output range check, the dtype the writers open with, V from a binary header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/solve.hpp"

namespace apsp::detail {

/// NTHU output holds distances below 1073741823. Where (V-1)*max|w| allows larger ones, Dijkstra
/// from a few sources looks for one, so that a result that certainly cannot be written is
/// refused (UsageError naming `output`) before the solve; only where that costs at most 5% of
/// the fastest int32 solve. The writer still checks every value after the solve.
void refuse_nthu_overflow(const std::string& output, const Graph& g, OutputFormat of);
/// solve()'s dtype choice as far as it can be made before the solve; nullopt where solve() will
/// refuse (it says why).
std::optional<Dtype> expected_dtype(const Graph& g, const SolveOptions& o);
/// V from the header of an NTHU binary input (a regular, uncompressed file whose size matches
/// its header), at least read.num_vertices; 0 where it cannot be told without reading the file.
std::int64_t peek_vertices(const std::string& path, const ReadOptions& read);
/// Whether the matrix for `vertices` may be faulted in ahead of the solve: every edge of the
/// NTHU file at `path` names vertices below its header's V (read in pieces, nothing V-sized) and
/// the int32 matrix fits the memory rule (host_memory_limit()). Run on the fill thread.
bool nthu_matrix_worth_filling(const std::string& path, std::int64_t vertices);
/// Bytes of the CPU backend's int32 distance matrix for V vertices (padded rows and columns).
std::size_t cpu_matrix_bytes(std::int64_t vertices);

}  // namespace apsp::detail
