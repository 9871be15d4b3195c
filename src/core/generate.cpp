// src/core/generate.cpp — deterministic random graph generators (uniform, R-MAT, grid,
// geometric, planar mesh).
//
// Every random number is a pure function of (seed, stream, index) via a hashed SplitMix64 state,
// so a graph is the same for a seed on any machine, compiler and thread count (no std::
// distributions). uniform: E distinct ordered pairs, shuffled; R-MAT: quadrant descent with
// scrambled ids; grid; k-nearest geometric; jittered triangulated mesh (Euclidean weights).
// What each draws and how: docs/io.md ("Generating a graph").
// Reference: Chakrabarti, Zhan & Faloutsos, "R-MAT: a recursive model for graph mining", SDM 2004.
#include "apsp/generate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "apsp/errors.hpp"

namespace apsp {

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// SplitMix64 started at a hash of (seed, stream, index).
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
      : s_(mix64(mix64(seed ^ mix64(stream + kGolden)) ^ mix64(index + 2 * kGolden))) {}
  std::uint64_t next() { return mix64(s_ += kGolden); }
  /// Uniform in [0, n) (n >= 1), without bias: draws below a power-of-two mask, rejects >= n.
  std::uint64_t below(std::uint64_t n) {
    if (n <= 1) return 0;
    std::uint64_t mask = n - 1;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    for (;;) {
      const std::uint64_t x = next() & mask;
      if (x < n) return x;
    }
  }
  /// Uniform real in [0, 1).
  double unit() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

enum Stream : std::uint64_t {
  kPairs = 1,
  kShuffle = 2,
  kWeights = 3,
  kRmat = 4,
  kScramble = 5,
  kPoints = 6
};

constexpr std::int64_t kMaxEdges = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxAbsWeight = std::int64_t{1} << 53;

void check_weights(std::int64_t wmin, std::int64_t wmax) {
  if (wmin > wmax)
    throw UsageError("weight range [" + std::to_string(wmin) + ", " + std::to_string(wmax) +
                     "] is empty");
  if (wmin < -kMaxAbsWeight || wmax > kMaxAbsWeight)
    throw UsageError("weights must lie within +-2^53 (exact as doubles)");
}

void check_edges(std::int64_t E) {
  if (E < 0) throw UsageError("edge count " + std::to_string(E) + " is negative");
  if (E > kMaxEdges)
    throw UsageError("edge count " + std::to_string(E) + " exceeds " + std::to_string(kMaxEdges) +
                     " (the NTHU format's int32 E)");
}

/// Fills g.weight[e] uniformly in [wmin, wmax], one random stream per edge index.
void fill_weights(Graph& g, std::int64_t wmin, std::int64_t wmax, std::uint64_t seed) {
  const auto range = std::uint64_t(wmax - wmin) + 1;
  const auto E = std::int64_t(g.src.size());
  g.weight.resize(std::size_t(E));
  double* w = g.weight.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < E; ++e) {
    Rng r(seed, kWeights, std::uint64_t(e));
    w[e] = double(wmin + std::int64_t(r.below(range)));
  }
  g.integer_weights = true;
}

/// Sorts values below `bound` (LSD radix, 11 bits a pass: 3 passes for the course's V = 30000
/// instead of std::sort's ~log2(E) passes over 5M keys). generate_uniform(30000, 5M) on the
/// 2-core dev box, old (std::sort) vs new alternating: 1.30 1.22 1.12 1.14 1.20 1.81 s vs
/// 0.52 0.56 0.45 0.74 1.14 0.85 s.
void radix_sort(std::vector<std::uint64_t>& a, std::uint64_t bound) {
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  const int bits = bound > 1 ? 64 - std::countl_zero(bound - 1) : 1;
  std::vector<std::uint64_t> tmp(a.size());
  std::vector<std::size_t> count(kBuckets + 1);
  for (int shift = 0; shift < bits; shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    for (const std::uint64_t x : a) ++count[((x >> shift) & (kBuckets - 1)) + 1];
    for (std::size_t b = 1; b <= kBuckets; ++b) count[b] += count[b - 1];
    for (const std::uint64_t x : a) tmp[count[(x >> shift) & (kBuckets - 1)]++] = x;
    a.swap(tmp);
  }
}

