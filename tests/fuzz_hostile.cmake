# scripts/fuzz_hostile.py (issue 36): mutated inputs through `apsp solve` and malformed SciPy
# matrices through the Python module for a bounded time; per case exit code, one error line,
# peak RSS, wall time and no temporary file left. Sanitizer builds are slower and reserve
# address space: larger bounds, no --as limit, no Python part.
if(DEFINED Python_EXECUTABLE)
  set(APSP_FUZZ_PYTHON ${Python_EXECUTABLE})
else()
  find_package(Python3 COMPONENTS Interpreter)
  set(APSP_FUZZ_PYTHON ${Python3_EXECUTABLE})
endif()
if(APSP_FUZZ_PYTHON)
  set(APSP_FUZZ_ARGS --seconds 45 --max-seconds 2)
  if(APSP_SANITIZE)
    list(APPEND APSP_FUZZ_ARGS --no-as-limit --max-rss-mb 1000 --max-seconds 10)
  elseif(TARGET apsp_python)
    list(APPEND APSP_FUZZ_ARGS --python-path ${CMAKE_BINARY_DIR}/python)
  endif()
  add_test(NAME fuzz_hostile
           COMMAND ${APSP_FUZZ_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/fuzz_hostile.py
                   --apsp $<TARGET_FILE:apsp> ${APSP_FUZZ_ARGS})
  # Alone: its per-case wall-time bound measures apsp, not the tests beside it.
  set_tests_properties(fuzz_hostile PROPERTIES TIMEOUT 180 LABELS fuzz RUN_SERIAL TRUE)
endif()
