# Runs PRISM solve PROBLEM --print-every 1 --solution x.mtx into `head -c 1`, which exits
# after one byte; prism must finish, write the solution and exit 0.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${PRISM} solve ${PROBLEM} --print-every 1 --solution x.mtx
                COMMAND head -c 1
                WORKING_DIRECTORY ${WORKDIR} RESULTS_VARIABLE codes OUTPUT_QUIET)
list(GET codes 0 rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "prism into a closed pipe: exit '${rc}', expected 0")
endif()
if(NOT EXISTS ${WORKDIR}/x.mtx)
  message(FATAL_ERROR "prism into a closed pipe wrote no solution")
endif()
