# PRISM_BUILD_FUZZERS: the libFuzzer targets of tests/fuzz (fuzz_matrix_market,
# fuzz_problem_file). libFuzzer needs Clang. The whole build is then instrumented (coverage
# for libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer), so that prism_core is fuzzed
# as the targets are built: give the fuzzers a build folder of their own.
include(CheckCXXSourceCompiles)

set(PRISM_FUZZERS_ENABLED OFF)
if(PRISM_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(WARNING "PRISM_BUILD_FUZZERS: libFuzzer needs Clang, the C++ compiler is "
                    "${CMAKE_CXX_COMPILER_ID}; the fuzz targets are skipped (the replay tests "
                    "fuzz.replay.* are built with any compiler). Configure with "
                    "-DCMAKE_CXX_COMPILER=clang++.")
  elseif(NOT PRISM_BUILD_TESTS)
    message(WARNING "PRISM_BUILD_FUZZERS: the fuzz targets live in tests/fuzz and need "
                    "PRISM_BUILD_TESTS=ON; skipped.")
  else()
    set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
    check_cxx_source_compiles(
      "#include <cstddef>
       #include <cstdint>
       extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }"
      PRISM_HAVE_LIBFUZZER)
    unset(CMAKE_REQUIRED_FLAGS)
    if(NOT PRISM_HAVE_LIBFUZZER)
      message(WARNING "PRISM_BUILD_FUZZERS: ${CMAKE_CXX_COMPILER} cannot link "
                      "-fsanitize=fuzzer (no libFuzzer runtime); the fuzz targets are skipped.")
    else()
      set(PRISM_FUZZERS_ENABLED ON)
      # -fno-sanitize-recover: an undefined behaviour stops the run, so libFuzzer keeps the
      # input; the frame pointers give whole stacks in its reports.
      add_compile_options(
        $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined>
        $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>
        $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
      add_link_options(-fsanitize=address,undefined)
      message(STATUS "PRISM_BUILD_FUZZERS: fuzz targets enabled; every target is instrumented")
    endif()
  endif()
endif()
