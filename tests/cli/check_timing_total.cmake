# Solves PROBLEM (timing: total) with PRISM and checks the console output: one line
# saying the phases were not timed, with the time per iteration, and no per-phase
# columns or breakdown table (they would be all zeros).
execute_process(COMMAND ${PRISM} solve ${PROBLEM} --print-every 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}\n${out}")
endif()
if(NOT out MATCHES "phases +not timed \\(timing: total\\); whole solve [0-9.]+ [mun]?s per iteration")
  message(FATAL_ERROR "no 'phases not timed (timing: total)' line:\n${out}")
endif()
# No per-phase column in the iteration table (a device loop may print no table at
# all), no breakdown table.
foreach(needle "spmv ms" "lower_solve ms" "% of bound" "share" " 0.0000")
  string(FIND "${out}" "${needle}" pos)
  if(NOT pos EQUAL -1)
    message(FATAL_ERROR "output has '${needle}' although no phase was timed:\n${out}")
  endif()
endforeach()
if(out MATCHES "iter +residual +relative[^\n]")
  message(FATAL_ERROR "the iteration table has columns after 'relative':\n${out}")
endif()
