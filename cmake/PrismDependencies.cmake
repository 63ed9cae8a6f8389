# Finds prism's dependencies the same way on CMake 3.25 (Debian 12: Boost 1.74,
# yaml-cpp 0.7, spdlog 1.10) and CMake 4 (Ubuntu 24.04: Boost 1.83, yaml-cpp 0.8,
# spdlog 1.12). CMake 4 has no FindBoost, so Boost is found through its config.
find_package(Boost 1.74 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
# The threaded host kernels; without OpenMP they run on one thread (GCC always has it,
# Clang needs libomp-dev).
find_package(OpenMP COMPONENTS CXX)
if(OpenMP_CXX_FOUND)
  set(PRISM_HAVE_OPENMP ON)
else()
  set(PRISM_HAVE_OPENMP OFF)
  message(WARNING "OpenMP not found: the cpu backend's threaded kernels will run on one thread")
endif()
find_package(yaml-cpp REQUIRED)
# yaml-cpp 0.7 exports `yaml-cpp`, 0.8 exports `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
  set(PRISM_YAML_TARGET yaml-cpp::yaml-cpp)
elseif(TARGET yaml-cpp)
  set(PRISM_YAML_TARGET yaml-cpp)
else()
  message(FATAL_ERROR "yaml-cpp was found but exports neither yaml-cpp nor yaml-cpp::yaml-cpp")
endif()
find_package(spdlog REQUIRED)
if(PRISM_BUILD_TESTS)
  find_package(Eigen3 3.3 REQUIRED NO_MODULE)
  find_package(GTest REQUIRED)
endif()
