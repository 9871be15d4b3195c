# src/pipeline: solve_file() (read -> solve -> write, overlapped) and what it reads of the
# process's surroundings (launcher.cpp); the CLI's process policy is apps/process.cpp.
target_sources(apsp_core_objs PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launcher.cpp)
