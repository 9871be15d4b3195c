// src/cpu/cpu_backend.cpp — CPU backend: blocked Floyd-Warshall, SIMD kernels, OpenMP over tiles.
//
// Round t: close the pivot block (FW, one thread), then the pivot row and column panels and the
// rank-w min-plus update of the rest, as packed GEMMs over MC x NC macro tiles handed to the
// OpenMP threads; a TilePlan (sparse graphs) limits a round to its active tiles. Next hops are
// tracked in the kernels (strict-less rule, (distance, edges) for zero-weight edges in
// blocked_floyd_warshall) or derived from the out-edges afterwards (next_hops.hpp).
// Details: docs/cpu.md; tie rules and the repair: docs/paths.md.
// Reference: Venkataraman et al., "A blocked all-pairs shortest-paths algorithm", JEA 2003.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "apsp/errors.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/reference.hpp"
#include "core/rounds.hpp"
#include "cpu/blocked_fw.hpp"
#include "cpu/next_hops.hpp"
#include "cpu/tile_ops.hpp"
#include "order/symbolic.hpp"

namespace apsp::detail::cpu {

namespace {

struct Range {
  i64 begin, end;
};
struct RowChunk {
  i64 row0, rows, packed;
};  // packed: offset of its first strip in the A buffer
struct ColChunk {
  i64 col0, cols;
};

template <class T>
class CpuRounds final : public RoundOps {
 public:
  // The n x n matrix at D (row stride ld); next hops N and hop counts H (stride ldn) as the mode
  // needs them. H is owned by the caller (blocked_floyd_warshall).
  // plan: the active tiles of each round (null: every tile, the dense rounds).
  CpuRounds(T* D, i64 ld, i64 n, i32* N, i32* H, i64 ldn, Mode mode, int block, int threads,
            const KernelSet<T>& ks, const TilePlan* plan = nullptr)
      : D_(D),
        ld_(ld),
        n_(n),
        N_(N),
        H_(H),
        ldn_(ldn),
        mode_(mode),
        B_(block),
        R_(plan ? plan->R : (n_ + block - 1) / block),
        threads_(threads),
        ks_(ks),
        plan_(plan),
        mr_(mr_for(ks, mode)),
        nr_(nr_for(ks, mode)),
        mc_(std::max<i64>(mr_, kMacroRows / mr_ * mr_)) {
    APSP_EXPECTS(n_ % kPadMultiple == 0 && B_ % kPadMultiple == 0,
                 "CPU matrix not padded to the tile multiple");
    APSP_EXPECTS((mode_ == Mode::Distances || N_) && (mode_ != Mode::HopCounts || H_),
                 "CPU rounds: missing next hops");
    APSP_EXPECTS(!plan_ || (plan_->n == n_ && plan_->B <= B_),
                 "CPU rounds: tile plan for another shape");
    if (R_ == 1) return;                                     // the pivot closure alone: no panels
    const i64 strip_rows = n_ + (plan_ ? R_ + 1 : 2) * mr_;  // each row range rounded up to mr
    pa_.resize(strip_rows * B_);
    pb_.resize(n_ * B_);
    pivot_a_.resize((B_ + mr_) * B_);
    pivot_b_.resize(B_ * B_);
    if (N_) {
      pna_.resize(strip_rows * B_);
      pivot_na_.resize((B_ + mr_) * B_);
    }
    if (H_) {
      pha_.resize(strip_rows * B_);
      phb_.resize(n_ * B_);
      pivot_ha_.resize((B_ + mr_) * B_);
      pivot_hb_.resize(B_ * B_);
    }
  }

  i64 num_rounds() const override { return R_; }

  // A wide pivot is closed by the same blocked algorithm with a small block (the textbook k-loop
  // over a whole 256-wide tile streams it through L2 once per k), on one thread: it is ~w/V of the
  // work, and w/64 more parallel regions per round would cost more than that when the cores are
  // shared.
  void close_pivot(i64 t) override {
    const i64 p0 = start(t), w = width(t);
    T* P = D_ + p0 * ld_ + p0;
    i32* NP = N_ ? N_ + p0 * ldn_ + p0 : nullptr;
    i32* HP = H_ ? H_ + p0 * ldn_ + p0 : nullptr;
    close_tile(ks_, mode_, P, NP, HP, ld_, ldn_, int(w));
  }

