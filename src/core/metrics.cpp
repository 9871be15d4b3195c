// src/core/metrics.cpp — MetricsReducer, the Metrics values and the fw engine (apsp/metrics.hpp;
// the other engines and compute_metrics() are in src/metrics/).
//
// Each stripe is read twice: once by rows (out-eccentricity, out reachable count and sum; rows
// split over threads) and, when closeness or harmonic centrality is asked, once by column
// ranges (one range per thread, rows walked in order so every thread streams its part of each
// row): incoming reachable count, sum and sum of 1/d. Integer sums accumulate in __int128
// (exact); float sums and the harmonic sums in double per stripe, folded into long double.
// Integer rows may also count pairs per distance (the histogram). finish_sums() turns the sums
// of any engine into Metrics.
// Definitions follow NetworkX's documentation (closeness_centrality, harmonic_centrality,
// eccentricity, diameter, radius, average_shortest_path_length, wiener_index).
#include "apsp/metrics.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "apsp/errors.hpp"
#include "metrics/engines.hpp"
#include "metrics/sums.hpp"

namespace apsp {

namespace {

using detail::WideSum;
using Wide = WideSum;
constexpr long double kInf = std::numeric_limits<long double>::infinity();

/// Stripes smaller than this (elements) are reduced on the calling thread: starting a team
/// costs more than they take (milliseconds where other processes hold the cores).
constexpr std::int64_t kParallelMinElements = std::int64_t(1) << 16;
/// The histogram's bins (distances 0 .. this - 1): 128 MiB of counts per thread at most.
constexpr std::int64_t kMaxHistogramBins = std::int64_t(1) << 24;

/// [c0, c1): thread t's share of n columns out of nt.
inline void share(std::int64_t n, int t, int nt, std::int64_t& c0, std::int64_t& c1) {
  c0 = n * t / nt;
  c1 = n * (t + 1) / nt;
}

template <class T>
void count_distance(std::vector<std::int64_t>& hist, T x) {
  if (x < 0 || x >= T(kMaxHistogramBins))
    throw UsageError("histogram: a distance of " + std::to_string(x) + " (at most " +
                     std::to_string(kMaxHistogramBins - 1) + " distinct bins)");
  const auto k = std::size_t(x);
  if (k >= hist.size()) hist.resize(std::max(k + 1, hist.size() * 2), 0);
  ++hist[k];
}

void merge_hist(std::vector<std::int64_t>& into, const std::vector<std::int64_t>& part) {
  if (part.size() > into.size()) into.resize(part.size(), 0);
  for (std::size_t k = 0; k < part.size(); ++k) into[k] += part[k];
}

}  // namespace

namespace detail {

void MetricSums::allocate(std::int64_t vertices, bool is_directed, const MetricsOptions& o,
                          Dtype t) {
  n = vertices;
  directed = is_directed;
  opt = o;
  dtype = t;
  const auto k = std::size_t(n);
  ecc.assign(k, 0);
  out_cnt.assign(k, 0);
  if (columns()) {
    in_cnt.assign(k, 0);
    harm.assign(k, 0);
  }
  if (is_integer(t)) {
    out_sum_i.assign(k, 0);
    if (columns()) in_sum_i.assign(k, 0);
  } else {
    out_sum_f.assign(k, 0);
    if (columns()) in_sum_f.assign(k, 0);
  }
}

}  // namespace detail

struct MetricsReducer::Impl {
  std::int64_t n = 0;
  bool directed = true;
  MetricsOptions opt;
  std::int64_t next_row = 0;
  bool have_dtype = false, finished = false;
  detail::MetricSums sums;
  std::vector<double> in_part, harm_part;  // this stripe's float partial sums

