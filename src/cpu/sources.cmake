# src/cpu: the CPU backend. One kernel translation unit per instruction set, each with its own
# flags; cpu_backend.cpp picks one at run time (__builtin_cpu_supports, APSP_CPU_ISA).
set(APSP_CPU_DIR ${CMAKE_CURRENT_LIST_DIR})
target_sources(apsp_core_objs PRIVATE
  ${APSP_CPU_DIR}/cpu_backend.cpp
  ${APSP_CPU_DIR}/isa.cpp
  ${APSP_CPU_DIR}/next_hops.cpp
  ${APSP_CPU_DIR}/baselines.cpp
  ${APSP_CPU_DIR}/kernels_scalar.cpp)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  target_sources(apsp_core_objs PRIVATE ${APSP_CPU_DIR}/kernels_avx2.cpp ${APSP_CPU_DIR}/kernels_avx512.cpp)
  set_source_files_properties(${APSP_CPU_DIR}/kernels_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2")
  set_source_files_properties(${APSP_CPU_DIR}/kernels_avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512vl")
  target_compile_definitions(apsp_core_objs PRIVATE APSP_CPU_X86_KERNELS=1)
endif()