  // Packs the closed pivot: as A for the row panel, as B for the column panel (w x w, one thread).
  void update_panels(i64 t) override {
    if (R_ == 1) return;
    const i64 p0 = start(t);
    const int w = int(width(t));
    const T* P = D_ + p0 * ld_ + p0;
    const i32* NP = N_ ? N_ + p0 * ldn_ + p0 : nullptr;
    const i32* HP = H_ ? H_ + p0 * ldn_ + p0 : nullptr;
    pack_a_panel(P, NP, HP, ld_, ldn_, w, w, mr_, pivot_a_.get(), pivot_na_.get(), pivot_ha_.get());
    pack_b_panel(P, HP, ld_, ldn_, w, w, nr_, pivot_b_.get(), pivot_hb_.get());
  }

  // The panel GEMMs and the rest in one parallel region with one barrier between them. Each panel
  // task packs its own chunk as it is (its GEMM's input), updates it, and packs the result for the
  // rest; so no task reads what another writes before the barrier. (Fork/join and barriers cost
  // far more than their microseconds when the cores are shared with other work.)
  void update_rest(i64 t) override {
    if (R_ == 1) return;
    const i64 p0 = start(t), p1 = p0 + width(t);
    const int w = int(p1 - p0);
    const std::vector<RowChunk> rows = row_chunks(t, p0, p1);
    const std::vector<ColChunk> cols = col_chunks(t, p0, p1);
    const i64 nrow = i64(rows.size()), ncol = i64(cols.size());
    if (nrow + ncol == 0) return;
#pragma omp parallel num_threads(threads_)
    {
#pragma omp for schedule(dynamic, 1)
      for (i64 x = 0; x < nrow + ncol; ++x) {
        if (x < ncol) {  // row panel chunk: C = D[p0:p1, cols] = min(C, P* (x) C)
          const ColChunk& c = cols[x];
          pack_row_panel(p0, w, c);
          gemm(pivot_a_.get(), pivot_na_.get(), pivot_ha_.get(), c.col0 * w, w, p0, c.col0, w,
               c.cols);
          pack_row_panel(p0, w, c);
        } else {  // column panel chunk: C = D[rows, p0:p1] = min(C, C (x) P*)
          const RowChunk& r = rows[x - ncol];
          pack_col_panel(p0, w, r);
          gemm(pa_.get() + r.packed, at(pna_, r.packed), at(pha_, r.packed), -1, w, r.row0, p0,
               r.rows, w);
          pack_col_panel(p0, w, r);
        }
      }
#pragma omp for schedule(dynamic, 1) nowait
      for (i64 x = 0; x < nrow * ncol; ++x) {
        const RowChunk& r = rows[x / ncol];
        const ColChunk& c = cols[x % ncol];
        gemm(pa_.get() + r.packed, at(pna_, r.packed), at(pha_, r.packed), c.col0 * w, w, r.row0,
             c.col0, r.rows, c.cols);
      }
    }
  }

 private:
  // Tile t covers [start(t), start(t) + width(t)): uniform tiles of B_, or the plan's bounds.
  i64 start(i64 t) const { return plan_ ? plan_->bounds[std::size_t(t)] : t * B_; }
  i64 width(i64 t) const {
    return plan_ ? plan_->bounds[std::size_t(t + 1)] - plan_->bounds[std::size_t(t)]
                 : std::min<i64>(B_, n_ - t * B_);
  }
  static i32* at(const AlignedBuffer<i32>& b, i64 off) { return b.get() ? b.get() + off : nullptr; }

