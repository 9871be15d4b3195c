// apps/bench/bench_cuda.cu — `apsp bench --backend cuda`: device-side solve times per V.
//
// For each V a course-like random graph is built on the device untimed, then each variant's
// rounds are timed with CUDA events (one warm-up, median of `trials`): the backend stream by
// stream, as one CUDA graph and its replay, int16x2 checked, with next hops, and the course's 64x64
// kernels. T updates/s = V^3 / s against the min-plus ceiling measured first
// (src/cuda/ceiling.cuh). The backend's result is checked against the CPU reference, every other
// variant against it. What each line means: docs/cuda-notes.md ("apsp bench --backend cuda").
#include "gpu/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <type_traits>
#include <vector>

#include "apsp/errors.hpp"
#include "bench/bench.hpp"
#include "ceilings.hpp"
#include "core/backend.hpp"
#include "core/reference.hpp"
#include "cuda/baseline_fw.cuh"
#include "cuda/ceiling.cuh"
#include "cuda/device_solver.cuh"

namespace apsp::detail {

namespace {

Graph course_like_graph(std::int64_t V, std::int64_t E, std::uint64_t seed) {
  Graph g;
  g.num_vertices = V;
  g.reserve(std::size_t(E));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> vert(0, std::int32_t(V - 1)), wt(0, 1000);
  while (std::int64_t(g.num_edges()) < E) {
    const std::int32_t u = vert(rng), v = vert(rng);
    if (u == v && V > 1) continue;
    g.add_edge(u, v, double(wt(rng)));
  }
  return g;
}

struct Row {
  std::int64_t V;
  std::string variant;
  double seconds, tups, pct;
  std::string check;
};

template <class T>
int bench_typed(const BenchConfig& c, std::ostream& out) {
  gpuDeviceProp p{};
  APSP_CUDA_TRY(gpuGetDeviceProperties(&p, 0));
  double ceiling = cuda::measure_minplus_ceiling<T>();
  if constexpr (std::is_same_v<T, double>)  // the better of compare + select and fmin (ceiling.cuh)
    ceiling = std::max(ceiling, cuda::measure_minplus_ceiling<T, 1>());
  apsp_cli::record_ceiling(std::string("cuda ") + p.name, dtype_name(DtypeOf<T>::value),
                           ceiling / 1e12, "T");
  out << "device: " << p.name << ", " << p.multiProcessorCount << " SMs\n";
  out << "min-plus ceiling (" << dtype_name(DtypeOf<T>::value) << ", measured now): " << std::fixed
      << std::setprecision(2) << ceiling / 1e12 << " T updates/s\n";
  std::vector<std::int64_t> sizes = c.sizes;
  if (sizes.empty()) sizes = {1000, 2048, 5000, 8192, 16384};
  const int trials = std::max(1, c.trials);

  gpuStream_t s = nullptr;
  APSP_CUDA_TRY(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking));
  gpuEvent_t e0, e1;
  APSP_CUDA_TRY(gpuEventCreate(&e0));
  APSP_CUDA_TRY(gpuEventCreate(&e1));
  std::vector<Row> rows;

