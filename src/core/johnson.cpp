// src/core/johnson.cpp — placeholder until the paths/negative-weights work lands (issue 5).
#include "core/johnson.hpp"

#include "apsp/errors.hpp"

namespace apsp::detail {

std::vector<double> johnson_potentials(const Graph&) {
  throw UsageError("negative weights are not supported yet (Johnson reweighting is not built)");
}
Graph reweight(const Graph& g, const std::vector<double>&) { return g; }
void restore(Matrix&, const std::vector<double>&) {}

}  // namespace apsp::detail
