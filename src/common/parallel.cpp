#include "common/parallel.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

namespace prism::common {

int host_threads() {
  constexpr long kMostThreads = 64;
  if (const char* env = std::getenv("PRISM_HOST_THREADS")) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && errno == 0 && value > 0) {
      return static_cast<int>(std::min(value, kMostThreads));
    }
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<long>(static_cast<long>(hardware), 1, kMostThreads));
}

}  // namespace prism::common
