# The cpu backend's thread count with OMP_PROC_BIND=close and OMP_PLACES=cores (OpenMP then
# binds the initial thread to one core at start-up) equals the count without them.
set(_args solve ${INPUT} -o backend=cpu --print-every 0)
execute_process(COMMAND ${PRISM} ${_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_PROC_BIND=close OMP_PLACES=cores
                        ${PRISM} ${_args}
                RESULT_VARIABLE rc_bound OUTPUT_VARIABLE out_bound ERROR_VARIABLE err_bound
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0 OR NOT rc_bound EQUAL 0)
  message(FATAL_ERROR "exit codes ${rc} and ${rc_bound}:\n${out}${err}\n${out_bound}${err_bound}")
endif()
string(REGEX MATCH "threaded kernels, [0-9]+ threads?" plain "${out}${err}")
string(REGEX MATCH "threaded kernels, [0-9]+ threads?" bound "${out_bound}${err_bound}")
if(plain STREQUAL "" OR NOT plain STREQUAL bound)
  message(FATAL_ERROR "without binding: '${plain}'; with OMP_PROC_BIND=close: '${bound}'")
endif()
message(STATUS "${plain} either way")
