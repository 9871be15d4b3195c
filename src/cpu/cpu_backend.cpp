// src/cpu/cpu_backend.cpp — CPU backend: blocked Floyd-Warshall with OpenMP over tiles.
// (Scalar first version; the SIMD micro-kernels replace the tile loops.)
#include <algorithm>
#include <omp.h>

#include "core/backend.hpp"
#include "core/rounds.hpp"

namespace apsp::detail {

namespace {

template <class T> class CpuRounds final : public RoundOps {
 public:
  CpuRounds(Matrix& d, Matrix* next, int B) : d_(d), next_(next), B_(B), R_(d.stride() / B) {}
  std::int64_t num_rounds() const override { return R_; }

  void close_pivot(std::int64_t t) override { tile_update(t, t, t, true); }
  void update_panels(std::int64_t t) override {
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t x = 0; x < 2 * R_; ++x) {
      const std::int64_t o = x % R_;
      if (o == t) continue;
      if (x < R_) tile_update(t, o, t, false);
      else tile_update(o, t, t, false);
    }
  }
  void update_rest(std::int64_t t) override {
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (std::int64_t I = 0; I < R_; ++I)
      for (std::int64_t J = 0; J < R_; ++J)
        if (I != t && J != t) tile_update(I, J, t, false);
  }

 private:
  // D[I,J] = min(D[I,J], D[I,K] (x) D[K,J]); `ordered` runs k outermost (needed when the tile
  // aliases its own inputs, i.e. the pivot closure).
  void tile_update(std::int64_t I, std::int64_t J, std::int64_t K, bool ordered) {
    (void)ordered;
    const std::int64_t s = d_.stride();
    T* D = d_.data<T>();
    std::int32_t* N = next_ ? next_->data<std::int32_t>() : nullptr;
    for (std::int64_t k = K * B_; k < (K + 1) * B_; ++k)
      for (std::int64_t i = I * B_; i < (I + 1) * B_; ++i) {
        const T dik = D[i * s + k];
        T* di = D + i * s;
        const T* dk = D + k * s;
        for (std::int64_t j = J * B_; j < (J + 1) * B_; ++j) {
          const T v = dik + dk[j];
          if (v < di[j]) {
            di[j] = v;
            if (N) N[i * s + j] = N[i * s + k];
          }
        }
      }
  }
  Matrix& d_;
  Matrix* next_;
  std::int64_t B_, R_;
};

class CpuBackend final : public BackendImpl {
 public:
  std::string name() const override { return "cpu"; }
  bool supports(Dtype) const override { return true; }
  int default_block(Dtype, std::int64_t) const override { return 64; }
  void run(const Graph&, Matrix& dist, Matrix* next, int block, const SolveOptions& o, Timings& timings) override {
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    const double t0 = omp_get_wtime();
    visit_dtype(dist.dtype(), [&](auto tag) {
      CpuRounds<decltype(tag)> r(dist, next, block);
      run_rounds(r, o.progress);
    });
    timings.compute = omp_get_wtime() - t0;
    omp_set_num_threads(saved);
  }
};

}  // namespace

std::unique_ptr<BackendImpl> make_cpu_backend() { return std::make_unique<CpuBackend>(); }
BackendInfo cpu_backend_info() {
  return {"cpu", true, true, std::to_string(omp_get_max_threads()) + " threads"};
}

}  // namespace apsp::detail
