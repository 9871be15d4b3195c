// src/cpu/tile_ops.hpp — the CPU tile operations of blocked Floyd-Warshall, one set for the cpu
// backend (cpu_backend.cpp) and the mpi backend's CPU ranks (src/mpi/cpu_ranks.cpp).
//
// A Mode says what the kernels keep beside the distances; gemm() is the min-plus GEMM of a mode
// on packed operands; pack_a_panel / pack_b_panel pack a panel with its next hops and hop counts;
// close_tile() closes a pivot tile (plain FW up to kInnerBlock wide, else blocked FW inside the
// tile with that block), so that every caller breaks next-hop ties alike and results agree byte
// for byte. Packed layouts: kernels.hpp.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "apsp/errors.hpp"
#include "cpu/kernels.hpp"

namespace apsp::detail::cpu {

inline constexpr i64 kMacroRows =
    128;  // MC: rows of C per task (rounded down to the micro-tile rows)
inline constexpr i64 kMacroCols = 256;  // NC: columns of C per task (a multiple of every nr)
inline constexpr int kInnerBlock = 64;  // block of the blocked closure of a wider pivot tile

/// What the kernels keep beside the distances: nothing, next hops (strict-less), or next hops
/// and hop counts (the (distance, hops) comparison that zero-weight edges need).
enum class Mode { Distances, NextHops, HopCounts };

/// Micro-tile rows (A strips) and columns (B strips) of a mode's kernels.
template <class T>
int mr_for(const KernelSet<T>& ks, Mode m) {
  return m == Mode::Distances ? ks.mr : m == Mode::NextHops ? ks.mr_paths : ks.mr_hops;
}
template <class T>
int nr_for(const KernelSet<T>& ks, Mode m) {
  return m == Mode::Distances ? ks.nr : ks.nr_paths;
}

/// 64-byte aligned host array (uninitialised).
template <class T>
class AlignedBuffer {
 public:
  void resize(i64 count) {
    const std::size_t bytes = (std::size_t(std::max<i64>(count, 1)) * sizeof(T) + 63) / 64 * 64;
    p_.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    if (!p_)
      throw ResourceError("cannot allocate " + std::to_string(bytes) +
                          " bytes for CPU tile buffers");
    size_ = count;
  }
  T* get() const { return p_.get(); }
  i64 size() const { return size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> p_;
  i64 size_ = 0;
};

/// C[m x n] (at c, stride ldc) = min(C, A (x) B) of depth k in `mode`: A packed (pa, with next
/// hops pna and hop counts pha), B packed (pb, with hop counts phb); next hops nc and hop counts
/// hc (stride ldn) of C where the mode keeps them (null otherwise).
template <class T>
void gemm(const KernelSet<T>& ks, Mode mode, const T* pa, const i32* pna, const i32* pha,
          const T* pb, const i32* phb, int k, T* c, i64 ldc, i32* nc, i32* hc, i64 ldn, i64 m,
          i64 n) {
  switch (mode) {
    case Mode::Distances:
      ks.gemm(pa, pb, k, c, ldc, m, n);
      break;
    case Mode::NextHops:
      ks.gemm_paths(pa, pna, pb, k, c, ldc, nc, ldn, m, n);
      break;
    case Mode::HopCounts:
      ks.gemm_hops(pa, pna, pha, pb, phb, k, c, ldc, nc, hc, ldn, m, n);
      break;
  }
}

/// Packs rows x k of src (stride ld) into the A layout (strips of mr rows), with its next hops
/// nsrc and hop counts hsrc (stride ldn) when given.
template <class T>
void pack_a_panel(const T* src, const i32* nsrc, const i32* hsrc, i64 ld, i64 ldn, i64 rows, int k,
                  int mr, T* pa, i32* pna, i32* pha) {
  pack_a(src, ld, rows, k, mr, pa);
  if (nsrc) pack_a_next(nsrc, ldn, rows, k, mr, pna);
  if (hsrc) pack_a_next(hsrc, ldn, rows, k, mr, pha);
}

/// Packs k x cols of src (stride ld) into the B layout (strips of nr columns), with its hop
/// counts hsrc (stride ldn) when given (B-side next hops are never read).
template <class T>
void pack_b_panel(const T* src, const i32* hsrc, i64 ld, i64 ldn, int k, i64 cols, int nr, T* pb,
                  i32* phb) {
  pack_b(src, ld, k, cols, nr, pb);
  if (hsrc) pack_b(hsrc, ldn, k, cols, nr, phb);
}

/// Closes the w x w pivot tile at p (stride ld; next hops np and hop counts hp, stride ldn, as
/// `mode` keeps them) on the calling thread: plain FW up to kInnerBlock wide, else the cpu
/// backend's blocked rounds inside the tile with block kInnerBlock. w is a multiple of 32.
/// Defined in cpu_backend.cpp for the four element types.
template <class T>
void close_tile(const KernelSet<T>& ks, Mode mode, T* p, i32* np, i32* hp, i64 ld, i64 ldn, int w);

}  // namespace apsp::detail::cpu
