// src/multigpu/gpu_rank_of.cuh — an mpi GPU rank (dist/gpu_rank.hpp's GpuRank): the multi-gpu
// rounds with this rank's GPU as the one member of its Workers, communicators joined over MPI
// (RankLinks), the int16x2 and checked int32 rungs agreed over the ranks, and two pinned buffers
// for the stripes the mpi gather (src/mpi/gather.hpp) asks for. With a TilePlan the rounds are
// the multi-gpu backend's listed ones (this rank's share of the plan; docs/sparse.md).
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "core/distance_evidence.hpp"
#include "core/ladder.hpp"
#include "multigpu/rounds.cuh"
#include "multigpu/user_order.cuh"
#include "multigpu/workers.cuh"

namespace apsp::detail {
namespace multigpu {
namespace {

/// An mpi GPU rank: the round loop with this rank's GPU as its one member, and two pinned
/// buffers for the stripes it hands to the gather.
template <class T>
class GpuRankOf final : public GpuRank {
 public:
  /// `plan` (may be null: dense rounds): listed rounds over it (Workers::set_plan), whose tiles
  /// must be this solve's (uniform, kTile wide).
  GpuRankOf(int device, const Grid& grid, int rank, i64 n, Mode mode, const TilePlan* plan,
            bool checked32 = false)
      : fw_(grid, {Member{device, rank}}, n, mode),
        mode_(mode),
        checked32_(checked32),
        cols_(Layout(grid, rank, n, kTile).local_cols()) {
    APSP_EXPECTS((!checked32 || std::is_same_v<T, int>), "checked rounds are int32");
    if (plan) fw_.set_plan(*plan, "mpi GPU ranks");
  }
  bool dropped() const override { return dropped_; }
  void build(const Graph& g) override { fw_.build(g); }
  void connect(RankLinks& links) override { fw_.connect_ranks(links); }
  std::string run(const ProgressFn& progress, RankLinks& links, const Graph& g) override {
    fw_.set_progress(progress);
    std::string rounds = dtype_name(DtypeOf<T>::value);
    bool kept16 = false;
    if constexpr (std::is_same_v<T, int>) {
      // Every rank has the graph: the same decision everywhere; the memory check and the band
      // check are agreed over the ranks.
      const Graph::WeightRange range = g.validated_weight_range();
      const Int16Try policy = int16_try(g.num_vertices, range.max_abs_weight, range.min_weight);
      const double band16 = int16x2_band_low(range.max_abs_weight);
      if (mode_ == Mode::Distances && policy != Int16Try::No &&
          !links.any(!PackedRounds(fw_).fits())) {
        // Sampled evidence first where it pays (multigpu_backend.cu): agreed over the ranks.
        if (links.any(
                policy == Int16Try::IfNoEvidence &&
                evidence_skips_rung(g, band16, kInt16x2UpdatesPerGpu * double(fw_.grid_.P)))) {
          rounds = std::string(ladder_note::kInt16x2Skipped) + "int32";
        } else {
          kept16 = run_packed(fw_, progress, int(band16),
                              [&links](bool mine) { return links.any(mine); });
          rounds =
              kept16 ? ladder_note::kInt16x2 : std::string(ladder_note::kInt16x2Fell) + "int32";
        }
      }
    }
    if (!kept16) run_lookahead(fw_, progress);
    fw_.synchronize();
    if constexpr (std::is_same_v<T, int>) {
      if (checked32_) {
        const double max_w = g.validated_weight_range().max_abs_weight;
        const int lo = int(int32_band_low(max_w));
        dropped_ = links.any(!kept16 && fw_.int32_in_band(lo));
        if (dropped_) return ladder_note::kInt32BandHit;
        rounds += ladder_note::kCheckedInt32;
      }
    }
    fw_.report_profile();
    return rounds;
  }
  const void* rows_to_host(bool next_hops, i64 row0, i64 rows, int slot) override {
    PinnedArray<T>& stage = stage_[slot & 1];  // sizeof(T) >= 4: next hops fit too
    const i64 count = std::max<i64>(1, rows * cols_);
    if (stage.count < count) stage.resize(count);
    fw_.rows_to_host(next_hops, row0, rows, stage.p);
    return widened(next_hops, stage.p, rows * cols_, slot);
  }
  void reserve_user_blocks(const dist::UserOrder& o, i64 most) override {
    Gpu<T>& q = *fw_.gpus_.front();
    if (!user_ || &user_->order() != &o)
      user_ = std::make_unique<UserGather<T>>(q, o, fw_.ld(), mode_ != Mode::Distances);
    user_->template reserve<T>(most);  // sizeof(T) >= 4: int32 next hops fit too
    for (PinnedArray<T>& stage : stage_)
      if (stage.count < std::max<i64>(1, most)) stage.resize(std::max<i64>(1, most));
    if (checked32_)
      for (std::vector<long>& wide : wide_) wide.reserve(std::size_t(std::max<i64>(1, most)));
  }
  const void* user_block_to_host(const dist::UserOrder& o, bool next_hops, i64 u0, i64 u1,
                                 int slot) override {
    Gpu<T>& q = *fw_.gpus_.front();
    const i64 count = o.block_elems(o.grid.rank_of(q.L.pr, q.L.pc), u0, u1);
    reserve_user_blocks(o, count);  // a no-op after the gather's reserve
    PinnedArray<T>& stage = stage_[slot & 1];
    APSP_CUDA_TRY(cudaSetDevice(q.ordinal));
    if (next_hops)
      user_->issue(q.N.get(), true, u0, u1, reinterpret_cast<int*>(stage.p), q.main);
    else
      user_->issue(q.D.get(), false, u0, u1, stage.p, q.main);
    APSP_CUDA_TRY(cudaStreamSynchronize(q.main));
    return widened(next_hops, stage.p, count, slot);
  }

 private:
  /// `count` entries at `p` as handed out: a kept checked int32 result as int64 (the unreachable
  /// value mapped; into wide_[slot]), anything else as it is.
  const void* widened(bool next_hops, const T* p, i64 count, int slot) {
    if (!checked32_ || next_hops) return p;
    std::vector<long>& wide = wide_[slot & 1];
    wide.resize(std::size_t(std::max<i64>(1, count)));
    for (i64 x = 0; x < count; ++x) wide[std::size_t(x)] = widen_value<long>(p[x]);
    return wide.data();
  }

  Workers<T> fw_;
  std::unique_ptr<UserGather<T>> user_;  // user_block_to_host's (its order's lists on the GPU)
  Mode mode_;
  bool checked32_ = false, dropped_ = false;
  std::vector<long> wide_[2];  // checked32: the int64 rows handed out
  i64 cols_;                   // local columns (the host rows' width)
  PinnedArray<T> stage_[2];    // distances (T) or int32 next hops (4-byte T only)
};

}  // namespace
}  // namespace multigpu
}  // namespace apsp::detail
