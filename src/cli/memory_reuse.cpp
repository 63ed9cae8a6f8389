#include "cli/memory_reuse.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace prism::cli {

void reuse_freed_memory() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool user_set =
      std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
      std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr ||
      (tunables != nullptr && (std::strstr(tunables, "mmap_threshold") != nullptr ||
                               std::strstr(tunables, "trim_threshold") != nullptr));
  if (user_set) return;
  constexpr int kOneGiB = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kOneGiB);
  mallopt(M_TRIM_THRESHOLD, kOneGiB);
#endif
}

}  // namespace prism::cli
