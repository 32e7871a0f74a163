# cmake -DCMD=<program> -DPROBE=<levelzero_driver_probe> [-DENV=NAME=VALUE] -DEXPECT_RC=0|nonzero
#       -DEXPECT=<regex> -P expect_output.cmake
# Runs the program and checks its exit status and that stdout+stderr match the regex. These
# checks are for a machine without a Level Zero driver: PROBE (which asks the Level Zero loader,
# not xdispatch) decides. Where it finds a driver this prints XD_TEST_SKIP; where it finds none the
# check runs and must pass, whatever the program's own output says about levelzero.
execute_process(COMMAND ${PROBE} RESULT_VARIABLE probe_rc OUTPUT_VARIABLE probe_out ERROR_VARIABLE probe_err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(probe_rc EQUAL 0)
  message("XD_TEST_SKIP: a Level Zero driver is present (${probe_out})")
  return()
elseif(NOT probe_rc EQUAL 1)
  message(FATAL_ERROR
          "the Level Zero driver probe ${PROBE} failed (exit status ${probe_rc}):\n${probe_out}${probe_err}")
endif()

set(env_cmd)
if(ENV)
  set(env_cmd ${CMAKE_COMMAND} -E env ${ENV})
endif()
execute_process(COMMAND ${env_cmd} ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(EXPECT_RC STREQUAL "nonzero")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a non-zero exit status, got 0. Output:\n${all}")
  endif()
elseif(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got ${rc}. Output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${all}")
endif()
message(STATUS "ok (exit status ${rc}; ${probe_out})")
