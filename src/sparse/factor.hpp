// src/sparse/factor.hpp — the numeric min-plus factorization over a SupernodalPlan (internal).
//
// Supernode K (width w, structure S of size s) keeps three dense blocks: D (w x w, K to K), L
// (s x w, S to K) and U (w x s, K to S). factorize() runs blocked Floyd-Warshall restricted to
// them, left-looking: K first takes the Schur updates L_c (x) U_c of its descendants c whose
// structure enters K, then closes D (plain FW) and applies it, L = L (x) D*, U = D* (x) U. After
// that, D[i][j], L[i][j] and U[i][j] are the shortest paths between their two vertices whose
// inner vertices all come before K's end, and every distance is a chain up the tree through U
// blocks, one D, and down through L blocks (engine.cpp's sweeps). A node's step writes only its
// own blocks: small nodes go one per thread as soon as their children are done; the heavy ones
// near the roots (and their ancestors) take every thread, each owning some of the node's rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/types.hpp"
#include "sparse/plan.hpp"

namespace apsp::detail::sparse {

/// An allocator whose value-less construct leaves elements uninitialised: the factor blocks are
/// filled by the threads that factor them (the first touch of their pages spread out).
template <class T>
struct UninitAlloc : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAlloc<U>;
  };
  UninitAlloc() = default;
  template <class U>
  UninitAlloc(const UninitAlloc<U>&) {}
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    if constexpr (sizeof...(A) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

template <class T>
struct Factors {
  std::vector<std::int64_t> d_at, l_at, u_at;  ///< offsets of each node's blocks in `v`
  std::vector<T, UninitAlloc<T>> v;
  T* d(std::int64_t k) { return v.data() + d_at[std::size_t(k)]; }
  T* l(std::int64_t k) { return v.data() + l_at[std::size_t(k)]; }
  T* u(std::int64_t k) { return v.data() + u_at[std::size_t(k)]; }
  const T* d(std::int64_t k) const { return v.data() + d_at[std::size_t(k)]; }
  const T* l(std::int64_t k) const { return v.data() + l_at[std::size_t(k)]; }
  const T* u(std::int64_t k) const { return v.data() + u_at[std::size_t(k)]; }
};

/// The factors of g (non-negative weights, exact in T) on plan p, with `threads` threads.
template <class T>
Factors<T> factorize(const Graph& g, const SupernodalPlan& p, int threads);

extern template Factors<std::int32_t> factorize(const Graph&, const SupernodalPlan&, int);
extern template Factors<std::int64_t> factorize(const Graph&, const SupernodalPlan&, int);
extern template Factors<float> factorize(const Graph&, const SupernodalPlan&, int);
extern template Factors<double> factorize(const Graph&, const SupernodalPlan&, int);

}  // namespace apsp::detail::sparse
