# The CUDA backend: the solvers' kernels (kernels/*.cuh, launched through launch.cuh), the
# single-GPU scheduler and the baselines of `apsp bench` (its driver is apps/bench/bench_cuda.cu,
# built with APSP_CUDA_FLAGS from here). Only with APSP_HAVE_CUDA,
# into apsp_cuda_objs (apsp_lib; the Python package's plugin libapsp_cuda.so).
if(APSP_HAVE_CUDA)
  file(GLOB APSP_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cu)
  target_sources(apsp_cuda_objs PRIVATE ${APSP_CUDA_SOURCES})
  # sm_90a SASS + compute_90 PTX (top-level CMakeLists sets APSP_CUDA_GENCODE), line info for
  # profilers and compute-sanitizer, and the synchronize-after-every-launch debug switch.
  separate_arguments(APSP_CUDA_FLAGS UNIX_COMMAND "${APSP_CUDA_GENCODE}")
  list(APPEND APSP_CUDA_FLAGS -lineinfo -Xcompiler=-fopenmp)
  if(APSP_CUDA_DEBUG_SYNC)
    list(APPEND APSP_CUDA_FLAGS -DAPSP_CUDA_DEBUG_SYNC=1)
  endif()
  set_source_files_properties(${APSP_CUDA_SOURCES} PROPERTIES COMPILE_OPTIONS "${APSP_CUDA_FLAGS}")
  target_link_libraries(apsp_cuda_objs PUBLIC CUDA::cudart)
  list(APPEND APSP_CUDA_PART_LIBRARIES CUDA::cudart)  # what apsp_lib and libapsp_cuda.so link
  # CMake < 3.26 has no C++20 flag for nvcc ("requires the language dialect CUDA20"): tell it.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
endif()