/// k distinct values from [0, total), sorted; deterministic per seed.
std::vector<std::uint64_t> distinct_sample(std::uint64_t total, std::uint64_t k,
                                           std::uint64_t seed) {
  std::vector<std::uint64_t> keys;
  keys.reserve(k);
  for (std::uint64_t round = 0; keys.size() < k; ++round) {
    const std::size_t have = keys.size(), need = std::size_t(k) - have;
    keys.resize(have + need);
    std::uint64_t* out = keys.data() + have;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(need); ++i) {
      Rng r(seed, kPairs + (round << 8), std::uint64_t(i));
      out[i] = r.below(total);
    }
    radix_sort(keys, total);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
  return keys;
}

}  // namespace

Graph generate_uniform(std::int64_t V, std::int64_t E, std::int64_t wmin, std::int64_t wmax,
                       std::uint64_t seed) {
  if (V < 1 || V > kMaxVertices)
    throw UsageError("vertex count " + std::to_string(V) + " is outside 1.." +
                     std::to_string(kMaxVertices));
  check_edges(E);
  check_weights(wmin, wmax);
  const auto total = std::uint64_t(V) * std::uint64_t(V - 1);  // < 2^62
  if (std::uint64_t(E) > total)
    throw UsageError("E = " + std::to_string(E) + " exceeds V*(V-1) = " + std::to_string(total) +
                     ", the number of distinct pairs without self loops");

  // Pair index k <-> (u, v): u = k / (V-1), v = the (k mod (V-1))-th vertex other than u.
  std::vector<std::uint64_t> keys;
  if (std::uint64_t(E) <= total / 2) {
    keys = distinct_sample(total, std::uint64_t(E), seed);
  } else {
    const std::vector<std::uint64_t> left_out =
        distinct_sample(total, total - std::uint64_t(E), seed);
    keys.reserve(std::size_t(E));
    std::size_t x = 0;
    for (std::uint64_t k = 0; k < total; ++k) {
      if (x < left_out.size() && left_out[x] == k) {
        ++x;
        continue;
      }
      keys.push_back(k);
    }
  }
  // Random file order (Fisher-Yates, one stream).
  Rng shuffle(seed, kShuffle, 0);
  for (std::size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[shuffle.below(i)]);

  Graph g;
  g.num_vertices = V;
  g.directed = true;
  g.src.resize(keys.size());
  g.dst.resize(keys.size());
  const auto vm1 = std::uint64_t(V - 1);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < std::int64_t(keys.size()); ++e) {
    const std::uint64_t u = keys[std::size_t(e)] / vm1, r = keys[std::size_t(e)] % vm1;
    g.src[std::size_t(e)] = std::int32_t(u);
    g.dst[std::size_t(e)] = std::int32_t(r >= u ? r + 1 : r);
  }
  fill_weights(g, wmin, wmax, seed);
  return g;
}

Graph generate_rmat(int scale, std::int64_t E, std::int64_t wmin, std::int64_t wmax,
                    std::uint64_t seed) {
  if (scale < 0 || scale > 30)
    throw UsageError("R-MAT scale " + std::to_string(scale) + " is outside 0..30");
  check_edges(E);
  check_weights(wmin, wmax);
  if (scale == 0 && E > 0)
    throw UsageError("R-MAT scale 0 has one vertex: every edge would be a self loop");
  const std::uint64_t V = std::uint64_t{1} << scale, mask = V - 1;
  constexpr double a = 0.57, b = 0.19, c = 0.19;

  // Seeded bijection of [0, 2^scale): odd multipliers and xor-shifts are each invertible mod
  // 2^scale.
  Rng sr(seed, kScramble, 0);
  const std::uint64_t m1 = sr.next() | 1, m2 = sr.next() | 1, x1 = sr.next() & mask;
  const int shift = std::max(1, scale / 2);
  auto scramble = [=](std::uint64_t x) {
    x = ((x ^ x1) * m1) & mask;
    x ^= x >> shift;
    return (x * m2) & mask;
  };

  Graph g;
  g.num_vertices = std::int64_t(V);
  g.directed = true;
  g.src.resize(std::size_t(E));
  g.dst.resize(std::size_t(E));
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < E; ++e) {
    Rng r(seed, kRmat, std::uint64_t(e));
    std::uint64_t u, v;
    do {
      u = v = 0;
      for (int level = 0; level < scale; ++level) {
        const double p = r.unit();
        const std::uint64_t bu = p >= a + b, bv = (p >= a && p < a + b) || p >= a + b + c;
        u = (u << 1) | bu;
        v = (v << 1) | bv;
      }
    } while (u == v);
    g.src[std::size_t(e)] = std::int32_t(scramble(u));
    g.dst[std::size_t(e)] = std::int32_t(scramble(v));
  }
  fill_weights(g, wmin, wmax, seed);
  return g;
}

