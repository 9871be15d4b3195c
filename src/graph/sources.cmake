# src/graph: the host graph layer (docs/architecture.md): the one CSR type and its builder, the
# library Dijkstra (single- and multi-source, limit, interruption), used by every host search.
file(GLOB APSP_GRAPH_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
target_sources(apsp_core_objs PRIVATE ${APSP_GRAPH_SOURCES})
