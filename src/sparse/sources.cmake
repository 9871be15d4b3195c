# src/sparse: the sparse direct engine (--order sn): supernodal min-plus factorization over a
# METIS separator tree, then every row of the closure from the factors (docs/sparse.md).
target_sources(apsp_core_objs PRIVATE ${CMAKE_CURRENT_LIST_DIR}/plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/factor.cpp ${CMAKE_CURRENT_LIST_DIR}/engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_rows.cpp ${CMAKE_CURRENT_LIST_DIR}/plan_cache.cpp)
