// src/gpu/runtime.hpp — the GPU runtime API the GPU backends use, spelled gpu* and mapped to
// CUDA (nvcc) or HIP (hipcc, AMD) at compile time, so one source serves both vendors.
// Each name is a plain alias or a macro naming the vendor's own function (the runtimes' overloaded
// template wrappers, e.g. cudaMalloc<T>, cannot be aliased), so the CUDA build calls exactly what
// it called before. APSP_GPU_HIP is 1 when compiling for AMD. No hipify step: this is the mapping.
// Reference: HIP's own nvidia_detail headers (the same idea in the other direction).
#pragma once

#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) || defined(APSP_GPU_FORCE_HIP)
#define APSP_GPU_HIP 1
#include <hip/hip_runtime.h>
#define APSP_GPU_VENDOR(cuda_name, hip_name) hip_name
#else
#define APSP_GPU_HIP 0
#include <cuda_runtime.h>
#define APSP_GPU_VENDOR(cuda_name, hip_name) cuda_name
#endif

// ---- types and constants ----
using gpuError_t = APSP_GPU_VENDOR(cudaError_t, hipError_t);
using gpuStream_t = APSP_GPU_VENDOR(cudaStream_t, hipStream_t);
using gpuEvent_t = APSP_GPU_VENDOR(cudaEvent_t, hipEvent_t);
using gpuGraph_t = APSP_GPU_VENDOR(cudaGraph_t, hipGraph_t);
using gpuGraphExec_t = APSP_GPU_VENDOR(cudaGraphExec_t, hipGraphExec_t);
using gpuDeviceProp = APSP_GPU_VENDOR(cudaDeviceProp, hipDeviceProp_t);
using gpuStreamCaptureStatus = APSP_GPU_VENDOR(cudaStreamCaptureStatus, hipStreamCaptureStatus);
#define gpuSuccess APSP_GPU_VENDOR(cudaSuccess, hipSuccess)
#define gpuErrorMemoryAllocation APSP_GPU_VENDOR(cudaErrorMemoryAllocation, hipErrorOutOfMemory)
#define gpuErrorNoDevice APSP_GPU_VENDOR(cudaErrorNoDevice, hipErrorNoDevice)
#define gpuErrorInsufficientDriver \
  APSP_GPU_VENDOR(cudaErrorInsufficientDriver, hipErrorInsufficientDriver)
#define gpuMemcpyHostToDevice APSP_GPU_VENDOR(cudaMemcpyHostToDevice, hipMemcpyHostToDevice)
#define gpuMemcpyDeviceToHost APSP_GPU_VENDOR(cudaMemcpyDeviceToHost, hipMemcpyDeviceToHost)
#define gpuMemcpyDeviceToDevice APSP_GPU_VENDOR(cudaMemcpyDeviceToDevice, hipMemcpyDeviceToDevice)
#define gpuEventDisableTiming APSP_GPU_VENDOR(cudaEventDisableTiming, hipEventDisableTiming)
#define gpuStreamNonBlocking APSP_GPU_VENDOR(cudaStreamNonBlocking, hipStreamNonBlocking)
#define gpuStreamCaptureStatusNone \
  APSP_GPU_VENDOR(cudaStreamCaptureStatusNone, hipStreamCaptureStatusNone)
#define gpuStreamCaptureModeThreadLocal \
  APSP_GPU_VENDOR(cudaStreamCaptureModeThreadLocal, hipStreamCaptureModeThreadLocal)
#define gpuFuncAttributeMaxDynamicSharedMemorySize             \
  APSP_GPU_VENDOR(cudaFuncAttributeMaxDynamicSharedMemorySize, \
                  hipFuncAttributeMaxDynamicSharedMemorySize)
#define gpuDevAttrMultiProcessorCount \
  APSP_GPU_VENDOR(cudaDevAttrMultiProcessorCount, hipDeviceAttributeMultiprocessorCount)
/// The default stream with legacy synchronisation (HIP's null stream behaves so).
#define gpuStreamLegacy APSP_GPU_VENDOR(cudaStreamLegacy, gpuStream_t(nullptr))

// ---- errors ----
#define gpuGetErrorString APSP_GPU_VENDOR(cudaGetErrorString, hipGetErrorString)
#define gpuGetLastError APSP_GPU_VENDOR(cudaGetLastError, hipGetLastError)
#define gpuPeekAtLastError APSP_GPU_VENDOR(cudaPeekAtLastError, hipPeekAtLastError)

