// dev/cuda/startup_probe.cu — where a fresh process's CUDA start-up time goes.
//
// Issue 3's small-V whole-process targets (V=5000 in 0.15 s) are dominated by what happens before
// the first kernel: driver init, context creation, pinned and device allocations, module load.
// This prints each step's wall time in milliseconds, in the order apsp's CLI meets them, so the
// floor a process cannot go below on this machine is measured, not guessed. Run it a few times
// (the first run after idle can be slower): scripts/gpu_check.sh --steps startup.
//
//   startup_probe [MiB of pinned host memory, default 100 = the V=5000 int32 result]
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
using Clock = std::chrono::steady_clock;
Clock::time_point g_last = Clock::now();
double g_total = 0;

void step(const char* what, bool ok) {
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - g_last).count();
  g_total += ms;
  std::printf("%-40s %8.2f ms  (total %8.2f)%s\n", what, ms, g_total, ok ? "" : "  FAILED");
  g_last = now;
}

__global__ void touch(int* p) { p[threadIdx.x] += 1; }
}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100;
  const std::size_t bytes = mib << 20;
  step("process start -> main (not measured: 0)", true);
  // Staging for the edges and stripes (16 MiB, as DeviceFw's two 8 MiB buffers): allocated and
  // touched before the driver starts (free time in apsp: the input is read meanwhile), pinned
  // after the context exists, vs cudaMallocHost of the same size.
  constexpr std::size_t kStage = std::size_t(16) << 20;
  void* early = std::aligned_alloc(4096, kStage);
  step("aligned_alloc + memset 16 MiB (before cuInit)", early && std::memset(early, 0, kStage));
  step("cuInit", cuInit(0) == CUDA_SUCCESS);
  CUdevice dev{};
  step("cuDeviceGet", cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CUcontext ctx{};
  step("cuDevicePrimaryCtxRetain (context)", cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
  step("cuCtxSetCurrent", cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  step("cudaFree(0) (runtime attaches)", cudaFree(nullptr) == cudaSuccess);
  void* d = nullptr;
  step("cudaMalloc (same size)", cudaMalloc(&d, bytes) == cudaSuccess);
  step("cudaHostRegister 16 MiB (touched before)", cudaHostRegister(early, kStage, cudaHostRegisterDefault) == cudaSuccess);
  void* h16 = nullptr;
  step("cudaMallocHost 16 MiB", cudaMallocHost(&h16, kStage) == cudaSuccess);
  void* h = nullptr;
  step("cudaMallocHost (pinned)", cudaMallocHost(&h, bytes) == cudaSuccess);
  step("first kernel launch + sync (module load)", [&] {
    touch<<<1, 32>>>(static_cast<int*>(d));
    return cudaDeviceSynchronize() == cudaSuccess;
  }());
  step("H2D pinned", cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  step("D2H pinned", cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  void* p = std::malloc(bytes);
  step("malloc (pageable)", p != nullptr);
  step("D2H pageable (first touch)", cudaMemcpy(p, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  step("D2H pageable (again)", cudaMemcpy(p, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  step("cudaFreeHost", cudaFreeHost(h) == cudaSuccess);
  cudaFreeHost(h16);
  cudaHostUnregister(early);
  std::free(early);
  step("cudaFree", cudaFree(d) == cudaSuccess);
  std::free(p);
  std::printf("pinned/device buffers: %zu MiB\n", mib);
  return 0;
}
