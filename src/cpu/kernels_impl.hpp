// src/cpu/kernels_impl.hpp — the CPU kernels, written once over a small vector-ops struct.
//
// Included by one translation unit per instruction set (kernels_avx512.cpp, kernels_avx2.cpp,
// kernels_scalar.cpp), each with its own -m flags and namespace (APSP_CPU_ISA_NS); hence no
// standard-library templates here. Min-plus GEMM micro-kernel in the GotoBLAS/BLIS structure (an
// MR x NV*L block of C in registers, c = min(c, a + b)), pivot closure, and the next-hop pass
// over out-edges. Strict-less tie rule; *_hops variants compare (distance, edges).
// The ops struct, micro-kernel, tie rules and the next-hop pass: docs/cpu.md.
// Reference: Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", TOMS 2008.
#ifndef APSP_CPU_ISA_NS
#error "define APSP_CPU_ISA_NS before including kernels_impl.hpp"
#endif

#include "cpu/kernels.hpp"

namespace apsp::detail::cpu::APSP_CPU_ISA_NS {

template <class O>
struct Kernels {
  using T = typename O::T;
  using V = typename O::V;
  using M = typename O::M;
  using N = typename O::N;
  static constexpr int L = O::L;
  // The dtype's sentinel (core/sentinel.hpp), used only as a constant here: a call of a shared
  // inline function from this file could be merged with another instruction set's copy.
  static constexpr T kInf = sentinel<T>();

  // ---- pivot closure: plain FW, k outermost, one row of the tile per vector sweep -------------
  // With next hops (nx) a sum replaces c only when strictly smaller; with hop counts (hx) too,
  // the comparison is on (distance, hops) (see better()).
  static void close(T* d, i64 ld, int w, i32* nx, i64 ldn) {
    close_hops(d, ld, w, nx, nullptr, ldn);
  }
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
          for (int j = 0; j < w; j += L)
            O::store(di + j, O::min(O::load(di + j), O::add(a, O::load(dk + j))));
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
  static M better(V s, N sh, V c, N ch) {
    return O::mor(O::lt(s, c), O::mand(O::eq(s, c), O::nlt(sh, ch)));
  }

  // ---- min-plus GEMM, distances only ----------------------------------------------------------
  // Asks for the C tile the next call will load, while this one computes (C lives in DRAM or L3).
  template <int MR, int NV>
  static void prefetch_tile(const T* c, i64 ldc) {
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
      for (int v = 0; v < NV; ++v)
        acc[i][v] = i < mr ? O::load(c + i * ldc + v * L) : O::bcast(kInf);
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
  static void micro_paths(const T* pa, const i32* pna, const T* pb, int k, T* c, i64 ldc, i32* nc,
                          i64 ldn, int mr) {
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

  static void gemm_paths(const T* pa, const i32* pna, const T* pb, int k, T* c, i64 ldc, i32* nc,
                         i64 ldn, i64 m, i64 n) {
    constexpr int MR = O::kMRP, NR = O::kNVP * L;
    for (i64 i0 = 0; i0 < m; i0 += MR) {
      const int mr = m - i0 < MR ? int(m - i0) : MR;
      const i64 off = (i0 / MR) * MR * i64(k);
      for (i64 j0 = 0; j0 < n; j0 += NR)
        micro_paths<MR, O::kNVP>(pa + off, pna + off, pb + (j0 / NR) * NR * i64(k), k,
                                 c + i0 * ldc + j0, ldc, nc + i0 * ldn + j0, ldn, mr);
    }
  }

  // ---- min-plus GEMM with next hops and hop counts ------------------------------------------
  template <int MR, int NV>
  static void micro_hops(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb,
                         int k, T* c, i64 ldc, i32* nc, i32* hc, i64 ldn, int mr) {
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

  static void gemm_hops(const T* pa, const i32* pna, const i32* pha, const T* pb, const i32* phb,
                        int k, T* c, i64 ldc, i32* nc, i32* hc, i64 ldn, i64 m, i64 n) {
    constexpr int MR = O::kMRH, NR = O::kNVP * L;
    for (i64 i0 = 0; i0 < m; i0 += MR) {
      const int mr = m - i0 < MR ? int(m - i0) : MR;
      const i64 off = (i0 / MR) * MR * i64(k);
      for (i64 j0 = 0; j0 < n; j0 += NR) {
        const i64 boff = (j0 / NR) * NR * i64(k);
        micro_hops<MR, O::kNVP>(pa + off, pna + off, pha + off, pb + boff, phb + boff, k,
                                c + i0 * ldc + j0, ldc, nc + i0 * ldn + j0, hc + i0 * ldn + j0, ldn,
                                mr);
      }
    }
  }

  // ---- next hops from out-edges --------------------------------------------------------------
  // Columns per register chunk: 64 with 32 registers (AVX-512), else 4 vectors (AVX2: 16
  // registers hold 4 distances + 4 next hops and the temporaries), 32 scalars for the fallback.
  static constexpr int kNextNV = L * int(sizeof(T)) == 64 ? 64 / L : L == 1 ? 32 : 4;
  static constexpr int kNextCols = kNextNV * L;
  static_assert(64 % kNextCols == 0 && (kNextCols % 32 == 0 || 32 % kNextCols == 0),
                "chunk must tile 32 columns");

  template <int NV>
  static void next_chunk_exact(const NextHopsArgs<T>& a, i64 i, i64 c0) {
    const NextArc<T>* arc = a.arcs + a.start[i];
    const i64 count = a.start[i + 1] - a.start[i];
    const T* d0 = a.d + c0;
    const T* di = d0 + i * a.ld;
    V tgt[NV];
    N arg[NV];
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) tgt[v] = O::load(di + v * L), arg[v] = O::nbcast(-1);
    for (i64 e = 0; e < count; ++e) {
      const T* dv = d0 + i64(arc[e].v) * a.ld;
      const V w = O::bcast(arc[e].w);
      const N nv = O::nbcast(arc[e].v);
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v)
        arg[v] = O::nselect(O::eq(O::add(w, O::load(dv + v * L)), tgt[v]), nv, arg[v]);
    }
    const V inf = O::bcast(kInf);
    const N none = O::nbcast(-1);
    i32* out = a.next + i * a.ldn + c0;
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v)
      O::nstore(out + v * L, O::nselect(O::lt(tgt[v], inf), arg[v], none));
    if (i >= c0 && i < c0 + NV * L) out[i - c0] = -1;
  }

