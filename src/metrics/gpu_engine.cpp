// src/metrics/gpu_engine.cpp — metrics_gpu_engine() where no CUDA is built (gpu_engine.hpp says
// who defines it elsewhere): no GPU engine, so the bfs engine runs on the cpu.
#include "metrics/gpu_engine.hpp"

namespace apsp::detail {

#ifndef APSP_WITH_CUDA
const MetricsGpuEngine* metrics_gpu_engine() { return nullptr; }
#endif

}  // namespace apsp::detail
