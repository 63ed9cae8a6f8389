# Writes a report of PROBLEM (timing: total) and runs tools/plot_report.py (PLOT) on it
# with PYTHON: it must write the convergence plot and no phases plot, since no phase was
# timed. Prints "plot_report: skipped" (a ctest skip) without Python or matplotlib.
if(NOT PYTHON)
  message(STATUS "plot_report: skipped (no python3)")
  return()
endif()
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(STATUS "plot_report: skipped (${PYTHON} has no matplotlib)")
  return()
endif()
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${PRISM} solve ${PROBLEM} --print-every 0 --report ${WORKDIR}/r.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "prism: exit ${rc}\n${out}${err}")
endif()
execute_process(COMMAND ${PYTHON} ${PLOT} ${WORKDIR}/r.json --out-dir ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot_report.py: exit ${rc}\n${out}${err}")
endif()
if(NOT EXISTS ${WORKDIR}/timing_total_convergence.png OR EXISTS ${WORKDIR}/timing_total_phases.png)
  message(FATAL_ERROR "expected only timing_total_convergence.png:\n${out}${err}")
endif()
if(NOT err MATCHES "phases not timed \\(timing: total\\)")
  message(FATAL_ERROR "plot_report.py does not say the phases were not timed:\n${out}${err}")
endif()
