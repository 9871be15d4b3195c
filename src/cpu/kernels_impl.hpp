// src/cpu/kernels_impl.hpp — the CPU kernels, written once over a small vector-ops struct.
//
// Included by one translation unit per instruction set (kernels_avx512.cpp, kernels_avx2.cpp,
// kernels_scalar.cpp), each compiled with its own -m flags and each inside its own namespace
// (APSP_CPU_ISA_NS), so no inline function compiled for AVX-512 can be picked by the linker for
// a caller on a CPU without it. For the same reason this file uses no standard-library templates.
//
// An ops struct O supplies: T (element), V (vector of L lanes), M (lane mask), N (L int32 next
// hops), load/store/bcast/add/min/lt/select, nload/nstore/nbcast/nselect, and the micro-tile
// shapes kMR x kNV vectors (distances) and kMRP x kNVP (with next hops).
//
// Micro-kernel (after the GotoBLAS/BLIS GEMM structure): an MR x (NV*L) block of C lives in
// registers for the whole inner depth k; each step loads NV vectors of the packed B row and
// broadcasts MR values of the packed A column: MR*NV updates c = min(c, a + b) per step from
// MR+NV loads. Unreachable + anything never lands in C: C starts <= unreachable and only a
// smaller sum replaces it, and 2 * unreachable does not overflow (see apsp/types.hpp).
//
// Tie rule for next hops (here and in the backend): a sum replaces c only when strictly smaller,
// so the first strictly better k in the blocked order wins; equal-length alternatives found
// later never move a next hop. The *_hops variants compare (distance, number of edges)
// lexicographically instead, for graphs with zero-weight edges (cpu_backend.cpp says why).
//
// Ops for next hops also supply eq (V), nadd/nlt (N, nlt giving an M mask), mand and mor.
#ifndef APSP_CPU_ISA_NS
#error "define APSP_CPU_ISA_NS before including kernels_impl.hpp"
#endif

#include "cpu/kernels.hpp"

namespace apsp::detail::cpu::APSP_CPU_ISA_NS {

template <class O> struct Kernels {
  using T = typename O::T;
  using V = typename O::V;
  using M = typename O::M;
  using N = typename O::N;
  static constexpr int L = O::L;
  static constexpr T kInf = unreachable<T>();

  // ---- pivot closure: plain FW, k outermost, one row of the tile per vector sweep -------------
  // With next hops (nx) a sum replaces c only when strictly smaller; with hop counts (hx) too,
  // the comparison is on (distance, hops) (see better()).
  static void close(T* d, i64 ld, int w, i32* nx, i64 ldn) { close_hops(d, ld, w, nx, nullptr, ldn); }
  static void close_hops(T* d, i64 ld, int w, i32* nx, i32* hx, i64 ldn) {
    for (int k = 0; k < w; ++k) {
      const T* dk = d + i64(k) * ld;
      const i32* hk = hx ? hx + i64(k) * ldn : nullptr;
      for (int i = 0; i < w; ++i) {
        T* di = d + i64(i) * ld;
        const T dik = di[k];
        if (!(dik < kInf)) continue;  // nothing through k from i
        const V a = O::bcast(dik);
        if (!nx) {
          for (int j = 0; j < w; j += L) O::store(di + j, O::min(O::load(di + j), O::add(a, O::load(dk + j))));
          continue;
        }
        i32* ni = nx + i64(i) * ldn;
        const N na = O::nbcast(ni[k]);
        if (!hx) {
          for (int j = 0; j < w; j += L) {
            const V s = O::add(a, O::load(dk + j)), c = O::load(di + j);
            const M m = O::lt(s, c);
            O::store(di + j, O::select(m, s, c));
            O::nstore(ni + j, O::nselect(m, na, O::nload(ni + j)));
          }
          continue;
        }
        i32* hi = hx + i64(i) * ldn;
        const N ha = O::nbcast(hi[k]);
        for (int j = 0; j < w; j += L) {
          const V s = O::add(a, O::load(dk + j)), c = O::load(di + j);
          const N sh = O::nadd(ha, O::nload(hk + j)), ch = O::nload(hi + j);
          const M m = better(s, sh, c, ch);
          O::store(di + j, O::select(m, s, c));
          O::nstore(ni + j, O::nselect(m, na, O::nload(ni + j)));
          O::nstore(hi + j, O::nselect(m, sh, ch));
        }
      }
    }
  }

  // (s, sh) < (c, ch) lexicographically: a strictly shorter path, or as short with fewer edges.
  static M better(V s, N sh, V c, N ch) { return O::mor(O::lt(s, c), O::mand(O::eq(s, c), O::nlt(sh, ch))); }

  // ---- min-plus GEMM, distances only ----------------------------------------------------------
  // Asks for the C tile the next call will load, while this one computes (C lives in DRAM or L3).
  template <int MR, int NV> static void prefetch_tile(const T* c, i64 ldc) {
    constexpr int kLines = int((NV * L * sizeof(T) + 63) / 64);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int l = 0; l < kLines; ++l) __builtin_prefetch(c + i * ldc + l * (64 / sizeof(T)), 1, 3);
  }

