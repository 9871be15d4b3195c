# missing_parts.cpp is apsp_lib's own (the top level adds it); libapsp_core.so has src/plugin/loader.cpp.
file(GLOB APSP_CORE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
list(REMOVE_ITEM APSP_CORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/missing_parts.cpp)
target_sources(apsp_core_objs PRIVATE ${APSP_CORE_SOURCES})
