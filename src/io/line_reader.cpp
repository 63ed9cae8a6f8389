#include "io/line_reader.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>

namespace prism::io {
namespace {

// Matrix Market lines are short; longer ones (wide comments) grow the buffer as needed.
constexpr std::size_t kInitialLineCapacity = 4096;

}  // namespace

LineReader::LineReader(const std::string& path) : path_(path), buffer_(kInitialLineCapacity) {
  errno = 0;
  file_ = gzopen(path.c_str(), "rb");
  if (file_ == nullptr) {
    throw IoError("cannot open " + path + ": " +
                  (errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(file_, 1u << 20);
}

LineReader::~LineReader() {
  gzclose(file_);
}

const char* LineReader::next() {
  std::size_t length = 0;
  for (;;) {
    char* chunk = buffer_.data() + length;
    const int room = static_cast<int>(std::min<std::size_t>(
        buffer_.size() - length, static_cast<std::size_t>(std::numeric_limits<int>::max())));
    if (gzgets(file_, chunk, room) == nullptr) {
      fail_if_broken(line_ + 1);
      if (length == 0) return nullptr;
      break;
    }
    length += std::strlen(chunk);
    if (length > 0 && buffer_[length - 1] == '\n') break;
    if (length + 1 < buffer_.size()) {
      // gzgets stopped before filling the buffer without a newline: either the file ends
      // here, or the line holds a NUL byte that hides the rest of it from strlen.
      fail_if_broken(line_ + 1);
      if (gzeof(file_) == 0) fail_binary();
      break;
    }
    if (buffer_.size() > kMaxLineBytes) fail_long_line(line_ + 1);
    buffer_.resize(buffer_.size() * 2);
  }
  ++line_;
  while (length > 0 && (buffer_[length - 1] == '\n' || buffer_[length - 1] == '\r')) --length;
  buffer_[length] = '\0';
  return buffer_.data();
}

std::size_t LineReader::read(char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    // zlib drops what a call decompressed before it meets corrupt data: small calls keep
    // the line that reports it close to where the data breaks.
    constexpr std::size_t kCall = std::size_t{1} << 20;
    const auto part = static_cast<unsigned>(std::min(size - done, kCall));
    const int got = gzread(file_, data + done, part);
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

bool LineReader::broken() const {
  int code = Z_OK;
  gzerror(file_, &code);
  return code != Z_OK;
}

void LineReader::fail_if_broken(long line) const {
  int code = Z_OK;
  const char* message = gzerror(file_, &code);
  if (code == Z_ERRNO) {
    throw IoError("cannot read " + path_ + ": " + (errno != 0 ? std::strerror(errno) : "error"));
  }
  if (code != Z_OK) {
    // zlib prefixes its message with the path, which InputError already names.
    std::string reason = message;
    if (reason.compare(0, path_.size() + 2, path_ + ": ") == 0) reason.erase(0, path_.size() + 2);
    throw InputError(path_, line, "corrupt compressed data (" + reason + ")");
  }
}

std::string too_many_spare_lines(long long declared) {
  return "more than " + std::to_string(kMaxSpareLines) + " blank or comment lines beyond the " +
         std::to_string(declared) + " entries declared: padded, or not a Matrix Market file";
}

std::string too_long_line() {
  return "line longer than " + std::to_string(kMaxLineBytes >> 20) +
         " MiB (not a Matrix Market file?)";
}

void LineReader::fail_long_line(long line) const {
  throw InputError(path_, line, too_long_line());
}

void LineReader::fail_binary() const {
  throw InputError(path_, line_ + 1, "line contains a NUL byte (not a text file?)");
}

}  // namespace prism::io
