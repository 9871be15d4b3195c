# apps/bench: the drivers of `apsp bench`, compiled into the CLI (apsp), not into apsp_lib.
# bench_cpu.cpp always; bench_cuda.cu with the CUDA backend's flags (src/cuda/sources.cmake sets
# APSP_CUDA_FLAGS), bench_missing.cpp otherwise (a hip-only build has no bench driver either).
set(APSP_BENCH_DIR ${CMAKE_CURRENT_LIST_DIR})
target_sources(apsp PRIVATE ${APSP_BENCH_DIR}/bench_cpu.cpp)
# `apsp bench --backend cpu` runs SciPy's floyd_warshall side by side through this script.
set_source_files_properties(${APSP_BENCH_DIR}/bench_cpu.cpp PROPERTIES
  COMPILE_DEFINITIONS "APSP_CPU_SCIPY_SCRIPT=\"${CMAKE_CURRENT_SOURCE_DIR}/bench/cpu/scipy_fw.py\"")
if(APSP_HAVE_CUDA)
  target_sources(apsp PRIVATE ${APSP_BENCH_DIR}/bench_cuda.cu)
  set_source_files_properties(${APSP_BENCH_DIR}/bench_cuda.cu PROPERTIES COMPILE_OPTIONS "${APSP_CUDA_FLAGS}")
else()
  target_sources(apsp PRIVATE ${APSP_BENCH_DIR}/bench_missing.cpp)
endif()
# The drivers time the library's own kernels, so they alone of apps/ see src/ (the rest of the
# CLI includes only include/apsp: docs/architecture.md, "rooms").
set_property(SOURCE ${APSP_BENCH_DIR}/bench_cpu.cpp ${APSP_BENCH_DIR}/bench_cuda.cu
             APPEND PROPERTY INCLUDE_DIRECTORIES ${CMAKE_CURRENT_SOURCE_DIR}/src)
