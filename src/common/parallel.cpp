#include "common/parallel.hpp"

#include "kernels/host/threaded.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace prism::common {
namespace {

/// The cores this process may run on: its affinity mask (taskset, numactl, a container's
/// cpuset), which hardware_concurrency() ignores; else the hardware's threads.
long usable_cores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return CPU_COUNT(&set);
  }
#endif
  return static_cast<long>(std::thread::hardware_concurrency());
}

}  // namespace

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
  // More threads than cores to run them makes every barrier of the kernels wait for a
  // descheduled thread.
  // Under OMP_PROC_BIND the calling thread may be bound to one place: the places count.
  const long cores = std::max<long>(usable_cores(), kernels::host::openmp_places());
  return static_cast<int>(std::clamp<long>(cores, 1, kMostThreads));
}

}  // namespace prism::common