  template <int MR, int NV>
  static void micro(const T* pa, const T* pb, int k, T* c, i64 ldc, int mr, const T* c_next) {
    constexpr int NR = NV * L;
    V acc[MR][NV];
    prefetch_tile<MR, NV>(c_next, ldc);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = i < mr ? O::load(c + i * ldc + v * L) : O::bcast(kInf);
    for (int kk = 0; kk < k; ++kk) {
      V b[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) b[v] = O::load(pb + kk * NR + v * L);
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const V a = O::bcast(pa[kk * MR + i]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = O::min(acc[i][v], O::add(a, b[v]));
      }
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      if (i < mr)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) O::store(c + i * ldc + v * L, acc[i][v]);
  }

  static void gemm(const T* pa, const T* pb, int k, T* c, i64 ldc, i64 m, i64 n) {
    constexpr int MR = O::kMR, NR = O::kNV * L;
    for (i64 i0 = 0; i0 < m; i0 += MR) {
      const int mr = m - i0 < MR ? int(m - i0) : MR;
      const T* a = pa + (i0 / MR) * MR * i64(k);
      for (i64 j0 = 0; j0 < n; j0 += NR) {
        // The next tile: along the row strip, then the start of the next strip (a harmless
        // prefetch past the end on the last one, never dereferenced).
        const T* c_next = j0 + NR < n ? c + i0 * ldc + j0 + NR : c + (i0 + MR) * ldc;
        micro<MR, O::kNV>(a, pb + (j0 / NR) * NR * i64(k), k, c + i0 * ldc + j0, ldc, mr, c_next);
      }
    }
  }

