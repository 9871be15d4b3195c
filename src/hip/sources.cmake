# The hip backend (AMD GPUs, -DAPSP_WITH_HIP=ON): src/hip/hip_backend.hip.cpp, i.e. the cuda
# backend's source, compiled by hipcc for APSP_HIP_ARCHS (gfx908 = MI100, gfx90a = MI200) into one
# object of apsp_lib, which then links libamdhip64. hipcc is called directly (Debian's ROCm 5.2
# packages give CMake's HIP language no ROCm root); the depfile keeps header changes tracked.
if(APSP_HAVE_HIP)
  set(APSP_HIP_OBJECT ${CMAKE_BINARY_DIR}/apsp_hip_backend.o)
  set(APSP_HIP_FLAGS -x hip -std=c++20 -O3 -fPIC -Wall -Wextra
      -I${CMAKE_SOURCE_DIR}/src -I${CMAKE_SOURCE_DIR}/include -DAPSP_WITH_HIP=1)
  foreach(arch ${APSP_HIP_ARCHS})
    list(APPEND APSP_HIP_FLAGS --offload-arch=${arch})
  endforeach()
  if(APSP_HAVE_CUDA)
    list(APPEND APSP_HIP_FLAGS -DAPSP_WITH_CUDA=1)
  endif()
  if(APSP_WERROR)
    list(APPEND APSP_HIP_FLAGS -Werror)
  endif()
  # The backend's two OpenMP loops (host copies) become serial under hipcc: its OpenMP runtime
  # (libomp) is not the one apsp links (libgomp).
  list(APPEND APSP_HIP_FLAGS -Wno-unknown-pragmas -Wno-source-uses-openmp)
  add_custom_command(OUTPUT ${APSP_HIP_OBJECT}
    COMMAND ${APSP_HIPCC} ${APSP_HIP_FLAGS} -MD -MF ${APSP_HIP_OBJECT}.d
            -c ${CMAKE_CURRENT_LIST_DIR}/hip_backend.hip.cpp -o ${APSP_HIP_OBJECT}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/hip_backend.hip.cpp
    DEPFILE ${APSP_HIP_OBJECT}.d
    COMMENT "hipcc: the hip backend for ${APSP_HIP_ARCHS}"
    VERBATIM)
  add_custom_target(apsp_hip_backend_object DEPENDS ${APSP_HIP_OBJECT})
endif()
