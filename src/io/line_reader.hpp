#pragma once
/// @file
/// Text files read through zlib, which reads uncompressed files as they are: line by
/// line (headers, vectors) or in large blocks (the entries of a matrix). Errors name the
/// file and the line where the data stops.

#include <cstddef>
#include <string>
#include <vector>

#include <zlib.h>

namespace prism::io {

/// Longest line read: Matrix Market lines are short, and a file of one endless line (a
/// decompression bomb, a binary file) must not be read into memory whole.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

/// Most blank and comment lines a Matrix Market file may hold beyond one per declared
/// entry: the work of reading a file stays bounded by what its size line declares, so
/// a small .gz of endless blank lines fails early instead of inflating for minutes.
inline constexpr long long kMaxSpareLines = 1LL << 20;

/// The error for a file past that bound.
std::string too_many_spare_lines(long long declared);

/// The error for a line longer than kMaxLineBytes.
std::string too_long_line();

class LineReader {
 public:
  /// Throws IoError when the file cannot be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its line ending, or nullptr at the end of the file. Throws
  /// InputError on a line holding a NUL byte or longer than kMaxLineBytes, or on corrupt
  /// compressed data, IoError when the file cannot be read.
  const char* next();

  /// Number of the line last returned by next() (1-based; 0 before the first).
  long line() const { return line_; }

  /// Up to `size` bytes of the file after what next() and read() have returned so far:
  /// fewer only at the end of the file or on an error, which fail_if_broken() reports.
  std::size_t read(char* data, std::size_t size);

  /// Whether reading failed (read() then returns less than asked).
  bool broken() const;

  /// Throws IoError or InputError (at `line`, where the data stops) if reading failed.
  void fail_if_broken(long line) const;

  /// Throws InputError at `line`: it is longer than kMaxLineBytes.
  [[noreturn]] void fail_long_line(long line) const;

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail_binary() const;

  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  long line_ = 0;
};

}  // namespace prism::io