  template <class T>
  void add_rows(const RowBlock& b) {
    constexpr T inf = unreachable<T>();
    constexpr bool integer = std::is_integral_v<T>;
    const T* base = static_cast<const T*>(b.data);
    detail::MetricSums& m = sums;
    const bool want_hist = opt.histogram;
#pragma omp parallel if (b.rows * n >= kParallelMinElements)
    {
      std::vector<std::int64_t> hist;
#pragma omp for schedule(dynamic, 4)
      for (std::int64_t r = 0; r < b.rows; ++r) {
        const T* row = base + r * b.stride;
        std::conditional_t<integer, Wide, double> sum = 0;
        std::int64_t cnt = 0;
        T mx = 0;
        for (std::int64_t c = 0; c < n; ++c) {
          const T x = row[c];
          if (!(x < inf)) continue;
          ++cnt;
          sum += x;
          mx = std::max(mx, x);
          if constexpr (integer)
            if (want_hist) count_distance(hist, x);
        }
        const std::int64_t v = b.row0 + r;
        m.out_cnt[std::size_t(v)] = cnt;
        m.ecc[std::size_t(v)] = static_cast<long double>(mx);
        if constexpr (integer)
          m.out_sum_i[std::size_t(v)] = sum;
        else
          m.out_sum_f[std::size_t(v)] = static_cast<long double>(sum);
      }
      if (want_hist) {
#pragma omp critical(apsp_metrics_hist)
        merge_hist(m.hist, hist);
      }
    }
  }

