# Installs the public headers, the libraries and an exported CMake package:
#   find_package(prism) ; target_link_libraries(app PRIVATE prism::prism)
include(CMakePackageConfigHelpers)

set(_prism_targets prism_core prism_kernels_ref prism_kernels_host)
if(PRISM_HAVE_CUDA)
  list(APPEND _prism_targets prism_kernels_cuda)
endif()
if(PRISM_HAVE_MPI)
  list(APPEND _prism_targets prism_distributed)  # prism::distributed
endif()
install(TARGETS ${_prism_targets} EXPORT prismTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS prism RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(PRISM_HAVE_MPI)
  install(DIRECTORY include/prism DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
else()
  # Without MPI there is no library behind the distributed solver's headers.
  install(DIRECTORY include/prism DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          PATTERN distributed.hpp EXCLUDE PATTERN prism_mpi.h EXCLUDE)
endif()
# The Fortran module as source, compiled by the application's own Fortran compiler.
install(FILES src/fortran/prism.f90 DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/prism)

set(_prism_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/prism)
install(EXPORT prismTargets NAMESPACE prism:: DESTINATION ${_prism_cmake_dir})
configure_package_config_file(cmake/prismConfig.cmake.in
  ${PROJECT_BINARY_DIR}/prismConfig.cmake INSTALL_DESTINATION ${_prism_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/prismConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/prismConfig.cmake
              ${PROJECT_BINARY_DIR}/prismConfigVersion.cmake
        DESTINATION ${_prism_cmake_dir})
