#include "io/atomic_file.hpp"

#include <prism/errors.hpp>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
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
// std::ofstream (mkstemp would leave every file at 0600). Only the start of the target's
// name is kept, so a name at the file system's length limit still has a temporary.
std::string create_temporary(const std::string& path) {
  static std::atomic<unsigned long> counter{0};
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string tmp = dir + "." + base.substr(0, 64) + ".tmp-" + std::to_string(::getpid()) +
                            "-" + std::to_string(counter++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    if (errno != EEXIST) fail(path, reason(errno, "cannot create a temporary file"));
  }
  fail(path, "no unused temporary file name");
}

// Writes into `path` as it is: for a device or a FIFO, which must never be replaced.
void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, reason(errno, "cannot open it"));
  // A full buffer is written inside write(): errno is set there or by the final flush.
  errno = 0;
  write(out);
  if (out) out.flush();
  if (!out) fail(path, reason(errno, "write failed"));
}

// What a symbolic link at `path` points to (relative to the link's folder), else `path`:
// a link is written through, not replaced by a file of its own.
std::string through_links(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) break;
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  return p.string();
}

}  // namespace

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) {  // through links
    if (S_ISDIR(status.st_mode)) fail(path, "it is a directory");
    if (!S_ISREG(status.st_mode)) {
      write_in_place(path, write);
      return;
    }
    // Permission bits, not access(2): root could write anyway, but the owner said no.
    if ((status.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) fail(path, "the file is read-only");
  }
  const std::string target = through_links(path);
  const std::string tmp = create_temporary(target);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, reason(errno, "cannot open the temporary file"));
    // A full disk shows up where a buffered block is written: inside write(), or at the
    // flush of the last one.
    errno = 0;
    write(out);
    if (out) out.flush();
    if (!out) fail(path, reason(errno, "write failed"));
    out.close();
    if (out.fail()) fail(path, reason(errno, "close failed"));
    if (std::rename(tmp.c_str(), target.c_str()) != 0) fail(path, reason(errno, "rename failed"));
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

}  // namespace prism::io