Graph generate_grid(std::int64_t rows, std::int64_t cols, std::int64_t wmin, std::int64_t wmax,
                    std::uint64_t seed) {
  if (rows < 1 || cols < 1)
    throw UsageError("grid " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " needs at least 1 x 1");
  if (rows > kMaxVertices / cols)
    throw UsageError("grid " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " has more than " + std::to_string(kMaxVertices) + " vertices");
  check_weights(wmin, wmax);
  const std::int64_t links = rows * (cols - 1) + cols * (rows - 1);
  check_edges(2 * links);
  Graph g;
  g.num_vertices = rows * cols;
  g.directed = true;
  g.reserve(std::size_t(2 * links));
  auto link = [&](std::int64_t u, std::int64_t v) {
    g.src.push_back(std::int32_t(u));
    g.dst.push_back(std::int32_t(v));
    g.src.push_back(std::int32_t(v));
    g.dst.push_back(std::int32_t(u));
  };
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t u = r * cols + c;
      if (c + 1 < cols) link(u, u + 1);
      if (r + 1 < rows) link(u, u + cols);
    }
  fill_weights(g, wmin, wmax, seed);
  return g;
}

namespace {

struct Point {
  double x, y;
};

/// Appends both arcs of every link (u < v) once, weighted by length * scale (rounded, >= 1).
Graph from_links(std::int64_t V, std::vector<std::pair<std::int32_t, std::int32_t>> links,
                 const std::vector<Point>& p, double scale) {
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  check_edges(2 * std::int64_t(links.size()));
  Graph g;
  g.num_vertices = V;
  g.directed = true;
  g.reserve(2 * links.size());
  for (const auto& [u, v] : links) {
    const double d = std::hypot(p[std::size_t(u)].x - p[std::size_t(v)].x,
                                p[std::size_t(u)].y - p[std::size_t(v)].y);
    const double w = std::max(1.0, std::round(d * scale));
    g.src.push_back(u), g.dst.push_back(v), g.weight.push_back(w);
    g.src.push_back(v), g.dst.push_back(u), g.weight.push_back(w);
  }
  g.integer_weights = true;
  return g;
}

void check_unit(double unit) {
  if (!(unit > 0) || unit > 1e9)
    throw UsageError("weight unit " + std::to_string(unit) + " is outside (0, 1e9]");
}

}  // namespace

