# src/io: one file per format (reader + writer) plus the shared helpers and the public dispatch.
target_sources(apsp_core_objs PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_prefill.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_policy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nthu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dimacs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mtx.cpp
  ${CMAKE_CURRENT_LIST_DIR}/edgelist.cpp
  ${CMAKE_CURRENT_LIST_DIR}/edgelist_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/weight_parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sniff.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gzip.cpp)
