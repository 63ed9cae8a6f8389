#pragma once
// The readers under test take a path, so every input goes through a file in a folder of
// this process's own (fuzzers may run as several processes side by side).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace prism::fuzz {

/// A fresh folder under the system's temporary folder, removed when the process exits
/// normally (a crash leaves it behind on purpose: it holds the input that crashed).
inline const std::string& scratch_dir() {
  // Never destroyed: the atexit handler below runs after static destructors would.
  static const std::string* const dir = [] {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "prism-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_dir(), ec);
    });
    return new std::string(pattern);
  }();
  return *dir;
}

/// Writes `size` bytes to `path`, replacing it.
inline void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::abort();
}

/// One host thread for prism's parallel set-up: libFuzzer wants every run of an input to
/// take the same path, and the inputs are small.
inline void use_one_host_thread() {
  static const bool done = setenv("PRISM_HOST_THREADS", "1", 1) == 0;
  (void)done;
}

}  // namespace prism::fuzz
