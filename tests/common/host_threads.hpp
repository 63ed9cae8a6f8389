#pragma once
// Sets PRISM_HOST_THREADS for the scope of a test, so that the host's parallel set-up
// paths run with a chosen number of threads whatever the machine has.

#include <cstdlib>
#include <string>

namespace prism::test {

class ScopedHostThreads {
 public:
  explicit ScopedHostThreads(int threads) {
    if (const char* old = std::getenv(kName)) old_ = old, had_ = true;
    ::setenv(kName, std::to_string(threads).c_str(), 1);
  }
  ~ScopedHostThreads() {
    if (had_) {
      ::setenv(kName, old_.c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  ScopedHostThreads(const ScopedHostThreads&) = delete;
  ScopedHostThreads& operator=(const ScopedHostThreads&) = delete;

 private:
  static constexpr const char* kName = "PRISM_HOST_THREADS";
  std::string old_;
  bool had_ = false;
};

}  // namespace prism::test