// ---- devices ----
#define gpuGetDeviceCount APSP_GPU_VENDOR(cudaGetDeviceCount, hipGetDeviceCount)
#define gpuGetDevice APSP_GPU_VENDOR(cudaGetDevice, hipGetDevice)
#define gpuSetDevice APSP_GPU_VENDOR(cudaSetDevice, hipSetDevice)
#define gpuGetDeviceProperties APSP_GPU_VENDOR(cudaGetDeviceProperties, hipGetDeviceProperties)
#define gpuDeviceGetAttribute APSP_GPU_VENDOR(cudaDeviceGetAttribute, hipDeviceGetAttribute)
#define gpuDeviceSynchronize APSP_GPU_VENDOR(cudaDeviceSynchronize, hipDeviceSynchronize)
#define gpuMemGetInfo APSP_GPU_VENDOR(cudaMemGetInfo, hipMemGetInfo)
#define gpuFuncSetAttribute APSP_GPU_VENDOR(cudaFuncSetAttribute, apsp_hip_func_set_attribute)

// ---- memory ----
#define gpuMalloc APSP_GPU_VENDOR(cudaMalloc, hipMalloc)
#define gpuFree APSP_GPU_VENDOR(cudaFree, hipFree)
#define gpuMallocHost APSP_GPU_VENDOR(cudaMallocHost, hipHostMalloc)
#define gpuFreeHost APSP_GPU_VENDOR(cudaFreeHost, hipHostFree)
#define gpuMemcpy APSP_GPU_VENDOR(cudaMemcpy, hipMemcpy)
#define gpuMemcpyAsync APSP_GPU_VENDOR(cudaMemcpyAsync, hipMemcpyAsync)
#define gpuMemcpy2DAsync APSP_GPU_VENDOR(cudaMemcpy2DAsync, hipMemcpy2DAsync)
#define gpuMemsetAsync APSP_GPU_VENDOR(cudaMemsetAsync, hipMemsetAsync)

// ---- streams, events, graphs ----
#define gpuStreamCreateWithFlags \
  APSP_GPU_VENDOR(cudaStreamCreateWithFlags, hipStreamCreateWithFlags)
#define gpuStreamDestroy APSP_GPU_VENDOR(cudaStreamDestroy, hipStreamDestroy)
#define gpuStreamSynchronize APSP_GPU_VENDOR(cudaStreamSynchronize, hipStreamSynchronize)
#define gpuStreamWaitEvent APSP_GPU_VENDOR(cudaStreamWaitEvent, hipStreamWaitEvent)
#define gpuStreamIsCapturing APSP_GPU_VENDOR(cudaStreamIsCapturing, hipStreamIsCapturing)
#define gpuStreamBeginCapture APSP_GPU_VENDOR(cudaStreamBeginCapture, hipStreamBeginCapture)
#define gpuStreamEndCapture APSP_GPU_VENDOR(cudaStreamEndCapture, hipStreamEndCapture)
#define gpuEventCreate APSP_GPU_VENDOR(cudaEventCreate, hipEventCreate)
#define gpuEventCreateWithFlags APSP_GPU_VENDOR(cudaEventCreateWithFlags, hipEventCreateWithFlags)
#define gpuEventDestroy APSP_GPU_VENDOR(cudaEventDestroy, hipEventDestroy)
#define gpuEventRecord APSP_GPU_VENDOR(cudaEventRecord, hipEventRecord)
#define gpuEventSynchronize APSP_GPU_VENDOR(cudaEventSynchronize, hipEventSynchronize)
#define gpuEventElapsedTime APSP_GPU_VENDOR(cudaEventElapsedTime, hipEventElapsedTime)
#define gpuGraphInstantiate APSP_GPU_VENDOR(cudaGraphInstantiate, apsp_hip_graph_instantiate)
#define gpuGraphLaunch APSP_GPU_VENDOR(cudaGraphLaunch, hipGraphLaunch)
#define gpuGraphDestroy APSP_GPU_VENDOR(cudaGraphDestroy, hipGraphDestroy)
#define gpuGraphExecDestroy APSP_GPU_VENDOR(cudaGraphExecDestroy, hipGraphExecDestroy)

#if APSP_GPU_HIP
/// cudaFuncSetAttribute's template form (a kernel pointer); HIP takes it as const void*.
template <class F>
hipError_t apsp_hip_func_set_attribute(F* kernel, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
/// CUDA 12's three-argument cudaGraphInstantiate (flags); HIP 5.2 takes an error-node/log form.
inline hipError_t apsp_hip_graph_instantiate(hipGraphExec_t* exec, hipGraph_t graph,
                                             unsigned long long) {
  return hipGraphInstantiate(exec, graph, nullptr, nullptr, 0);
}
#endif