  // C = D[row0 : row0+m, col0 : col0+n] = min(C, A (x) B), with next hops (and hop counts) when
  // kept. A: packed values, next hops, hop counts. B: the packed row panel at offset boff, or the
  // packed pivot when boff < 0.
  void gemm(const T* pa, const i32* pna, const i32* pha, i64 boff, int k, i64 row0, i64 col0, i64 m,
            i64 n) const {
    const T* pb = boff < 0 ? pivot_b_.get() : pb_.get() + boff;
    const i32* phb = !H_ ? nullptr : boff < 0 ? pivot_hb_.get() : phb_.get() + boff;
    const i64 at_n = row0 * ldn_ + col0;
    cpu::gemm(ks_, mode_, pa, pna, pha, pb, phb, k, D_ + row0 * ld_ + col0, ld_,
              N_ ? N_ + at_n : nullptr, H_ ? H_ + at_n : nullptr, ldn_, m, n);
  }

  // Packs a chunk of the pivot row panel (B layout, with hop counts when kept) as it is now.
  void pack_row_panel(i64 p0, int w, const ColChunk& c) {
    pack_b_panel(D_ + p0 * ld_ + c.col0, H_ ? H_ + p0 * ldn_ + c.col0 : nullptr, ld_, ldn_, w,
                 c.cols, nr_, pb_.get() + c.col0 * w, H_ ? phb_.get() + c.col0 * w : nullptr);
  }
  // Packs a chunk of the pivot column panel (A layout, with next hops / hop counts) as it is now.
  void pack_col_panel(i64 p0, int w, const RowChunk& r) {
    const i64 at_n = r.row0 * ldn_ + p0;
    pack_a_panel(D_ + r.row0 * ld_ + p0, N_ ? N_ + at_n : nullptr, H_ ? H_ + at_n : nullptr, ld_,
                 ldn_, r.rows, w, mr_, pa_.get() + r.packed, at(pna_, r.packed),
                 at(pha_, r.packed));
  }

  // The row (or column) ranges round t updates: everything outside the pivot, or with a plan the
  // runs of consecutive active tiles.
  std::vector<Range> ranges(i64 t, i64 p0, i64 p1, bool rows) const {
    if (!plan_) return {Range{0, p0}, Range{p1, n_}};
    const auto& tiles = rows ? plan_->rows : plan_->cols;
    const auto& first = rows ? plan_->row_start : plan_->col_start;
    std::vector<Range> out;
    for (i64 x = first[std::size_t(t)]; x < first[std::size_t(t + 1)]; ++x) {
      const i64 b = start(tiles[std::size_t(x)]), e = b + width(tiles[std::size_t(x)]);
      if (!out.empty() && out.back().end == b)
        out.back().end = e;
      else
        out.push_back({b, e});
    }
    return out;
  }

  // Rows outside the pivot in macro-tile chunks; each range packs from a strip boundary.
  std::vector<RowChunk> row_chunks(i64 t, i64 p0, i64 p1) const {
    std::vector<RowChunk> out;
    const i64 w = p1 - p0;
    i64 base = 0;
    for (const Range r : ranges(t, p0, p1, true)) {
      for (i64 i = r.begin; i < r.end; i += mc_)
        out.push_back({i, std::min(mc_, r.end - i), base + (i - r.begin) / mr_ * mr_ * w});
      base += (r.end - r.begin + mr_ - 1) / mr_ * mr_ * w;
    }
    return out;
  }
  std::vector<ColChunk> col_chunks(i64 t, i64 p0, i64 p1) const {
    std::vector<ColChunk> out;
    for (const Range r : ranges(t, p0, p1, false))
      for (i64 j = r.begin; j < r.end; j += kMacroCols)
        out.push_back({j, std::min(kMacroCols, r.end - j)});
    return out;
  }

