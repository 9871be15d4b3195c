// src/cpu/isa.cpp — which instruction set the CPU kernels use: detection, the APSP_CPU_ISA
// override, and the table lookup.
#include <atomic>
#include <cstdlib>
#include <string>

#include "apsp/errors.hpp"
#include "core/config.hpp"
#include "cpu/kernels.hpp"

namespace apsp::detail::cpu {

namespace {
// -1 = automatic, else the forced Isa.
std::atomic<int> g_forced{-1};
}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx2:
      return "avx2";
    case Isa::Scalar:
      break;
  }
  return "scalar";
}

bool isa_supported(Isa isa) {
  if (isa == Isa::Scalar) return true;
#if defined(APSP_CPU_X86_KERNELS)
  __builtin_cpu_init();
  if (isa == Isa::Avx2) return __builtin_cpu_supports("avx2");
  if (isa == Isa::Avx512)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#endif
  return false;
}

Isa detected_isa() {
  if (isa_supported(Isa::Avx512)) return Isa::Avx512;
  if (isa_supported(Isa::Avx2)) return Isa::Avx2;
  return Isa::Scalar;
}

void force_isa(std::optional<Isa> isa) {
  if (isa && !isa_supported(*isa))
    throw UsageError(std::string("this CPU (or build) cannot run the ") + isa_name(*isa) +
                     " kernels");
  g_forced = isa ? int(*isa) : -1;
}

Isa active_isa() {
  const int forced = g_forced.load();
  if (forced >= 0) return Isa(forced);
  if (const std::string s = config::get_choice(config::Knob::CpuIsa); s != "auto") {
    const Isa isa = s == "avx512" ? Isa::Avx512 : s == "avx2" ? Isa::Avx2 : Isa::Scalar;
    if (!isa_supported(isa))
      throw UsageError("APSP_CPU_ISA=" + s + ": this CPU (or build) cannot run it");
    return isa;
  }
  return detected_isa();
}

template <class T>
KernelSet<T> kernels_for(Isa isa) {
#if defined(APSP_CPU_X86_KERNELS)
  if (isa == Isa::Avx512) return avx512_kernels(T{});
  if (isa == Isa::Avx2) return avx2_kernels(T{});
#endif
  (void)isa;
  return scalar_kernels(T{});
}
template KernelSet<std::int32_t> kernels_for<std::int32_t>(Isa);
template KernelSet<std::int64_t> kernels_for<std::int64_t>(Isa);
template KernelSet<float> kernels_for<float>(Isa);
template KernelSet<double> kernels_for<double>(Isa);

}  // namespace apsp::detail::cpu
