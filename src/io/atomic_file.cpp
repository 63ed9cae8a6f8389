#include "io/atomic_file.hpp"

#include <prism/errors.hpp>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

namespace prism::io {
namespace {

std::string reason(int err, const char* fallback) {
  return err != 0 ? std::strerror(err) : fallback;
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw IoError("cannot write " + path + ": " + why);
}

// The name is hidden and unique per process and call; O_EXCL makes sure no other writer
// shares it. Mode 0666 lets the umask decide the final permissions, as for a plain
// std::ofstream (mkstemp would leave every file at 0600).
std::string create_temporary(const std::string& path) {
  static std::atomic<unsigned long> counter{0};
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string tmp =
        dir + "." + base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    if (errno != EEXIST) fail(path, reason(errno, "cannot create a temporary file"));
  }
  fail(path, "no unused temporary file name");
}

}  // namespace

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string tmp = create_temporary(path);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, reason(errno, "cannot open the temporary file"));
    write(out);
    // The last buffered block is written by flush, which is where a full disk shows up.
    errno = 0;
    out.flush();
    if (!out) fail(path, reason(errno, "write failed"));
    out.close();
    if (out.fail()) fail(path, reason(errno, "close failed"));
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(path, reason(errno, "rename failed"));
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

}  // namespace prism::io