Graph generate_geometric(std::int64_t V, int k, double unit, std::uint64_t seed) {
  if (V < 1 || V > kMaxVertices)
    throw UsageError("vertex count " + std::to_string(V) + " is outside 1.." +
                     std::to_string(kMaxVertices));
  if (k < 1 || k > 64)
    throw UsageError("neighbour count " + std::to_string(k) + " is outside 1..64");
  check_unit(unit);
  std::vector<Point> p(static_cast<std::size_t>(V));
  for (std::int64_t i = 0; i < V; ++i) {
    Rng r(seed, kPoints, std::uint64_t(i));
    p[std::size_t(i)].x = r.unit();
    p[std::size_t(i)].y = r.unit();
  }
  // Buckets of about two points; cell c holds order[start[c] .. start[c+1]).
  const std::int64_t G = std::max<std::int64_t>(1, std::int64_t(std::sqrt(double(V) / 2)));
  auto cell_of = [&](double x) {
    return std::min<std::int64_t>(G - 1, std::int64_t(x * double(G)));
  };
  std::vector<std::int64_t> start(std::size_t(G * G + 1), 0);
  for (const Point& q : p) ++start[std::size_t(cell_of(q.y) * G + cell_of(q.x) + 1)];
  for (std::int64_t c = 0; c < G * G; ++c) start[std::size_t(c + 1)] += start[std::size_t(c)];
  std::vector<std::int32_t> order(static_cast<std::size_t>(V));
  {
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (std::int64_t i = 0; i < V; ++i) {
      const Point& q = p[static_cast<std::size_t>(i)];
      const std::int64_t slot = fill[static_cast<std::size_t>(cell_of(q.y) * G + cell_of(q.x))]++;
      order[static_cast<std::size_t>(slot)] = std::int32_t(i);
    }
  }
  const int kk = int(std::min<std::int64_t>(k, V - 1));
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> found(
      static_cast<std::size_t>(V));
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int64_t i = 0; i < V; ++i) {
    if (kk == 0) continue;
    const Point q = p[std::size_t(i)];
    const std::int64_t cx = cell_of(q.x), cy = cell_of(q.y);
    std::vector<std::pair<double, std::int32_t>>
        best;  // (squared distance, vertex), the kk nearest
    for (std::int64_t ring = 0;; ++ring) {
      for (std::int64_t y = cy - ring; y <= cy + ring; ++y)
        for (std::int64_t x = cx - ring; x <= cx + ring; ++x) {
          if (x < 0 || y < 0 || x >= G || y >= G) continue;
          if (std::max(std::abs(x - cx), std::abs(y - cy)) != ring) continue;
          for (std::int64_t s = start[std::size_t(y * G + x)];
               s < start[std::size_t(y * G + x + 1)]; ++s) {
            const std::int32_t j = order[std::size_t(s)];
            if (j == i) continue;
            const double dx = p[std::size_t(j)].x - q.x, dy = p[std::size_t(j)].y - q.y;
            best.emplace_back(dx * dx + dy * dy, j);
          }
        }
      std::sort(best.begin(), best.end());
      if (std::int64_t(best.size()) > kk) best.resize(std::size_t(kk));
      // Points beyond this ring lie at least ring / G away.
      const double reach = double(ring) / double(G);
      if ((std::int64_t(best.size()) == kk && best.back().first <= reach * reach) || ring > G)
        break;
    }
    for (const auto& [d2, j] : best)
      found[std::size_t(i)].emplace_back(std::min(std::int32_t(i), j),
                                         std::max(std::int32_t(i), j));
  }
  std::vector<std::pair<std::int32_t, std::int32_t>> links;
  links.reserve(std::size_t(V) * std::size_t(kk));
  for (const auto& f : found) links.insert(links.end(), f.begin(), f.end());
  return from_links(V, std::move(links), p, unit * std::sqrt(double(V)));
}

Graph generate_mesh(std::int64_t rows, std::int64_t cols, double unit, std::uint64_t seed) {
  if (rows < 1 || cols < 1)
    throw UsageError("mesh " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " needs at least 1 x 1");
  if (rows > kMaxVertices / cols)
    throw UsageError("mesh " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " has more than " + std::to_string(kMaxVertices) + " vertices");
  check_unit(unit);
  const std::int64_t V = rows * cols;
  std::vector<Point> p(static_cast<std::size_t>(V));
  for (std::int64_t i = 0; i < V; ++i) {  // lattice point, moved up to 0.3 spacing each way
    Rng r(seed, kPoints, std::uint64_t(i));
    p[std::size_t(i)].x = double(i % cols) + 0.6 * (r.unit() - 0.5);
    p[std::size_t(i)].y = double(i / cols) + 0.6 * (r.unit() - 0.5);
  }
  auto d2 = [&](std::int64_t a, std::int64_t b) {
    const double dx = p[std::size_t(a)].x - p[std::size_t(b)].x,
                 dy = p[std::size_t(a)].y - p[std::size_t(b)].y;
    return dx * dx + dy * dy;
  };
  std::vector<std::pair<std::int32_t, std::int32_t>> links;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t u = r * cols + c;
      if (c + 1 < cols) links.emplace_back(std::int32_t(u), std::int32_t(u + 1));
      if (r + 1 < rows) links.emplace_back(std::int32_t(u), std::int32_t(u + cols));
      if (c + 1 < cols && r + 1 < rows) {  // the shorter diagonal of the cell
        if (d2(u, u + cols + 1) <= d2(u + 1, u + cols))
          links.emplace_back(std::int32_t(u), std::int32_t(u + cols + 1));
        else
          links.emplace_back(std::int32_t(u + 1), std::int32_t(u + cols));
      }
    }
  return from_links(V, std::move(links), p, unit);  // lattice spacing 1 = the mean spacing
}

}  // namespace apsp
