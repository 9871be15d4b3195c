// src/cpu/kernels_scalar.cpp — the portable CPU kernels: one lane per "vector", plain C++ that
// any compiler and CPU takes (the compiler may still vectorize it for the baseline target).
// Used where neither AVX2 nor AVX-512 is available, and forced by the tests to check the
// template on its own.
#define APSP_CPU_ISA_NS portable
#include "cpu/kernels_impl.hpp"

namespace apsp::detail::cpu::portable {
namespace {

template <class E>
struct OpsScalar {
  using T = E;
  using V = E;
  using M = bool;
  using N = i32;
  static constexpr int L = 1, kMR = 4, kNV = 8, kMRP = 4, kNVP = 8, kMRH = 4;
  static V load(const T* p) { return *p; }
  static void store(T* p, V v) { *p = v; }
  static V bcast(T x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V min(V a, V b) { return b < a ? b : a; }
  static M lt(V a, V b) { return a < b; }
  static V select(M m, V t, V f) { return m ? t : f; }
  static N nload(const i32* p) { return *p; }
  static void nstore(i32* p, N v) { *p = v; }
  static N nbcast(i32 x) { return x; }
  static N nselect(M m, N t, N f) { return m ? t : f; }
  static M eq(V a, V b) { return a == b; }
  static N nadd(N a, N b) { return a + b; }
  static M nlt(N a, N b) { return a < b; }
  static M mand(M a, M b) { return a && b; }
  static M mor(M a, M b) { return a || b; }
};

}  // namespace
}  // namespace apsp::detail::cpu::portable

namespace apsp::detail::cpu {
using namespace portable;
KernelSet<std::int32_t> scalar_kernels(std::int32_t) {
  return Kernels<OpsScalar<std::int32_t>>::table(Isa::Scalar);
}
KernelSet<std::int64_t> scalar_kernels(std::int64_t) {
  return Kernels<OpsScalar<std::int64_t>>::table(Isa::Scalar);
}
KernelSet<float> scalar_kernels(float) { return Kernels<OpsScalar<float>>::table(Isa::Scalar); }
KernelSet<double> scalar_kernels(double) { return Kernels<OpsScalar<double>>::table(Isa::Scalar); }
}  // namespace apsp::detail::cpu
