# tests/mpi.cmake — the mpi backend under `mpirun` (included by tests/CMakeLists.txt).
#
# mpi_lib_npN:  test_mpi (library: stripes vs the cpu backend, next hops too) on N = 2, 3, 4 ranks
#               (test_mpi also runs as one rank through gtest discovery).
# mpi_cli_*:    the CLI end to end: `apsp generate`, then `apsp solve --backend mpi` under
#               `mpirun -np N` and `--backend cpu`, outputs compared byte for byte (tests/mpi_compare.sh).
# Sizes are small (V <= 1000) and odd, so no size divides by the grid: CI has 2 cores.
if(NOT APSP_HAVE_MPI)
  return()
endif()
find_program(APSP_SH sh REQUIRED)
set(APSP_MPIRUN ${MPIEXEC_EXECUTABLE})
if(NOT APSP_MPIRUN)
  set(APSP_MPIRUN mpirun)
endif()
# OpenMPI refuses root without these; oversubscription lets 4 ranks share 2 cores.
set(APSP_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_NUM_THREADS=1")
if(APSP_SANITIZE)
  # OpenMPI itself leaks at exit (also inside MCA plugins it has unloaded, which LeakSanitizer
  # cannot name or suppress): leak checks off under mpirun; ASan's memory-error checks stay on.
  list(APPEND APSP_MPI_ENV "ASAN_OPTIONS=detect_leaks=0")
endif()

if(TARGET test_mpi)
  foreach(np 2 3 4)
    add_test(NAME mpi_lib_np${np} COMMAND ${APSP_MPIRUN} -np ${np} $<TARGET_FILE:test_mpi>)
    set_tests_properties(mpi_lib_np${np} PROPERTIES ENVIRONMENT "${APSP_MPI_ENV}" LABELS "mpi" TIMEOUT 300)
  endforeach()
endif()

# name  ranks  vertices  edges  extra solve arguments
set(APSP_MPI_CLI_CASES
  "np1_v333     1  333  2000"
  "np2_v517     2  517  4000  --block 64"
  "np3_v401     3  401  3000  --block 32"
  "np4_v999     4  999  8000"
  "np4_v613_b32 4  613  5000  --block 32"
  "np4_paths    4  455  3000  --block 64 --paths"
  "np3_paths    3  301  4000  --block 32 --paths"
  "np4_paths256 4  777  6000  --paths"
  "np4_float32  4  377  2500  --block 32 --type float32"
  "np2_f32paths 2  250  1500  --block 64 --type float32 --paths")
foreach(case ${APSP_MPI_CLI_CASES})
  string(REGEX REPLACE " +" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 np)
  list(GET fields 2 v)
  list(GET fields 3 e)
  set(extra "")
  list(LENGTH fields count)
  if(count GREATER 4)
    list(SUBLIST fields 4 -1 extra)
  endif()
  add_test(NAME mpi_cli_${name}
           COMMAND ${APSP_SH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_compare.sh $<TARGET_FILE:apsp> ${APSP_MPIRUN} ${np}
                   ${CMAKE_CURRENT_BINARY_DIR}/mpi_work/${name} ${v} ${e} ${extra})
  set_tests_properties(mpi_cli_${name} PROPERTIES ENVIRONMENT "${APSP_MPI_ENV}" LABELS "mpi" TIMEOUT 300)
endforeach()
