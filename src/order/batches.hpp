// src/order/batches.hpp — elimination-tree parallelism for the sparse rounds (docs/sparse.md).
//
// Under a nested-dissection order a round's listed tiles follow the tile-level elimination tree
// (parent of tile k: the first listed row or column after k): the rows and columns before k are
// k's descendants, those after it its ancestors. So two rounds of which neither is the other's
// ancestor share no tile except ancestor x ancestor tiles, which both only lower (min-accumulate)
// and neither reads. Rounds of equal height in the tree may therefore run together: one closure,
// one panel and one rest launch for a batch of them, instead of three small launches a round
// that leave most of the GPU idle (the leaves' rounds of a 256 x 256 grid: 513 rounds of fewer
// than 132 rest tiles each). A tile that several rounds of a batch lower is one rest task that
// applies their products in turn, so no two blocks write one tile. Every tile gets the same
// candidates from the same panel values as in round order: the result is bit for bit the same,
// in every dtype. Plain host code (tested without a GPU); the cuda backend runs it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "order/symbolic.hpp"

namespace apsp::detail {

/// One round of a batch: pivot tile t, its listed rows and columns (t included, increasing),
/// where its panels live in the batch's scratch (tile columns [row_at, row_at + nrows) of the
/// column-panel scratch, [col_at, col_at + ncols) of the row-panel scratch) and its slot for
/// P* and P*^T.
struct BatchRound {
  std::int32_t t = 0, nrows = 0, ncols = 0, slot = 0;
  std::int64_t row_at = 0, col_at = 0;
};

/// A launch task: four int32, as the kernels read them (int4).
using BatchTask = std::array<std::int32_t, 4>;

/// A batch: rounds[round0, +nrounds) and its tasks, run by three launches (int16x2: four).
///  closure: {round, X, position of X among the round's rows, 0}; X = -1: close the pivot
///           (position: the pivot's); else transpose tile X of the pivot column.
///  panels:  first the row panels, {round, 0, J, position among its columns}: the row panel at
///           column J (nrowpanel of them); then the column panels, {round, 1, I, position among
///           its rows}: the column panel at tile row I.
///  rest:    {I, J, first, count}: tile (I, J) lowered by contributions first .. first+count-1
///           of `contrib`, in turn, each {round, position of I among its rows, of J among its
///           columns, 0}. Every tile the batch writes is one task, whichever rounds lower it;
///           tasks with several contributions come first (they take longest).
/// With word columns (int16x2 rounds: a column "tile" J is the 256-column word tile J holding
/// tiles 2J and 2J + 1) a round's columns are the word tiles holding its listed columns, and
/// two rounds may write one word tile although no tile of it is lowered by both: one task.
/// Rounds are indexed into RoundBatches::rounds.
struct RoundBatch {
  std::int64_t round0 = 0, nrounds = 0;
  std::int64_t closure0 = 0, nclosure = 0;
  std::int64_t panel0 = 0, npanel = 0, nrowpanel = 0;
  std::int64_t rest0 = 0, nrest = 0;
};

/// One step of the schedule: plan round `round` on its own (batch = -1), or batch `batch`.
struct BatchItem {
  std::int64_t round = -1, batch = -1;
};

struct RoundBatches {
  /// False: the plan's lists do not follow a tree laid out in post-order (not an nd order);
  /// nothing else is filled and the rounds run one by one in order.
  bool ok = false;
  std::int64_t heights = 0;         ///< height of the tile elimination tree + 1
  std::int64_t batched_rounds = 0;  ///< rounds run inside batches
  std::vector<BatchItem> items;     ///< every round exactly once, in an order that is valid
  std::vector<RoundBatch> batches;
  std::vector<BatchRound> rounds;
  std::vector<BatchTask> closure, panels, rest, contrib;
};

struct BatchLimits {
  std::int64_t row_tiles = 0;    ///< tile columns of the column-panel scratch (sum of nrows)
  std::int64_t col_tiles = 0;    ///< tile columns of the row-panel scratch (sum of ncols)
  std::int64_t slots = 0;        ///< rounds a batch (P* / P*^T slots)
  std::int64_t alone_tiles = 0;  ///< a round with at least this many rest tiles runs alone
  bool words = false;            ///< columns as int16x2 word tiles (RoundBatch)
};

/// The schedule for plan p (tiles of equal width). Rounds of equal height go together; a
/// height's big rounds (alone_tiles), and batches of one round, run alone (as plain rounds).
/// The same plan and limits give the same items (which rounds run together) with or without
/// words; the rounds' columns, panels and rest tasks differ.
RoundBatches batch_rounds(const TilePlan& p, const BatchLimits& limits);

}  // namespace apsp::detail
