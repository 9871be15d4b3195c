// src/cuda/fw_kernels.cuh — the cuda backend's device code in one include (for the kernel lab in
// dev/cuda and the benchmarks): distances, matrix build and next hops from src/cuda/kernels/.
#pragma once

#include "cuda/kernels/build.cuh"
#include "cuda/kernels/distances.cuh"
#include "cuda/kernels/paths.cuh"