  for (const std::int64_t V : sizes) {
    const std::int64_t E = c.edge_factor > 0 ? std::int64_t(c.edge_factor * double(V))
                                             : std::min<std::int64_t>(5'000'000, V * V / 4);
    const Graph g = course_like_graph(V, std::max<std::int64_t>(E, 1), c.seed + std::uint64_t(V));
    cuda::DeviceFw<T> fw(V, s);
    Matrix want(V, V, DtypeOf<T>::value), got(V, V, DtypeOf<T>::value);
    const double updates = double(V) * double(V) * double(V);

    auto time_variant = [&](const std::string& name, auto&& body) {
      std::vector<float> ms;
      for (int r = 0; r <= trials; ++r) {
        fw.build(g);
        APSP_CUDA_TRY(gpuEventRecord(e0, s));
        body();
        APSP_CUDA_TRY(gpuEventRecord(e1, s));
        APSP_CUDA_TRY(gpuEventSynchronize(e1));
        float m = 0;
        APSP_CUDA_TRY(gpuEventElapsedTime(&m, e0, e1));
        if (r) ms.push_back(m);
      }
      std::sort(ms.begin(), ms.end());
      const double sec = double(ms[ms.size() / 2]) * 1e-3;
      fw.download(got.data<T>(), V);
      APSP_CUDA_TRY(gpuStreamSynchronize(s));
      rows.push_back({V, name, sec, updates / sec, 100.0 * updates / sec / ceiling, ""});
    };

    time_variant("gemm128 stream", [&] { fw.rounds(false, {}); });
    std::string v = verify(g, got, 1100, 4, c.seed);
    rows.back().check = v.empty() ? "PASS (reference)" : "FAIL " + v;
    std::copy(got.data<T>(), got.data<T>() + V * V, want.data<T>());
    auto same = [&] {
      return std::equal(got.data<T>(), got.data<T>() + V * V, want.data<T>())
                 ? std::string("PASS (= stream)")
                 : std::string("FAIL (!= stream)");
    };
    if (fw.num_rounds() <= 64) {
      time_variant("gemm128 graph", [&] { fw.rounds(true, {}); });
      rows.back().check = same();
      // The launch-gap share alone: a graph captured once, replay timed (what a repeated solve
      // of one size would pay; one solve also pays the capture, as the line above does).
      fw.build(g);
      gpuGraphExec_t exec = fw.capture();
      time_variant("graph replay", [&] { APSP_CUDA_TRY(gpuGraphLaunch(exec, s)); });
      gpuGraphExecDestroy(exec);
      rows.back().check = same();
    }
    if constexpr (std::is_same_v<T, int>) {
      // int16x2 mode with its check (and its int32 fall-back when the check fails).
      bool kept = false;
      time_variant("int16x2 checked", [&] {
        kept = fw.rounds_s16({}, cuda::kInf16 - int(g.max_abs_weight()));
        if (!kept) fw.rounds(false, {});
      });
      fw.release_s16();
      rows.back().check = same() + (kept ? " [int16 kept]" : " [fell back to int32]");
    }
    // --paths: the distances plus the next-hop matrix (host CSR build and upload included).
    time_variant("gemm128 + next", [&] {
      fw.rounds(false, {});
      fw.start_next(g);
      fw.finish_next();
    });
    rows.back().check = same();
    if constexpr (sizeof(T) == 4) {  // the course kernel's 64x64 shared tiles are 4-byte only
      if (c.baselines) {
        time_variant("course 64x64",
                     [&] { cuda::baseline::run_course_64(fw.data(), fw.n_pad(), s); });
        rows.back().check = same();
      }
    }
  }
  gpuEventDestroy(e0);
  gpuEventDestroy(e1);
  gpuStreamDestroy(s);

  out << std::left << std::setw(8) << "V" << std::setw(17) << "variant" << std::right
      << std::setw(11) << "seconds" << std::setw(14) << "T updates/s" << std::setw(11)
      << "% ceiling"
      << "  verification\n";
  for (const Row& r : rows)
    out << std::left << std::setw(8) << r.V << std::setw(17) << r.variant << std::right
        << std::setw(11) << std::setprecision(5) << r.seconds << std::setw(14)
        << std::setprecision(3) << r.tups / 1e12 << std::setw(10) << std::setprecision(1) << r.pct
        << "%  " << r.check << "\n";
  if (!c.csv.empty()) {  // a temporary file renamed into place, errors reported (bench_cpu.cpp)
    std::ostringstream f;
    f << "device,dtype,V,variant,seconds,tupdates_per_s,pct_ceiling,ceiling_tupdates,"
         "verification\n";
    for (const Row& r : rows)
      f << '"' << p.name << "\"," << dtype_name(DtypeOf<T>::value) << ',' << r.V << ',' << r.variant
        << ',' << r.seconds << ',' << r.tups / 1e12 << ',' << r.pct << ',' << ceiling / 1e12
        << ",\"" << r.check << "\"\n";
    write_output_file(c.csv, f.str());
  }
  if (!out) throw OutputStreamFailed{};
  for (const Row& r : rows)
    if (r.check.rfind("FAIL", 0) == 0) return 1;
  return 0;
}

}  // namespace

int bench_cuda(const BenchConfig& c, std::ostream& out) {
  if (!cuda_backend_info().usable) throw BackendUnavailable("cuda: " + cuda_backend_info().detail);
  if (c.dtype == Dtype::Int32) return bench_typed<int>(c, out);
  if (c.dtype == Dtype::Float32) return bench_typed<float>(c, out);
  if (c.dtype == Dtype::Int64) return bench_typed<long>(c, out);
  return bench_typed<double>(c, out);
}

}  // namespace apsp::detail
