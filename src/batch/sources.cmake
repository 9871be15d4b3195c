# src/batch: many small graphs in one call (apsp/batch.hpp), in libapsp_core with the cpu backend.
file(GLOB APSP_BATCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
target_sources(apsp_core_objs PRIVATE ${APSP_BATCH_SOURCES})