  template <class T>
  void add_columns(const RowBlock& b) {
    constexpr T inf = unreachable<T>();
    constexpr bool integer = std::is_integral_v<T>;
    const T* base = static_cast<const T*>(b.data);
    const bool want_harm = opt.harmonic, want_sum = opt.closeness;
    detail::MetricSums& m = sums;
#pragma omp parallel if (b.rows * n >= kParallelMinElements)
    {
      std::int64_t c0, c1;
      share(n, omp_get_thread_num(), omp_get_num_threads(), c0, c1);
      for (std::int64_t c = c0; c < c1; ++c) {
        harm_part[std::size_t(c)] = 0;
        if constexpr (!integer) in_part[std::size_t(c)] = 0;
      }
      for (std::int64_t r = 0; r < b.rows; ++r) {
        const T* row = base + r * b.stride;
        for (std::int64_t c = c0; c < c1; ++c) {
          const T x = row[c];
          if (!(x < inf)) continue;
          const std::size_t k = std::size_t(c);
          ++m.in_cnt[k];
          if (want_sum) {
            if constexpr (integer)
              m.in_sum_i[k] += x;
            else
              in_part[k] += double(x);
          }
          if (want_harm && x != T(0)) harm_part[k] += 1.0 / double(x);
        }
      }
      for (std::int64_t c = c0; c < c1; ++c) {
        m.harm[std::size_t(c)] += harm_part[std::size_t(c)];
        if constexpr (!integer) m.in_sum_f[std::size_t(c)] += in_part[std::size_t(c)];
      }
    }
  }
};

MetricsReducer::MetricsReducer(std::int64_t num_vertices, bool directed,
                               const MetricsOptions& options)
    : impl_(std::make_unique<Impl>()) {
  if (num_vertices < 1) throw UsageError("metrics: the graph has no vertices");
  Impl& m = *impl_;
  m.n = num_vertices;
  m.directed = directed;
  m.opt = options;
  // The per-vertex arrays come with the first stripe (add()): by then solve() has checked V
  // against the memory available, so a huge V is refused with its message, not by the
  // allocator.
}
MetricsReducer::~MetricsReducer() = default;
MetricsReducer::MetricsReducer(MetricsReducer&&) noexcept = default;
MetricsReducer& MetricsReducer::operator=(MetricsReducer&&) noexcept = default;

void MetricsReducer::add(const RowBlock& b) {
  Impl& m = *impl_;
  if (m.finished) throw UsageError("metrics: stripe after finish()");
  if (b.cols != m.n)
    throw UsageError("metrics: a stripe of " + std::to_string(b.cols) + " columns for " +
                     std::to_string(m.n) + " vertices");
  if (b.row0 != m.next_row || b.rows < 0 || b.row0 + b.rows > m.n)
    throw UsageError("metrics: stripe of rows [" + std::to_string(b.row0) + ", " +
                     std::to_string(b.row0 + b.rows) + ") does not continue at row " +
                     std::to_string(m.next_row));
  if (b.rows > 0 && (b.stride < b.cols || !b.data))
    throw UsageError("metrics: stripe without data or stride < cols");
  if (!m.have_dtype) {
    if (m.opt.histogram && !is_integer(b.dtype))
      throw UsageError(std::string("histogram: needs integer distances (these are ") +
                       dtype_name(b.dtype) + ")");
    m.have_dtype = true;
    m.sums.allocate(m.n, m.directed, m.opt, b.dtype);
    if (m.sums.columns()) {
      m.harm_part.assign(std::size_t(m.n), 0);
      if (!is_integer(b.dtype)) m.in_part.assign(std::size_t(m.n), 0);
    }
  } else if (b.dtype != m.sums.dtype) {
    throw UsageError(std::string("metrics: a ") + dtype_name(b.dtype) + " stripe after " +
                     dtype_name(m.sums.dtype) + " ones");
  }
  visit_dtype(b.dtype, [&](auto tag) {
    using T = decltype(tag);
    m.add_rows<T>(b);
    if (m.sums.columns()) m.add_columns<T>(b);
  });
  m.next_row += b.rows;
}

RowSink MetricsReducer::sink() {
  return [this](const RowBlock& b) { add(b); };
}

Metrics MetricsReducer::finish() {
  Impl& m = *impl_;
  if (m.finished) throw UsageError("metrics: finish() called twice");
  if (m.next_row != m.n)
    throw UsageError("metrics: rows [" + std::to_string(m.next_row) + ", " + std::to_string(m.n) +
                     ") were never added");
  m.finished = true;
  return detail::finish_sums(m.sums);
}

namespace detail {

Metrics finish_sums(const MetricSums& m) {
  const std::int64_t n = m.n;
  const bool integer = is_integer(m.dtype);
  Metrics out;
  out.num_vertices = n;
  out.directed = m.directed;
  out.dtype = m.dtype;
  out.eccentricity.resize(std::size_t(n));
  out.reachable_out.resize(std::size_t(n));
  out.out_sum.resize(std::size_t(n));
  Wide total_i = 0;
  long double total_f = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    const auto k = std::size_t(v);
    out.reachable_out[k] = m.out_cnt[k] - 1;  // the diagonal's 0 was counted
    out.eccentricity[k] = out.reachable_out[k] == n - 1 ? m.ecc[k] : kInf;
    if (integer) {
      total_i += m.out_sum_i[k];
      out.out_sum[k] = static_cast<long double>(m.out_sum_i[k]);
    } else {
      total_f += m.out_sum_f[k];
      out.out_sum[k] = m.out_sum_f[k];
    }
  }
  out.total_sum = integer ? static_cast<long double>(total_i) : total_f;
  if (m.opt.histogram) {
    out.histogram = m.hist;
    if (!out.histogram.empty()) out.histogram[0] -= n;  // the diagonal
    while (out.histogram.size() > 1 && out.histogram.back() == 0) out.histogram.pop_back();
    if (!m.directed)
      for (auto& c : out.histogram) c /= 2;
  }
  if (m.columns()) {
    out.reachable_in.resize(std::size_t(n));
    for (std::int64_t v = 0; v < n; ++v)
      out.reachable_in[std::size_t(v)] = m.in_cnt[std::size_t(v)] - 1;
    if (m.opt.closeness) {
      out.in_sum.resize(std::size_t(n));
      out.closeness.resize(std::size_t(n));
      for (std::int64_t v = 0; v < n; ++v) {
        const auto k = std::size_t(v);
        const long double s = integer ? static_cast<long double>(m.in_sum_i[k]) : m.in_sum_f[k];
        out.in_sum[k] = s;
        const long double r = static_cast<long double>(out.reachable_in[k]);
        long double c = 0;
        if (s > 0 && n > 1) {
          c = r / s;
          if (m.opt.wf_improved) c *= r / static_cast<long double>(n - 1);
        }
        out.closeness[k] = static_cast<double>(c);
      }
    }
    if (m.opt.harmonic) {
      out.harmonic.resize(std::size_t(n));
      for (std::int64_t v = 0; v < n; ++v)
        out.harmonic[std::size_t(v)] = static_cast<double>(m.harm[std::size_t(v)]);
    }
  }
  return out;
}

}  // namespace detail

// ---- graph-wide values --------------------------------------------------------------------------
namespace {

[[noreturn]] void refuse(const Metrics& m, const char* what) {
  std::int64_t v = 0, reach = 0;
  if (m.extremes) {
    v = m.extremes->missing_vertex;
    reach = m.extremes->missing_reach;
  } else {
    while (v < m.num_vertices && m.reachable_out[std::size_t(v)] == m.num_vertices - 1) ++v;
    reach = m.reachable_out[std::size_t(v)];
  }
  throw UsageError(std::string(what) + ": graph is not " + (m.directed ? "strongly " : "") +
                   "connected (vertex " + std::to_string(v) + " reaches " + std::to_string(reach) +
                   " of the " + std::to_string(m.num_vertices - 1) + " others)");
}

[[noreturn]] void not_computed(const Metrics& m, const char* what) {
  throw UsageError(std::string(what) + ": not computed by the " + m.engine +
                   " engine (it finds diameter, radius, center and periphery only)");
}

}  // namespace

