# cmake -DCLANG=.. -DFLAGS=a|b -DPRELUDE=common.cl [-DINCLUDES=y.cl|z.cl] -DSOURCE=x.cl
#       -DVARIANTS=<defs>|<defs>|... -DWORK=<dir> -P werror_check.cmake
# (INCLUDES: the sources the build compiles in front of SOURCE, after the prelude.)
# Re-runs the build's front-end command on one source for every dtype variant the build makes of
# it (each <defs> is that module's comma-separated -D set, e.g. -DXD_DT=f32,-DXD_WT=bf16,-DXD_HAS_FP64):
# each must compile as is. Then, with the first variant, the same command with a #warning placed
# in front must fail: proof that warnings are errors in the SPIR-V build.
string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" variants "${VARIANTS}")
set(includes -include ${PRELUDE})
string(REPLACE "|" ";" include_files "${INCLUDES}")
foreach(f ${include_files})
  list(APPEND includes -include ${f})
endforeach()
list(LENGTH variants nvariants)
if(nvariants EQUAL 0)
  message(FATAL_ERROR "no variant of ${SOURCE} to compile: the build makes no module of it")
endif()
file(MAKE_DIRECTORY ${WORK})

foreach(variant ${variants})
  string(REPLACE "," ";" defs "${variant}")
  execute_process(COMMAND ${CLANG} -cc1 ${flags} ${defs} ${includes}
                          -emit-llvm-bc -o ${WORK}/werror_ok.bc ${SOURCE}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} (${variant}) does not compile with the build's flags:\n${err}")
  endif()
endforeach()

list(GET variants 0 first)
string(REPLACE "," ";" defs "${first}")
file(WRITE ${WORK}/werror_warning.cl "#warning this warning must stop the build\n")
execute_process(COMMAND ${CLANG} -cc1 ${flags} ${defs} -include ${WORK}/werror_warning.cl ${includes}
                        -emit-llvm-bc -o ${WORK}/werror_bad.bc ${SOURCE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a #warning did not fail the compile: -Werror is not in effect (flags: ${flags})")
endif()
if(NOT err MATCHES "error: this warning must stop the build")
  message(FATAL_ERROR "the compile failed, but not because of the warning:\n${err}")
endif()
message(STATUS "${SOURCE}: ${nvariants} variant(s) compile with warnings as errors, and a warning fails it")
