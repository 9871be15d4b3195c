# src/multigpu: the multi-gpu backend (one process, NCCL). Included by the top level; it is built
# only when CUDA and NCCL were found (APSP_HAVE_NCCL, which defines APSP_WITH_NCCL), into
# apsp_cuda_objs with the cuda backend. One translation unit, multigpu_backend.cu, includes the
# rest (workers, rounds_*, gather, gpu_rank_of .cuh): the kernels have internal linkage
# (src/cuda/kernels/), so their attributes are set and they are launched in the same file.
if(APSP_HAVE_NCCL)
  set(APSP_MULTIGPU_SOURCES ${CMAKE_CURRENT_LIST_DIR}/multigpu_backend.cu)
  target_sources(apsp_cuda_objs PRIVATE ${APSP_MULTIGPU_SOURCES})
  separate_arguments(APSP_MULTIGPU_FLAGS UNIX_COMMAND "${APSP_CUDA_GENCODE}")
  list(APPEND APSP_MULTIGPU_FLAGS -lineinfo)
  if(APSP_CUDA_DEBUG_SYNC)
    list(APPEND APSP_MULTIGPU_FLAGS -DAPSP_CUDA_DEBUG_SYNC=1)
  endif()
  set_source_files_properties(${APSP_MULTIGPU_SOURCES} PROPERTIES COMPILE_OPTIONS "${APSP_MULTIGPU_FLAGS}")
  target_include_directories(apsp_cuda_objs PRIVATE ${NCCL_INCLUDE_DIR})
  list(APPEND APSP_CUDA_PART_LIBRARIES ${NCCL_LIBRARY})
endif()
