// src/cpu/baselines.cpp — baseline rungs of the CPU ladder (see baselines.hpp). Deliberately
// plain: their job is to be what a first careful implementation looks like.
#include "cpu/baselines.hpp"

#include <omp.h>

#include "apsp/errors.hpp"

namespace apsp::detail::cpu {

namespace {

template <class T>
void triple_loop(Matrix& m) {
  const std::int64_t n = m.rows();
  for (std::int64_t k = 0; k < n; ++k) {
    const T* dk = m.row<T>(k);
    for (std::int64_t i = 0; i < n; ++i) {
      T* di = m.row<T>(i);
      const T dik = di[k];
      for (std::int64_t j = 0; j < n; ++j)
        if (dik + dk[j] < di[j]) di[j] = dik + dk[j];
    }
  }
}

// D[I,J] = min(D[I,J], D[I,K] (+) D[K,J]) one k at a time (valid also when the tile aliases its
// inputs, as in the pivot and panel phases).
template <class T>
void tile(T* d, std::int64_t ld, std::int64_t I, std::int64_t J, std::int64_t K, int B) {
  for (std::int64_t k = K * B; k < (K + 1) * B; ++k)
    for (std::int64_t i = I * B; i < (I + 1) * B; ++i) {
      T* di = d + i * ld;
      const T dik = di[k];
      const T* dk = d + k * ld;
      for (std::int64_t j = J * B; j < (J + 1) * B; ++j)
        if (dik + dk[j] < di[j]) di[j] = dik + dk[j];
    }
}

template <class T>
void blocked_rows(Matrix& m, int B, int threads) {
  const std::int64_t ld = m.stride(), R = ld / B;
  T* d = m.data<T>();
  for (std::int64_t t = 0; t < R; ++t) {
    tile(d, ld, t, t, t, B);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t x = 0; x < R; ++x) {
      if (x == t) continue;
      tile(d, ld, t, x, t, B);
      tile(d, ld, x, t, t, B);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t I = 0; I < R; ++I) {
      if (I == t) continue;
      for (std::int64_t J = 0; J < R; ++J)
        if (J != t) tile(d, ld, I, J, t, B);
    }
  }
}

}  // namespace

void baseline_triple_loop(Matrix& dist) {
  visit_dtype(dist.dtype(), [&](auto tag) { triple_loop<decltype(tag)>(dist); });
}

void baseline_blocked_omp_rows(Matrix& dist, int block, int threads) {
  APSP_EXPECTS(block > 0 && dist.stride() % block == 0,
               "baseline: stride must be a multiple of the block");
  if (threads <= 0) threads = omp_get_max_threads();
  visit_dtype(dist.dtype(), [&](auto tag) { blocked_rows<decltype(tag)>(dist, block, threads); });
}

}  // namespace apsp::detail::cpu
