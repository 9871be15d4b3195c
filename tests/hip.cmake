# The hip backend's kernel test (tests/hip/test_hip_kernels.cpp), built by hipcc for
# APSP_HIP_ARCHS like the backend (src/hip/sources.cmake). ctest reports it skipped (exit 77)
# where no AMD GPU is present: on such a machine the kernels are compiled only.
if(APSP_HAVE_HIP)
  set(hip_test ${CMAKE_BINARY_DIR}/apsp_hip_kernels_test)
  set(hip_flags -x hip -std=c++20 -O3 -Wall -Wextra -I${CMAKE_SOURCE_DIR}/src -I${CMAKE_SOURCE_DIR}/include)
  foreach(arch ${APSP_HIP_ARCHS})
    list(APPEND hip_flags --offload-arch=${arch})
  endforeach()
  if(APSP_WERROR)
    list(APPEND hip_flags -Werror)
  endif()
  add_custom_command(OUTPUT ${hip_test}
    COMMAND ${APSP_HIPCC} ${hip_flags} -MD -MF ${hip_test}.d
            ${CMAKE_CURRENT_LIST_DIR}/hip/test_hip_kernels.cpp -o ${hip_test}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/hip/test_hip_kernels.cpp
    DEPFILE ${hip_test}.d
    COMMENT "hipcc: the kernel test for ${APSP_HIP_ARCHS}"
    VERBATIM)
  add_custom_target(apsp_hip_kernels_test ALL DEPENDS ${hip_test})
  add_test(NAME hip_kernels COMMAND ${hip_test})
  set_tests_properties(hip_kernels PROPERTIES SKIP_RETURN_CODE 77 LABELS unit)
endif()
