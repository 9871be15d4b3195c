// src/batch/gpu_engine.cpp — gpu_engine() where no CUDA is built (gpu_engine.hpp says who defines
// it elsewhere): no GPU engine, so every batch runs on the cpu.
#include "batch/gpu_engine.hpp"

namespace apsp::detail::batch {

#ifndef APSP_WITH_CUDA
const GpuEngine* gpu_engine() { return nullptr; }
#endif

}  // namespace apsp::detail::batch
