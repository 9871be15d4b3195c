# src/pipeline: solve_file() (read -> solve -> write, overlapped) and the process policy around it.
target_sources(apsp_core_objs PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process.cpp)
