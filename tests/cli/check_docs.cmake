# Checks that PAGE (docs/problem-file.md) is exactly what `PRISM options --markdown` prints,
# so the reference page cannot fall behind the parameter table.
execute_process(COMMAND ${PRISM} options --markdown
                RESULT_VARIABLE rc OUTPUT_VARIABLE generated ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "prism options --markdown failed (exit ${rc}):\n${err}")
endif()
if(NOT EXISTS "${PAGE}")
  message(FATAL_ERROR "${PAGE} is missing; generate it with:\n"
                      "  prism options --markdown > docs/problem-file.md")
endif()
file(READ "${PAGE}" committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${PAGE} is stale: it differs from `prism options --markdown`. "
                      "Regenerate it with:\n  prism options --markdown > docs/problem-file.md")
endif()
message(STATUS "ok: ${PAGE} matches prism options --markdown")
