// src/pipeline/launcher.cpp — the launcher's rank, whether a GPU solve can run, the CUDA
// environment (launcher.hpp; the first two are public: apsp/pipeline.hpp).
#include "pipeline/launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace apsp {

bool gpu_solve_possible(const std::string& backend) {
#ifdef APSP_WITH_CUDA
  if (backend != "auto" && backend != "cuda" && backend != "multi-gpu") return false;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && (!*v || v[0] == '-')) return false;
  return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0;
#else
  (void)backend;
  return false;
#endif
}

bool launcher_rank_is_zero() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  return !rank || std::string_view(rank) == "0";
}

namespace detail {

void limit_gpu_queues(Backend backend) {
  // The single-GPU solve has at most three streams busy at once (the rounds, --paths's arc upload
  // and next-hop kernel); with CUDA's default of 8 hardware work queues per device the context
  // takes 133-137 ms to create, with 1 or 2 queues 55-67 ms
  // (bench/results/whole-process-h200-2026-11-21.md).
  if (backend == Backend::Auto || backend == Backend::Cuda)
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 0);
}

}  // namespace detail
}  // namespace apsp
