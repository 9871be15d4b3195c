// src/order/batches.cpp — rounds of a tile plan grouped by elimination-tree height, and the
// launch tasks of each batch (batches.hpp).
#include "order/batches.hpp"

#include <algorithm>
#include <utility>

#include "apsp/errors.hpp"

namespace apsp::detail {

namespace {

/// Round k's columns as the batch addresses them: tiles, or the word tiles holding them.
std::vector<std::int32_t> columns_of(const TilePlan& p, std::int64_t k, bool words) {
  return words ? word_tiles(p.cols_with_pivot(k)) : p.cols_with_pivot(k);
}

/// Appends batch `rs` (its rounds, in order) with its tasks to b.
void add_batch(RoundBatches& b, const TilePlan& p, const std::vector<std::int64_t>& rs,
               bool words) {
  RoundBatch batch;
  batch.round0 = std::int64_t(b.rounds.size());
  batch.nrounds = std::int64_t(rs.size());
  batch.closure0 = std::int64_t(b.closure.size());
  batch.panel0 = std::int64_t(b.panels.size());
  batch.rest0 = std::int64_t(b.rest.size());
  // Every (tile written, contribution) of the batch's rest, then grouped by the tile.
  struct Write {
    std::int64_t key;  // I * (R + 1) + J
    BatchTask c;
  };
  std::vector<Write> writes;
  std::vector<BatchTask> col_panels;
  std::int64_t row_at = 0, col_at = 0;
  for (std::size_t s = 0; s < rs.size(); ++s) {
    const std::int64_t k = rs[s];
    const std::int32_t t = std::int32_t(k);
    const std::vector<std::int32_t> rows = p.rows_with_pivot(k);
    const std::vector<std::int32_t> cols = columns_of(p, k, words);
    const std::int32_t ri = std::int32_t(b.rounds.size());
    b.rounds.push_back(BatchRound{t, std::int32_t(rows.size()), std::int32_t(cols.size()),
                                  std::int32_t(s), row_at, col_at});
    row_at += std::int64_t(rows.size());
    col_at += std::int64_t(cols.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      b.closure.push_back({ri, rows[i] == t ? -1 : rows[i], std::int32_t(i), 0});
    for (std::size_t j = 0; j < cols.size(); ++j)
      b.panels.push_back({ri, 0, cols[j], std::int32_t(j)});
    for (std::size_t i = 0; i < rows.size(); ++i)
      col_panels.push_back({ri, 1, rows[i], std::int32_t(i)});
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t j = 0; j < cols.size(); ++j)
        writes.push_back({std::int64_t(rows[i]) * (p.R + 1) + cols[j],
                          BatchTask{ri, std::int32_t(i), std::int32_t(j), 0}});
  }
  batch.nrowpanel = std::int64_t(b.panels.size()) - batch.panel0;
  b.panels.insert(b.panels.end(), col_panels.begin(), col_panels.end());
  // Ancestor x ancestor tiles (and, with words, word tiles two rounds share) get several
  // contributions: one task each, the longest first.
  std::stable_sort(writes.begin(), writes.end(),
                   [](const Write& x, const Write& y) { return x.key < y.key; });
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [first, last) in writes
  for (std::size_t i = 0; i < writes.size();) {
    std::size_t e = i + 1;
    while (e < writes.size() && writes[e].key == writes[i].key) ++e;
    groups.push_back({i, e});
    i = e;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) {
    return x.second - x.first > y.second - y.first;
  });
  for (const auto& [first, last] : groups) {
    const std::int64_t key = writes[first].key;
    b.rest.push_back({std::int32_t(key / (p.R + 1)), std::int32_t(key % (p.R + 1)),
                      std::int32_t(b.contrib.size()), std::int32_t(last - first)});
    for (std::size_t i = first; i < last; ++i) b.contrib.push_back(writes[i].c);
  }
  batch.nclosure = std::int64_t(b.closure.size()) - batch.closure0;
  batch.npanel = std::int64_t(b.panels.size()) - batch.panel0;
  batch.nrest = std::int64_t(b.rest.size()) - batch.rest0;
  b.batched_rounds += batch.nrounds;
  b.items.push_back(BatchItem{-1, std::int64_t(b.batches.size())});
  b.batches.push_back(batch);
}

}  // namespace

