// src/io/nthu.cpp — the NTHU course binary formats.
//
// Graph: little-endian int32 V, int32 E, then E triples (src, dst, w) of int32; the file is
// exactly 8 + 12E bytes. The header is checked against the file size before anything is
// allocated; the edges are then de-interleaved straight from the mapped file by all threads.
// Result: V*V int32 row-major, no header, unreachable = 1073741823 (int64 and float matrices are
// converted, and refused when a finite value does not fit).
#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <limits>

#include "io/formats.hpp"
#include "io/input_common.hpp"
#include "io/output_common.hpp"

namespace apsp::io {

static_assert(
    std::endian::native == std::endian::little,
    "the NTHU reader/writer copies little-endian int32 as is; add byte swaps for this host");

namespace {

/// v.resize(n) with transparent huge pages asked for on the 2 MB-aligned interior of the new
/// buffer before its first touch: a 4M-edge graph's 64 MB of vectors then take ~32 page faults
/// instead of ~16000.
template <class T>
void resize_on_huge_pages(std::vector<T>& v, std::size_t n) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  v.reserve(n);
  const std::uintptr_t a = (reinterpret_cast<std::uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(v.data() + n) & ~(kHuge - 1);
  if (b > a) ::madvise(reinterpret_cast<void*>(a), b - a, MADV_HUGEPAGE);
  v.resize(n);
}

inline std::int32_t load_i32(const unsigned char* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline void store_i32(char* p, std::int32_t v) { std::memcpy(p, &v, 4); }

constexpr std::int64_t kNthuMin = std::numeric_limits<std::int32_t>::min();

/// NTHU value of one matrix element, or false when it has none.
template <class T>
inline bool to_nthu(T v, std::int32_t& out) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    out = v;
    return true;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    if (v == unreachable<std::int64_t>()) {
      out = kNthuInf;
      return true;
    }
    if (v >= kNthuInf || v < kNthuMin) return false;
    out = std::int32_t(v);
    return true;
  } else {
    if (v == std::numeric_limits<T>::infinity()) {
      out = kNthuInf;
      return true;
    }
    // NaN and -inf fail the range test.
    if (!(v >= T(kNthuMin) && v < T(kNthuInf))) return false;
    const auto i = std::int32_t(v);
    if (T(i) != v) return false;
    out = i;
    return true;
  }
}

template <class T>
std::string value_text(T v) {
  if constexpr (std::is_integral_v<T>)
    return std::to_string(v);
  else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }
}

}  // namespace

Graph read_nthu(const InputFile& in) { return read_nthu(InputBytes(in)); }

Graph read_nthu(const InputBytes& in) {
  const std::string& file = in.path();
  const std::size_t n = in.size();
  const unsigned char* p = in.bytes();
  if (n == 0) fail_at_offset(file, 0, "expected int32 V (vertex count), but the file is empty");
  if (n < 4)
    fail_at_offset(file, 0,
                   "expected int32 V (vertex count, 4 bytes), but the file has only " +
                       std::to_string(n) + " bytes");
  const std::int32_t V = load_i32(p);
  if (V <= 0)
    fail_at_offset(file, 0, "V = " + std::to_string(V) + ", expected a vertex count of at least 1");
  if (n < 8)
    fail_at_offset(
        file, 4, "expected int32 E (edge count), but the file ends at offset " + std::to_string(n));
  const std::int32_t E = load_i32(p + 4);
  if (E < 0)
    fail_at_offset(file, 4, "E = " + std::to_string(E) + ", expected a non-negative edge count");

  const std::uint64_t want = 8 + 12 * std::uint64_t(E);
  const std::string header = "(the header at offset 4 says E = " + std::to_string(E) +
                             ", so the file should be " + std::to_string(want) + " bytes)";
  if (n < want) {
    const std::uint64_t whole = (n - 8) / 12;
    fail_at_offset(file, n,
                   "truncated edge list: the file ends after " + std::to_string(whole) +
                       " complete edges " + header);
  }
  if (n > want)
    fail_at_offset(file, want,
                   std::to_string(n - want) + " unexpected bytes after the last edge " + header);

  Graph g;
  g.num_vertices = V;
  g.directed = true;
  g.integer_weights = true;
  resize_on_huge_pages(g.src, std::size_t(E));
  resize_on_huge_pages(g.dst, std::size_t(E));
  resize_on_huge_pages(g.weight, std::size_t(E));
  std::int32_t* src = g.src.data();
  std::int32_t* dst = g.dst.data();
  double* w = g.weight.data();
  const unsigned char* edges = p + 8;
  std::int64_t first_bad = E;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (std::int64_t e = 0; e < E; ++e) {
    const unsigned char* q = edges + 12 * e;
    const std::int32_t s = load_i32(q), d = load_i32(q + 4);
    src[e] = s;
    dst[e] = d;
    w[e] = double(load_i32(q + 8));
    if (std::uint32_t(s) >= std::uint32_t(V) || std::uint32_t(d) >= std::uint32_t(V))
      first_bad = std::min(first_bad, e);
  }
  if (first_bad < E) {
    const bool bad_src = std::uint32_t(src[first_bad]) >= std::uint32_t(V);
    const std::uint64_t off = 8 + 12 * std::uint64_t(first_bad) + (bad_src ? 0 : 4);
    fail_at_offset(file, off,
                   "edge " + std::to_string(first_bad) + ": " + (bad_src ? "src" : "dst") + " = " +
                       std::to_string(bad_src ? src[first_bad] : dst[first_bad]) +
                       " is outside 0.." + std::to_string(V - 1) + " (V = " + std::to_string(V) +
                       ")");
  }
  return g;
}

