// src/pipeline/stages.cpp — solve_file()'s checks before the solve (pipeline/stages.hpp) and
// check_file_outputs() (apsp/pipeline.hpp).
#include "pipeline/stages.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "apsp/errors.hpp"
#include "apsp/pipeline.hpp"
#include "core/distance_evidence.hpp"
#include "core/memory_limit.hpp"
#include "cpu/blocked_fw.hpp"
#include "io/output_common.hpp"

namespace apsp {

void check_file_outputs(const FileSolveOptions& o) {
  std::vector<std::string> outs{o.output};
  if (o.solve.paths) {
    const io::OutputTarget t = io::resolve_output(o.output);
    if (t.stream_fd >= 0)
      throw UsageError(o.output +
                       ": --paths needs an output file (it writes the next hops beside it)");
    if (t.stream && !io::is_null_device(o.output))
      throw UsageError(o.output +
                       ": --paths needs an output file (it writes the next hops beside it), not "
                       "a FIFO or device");
    outs.push_back(next_path_for(o.output));
  }
  for (const auto& out : outs) {
    if (io::same_file(o.input, out))
      throw UsageError(out + ": the output would overwrite the input " + o.input);
    io::check_output_path(out);
  }
  if (outs.size() == 2 && io::same_output(outs[0], outs[1]))
    throw UsageError(o.output + ": OUT and the --paths file " + outs[1] + " name the same file");
}

namespace detail {

void refuse_nthu_overflow(const std::string& output, const Graph& g, OutputFormat of) {
  if (of == OutputFormat::Auto) of = output_format_for(output);
  if (of != OutputFormat::Nthu || !g.integer_weights) return;
  constexpr double kCap = 1073741823.0;  // 2^30-1
  if (double(std::max<std::int64_t>(g.num_vertices - 1, 0)) * g.max_abs_weight() < kCap) return;
  // A graph whose matrix cannot fit is solve()'s to refuse; the search needs O(V) per source.
  const double V = double(g.num_vertices);
  if (V * V * 4 > double(host_memory_limit().bytes)) return;
  const double arcs = double(g.src.size()) * (g.directed ? 1 : 2);
  if (!evidence_pays(arcs, V, 15e12, 0.05)) return;
  const double seen = sampled_distance_lower_bound(g, 8, kCap);
  if (seen < kCap) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", seen);
  throw UsageError(output +
                   ": NTHU output holds distances below 1073741823 (2^30-1), but this graph has a "
                   "shortest distance of " +
                   buf + "; write .npy or .txt (or --output-format npy|text)");
}

std::optional<Dtype> expected_dtype(const Graph& g, const SolveOptions& o) {
  try {
    return choose_dtype(g, o);
  } catch (const Error&) {  // solve() will say what is wrong
    return std::nullopt;
  }
}

std::int64_t peek_vertices(const std::string& path, const ReadOptions& read) {
  const InputFormat f = read.format != InputFormat::Auto ? read.format : input_format_for(path);
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (f != InputFormat::Nthu || gz || path == "-") return 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st {};
  unsigned char h[8];
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::pread(fd, h, 8, 0) == 8;
  ::close(fd);
  if (!ok) return 0;
  auto le32 = [&](int at) {
    return std::int32_t(std::uint32_t(h[at]) | std::uint32_t(h[at + 1]) << 8 |
                        std::uint32_t(h[at + 2]) << 16 | std::uint32_t(h[at + 3]) << 24);
  };
  const std::int64_t V = le32(0), E = le32(4);
  if (V <= 0 || E < 0 || std::int64_t(st.st_size) != 8 + 12 * E)
    return 0;  // the reader will say why
  return std::max(V, read.num_vertices);
}

namespace {

/// Whether every src and dst of the E edges after the 8-byte header is in 0..V-1.
bool nthu_ids_below(int fd, std::uint32_t V, std::int64_t E) {
  constexpr std::int64_t kEdgesPerPiece = 1 << 16;
  std::vector<unsigned char> piece(12 * kEdgesPerPiece);
  for (std::int64_t e0 = 0; e0 < E; e0 += kEdgesPerPiece) {
    const std::int64_t k = std::min(kEdgesPerPiece, E - e0);
    const auto bytes = std::size_t(12 * k);
    if (::pread(fd, piece.data(), bytes, off_t(8 + 12 * e0)) != ssize_t(bytes)) return false;
    for (std::int64_t e = 0; e < k; ++e) {
      std::uint32_t s, d;
      std::memcpy(&s, &piece[std::size_t(12 * e)], 4);
      std::memcpy(&d, &piece[std::size_t(12 * e + 4)], 4);
      if (s >= V || d >= V) return false;
    }
  }
  return true;
}

}  // namespace

bool nthu_matrix_worth_filling(const std::string& path, std::int64_t vertices) {
  if (double(cpu_matrix_bytes(vertices)) > double(host_memory_limit().bytes)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::int32_t h[2] = {0, -1};
  bool ok = ::pread(fd, h, 8, 0) == 8 && h[0] > 0 && h[1] >= 0;
  ok = ok && nthu_ids_below(fd, std::uint32_t(h[0]), h[1]);
  ::close(fd);
  return ok;
}

std::size_t cpu_matrix_bytes(std::int64_t vertices) {
  const auto n_pad = std::size_t(round_up(vertices, cpu::kPadMultiple));
  return n_pad * n_pad * sizeof(std::int32_t);
}

}  // namespace detail
}  // namespace apsp
