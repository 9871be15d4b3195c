# tests/mpi.cmake — the mpi backend under `mpirun` (included by tests/CMakeLists.txt).
#
# mpi_lib_npN:      test_mpi (library: stripes vs the cpu backend, next hops too) on N = 2, 3, 4 CPU
#                   ranks (test_mpi also runs as one rank through gtest discovery).
# mpi_cli_*:        the CLI end to end: `apsp generate`, then `apsp solve --backend mpi` under
#                   `mpirun -np N` and `--backend cpu`, outputs compared byte for byte (tests/mpi_compare.sh).
# mpi_cli_sparse_*: the same with `--order nd` on the mpi side (tests/mpi_sparse_compare.sh).
# mpi_gpu_lib_npN:  test_mpi_gpu (GPU ranks vs the single-device backends) on N = 2 and 4 ranks; its
#                   tests skip, saying why, without a usable GPU per rank (and test the CPU fall-back).
# mpi_gpu_cli_*:    the CLI end to end on GPU ranks (APSP_MPI_GPU=1) vs `--backend cpu`; skipped
#                   (exit 77) when nvidia-smi lists fewer GPUs than ranks.
# The CPU-rank tests pin APSP_MPI_GPU=0 so that they test CPU ranks on GPU machines too. Sizes are
# small (V <= 1337) and odd, so no size divides by the grid: CI has 2 cores.
if(NOT APSP_HAVE_MPI)
  return()
endif()
find_program(APSP_SH sh REQUIRED)
set(APSP_MPIRUN ${MPIEXEC_EXECUTABLE})
if(NOT APSP_MPIRUN)
  set(APSP_MPIRUN mpirun)
endif()
# OpenMPI refuses root without these; oversubscription lets 4 ranks share 2 cores.
# APSP_CPU_NEXT=tracked: the cpu backend's next hops from its kernels, the arithmetic the mpi
# backend repeats (src/cpu/next_hops.hpp), so that the .next files compare byte for byte.
set(APSP_MPI_ENV_BASE "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_NUM_THREADS=1;APSP_CPU_NEXT=tracked")
if(APSP_SANITIZE)
  # OpenMPI itself leaks at exit (also inside MCA plugins it has unloaded, which LeakSanitizer
  # cannot name or suppress): leak checks off under mpirun; ASan's memory-error checks stay on.
  list(APPEND APSP_MPI_ENV_BASE "ASAN_OPTIONS=detect_leaks=0")
endif()
set(APSP_MPI_ENV ${APSP_MPI_ENV_BASE} "APSP_MPI_GPU=0")
# GPU ranks: forced on, NVLink multicast off (the device machines' rule; harmless elsewhere), not
# bound to one core each (mpirun's default for np <= 2 slows GPU ranks ~1.6x; docs/distributed.md).
set(APSP_MPI_GPU_ENV ${APSP_MPI_ENV_BASE} "APSP_MPI_GPU=1" "NCCL_NVLS_ENABLE=0" "OMPI_MCA_hwloc_base_binding_policy=none")

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