void write_matrix_nthu(OutputFile& f, const Matrix& m) {
  const std::int64_t rows = m.rows(), cols = m.cols();
  if (rows == 0 || cols == 0) return;
  if (m.dtype() == Dtype::Int32) {
    f.write_strided(m.raw(), rows, std::size_t(cols) * 4, std::size_t(m.stride()) * 4);
    return;
  }
  visit_dtype(m.dtype(), [&](auto tag) {
    using T = decltype(tag);
    write_rows(
        f, rows, std::size_t(cols) * 4,
        [&](std::int64_t i, char* out) {
          const T* r = m.row<T>(i);
          bool ok = true;
          for (std::int64_t j = 0; j < cols; ++j) {
            std::int32_t v = 0;
            ok &= to_nthu(r[j], v);
            store_i32(out + 4 * j, v);
          }
          return ok;
        },
        [&](std::int64_t i) {
          const T* r = m.row<T>(i);
          for (std::int64_t j = 0; j < cols; ++j) {
            std::int32_t v;
            if (!to_nthu(r[j], v))
              throw Error(f.path() + ": cannot write NTHU output: d(" + std::to_string(i) + "," +
                          std::to_string(j) + ") = " + value_text(r[j]) + " (" +
                          dtype_name(m.dtype()) +
                          ") is not an int32 below 1073741823 (the format's unreachable value); "
                          "write .npy or .txt instead");
          }
          throw Error(f.path() + ": cannot write NTHU output: row " + std::to_string(i) +
                      " has a value the format cannot hold");
        });
    return 0;
  });
}

Matrix read_matrix_nthu(const InputFile& in) { return read_matrix_nthu(InputBytes(in)); }

Matrix read_matrix_nthu(const InputBytes& in) {
  const std::string& file = in.path();
  const std::size_t n = in.size();
  if (n == 0) fail_at_offset(file, 0, "expected a V*V int32 matrix, but the file is empty");
  if (n % 4 != 0)
    fail_at_offset(file, n - n % 4,
                   "file size " + std::to_string(n) + " is not a multiple of 4 (int32 elements)");
  const std::uint64_t count = n / 4;
  std::uint64_t v = std::uint64_t(std::sqrt(double(count)));
  while (v * v > count) --v;
  while ((v + 1) * (v + 1) <= count) ++v;
  if (v * v != count)
    fail_at_offset(file, 0,
                   std::to_string(count) + " int32 elements do not form a square V*V matrix");
  const auto side = static_cast<std::int64_t>(v);
  Matrix m(side, side, Dtype::Int32);
  std::memcpy(m.raw(), in.bytes(), n);
  return m;
}

}  // namespace apsp::io

namespace apsp {

void write_graph_nthu(const std::string& path, const Graph& graph) {
  // A dense adjacency view has no edge arrays: write its edges (a copy, 16 B per edge).
  const Graph copied = graph.is_dense() ? graph.edges_from_dense() : Graph{};
  const Graph& g = graph.is_dense() ? copied : graph;
  io::check_graph_path(path, GraphFormat::Nthu);
  if (g.num_vertices < 1 || g.num_vertices > std::numeric_limits<std::int32_t>::max())
    throw UsageError(path + ": cannot write NTHU graph: V = " + std::to_string(g.num_vertices) +
                     " is outside 1..2147483647");
  const std::size_t m = g.num_edges();
  std::int64_t out_edges = 0;
  for (std::size_t e = 0; e < m; ++e) {
    const double w = g.weight[e];
    if (!(w >= double(io::kNthuMin) && w <= double(std::numeric_limits<std::int32_t>::max())) ||
        w != std::floor(w))
      throw UsageError(path + ": cannot write NTHU graph: edge " + std::to_string(e) +
                       " has weight " + io::shortest_text(w) + ", not an int32");
    if (g.src[e] < 0 || g.src[e] >= g.num_vertices || g.dst[e] < 0 || g.dst[e] >= g.num_vertices)
      throw UsageError(path + ": cannot write NTHU graph: edge " + std::to_string(e) +
                       " has a vertex outside 0.." + std::to_string(g.num_vertices - 1));
    out_edges += (!g.directed && g.src[e] != g.dst[e]) ? 2 : 1;
  }
  if (out_edges > std::numeric_limits<std::int32_t>::max())
    throw UsageError(path + ": cannot write NTHU graph: " + std::to_string(out_edges) +
                     " edges do not fit int32 E");

  std::vector<char> buf(8 + 12 * std::size_t(out_edges));
  io::store_i32(buf.data(), std::int32_t(g.num_vertices));
  io::store_i32(buf.data() + 4, std::int32_t(out_edges));
  char* q = buf.data() + 8;
  for (std::size_t e = 0; e < m; ++e) {
    const auto w = std::int32_t(g.weight[e]);
    io::store_i32(q, g.src[e]);
    io::store_i32(q + 4, g.dst[e]);
    io::store_i32(q + 8, w);
    q += 12;
    if (!g.directed && g.src[e] != g.dst[e]) {
      io::store_i32(q, g.dst[e]);
      io::store_i32(q + 4, g.src[e]);
      io::store_i32(q + 8, w);
      q += 12;
    }
  }
  io::write_graph_file(path, buf.data(), buf.size());
}

}  // namespace apsp
