# `prism solve` under mpiexec on 2 ranks (LAUNCHER, '|'-separated): a solve that converges
# (exit 0, rank 0 alone logs, the solution file complete, the report's distributed object),
# one that does not (exit 2 on every rank, so from mpiexec) and errors (exit 1, one
# "prism: error:" line).
string(REPLACE "|" ";" _launcher "${LAUNCHER}")

function(run_prism code_var out_var)
  execute_process(COMMAND ${_launcher} ${PRISM} solve ${ARGN} WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${code_var} "${rc}" PARENT_SCOPE)
  set(${out_var} "${out}\n${err}" PARENT_SCOPE)
endfunction()

function(expect_count text pattern count)
  string(REGEX MATCHALL "${pattern}" _hits "${text}")
  list(LENGTH _hits _n)
  if(NOT _n EQUAL count)
    message(FATAL_ERROR "'${pattern}' appears ${_n} times, expected ${count}:\n${text}")
  endif()
endfunction()

file(REMOVE ${WORKDIR}/mpi_solution.mtx ${WORKDIR}/mpi_report.json)
run_prism(rc out ${PROBLEM} --solution mpi_solution.mtx --print-every 0
          -o output.report=mpi_report.json)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}, expected 0:\n${out}")
endif()
expect_count("${out}" "prism: solving mpi_solve" 1)
expect_count("${out}" "on 2 MPI ranks" 1)
expect_count("${out}" "status +converged" 1)
expect_count("${out}" "ranks +2 cpu ranks over mpi \\(rows" 1)
# The report's distributed object.
file(READ ${WORKDIR}/mpi_report.json _report)
expect_count("${_report}" "\"distributed\": {" 1)
expect_count("${_report}" "\"ranks\": 2," 1)
expect_count("${_report}" "\"transport\": \"mpi\"" 1)
file(STRINGS ${WORKDIR}/mpi_solution.mtx _lines)
list(LENGTH _lines _n)
if(NOT _n EQUAL 8002)  # the banner, the size line, 8000 values
  message(FATAL_ERROR "the solution file has ${_n} lines, expected 8002")
endif()

run_prism(rc out ${PROBLEM} -o solver.max_iterations=2 --print-every 0)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "not converged: exit code ${rc}, expected 2:\n${out}")
endif()
expect_count("${out}" "iteration limit" 1)

run_prism(rc out ${PROBLEM} -o solver.cg_variant=fast)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "bad key: exit code ${rc}, expected 1:\n${out}")
endif()
expect_count("${out}" "prism: error: " 1)
expect_count("${out}" "solver.cg_variant: unknown value 'fast'" 1)

# The whole matrix is checked as one process checks it, before it is cut.
run_prism(rc out ${UNSYMMETRIC})
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "unsymmetric matrix: exit code ${rc}, expected 1:\n${out}")
endif()
expect_count("${out}" "prism: error: [^\n]*not symmetric" 1)
message(STATUS "ok")