  // ---- min-plus GEMM with next hops -----------------------------------------------------------
  template <int MR, int NV>
  static void micro_paths(const T* pa, const i32* pna, const T* pb, int k, T* c, i64 ldc, i32* nc, i64 ldn,
                          int mr) {
    constexpr int NR = NV * L;
    V acc[MR][NV];
    N nac[MR][NV];
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        acc[i][v] = i < mr ? O::load(c + i * ldc + v * L) : O::bcast(kInf);
        nac[i][v] = i < mr ? O::nload(nc + i * ldn + v * L) : O::nbcast(-1);
      }
    for (int kk = 0; kk < k; ++kk) {
      V b[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) b[v] = O::load(pb + kk * NR + v * L);
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const V a = O::bcast(pa[kk * MR + i]);
        const N na = O::nbcast(pna[kk * MR + i]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          const V s = O::add(a, b[v]);
          const M lt = O::lt(s, acc[i][v]);
          acc[i][v] = O::select(lt, s, acc[i][v]);
          nac[i][v] = O::nselect(lt, na, nac[i][v]);
        }
      }
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      if (i < mr)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          O::store(c + i * ldc + v * L, acc[i][v]);
          O::nstore(nc + i * ldn + v * L, nac[i][v]);
        }
  }

  static void gemm_paths(const T* pa, const i32* pna, const T* pb, int k, T* c, i64 ldc, i32* nc, i64 ldn, i64 m,
                         i64 n) {
    constexpr int MR = O::kMRP, NR = O::kNVP * L;
    for (i64 i0 = 0; i0 < m; i0 += MR) {
      const int mr = m - i0 < MR ? int(m - i0) : MR;
      const i64 off = (i0 / MR) * MR * i64(k);
      for (i64 j0 = 0; j0 < n; j0 += NR)
        micro_paths<MR, O::kNVP>(pa + off, pna + off, pb + (j0 / NR) * NR * i64(k), k, c + i0 * ldc + j0, ldc,
                                 nc + i0 * ldn + j0, ldn, mr);
    }
  }

  // ---- min-plus GEMM with next hops and hop counts ------------------------------------------
  template <int MR, int NV>
  static void micro_hops(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb, int k, T* c,
                         i64 ldc, i32* nc, i32* hc, i64 ldn, int mr) {
    constexpr int NR = NV * L;
    V acc[MR][NV];
    N nac[MR][NV], hac[MR][NV];
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        acc[i][v] = i < mr ? O::load(c + i * ldc + v * L) : O::bcast(kInf);
        nac[i][v] = i < mr ? O::nload(nc + i * ldn + v * L) : O::nbcast(-1);
        hac[i][v] = i < mr ? O::nload(hc + i * ldn + v * L) : O::nbcast(0);
      }
    for (int kk = 0; kk < k; ++kk) {
      V b[NV];
      N hb[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        b[v] = O::load(pb + kk * NR + v * L);
        hb[v] = O::nload(phb + kk * NR + v * L);
      }
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const V a = O::bcast(pa[kk * MR + i]);
        const N na = O::nbcast(pna[kk * MR + i]), ha = O::nbcast(pha[kk * MR + i]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          const V s = O::add(a, b[v]);
          const N sh = O::nadd(ha, hb[v]);
          const M m = better(s, sh, acc[i][v], hac[i][v]);
          acc[i][v] = O::select(m, s, acc[i][v]);
          nac[i][v] = O::nselect(m, na, nac[i][v]);
          hac[i][v] = O::nselect(m, sh, hac[i][v]);
        }
      }
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      if (i < mr)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          O::store(c + i * ldc + v * L, acc[i][v]);
          O::nstore(nc + i * ldn + v * L, nac[i][v]);
          O::nstore(hc + i * ldn + v * L, hac[i][v]);
        }
  }

  static void gemm_hops(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb, int k, T* c,
                        i64 ldc, i32* nc, i32* hc, i64 ldn, i64 m, i64 n) {
    constexpr int MR = O::kMRH, NR = O::kNVP * L;
    for (i64 i0 = 0; i0 < m; i0 += MR) {
      const int mr = m - i0 < MR ? int(m - i0) : MR;
      const i64 off = (i0 / MR) * MR * i64(k);
      for (i64 j0 = 0; j0 < n; j0 += NR) {
        const i64 boff = (j0 / NR) * NR * i64(k);
        micro_hops<MR, O::kNVP>(pa + off, pna + off, pha + off, pb + boff, phb + boff, k, c + i0 * ldc + j0, ldc,
                                nc + i0 * ldn + j0, hc + i0 * ldn + j0, ldn, mr);
      }
    }
  }

  // ---- ceiling probe: 12 register accumulators, no memory traffic (cf. shared/probes) ---------
  static constexpr int kProbeUpdates = 12 * L;
  static long probe(long iters, int seed) {
    V c[12], a[6];
    V b0 = O::bcast(T(seed)), b1 = O::bcast(T(seed * 3));
    const V step = O::bcast(T(1));
    for (int i = 0; i < 6; ++i) a[i] = O::bcast(T(i * seed));
    for (int i = 0; i < 12; ++i) c[i] = O::bcast(T(1 << 29));
    for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 6
      for (int i = 0; i < 6; ++i) {
        c[2 * i] = O::min(c[2 * i], O::add(a[i], b0));
        c[2 * i + 1] = O::min(c[2 * i + 1], O::add(a[i], b1));
      }
      b0 = O::add(b0, step);
      b1 = O::add(b1, a[1]);
    }
    for (int i = 1; i < 12; ++i) c[0] = O::min(c[0], c[i]);
    T out[64];
    O::store(out, c[0]);
    return long(out[0]);
  }

  static KernelSet<T> table(Isa isa) {
    KernelSet<T> k;
    k.isa = isa;
    k.mr = O::kMR;
    k.nr = O::kNV * L;
    k.mr_paths = O::kMRP;
    k.nr_paths = O::kNVP * L;
    k.mr_hops = O::kMRH;
    k.close = &close;
    k.close_hops = &close_hops;
    k.gemm_hops = &gemm_hops;
    k.gemm = &gemm;
    k.gemm_paths = &gemm_paths;
    k.probe = &probe;
    k.probe_updates_per_iter = kProbeUpdates;
    return k;
  }
};

}  // namespace apsp::detail::cpu::APSP_CPU_ISA_NS
