# src/order: vertex orderings (METIS nested dissection and SuiteSparse AMD, both optional) and the symbolic tile analysis.
target_sources(apsp_core_objs PRIVATE ${CMAKE_CURRENT_LIST_DIR}/choice.cpp ${CMAKE_CURRENT_LIST_DIR}/ordering.cpp
  ${CMAKE_CURRENT_LIST_DIR}/symbolic.cpp ${CMAKE_CURRENT_LIST_DIR}/batches.cpp ${CMAKE_CURRENT_LIST_DIR}/supernodes.cpp)
if(APSP_HAVE_METIS)
  target_include_directories(apsp_core_objs PRIVATE ${METIS_INCLUDE_DIR})
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/ordering.cpp PROPERTIES COMPILE_DEFINITIONS APSP_HAVE_METIS=1)
endif()
if(APSP_HAVE_AMD)
  target_include_directories(apsp_core_objs PRIVATE ${AMD_INCLUDE_DIR})
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/supernodes.cpp PROPERTIES COMPILE_DEFINITIONS APSP_HAVE_AMD=1)
endif()
