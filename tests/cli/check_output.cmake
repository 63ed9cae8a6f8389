# Runs PRISM with ARGS ("|"-separated) and checks that it exits 0 and that its console
# output matches every regular expression of EXPECT ("|"-separated).
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${PRISM} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(out "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}\n${out}")
endif()
string(REPLACE "|" ";" expected "${EXPECT}")
foreach(regex IN LISTS expected)
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "output does not match '${regex}':\n${out}")
  endif()
endforeach()
