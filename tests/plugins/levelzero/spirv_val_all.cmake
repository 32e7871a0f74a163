# cmake -DSPIRV_VAL=<spirv-val> -DFILES=a.spv|b.spv -P spirv_val_all.cmake
# Validates every module with the OpenCL rules the build used, chosen by the module's SPIR-V version
# (its header's second word): 1.0 with OpenCL 2.0's, 1.1 (matmul_dpas.cl's modules) with OpenCL
# 2.2's, the OpenCL environment that accepts it; fails on the first invalid one.
string(REPLACE "|" ";" files "${FILES}")
list(LENGTH files n)
if(n EQUAL 0)
  message(FATAL_ERROR "no SPIR-V modules were built")
endif()
foreach(f ${files})
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "${f} is missing: build the xd_plugin_levelzero target first")
  endif()
  # Bytes 4..7, little endian: 00 MM mm 00 for version MM.mm.
  file(READ "${f}" header LIMIT 8 HEX)
  string(SUBSTRING "${header}" 10 4 version)
  if(version STREQUAL "0001")
    set(env opencl2.0)
  elseif(version STREQUAL "0101")
    set(env opencl2.2)
  else()
    message(FATAL_ERROR "${f}: SPIR-V header ${header} is neither version 1.0 nor 1.1")
  endif()
  execute_process(COMMAND ${SPIRV_VAL} --target-env ${env} ${f} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spirv-val rejected ${f}:\n${out}${err}")
  endif()
endforeach()
message(STATUS "spirv-val: ${n} modules valid")
