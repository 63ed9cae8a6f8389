#include "common/memory.hpp"

#include <fstream>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace prism::common {

std::size_t resident_set_bytes() {
#if defined(__linux__)
  std::ifstream statm("/proc/self/statm");
  std::size_t total_pages = 0, resident_pages = 0;
  if (!(statm >> total_pages >> resident_pages)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? resident_pages * static_cast<std::size_t>(page) : 0;
#else
  return 0;
#endif
}

}  // namespace prism::common
