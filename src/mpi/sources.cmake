# src/mpi: the mpi backend (CPU ranks or GPU ranks over the 2D block-cyclic tiles of src/dist).
# The top level includes this file always; the backend is built only when MPI was found
# (APSP_HAVE_MPI, which also defines APSP_WITH_MPI), into apsp_mpi_objs (apsp_lib; the Python
# package's plugin libapsp_mpi.so).
if(APSP_HAVE_MPI)
  target_sources(apsp_mpi_objs PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/mpi_backend.cpp
    ${CMAKE_CURRENT_LIST_DIR}/mpi_common.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cpu_ranks.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gpu_ranks.cpp)
  target_link_libraries(apsp_mpi_objs PUBLIC MPI::MPI_CXX)
  list(APPEND APSP_MPI_PART_LIBRARIES MPI::MPI_CXX)  # what apsp_lib and libapsp_mpi.so link
  if(APSP_HAVE_NCCL)  # GPU ranks: dist/gpu_rank.hpp, defined in apsp_cuda_objs (multigpu)
    target_include_directories(apsp_mpi_objs PRIVATE ${NCCL_INCLUDE_DIR})
    target_link_libraries(apsp_mpi_objs PRIVATE CUDA::cudart)
  endif()
endif()
