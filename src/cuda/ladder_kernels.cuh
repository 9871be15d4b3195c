// src/cuda/ladder_kernels.cuh — the type ladder's device code (int16x2 rounds, band checks), kept
// as an include name for the kernel lab in dev/cuda: src/cuda/kernels/int16x2.cuh.
#pragma once

#include "cuda/kernels/int16x2.cuh"
