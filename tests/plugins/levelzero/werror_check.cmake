# cmake -DCLANG=.. -DFLAGS=a|b -DPRELUDE=common.cl -DSOURCE=x.cl -DWORK=<dir> -P werror_check.cmake
# Re-runs the build's front-end command on one source: it must compile as is, and must fail with
# a #warning placed in front of it (proof that warnings are errors in the SPIR-V build).
string(REPLACE "|" ";" flags "${FLAGS}")
execute_process(COMMAND ${CLANG} -cc1 ${flags} -DXD_DT=f32 -include ${PRELUDE} -emit-llvm-bc -o ${WORK}/werror_ok.bc ${SOURCE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} does not compile with the build's flags:\n${err}")
endif()
file(WRITE ${WORK}/werror_warning.cl "#warning this warning must stop the build\n")
execute_process(COMMAND ${CLANG} -cc1 ${flags} -DXD_DT=f32 -include ${WORK}/werror_warning.cl -include ${PRELUDE}
                        -emit-llvm-bc -o ${WORK}/werror_bad.bc ${SOURCE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a #warning did not fail the compile: -Werror is not in effect (flags: ${flags})")
endif()
if(NOT err MATCHES "error: this warning must stop the build")
  message(FATAL_ERROR "the compile failed, but not because of the warning:\n${err}")
endif()
message(STATUS "warnings are errors: ok")