# Sparse rounds through the CLI (tests/mpi_sparse_compare.sh): `--backend mpi --order nd` on CPU
# ranks against `--backend cpu --order none`, distances byte for byte (registered only in builds
# with METIS). Odd sizes: a 37 x 41 grid with zero weights, geometric graphs.
# name  ranks  "generate arguments"  extra solve arguments
if(APSP_HAVE_METIS)
  set(APSP_MPI_SPARSE_CLI_CASES
    "np1_grid|1|--kind grid --rows 37 --cols 41 --wmin 0 --wmax 9|"
    "np2_grid_paths|2|--kind grid --rows 37 --cols 41 --wmin 0 --wmax 9|--paths"
    "np4_geometric|4|--kind geometric -V 1111 -k 4|--type float64"
    "np2_geo_paths|2|--kind geometric -V 901 -k 5|--paths --type int64")
  foreach(case ${APSP_MPI_SPARSE_CLI_CASES})
    string(REPLACE "|" ";" fields "${case}")
    list(GET fields 0 name)
    list(GET fields 1 np)
    list(GET fields 2 gen)
    list(GET fields 3 extra)
    separate_arguments(extra)
    add_test(NAME mpi_cli_sparse_${name}
             COMMAND ${APSP_SH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_sparse_compare.sh $<TARGET_FILE:apsp>
                     ${APSP_MPIRUN} ${np} ${CMAKE_CURRENT_BINARY_DIR}/mpi_work/sparse_${name} "${gen}"
                     ${extra})
    set_tests_properties(mpi_cli_sparse_${name} PROPERTIES ENVIRONMENT "${APSP_MPI_ENV}" LABELS "mpi"
                         TIMEOUT 300)
  endforeach()
endif()

# ---- GPU ranks ------------------------------------------------------------------------------------
if(TARGET test_mpi_gpu)
  foreach(np 2 4)
    add_test(NAME mpi_gpu_lib_np${np} COMMAND ${APSP_MPIRUN} -np ${np} $<TARGET_FILE:test_mpi_gpu>)
    # The tests force GPU ranks themselves where they can run; the fall-back test needs the default.
    set_tests_properties(mpi_gpu_lib_np${np} PROPERTIES ENVIRONMENT "${APSP_MPI_ENV_BASE};NCCL_NVLS_ENABLE=0;OMPI_MCA_hwloc_base_binding_policy=none"
                         LABELS "mpi;gpu" TIMEOUT 600)
  endforeach()
endif()

# Distances do not depend on the tile; with --paths both sides use the GPU tile (128), so next
# hops are identical too (mpi_compare.sh draws positive weights).
# name  ranks  vertices  edges  extra solve arguments
set(APSP_MPI_GPU_CLI_CASES
  "np2_v1337     2  1337  9000"
  "np2_paths     2  1000  6000  --block 128 --paths"
  "np2_float32   2  999   5000  --type float32"
  "np2_f32paths  2  513   3000  --block 128 --type float32 --paths"
  "np4_v1337     4  1337  9000"
  "np4_paths     4  1001  7000  --block 128 --paths")
# sh -c: skip (77) when nvidia-smi lists fewer GPUs than ranks, else run mpi_compare.sh ("$0") with
# its arguments (the ranks are "$3").
set(APSP_GPU_CLI_GUARD [=[n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); if [ "$n" -lt "$3" ]; then echo "SKIPPED: GPU ranks need $3 GPUs, nvidia-smi lists $n"; exit 77; fi; exec sh "$0" "$@"]=])
foreach(case ${APSP_MPI_GPU_CLI_CASES})
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
  add_test(NAME mpi_gpu_cli_${name}
           COMMAND ${APSP_SH} -c "${APSP_GPU_CLI_GUARD}" ${CMAKE_CURRENT_SOURCE_DIR}/mpi_compare.sh
                   $<TARGET_FILE:apsp> ${APSP_MPIRUN} ${np} ${CMAKE_CURRENT_BINARY_DIR}/mpi_work/gpu_${name} ${v} ${e}
                   ${extra})
  set_tests_properties(mpi_gpu_cli_${name} PROPERTIES ENVIRONMENT "${APSP_MPI_GPU_ENV}" LABELS "mpi;gpu"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# Other grid shapes (APSP_GRID=RxC; the default for 4 ranks is 2 x 2): 4 x 1 and 1 x 4, with paths.
foreach(shape 4x1 1x4)
  add_test(NAME mpi_cli_np4_grid${shape}
           COMMAND ${APSP_SH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_compare.sh $<TARGET_FILE:apsp> ${APSP_MPIRUN} 4
                   ${CMAKE_CURRENT_BINARY_DIR}/mpi_work/grid${shape} 409 3000 --block 32 --paths)
  set_tests_properties(mpi_cli_np4_grid${shape} PROPERTIES ENVIRONMENT "${APSP_MPI_ENV};APSP_GRID=${shape}"
                       LABELS "mpi" TIMEOUT 300)
  add_test(NAME mpi_gpu_cli_np4_grid${shape}
           COMMAND ${APSP_SH} -c "${APSP_GPU_CLI_GUARD}" ${CMAKE_CURRENT_SOURCE_DIR}/mpi_compare.sh
                   $<TARGET_FILE:apsp> ${APSP_MPIRUN} 4 ${CMAKE_CURRENT_BINARY_DIR}/mpi_work/gpu_grid${shape} 1001 7000
                   --block 128 --paths)
  set_tests_properties(mpi_gpu_cli_np4_grid${shape} PROPERTIES ENVIRONMENT "${APSP_MPI_GPU_ENV};APSP_GRID=${shape}"
                       LABELS "mpi;gpu" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