bool Metrics::strongly_connected() const {
  if (extremes) return extremes->connected;
  for (std::int64_t r : reachable_out)
    if (r != num_vertices - 1) return false;
  return true;
}

double Metrics::diameter(bool infinite_ok) const {
  if (!strongly_connected()) {
    if (!infinite_ok) refuse(*this, "diameter");
    return std::numeric_limits<double>::infinity();
  }
  if (extremes) return static_cast<double>(extremes->diameter);
  return static_cast<double>(*std::max_element(eccentricity.begin(), eccentricity.end()));
}

double Metrics::radius(bool infinite_ok) const {
  if (!infinite_ok && !strongly_connected()) refuse(*this, "radius");
  if (extremes) return static_cast<double>(extremes->radius);
  return static_cast<double>(*std::min_element(eccentricity.begin(), eccentricity.end()));
}

double Metrics::average_shortest_path_length(bool infinite_ok) const {
  if (extremes) not_computed(*this, "average_shortest_path_length");
  if (!strongly_connected()) {
    if (!infinite_ok) refuse(*this, "average_shortest_path_length");
    return std::numeric_limits<double>::infinity();
  }
  if (num_vertices < 2) return 0;
  const long double pairs =
      static_cast<long double>(num_vertices) * static_cast<long double>(num_vertices - 1);
  return static_cast<double>(total_sum / pairs);
}

long double Metrics::wiener_index() const {
  if (extremes) not_computed(*this, "wiener_index");
  if (!strongly_connected()) return kInf;
  return directed ? total_sum : total_sum / 2;
}

std::vector<std::int64_t> Metrics::center(bool infinite_ok) const {
  if (!infinite_ok && !strongly_connected()) refuse(*this, "center");
  if (extremes) return extremes->center;
  const long double r = *std::min_element(eccentricity.begin(), eccentricity.end());
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v < num_vertices; ++v)
    if (eccentricity[std::size_t(v)] == r) out.push_back(v);
  return out;
}

std::vector<std::int64_t> Metrics::periphery(bool infinite_ok) const {
  if (!infinite_ok && !strongly_connected()) refuse(*this, "periphery");
  if (extremes) return extremes->periphery;
  const long double d = *std::max_element(eccentricity.begin(), eccentricity.end());
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v < num_vertices; ++v)
    if (eccentricity[std::size_t(v)] == d) out.push_back(v);
  return out;
}

double Metrics::effective_diameter(double q) const {
  if (extremes) not_computed(*this, "effective_diameter");
  long double total = 0;
  for (std::int64_t c : histogram) total += static_cast<long double>(c);
  if (total <= 0) return 0;
  const long double want = static_cast<long double>(q) * total;
  long double below = 0;
  std::int64_t prev = 0;
  for (std::size_t d = 0; d < histogram.size(); ++d) {
    if (histogram[d] == 0) continue;
    const long double upto = below + static_cast<long double>(histogram[d]);
    if (upto >= want) {
      const long double f = (want - below) / static_cast<long double>(histogram[d]);
      return static_cast<double>(static_cast<long double>(prev) +
                                 f * static_cast<long double>(std::int64_t(d) - prev));
    }
    below = upto;
    prev = std::int64_t(d);
  }
  return static_cast<double>(histogram.size() - 1);
}

namespace detail {

Metrics fw_metrics(const Graph& g, const SolveOptions& options, const MetricsOptions& which) {
  MetricsReducer reducer(g.num_vertices, g.directed, which);
  SolveOptions o = options;
  RowSink mine = reducer.sink();
  if (options.dist_sink) {
    RowSink theirs = options.dist_sink;
    o.dist_sink = [theirs, mine](const RowBlock& b) {
      theirs(b);
      mine(b);
    };
  } else {
    o.dist_sink = mine;
  }
  Result r = solve(g, o);
  Metrics m = reducer.finish();
  m.backend = r.backend;
  return m;
}

}  // namespace detail

}  // namespace apsp
