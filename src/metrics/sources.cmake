# src/metrics: per-source engines for graph metrics without a V x V matrix (docs/metrics.md):
# bit-parallel multi-source BFS, eccentricity bounds (the library Dijkstra: src/graph/).
file(GLOB APSP_METRICS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
target_sources(apsp_core_objs PRIVATE ${APSP_METRICS_SOURCES})