  T* D_;
  i64 ld_, n_;
  i32 *N_, *H_;
  i64 ldn_;
  Mode mode_;
  i64 B_, R_;
  int threads_;
  KernelSet<T> ks_;
  const TilePlan* plan_;
  int mr_, nr_;
  i64 mc_;
  AlignedBuffer<T> pa_, pb_, pivot_a_, pivot_b_;
  AlignedBuffer<i32> pna_, pivot_na_, pha_, phb_, pivot_ha_, pivot_hb_;
};

}  // namespace

// A wide pivot is closed by CpuRounds with block kInnerBlock on one thread (see close_pivot).
template <class T>
void close_tile(const KernelSet<T>& ks, Mode mode, T* p, i32* np, i32* hp, i64 ld, i64 ldn, int w) {
  if (w > kInnerBlock) {
    CpuRounds<T> inner(p, ld, w, np, hp, ldn, mode, kInnerBlock, 1, ks);
    run_rounds(inner, {});
  } else {
    ks.close_hops(p, ld, w, np, hp, ldn);
  }
}
template void close_tile(const KernelSet<std::int32_t>&, Mode, std::int32_t*, i32*, i32*, i64, i64,
                         int);
template void close_tile(const KernelSet<std::int64_t>&, Mode, std::int64_t*, i32*, i32*, i64, i64,
                         int);
template void close_tile(const KernelSet<float>&, Mode, float*, i32*, i32*, i64, i64, int);
template void close_tile(const KernelSet<double>&, Mode, double*, i32*, i32*, i64, i64, int);

namespace {

int threads_for(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

class CpuBackend final : public BackendImpl {
 public:
  std::string name() const override { return "cpu"; }
  /// Every type; host matrices padded to kPadMultiple, rounds in place; sparse rounds over any
  /// tile widths; the sparse direct engine's rows on the host's threads.
  Capabilities capabilities() const override {
    Capabilities c;
    c.pad_multiple = kPadMultiple;
    c.skips_tiles = true;
    c.sparse_rows = Capabilities::SparseRows::Host;
    return c;
  }
  int default_block(Dtype t, std::int64_t) const override { return cpu::default_block(t); }
  int effective_block(Dtype t, int block) const override { return cpu::effective_block(t, block); }
  void set_tile_plan(std::shared_ptr<const TilePlan> plan) override { plan_ = std::move(plan); }
  void run(const Graph& g, Matrix& dist, Matrix* next, int block, const SolveOptions& o,
           Timings& timings) override {
    const double t0 = omp_get_wtime();
    const Isa isa = active_isa();
    const TilePlan* plan = plan_for(g, dist, block);
    if (!next) {
      blocked_floyd_warshall(dist, nullptr, block, o.threads, isa, o.progress, false, plan);
      timings.compute = omp_get_wtime() - t0;
      return;
    }
    // Next hops: by the edges method (distances only, then one pass over the out-edges) or
    // tracked in the kernels, whichever the cost model expects to be cheaper (next_hops.hpp).
    // Either way zero-weight cycles can make next-hop walks loop (the edges rule's in most
    // columns, the tracked kernels' rarely); solve() runs repair_next_hops() on every result
    // with paths (src/core/paths_repair.cpp), which breaks each loop at the cost of the loop.
    // Tracked uses the plain strict-less kernels (about 2.3x the distances-only time) even with
    // zero-weight edges; the hop-count kernels (3-7x) stay for callers without that repair.
    const NextChoice choice = choose_next_method(g, dist, isa);
    const double t1 = omp_get_wtime();
    if (choice.method == NextMethod::Edges) {
      blocked_floyd_warshall(dist, nullptr, block, o.threads, isa, o.progress, false, plan);
      const double t2 = omp_get_wtime();
      const NextPassStats pass = next_hops_from_edges(g, dist, *next, threads_for(o.threads), isa);
      trace(choice, t1 - t0, t2 - t1, &pass);
    } else {
      blocked_floyd_warshall(dist, next, block, o.threads, isa, o.progress,
                             /*positive_weights=*/true, plan);
      trace(choice, t1 - t0, omp_get_wtime() - t1, nullptr);
    }
    timings.compute = omp_get_wtime() - t0;
  }

 private:
  // The plan solve() set, for the shape this run has (a rung of another tile size gets its own).
  const TilePlan* plan_for(const Graph& g, const Matrix& dist, int block) {
    if (!plan_ || dist.stride() == 0) return nullptr;
    const i64 B = std::min<i64>(effective_block(dist.dtype(), block), dist.stride());
    if (plan_->n != dist.stride() || plan_->B > B)
      plan_ = std::make_shared<const TilePlan>(symbolic_tiles(g, dist.stride(), B));
    return plan_.get();
  }

  std::shared_ptr<const TilePlan> plan_;
  // APSP_CPU_NEXT_TRACE=1: one line on stderr per solve with paths (for benchmarks).
  static void trace(const NextChoice& c, double choose_s, double solve_s,
                    const NextPassStats* pass) {
    if (!config::get_bool(config::Knob::CpuNextTrace)) return;
    std::fprintf(stderr, "apsp cpu next: %s (%s", next_method_name(c.method), c.why.c_str());
    if (c.why == "model")
      std::fprintf(stderr, ": edges %.3g s, tracked %.3g s, scanned arcs %.4g, %d sampled rows",
                   c.edges_s, c.tracked_s, c.scanned_arcs, c.sampled_rows);
    std::fprintf(stderr, ") choose %.4f s, solve %.4f s", choose_s, solve_s);
    if (pass)
      std::fprintf(stderr, ", lists %.4f s (%lld arcs), pass %.4f s", pass->lists_s,
                   static_cast<long long>(pass->arcs), pass->pass_s);
    std::fprintf(stderr, "\n");
  }
};

}  // namespace

int default_block(Dtype t) { return dtype_size(t) == 4 ? 256 : 128; }

int effective_block(Dtype t, int block) {
  if (block <= 0) block = default_block(t);
  return int(round_up(block, kPadMultiple));
}

bool positive_weights(const Graph& g, Dtype t) {
  double wmin = INFINITY, wmax = 0;
  detail::for_each_arc(g, [&](std::int32_t, std::int32_t, double w) {  // a dense view in place
    wmin = std::min(wmin, w);
    wmax = std::max(wmax, std::fabs(w));
  });
  if (!(wmin > 0)) return wmin == INFINITY;  // no edges: nothing to tie
  if (is_integer(t)) return true;
  const double unit = t == Dtype::Float32 ? 0x1p-24 : 0x1p-53;
  return wmin > 4 * unit * wmax * double(std::max<std::int64_t>(g.num_vertices, 1));
}

void blocked_floyd_warshall(Matrix& dist, Matrix* next, int block, int threads, Isa isa,
                            const ProgressFn& progress, bool positive, const TilePlan* plan) {
  if (dist.stride() == 0) return;
  const int B = int(std::min<i64>(effective_block(dist.dtype(), block), dist.stride()));
  visit_dtype(dist.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const i64 n = dist.stride(), ldn = next ? next->stride() : 0;
    APSP_EXPECTS(dist.alloc_rows() >= n, "CPU matrix has fewer rows than its padded size");
    APSP_EXPECTS(!next || (next->alloc_rows() >= n && ldn >= n),
                 "CPU next-hop matrix smaller than the distances");
    const Mode mode = !next ? Mode::Distances : positive ? Mode::NextHops : Mode::HopCounts;
    AlignedBuffer<i32> hops;
    if (mode == Mode::HopCounts) {
      // Hop counts: 1 for an edge, 0 on the diagonal and where unreachable (never compared there:
      // an unreachable sum is never smaller, and equal only to an unreachable entry, whose next
      // hop stays -1 either way).
      hops.resize(n * ldn);
      const i32* nx = next->data<i32>();
      i32* h = hops.get();
#pragma omp parallel for num_threads(threads_for(threads)) schedule(static)
      for (i64 i = 0; i < n; ++i)
        for (i64 j = 0; j < ldn; ++j) h[i * ldn + j] = nx[i * ldn + j] >= 0 ? 1 : 0;
    }
    CpuRounds<T> rounds(dist.data<T>(), dist.stride(), n, next ? next->data<i32>() : nullptr,
                        hops.get(), ldn, mode, B, threads_for(threads), kernels_for<T>(isa), plan);
    run_rounds(rounds, progress);
  });
}

}  // namespace apsp::detail::cpu

namespace apsp::detail {

std::unique_ptr<BackendImpl> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

BackendInfo cpu_backend_info() {
  std::string detail = std::to_string(omp_get_max_threads()) + " threads, ";
  try {
    detail += std::string(cpu::isa_name(cpu::active_isa())) + " kernels";
  } catch (const Error& e) {
    detail += e.what();
  }
  return {"cpu", true, true, detail};
}

}  // namespace apsp::detail