  template <int NV>
  static void next_chunk_min(const NextHopsArgs<T>& a, i64 i, i64 c0) {
    constexpr int W = NV * L;
    constexpr i64 kCheck = 8;  // arcs between two looks at the stopping weight
    const NextArc<T>* arc = a.arcs + a.start[i];
    const i64 count = a.start[i + 1] - a.start[i];
    const T* d0 = a.d + c0;
    const T* di = d0 + i * a.ld;
    i32* out = a.next + i * a.ldn + c0;
    // Columns that get a next hop: reachable and off the diagonal. Only they bound the scan.
    bool live[W];
    bool any = false;
    for (int x = 0; x < W; ++x) any |= live[x] = di[x] < kInf && c0 + x != i;
    if (!any) {
      for (int x = 0; x < W; ++x) out[x] = -1;
      return;
    }
    V best[NV];
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) best[v] = O::bcast(kInf);
    // The largest minimum so far over the live columns: no arc heavier than it can reach one
    // (w + d >= w), so the scan of the sorted arcs stops at the first such weight.
    auto top = [&] {
      T buf[W];
      for (int v = 0; v < NV; ++v) O::store(buf + v * L, best[v]);
      T t = T(0);
      for (int x = 0; x < W; ++x)
        if (live[x] && buf[x] > t) t = buf[x];
      return t;
    };
    auto relax = [&](i64 e0, i64 e1) {
      for (i64 e = e0; e < e1; ++e) {
        const T* dv = d0 + i64(arc[e].v) * a.ld;
        const V w = O::bcast(arc[e].w);
#pragma GCC unroll 32
        for (int v = 0; v < NV; ++v) best[v] = O::min(best[v], O::add(w, O::load(dv + v * L)));
      }
    };
    const i64 sorted = a.sorted_end[i] - a.start[i];
    i64 stop = -1;
    for (i64 e0 = 0; e0 < sorted; e0 += kCheck) {
      if (e0 > 0 && arc[e0].w > top()) {
        stop = e0;
        break;
      }
      relax(e0, e0 + kCheck < sorted ? e0 + kCheck : sorted);
    }
    if (stop < 0) {  // the unsorted rest, all heavier than bound[i]: all of it or none
      stop = sorted == count || a.bound[i] >= top() ? sorted : count;
      relax(sorted, stop);
    }
    N arg[NV];
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) arg[v] = O::nbcast(0x7fffffff);
    for (i64 e = 0; e < stop; ++e) {
      const T* dv = d0 + i64(arc[e].v) * a.ld;
      const V w = O::bcast(arc[e].w);
      const N pos = O::nbcast(arc[e].pos);
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) {
        const M m = O::mand(O::eq(O::add(w, O::load(dv + v * L)), best[v]), O::nlt(pos, arg[v]));
        arg[v] = O::nselect(m, pos, arg[v]);
      }
    }
    i32 buf[W];
    for (int v = 0; v < NV; ++v) O::nstore(buf + v * L, arg[v]);
    const i32* by_pos = a.by_pos + a.start[i];
    for (int x = 0; x < W; ++x) out[x] = live[x] && buf[x] < i32(count) ? by_pos[buf[x]] : -1;
  }

  template <int NV>
  static void next_chunk(const NextHopsArgs<T>& a, i64 i, i64 c0) {
    if (a.exact)
      next_chunk_exact<NV>(a, i, c0);
    else
      next_chunk_min<NV>(a, i, c0);
  }

  static void next_hops(const NextHopsArgs<T>& a, i64 row0, i64 row1, i64 col0, i64 col1) {
    for (i64 i = row0; i < row1; ++i) {
      i64 c0 = col0;
      for (; c0 + kNextCols <= col1; c0 += kNextCols) next_chunk<kNextNV>(a, i, c0);
      if constexpr (kNextCols > 32)
        if (c0 < col1) next_chunk<32 / L>(a, i, c0);  // the 32-column tail
    }
  }

  static void row_minplus(const T* d, i64 ld, const NextArc<T>* arcs, i64 count, i64 cols, T* out) {
    constexpr int NV = 32 / L < 1 ? 1 : 32 / L;
    for (i64 c0 = 0; c0 < cols; c0 += NV * L) {
      V best[NV];
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) best[v] = O::bcast(kInf);
      for (i64 e = 0; e < count; ++e) {
        const T* dv = d + i64(arcs[e].v) * ld + c0;
        const V w = O::bcast(arcs[e].w);
#pragma GCC unroll 32
        for (int v = 0; v < NV; ++v) best[v] = O::min(best[v], O::add(w, O::load(dv + v * L)));
      }
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) O::store(out + c0 + v * L, best[v]);
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
    k.next_hops = &next_hops;
    k.row_minplus = &row_minplus;
    k.probe = &probe;
    k.probe_updates_per_iter = kProbeUpdates;
    return k;
  }
};

}  // namespace apsp::detail::cpu::APSP_CPU_ISA_NS
