// apps/bench/bench_missing.cpp — `apsp bench --backend cuda` in a build without CUDA (a CPU-only
// or hip-only build): says so. With CUDA, bench_cuda.cu defines bench_cuda instead.
#include "apsp/errors.hpp"
#include "bench/bench.hpp"

int apsp::detail::bench_cuda(const BenchConfig&, std::ostream&) {
  throw BackendUnavailable("the cuda backend is not built (no CUDA compiler at configure time)");
}
