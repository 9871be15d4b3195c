// src/hip/hip_backend.hip.cpp — the `hip` backend (AMD GPUs): the cuda backend's own source,
// src/cuda/cuda_backend.cu with its solver, launch layer and kernels, compiled by hipcc. The
// vendor differences live in src/gpu/ (runtime.hpp, intrinsics.cuh) and the per-target kernel
// parameters in src/cuda/kernels/distances.cuh; nothing here is a copy. docs/amd.md.
#include "cuda/cuda_backend.cu"
