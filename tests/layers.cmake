# scripts/check_layers.py (issue 32): the layers of docs/architecture.md over the #include lines
# and the Python package's imports (layer_check), every src/ folder on that map
# (architecture_map), and the checker itself catching planted violations (layer_check_self).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(APSP_CHECK_LAYERS ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check_layers.py
                        --root ${CMAKE_SOURCE_DIR})
  add_test(NAME layer_check COMMAND ${APSP_CHECK_LAYERS})
  add_test(NAME architecture_map COMMAND ${APSP_CHECK_LAYERS} --map)
  add_test(NAME layer_check_self COMMAND ${APSP_CHECK_LAYERS} --self-test)
  set_tests_properties(layer_check architecture_map layer_check_self
                       PROPERTIES LABELS lint TIMEOUT 60)
endif()
# scripts/check_function_length.py (issue 32): every function under src/ fits on a screen, but
# for the listed ones, which may only shrink (function_length), and the checker itself
# (function_length_self).
if(Python3_Interpreter_FOUND)
  set(APSP_CHECK_LENGTH ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check_function_length.py
                        --root ${CMAKE_SOURCE_DIR})
  add_test(NAME function_length COMMAND ${APSP_CHECK_LENGTH})
  add_test(NAME function_length_self COMMAND ${APSP_CHECK_LENGTH} --self-test)
  set_tests_properties(function_length function_length_self PROPERTIES LABELS lint TIMEOUT 60)
endif()
