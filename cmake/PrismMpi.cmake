# PRISM_WITH_MPI=AUTO builds the distributed solver (include/prism/distributed.hpp,
# src/distributed/, the CLI's `mpirun -np P prism solve`) when an MPI with C++ support is
# found, ON requires one, OFF never looks. Sets PRISM_HAVE_MPI; the rest of prism builds the
# same either way.
set(PRISM_HAVE_MPI OFF)
if(NOT DEFINED PRISM_WITH_MPI)
  set(PRISM_WITH_MPI AUTO)  # the dependency probe (cmake/probe) includes this file alone
endif()
string(TOUPPER "${PRISM_WITH_MPI}" _prism_mpi_mode)
if(NOT _prism_mpi_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PRISM_WITH_MPI must be AUTO, ON or OFF (got '${PRISM_WITH_MPI}')")
endif()
if(NOT _prism_mpi_mode STREQUAL "OFF")
  set(MPI_CXX_SKIP_MPICXX ON)  # the C API only: no deprecated C++ bindings
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(PRISM_HAVE_MPI ON)
    message(STATUS "prism: MPI ${MPI_CXX_VERSION} found; building the distributed solver")
  elseif(_prism_mpi_mode STREQUAL "ON")
    message(FATAL_ERROR "PRISM_WITH_MPI=ON but no MPI with C++ support was found "
                        "(Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin)")
  else()
    message(STATUS "prism: no MPI found; building without the distributed solver")
  endif()
endif()
