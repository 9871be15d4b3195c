// src/cpu/kernels.hpp — the CPU kernels behind one table per (instruction set, element type).
//
// Two primitives carry blocked Floyd-Warshall: a pivot closure (plain FW in one tile) and a
// min-plus GEMM C = min(C, A (x) B) over packed panels; plus the next-hop pass over out-edges.
// AVX-512, AVX2 and scalar compile the same template (kernels_impl.hpp); the backend picks a table
// at run time (__builtin_cpu_supports, APSP_CPU_ISA=avx512|avx2|scalar or force_isa()).
// Packed layouts: A in strips of mr rows, B in strips of nr columns (see pack_a / pack_b).
// Details: docs/cpu.md ("Kernels").
#pragma once

#include <cstdint>
#include <optional>

#include "apsp/types.hpp"
#include "core/sentinel.hpp"

namespace apsp::detail::cpu {

using i64 = std::int64_t;
using i32 = std::int32_t;

enum class Isa { Scalar, Avx2, Avx512 };
const char* isa_name(Isa isa);
/// Best instruction set this CPU runs and this build has kernels for.
Isa detected_isa();
/// The one the backend uses: force_isa() if set, else APSP_CPU_ISA if set (throws UsageError
/// for an unknown name or one this CPU cannot run), else detected_isa().
Isa active_isa();
/// Tests and the kernel lab: force an instruction set (nullopt = back to automatic).
/// Throws UsageError when the CPU cannot run it.
void force_isa(std::optional<Isa> isa);
/// Whether this CPU and build can run `isa`.
bool isa_supported(Isa isa);

/// One out-arc i -> v of weight w; pos = its index among i's arcs in CSR (input) order.
template <class T>
struct NextArc {
  T w;
  i32 v;
  i32 pos;
};

/// Arguments of KernelSet::next_hops: the closed distances, the next-hop matrix to fill, and
/// each row's arc list arcs[start[i] .. start[i+1]).
template <class T>
struct NextHopsArgs {
  const T* d = nullptr;  ///< distances, row stride ld (padded)
  i64 ld = 0;
  i32* next = nullptr;  ///< next hops, row stride ldn
  i64 ldn = 0;
  const i64* start = nullptr;
  const NextArc<T>* arcs = nullptr;
  /// Exact types: only the arcs that can be first hops (w(i,v) == d[i][v]), in REVERSE CSR order;
  /// a match overwrites, so the first arc in CSR order wins. Floats: every arc; those up to
  /// sorted_end[i] by increasing w, all later ones heavier than bound[i], in any order.
  bool exact = true;
  /// Floats: the v of each row's arcs in CSR order (by_pos[start[i] + pos]).
  const i32* by_pos = nullptr;
  const i64* sorted_end = nullptr;
  const T* bound = nullptr;
};

template <class T>
struct KernelSet {
  Isa isa = Isa::Scalar;
  int mr = 1, nr = 1;              ///< distances-only micro-tile (rows x columns)
  int mr_paths = 1, nr_paths = 1;  ///< micro-tile of the next-hop variant
  int mr_hops = 1;                 ///< micro-tile rows of the hop-count variant (columns: nr_paths)
  /// Plain FW inside the w x w tile at d (row stride ld). With nx (stride ldn) keeps next hops.
  void (*close)(T* d, i64 ld, int w, i32* nx, i64 ldn) = nullptr;
  /// Same comparing (distance, hop count), keeping next hops nx and hop counts hx (stride ldn).
  void (*close_hops)(T* d, i64 ld, int w, i32* nx, i32* hx, i64 ldn) = nullptr;
  /// c[m x n] = min(c, A (x) B); A packed with mr, B with nr; k = inner depth; n % nr == 0.
  void (*gemm)(const T* pa, const T* pb, int k, T* c, i64 ldc, i64 m, i64 n) = nullptr;
  /// Same with next hops: where a sum is strictly smaller, nc = the packed A-side next hop.
  /// A packed with mr_paths, B with nr_paths.
  void (*gemm_paths)(const T* pa, const i32* pna, const T* pb, int k, T* c, i64 ldc, i32* nc,
                     i64 ldn, i64 m, i64 n) = nullptr;
  /// Same comparing (distance, hops): hop counts packed like their values (pha with A, phb with
  /// B); A packed with mr_hops, B with nr_paths.
  void (*gemm_hops)(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb, int k,
                    T* c, i64 ldc, i32* nc, i32* hc, i64 ldn, i64 m, i64 n) = nullptr;
  /// Next hops of rows [row0, row1) x columns [col0, col1) (col1 - col0 a multiple of 32).
  void (*next_hops)(const NextHopsArgs<T>& a, i64 row0, i64 row1, i64 col0, i64 col1) = nullptr;
  /// out[0 .. cols) = min over arcs of w + d[v][c] (d already offset to the first column; cols a
  /// multiple of 32): one row of the min-plus product, for the cost model's samples.
  void (*row_minplus)(const T* d, i64 ld, const NextArc<T>* arcs, i64 count, i64 cols,
                      T* out) = nullptr;
  /// Register-resident min-plus loop (the ceiling probe): `iters` x updates_per_iter updates.
  long (*probe)(long iters, int seed) = nullptr;
  int probe_updates_per_iter = 0;
};

// One table per instruction set and type; the tag argument picks the type.
KernelSet<std::int32_t> scalar_kernels(std::int32_t);
KernelSet<std::int64_t> scalar_kernels(std::int64_t);
KernelSet<float> scalar_kernels(float);
KernelSet<double> scalar_kernels(double);
#if defined(APSP_CPU_X86_KERNELS)
KernelSet<std::int32_t> avx2_kernels(std::int32_t);
KernelSet<std::int64_t> avx2_kernels(std::int64_t);
KernelSet<float> avx2_kernels(float);
KernelSet<double> avx2_kernels(double);
KernelSet<std::int32_t> avx512_kernels(std::int32_t);
KernelSet<std::int64_t> avx512_kernels(std::int64_t);
KernelSet<float> avx512_kernels(float);
KernelSet<double> avx512_kernels(double);
#endif

/// The table of `isa` for T (defined in isa.cpp for the four element types).
template <class T>
KernelSet<T> kernels_for(Isa isa);

/// Packs rows x k of src (stride ld) into the A layout with strips of mr rows.
template <class T, int MR>
void pack_a_fixed(const T* src, i64 ld, i64 rows, int k, T* dst) {
  constexpr T kInf = sentinel<T>();  // padding rows
  const i64 strips = (rows + MR - 1) / MR;
  for (i64 s = 0; s < strips; ++s) {
    T* out = dst + s * i64(MR) * k;
    const T* in = src + s * MR * ld;
    if (rows - s * MR >= MR) {
      // k outer, rows inner: contiguous writes, MR sequential read streams (unrolled).
      for (int kk = 0; kk < k; ++kk)
        for (int r = 0; r < MR; ++r) out[i64(kk) * MR + r] = in[r * ld + kk];
    } else {
      const i64 full = rows - s * MR;
      for (int kk = 0; kk < k; ++kk)
        for (int r = 0; r < MR; ++r) out[i64(kk) * MR + r] = r < full ? in[r * ld + kk] : kInf;
    }
  }
}
template <class T>
void pack_a(const T* src, i64 ld, i64 rows, int k, int mr, T* dst) {
  switch (mr) {
    case 8:
      return pack_a_fixed<T, 8>(src, ld, rows, k, dst);
    case 6:
      return pack_a_fixed<T, 6>(src, ld, rows, k, dst);
    case 4:
      return pack_a_fixed<T, 4>(src, ld, rows, k, dst);
    case 3:
      return pack_a_fixed<T, 3>(src, ld, rows, k, dst);
    case 2:
      return pack_a_fixed<T, 2>(src, ld, rows, k, dst);
    default:
      break;
  }
  constexpr T kInf = sentinel<T>();  // padding rows
  const i64 strips = (rows + mr - 1) / mr;
  for (i64 s = 0; s < strips; ++s) {
    T* out = dst + s * i64(mr) * k;
    const i64 full = rows - s * mr >= mr ? mr : rows - s * mr;
    const T* in = src + s * mr * ld;
    for (int kk = 0; kk < k; ++kk)
      for (i64 r = 0; r < mr; ++r) out[i64(kk) * mr + r] = r < full ? in[r * ld + kk] : kInf;
  }
}
/// The next-hop companion of pack_a (padding rows get -1).
inline void pack_a_next(const i32* src, i64 ld, i64 rows, int k, int mr, i32* dst) {
  const i64 strips = (rows + mr - 1) / mr;
  for (i64 s = 0; s < strips; ++s) {
    i32* out = dst + s * i64(mr) * k;
    const i64 full = rows - s * mr >= mr ? mr : rows - s * mr;
    const i32* in = src + s * mr * ld;
    for (int kk = 0; kk < k; ++kk) {
      for (i64 r = 0; r < full; ++r) out[i64(kk) * mr + r] = in[r * ld + kk];
      for (i64 r = full; r < mr; ++r) out[i64(kk) * mr + r] = -1;
    }
  }
}
/// Packs k x cols of src (stride ld) into the B layout with strips of nr columns (cols % nr == 0).
template <class T>
void pack_b(const T* src, i64 ld, int k, i64 cols, int nr, T* dst) {
  for (i64 s = 0; s < cols / nr; ++s) {
    T* out = dst + s * i64(nr) * k;
    for (int kk = 0; kk < k; ++kk) {
      const T* in = src + i64(kk) * ld + s * nr;
      for (int c = 0; c < nr; ++c) out[i64(kk) * nr + c] = in[c];
    }
  }
}

}  // namespace apsp::detail::cpu
