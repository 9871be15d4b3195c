#include "apsp/errors.hpp"
#include "core/bench.hpp"

int apsp::detail::bench_cpu(const BenchConfig&, std::ostream&) {
  throw apsp::Error("apsp bench --backend cpu is not written yet");
}
