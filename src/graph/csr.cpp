// src/graph/csr.cpp — the Csr builder's memory check (csr.hpp).
#include "graph/csr.hpp"

#include <cmath>
#include <string>

#include "apsp/errors.hpp"

namespace apsp::detail {

void check_arc_memory(std::int64_t arcs, double bytes, std::uint64_t limit) {
  if (limit == 0 || bytes <= double(limit)) return;
  throw ResourceError("the graph's " + std::to_string(arcs) + " arcs need " +
                      std::to_string(std::llround(bytes)) + " bytes, more than this machine's " +
                      std::to_string(limit) +
                      " bytes of memory (set APSP_HOST_MEMORY to override)");
}

}  // namespace apsp::detail
