# src/mpi: the mpi backend (CPU ranks, 2D block-cyclic tiles). Included by the top level only
# when MPI was found; it defines APSP_WITH_MPI on apsp_lib.
target_sources(apsp_lib PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mpi_backend.cpp)
target_link_libraries(apsp_lib PUBLIC MPI::MPI_CXX)
