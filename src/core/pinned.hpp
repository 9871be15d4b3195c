// src/core/pinned.hpp — page-locked host memory when the CUDA backend is built (internal).
#pragma once
#include <cstddef>

namespace apsp::detail {
/// Page-locked allocation, or nullptr when CUDA is not built / no device / it failed.
void* pinned_alloc(std::size_t bytes);
void pinned_free(void* p);
}  // namespace apsp::detail
