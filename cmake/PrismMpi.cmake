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

# PRISM_WITH_NCCL=AUTO lets the distributed solver's GPU ranks (CUDA and MPI both built)
# talk over NCCL when nccl.h and libnccl are found (the CUDA toolkit's, or the system's:
# /usr/include/nccl.h with libnccl-dev); ON requires them, OFF never looks. Without NCCL
# the GPU ranks use MPI through host buffers. Sets PRISM_HAVE_NCCL, PRISM_NCCL_INCLUDE_DIR
# and PRISM_NCCL_LIBRARY.
set(PRISM_HAVE_NCCL OFF)
if(NOT DEFINED PRISM_WITH_NCCL)
  set(PRISM_WITH_NCCL AUTO)
endif()
string(TOUPPER "${PRISM_WITH_NCCL}" _prism_nccl_mode)
if(NOT _prism_nccl_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PRISM_WITH_NCCL must be AUTO, ON or OFF (got '${PRISM_WITH_NCCL}')")
endif()
if(NOT _prism_nccl_mode STREQUAL "OFF")
  if(PRISM_HAVE_MPI AND PRISM_HAVE_CUDA)
    find_path(PRISM_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(PRISM_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    if(PRISM_NCCL_INCLUDE_DIR AND PRISM_NCCL_LIBRARY)
      set(PRISM_HAVE_NCCL ON)
      message(STATUS "prism: NCCL found (${PRISM_NCCL_LIBRARY}); GPU ranks can use it")
    elseif(_prism_nccl_mode STREQUAL "ON")
      message(FATAL_ERROR "PRISM_WITH_NCCL=ON but nccl.h or libnccl was not found "
                          "(Debian/Ubuntu: libnccl-dev)")
    else()
      message(STATUS "prism: no NCCL found; GPU ranks use MPI through host buffers")
    endif()
  elseif(_prism_nccl_mode STREQUAL "ON")
    message(FATAL_ERROR "PRISM_WITH_NCCL=ON needs CUDA and MPI (PRISM_WITH_CUDA, PRISM_WITH_MPI)")
  endif()
endif()
