# src/mpi: the mpi backend (CPU ranks, 2D block-cyclic tiles). The top level includes this file
# always; the backend is built only when MPI was found (APSP_HAVE_MPI, which also defines
# APSP_WITH_MPI on apsp_lib).
if(APSP_HAVE_MPI)
  target_sources(apsp_lib PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mpi_backend.cpp)
  target_link_libraries(apsp_lib PUBLIC MPI::MPI_CXX)
endif()
