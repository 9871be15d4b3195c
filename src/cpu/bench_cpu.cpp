// src/cpu/bench_cpu.cpp — `apsp bench --backend cpu` (to be written by the CPU backend work).
#include "apsp/errors.hpp"
#include "core/bench.hpp"

int apsp::detail::bench_cpu(const BenchConfig&, std::ostream&) {
  throw apsp::Error("apsp bench --backend cpu is not written yet");
}