namespace {

/// The height of every tile in the tile elimination tree (parent(k) = the first listed row or
/// column after k); false unless every subtree is a run of tiles [lo, k] ending at its root and
/// every listed tile of k is k's descendant or ancestor (what makes the rounds of unrelated
/// subtrees independent).
bool tile_heights(const TilePlan& p, std::vector<std::int64_t>& height) {
  const std::int64_t R = p.R;
  auto row_begin = [&](std::int64_t k) { return p.rows.begin() + p.row_start[std::size_t(k)]; };
  auto row_end = [&](std::int64_t k) { return p.rows.begin() + p.row_start[std::size_t(k) + 1]; };
  auto col_begin = [&](std::int64_t k) { return p.cols.begin() + p.col_start[std::size_t(k)]; };
  auto col_end = [&](std::int64_t k) { return p.cols.begin() + p.col_start[std::size_t(k) + 1]; };
  const std::size_t tiles = std::size_t(R);
  std::vector<std::int64_t> parent(tiles, -1), lo(tiles, 0), size(tiles, 1);
  height.assign(tiles, 0);
  for (std::int64_t k = 0; k < R; ++k) {
    const auto r = std::upper_bound(row_begin(k), row_end(k), std::int32_t(k));
    const auto c = std::upper_bound(col_begin(k), col_end(k), std::int32_t(k));
    std::int64_t up = R;
    if (r != row_end(k)) up = std::min<std::int64_t>(up, *r);
    if (c != col_end(k)) up = std::min<std::int64_t>(up, *c);
    parent[std::size_t(k)] = up < R ? up : -1;
    lo[std::size_t(k)] = k;
  }
  // Children come before their parent, so one ascending pass gives every subtree's lowest tile,
  // size and height.
  for (std::int64_t k = 0; k < R; ++k) {
    const std::int64_t u = parent[std::size_t(k)];
    if (u < 0) continue;
    lo[std::size_t(u)] = std::min(lo[std::size_t(u)], lo[std::size_t(k)]);
    size[std::size_t(u)] += size[std::size_t(k)];
    height[std::size_t(u)] = std::max(height[std::size_t(u)], height[std::size_t(k)] + 1);
  }
  // Post-order: every subtree is the tiles [lo, k]. Then "I descends from k" is lo(k) <= I <= k.
  for (std::int64_t k = 0; k < R; ++k)
    if (k - lo[std::size_t(k)] + 1 != size[std::size_t(k)]) return false;
  auto related = [&](std::int64_t k, std::int64_t I) {
    return I < k ? lo[std::size_t(k)] <= I : lo[std::size_t(I)] <= k;
  };
  for (std::int64_t k = 0; k < R; ++k) {
    for (auto it = row_begin(k); it != row_end(k); ++it)
      if (!related(k, *it)) return false;
    for (auto it = col_begin(k); it != col_end(k); ++it)
      if (!related(k, *it)) return false;
  }
  return true;
}

/// The rounds of one height (independent): batched within the limits, or alone.
void batch_level(RoundBatches& b, const TilePlan& p, const std::vector<std::int64_t>& level,
                 const BatchLimits& lim) {
  std::vector<std::int64_t> batch;
  std::int64_t rows = 0, cols = 0;
  auto flush = [&] {
    if (batch.size() == 1) b.items.push_back(BatchItem{batch[0], -1});
    if (batch.size() > 1) add_batch(b, p, batch, lim.words);
    batch.clear();
    rows = cols = 0;
  };
  for (const std::int64_t k : level) {
    const std::int64_t nr = p.row_start[std::size_t(k) + 1] - p.row_start[std::size_t(k)] + 1;
    const std::int64_t nc = p.col_start[std::size_t(k) + 1] - p.col_start[std::size_t(k)] + 1;
    if (level.size() == 1 || nr * nc >= lim.alone_tiles) {
      b.items.push_back(BatchItem{k, -1});
      continue;
    }
    if (!batch.empty() && (rows + nr > lim.row_tiles || cols + nc > lim.col_tiles ||
                           std::int64_t(batch.size()) >= lim.slots))
      flush();
    if (nr > lim.row_tiles || nc > lim.col_tiles) {  // cannot share the scratch: alone
      b.items.push_back(BatchItem{k, -1});
      continue;
    }
    batch.push_back(k);
    rows += nr;
    cols += nc;
  }
  flush();
}

}  // namespace

RoundBatches batch_rounds(const TilePlan& p, const BatchLimits& lim) {
  APSP_EXPECTS(lim.row_tiles > 0 && lim.col_tiles > 0 && lim.slots > 0,
               "batch_rounds: empty limits");
  RoundBatches b;
  const std::int64_t R = p.R;
  if (R <= 0 || std::int64_t(p.row_start.size()) != R + 1 ||
      std::int64_t(p.col_start.size()) != R + 1)
    return b;
  std::vector<std::int64_t> height;
  if (!tile_heights(p, height)) return b;
  std::int64_t top = 0;
  for (const std::int64_t h : height) top = std::max(top, h);
  std::vector<std::vector<std::int64_t>> by_height(std::size_t(top) + 1);
  for (std::int64_t k = 0; k < R; ++k) by_height[std::size_t(height[std::size_t(k)])].push_back(k);
  b.ok = true;
  b.heights = top + 1;
  for (const std::vector<std::int64_t>& level : by_height) batch_level(b, p, level, lim);
  return b;
}

}  // namespace apsp::detail
