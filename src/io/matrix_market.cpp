#include <prism/matrix_market.hpp>

#include <prism/errors.hpp>

#include "io/atomic_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <strings.h>
#include <zlib.h>

namespace prism {
namespace {

using Field = MatrixMarketInfo::Field;
using Symmetry = MatrixMarketInfo::Symmetry;

constexpr long long kMaxEntries = std::numeric_limits<index_t>::max();
constexpr long long kMaxDimension = std::numeric_limits<index_t>::max();

// Matrix Market lines are short; longer ones (wide comments) grow the buffer as needed.
constexpr std::size_t kInitialLineCapacity = 4096;

// A size line can claim any count; reserve at most this many triplets up front (1 GiB) so that
// a corrupt header fails on its missing entries rather than on a huge allocation.
constexpr long long kMaxReservedTriplets = 1LL << 26;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

const char* skip_space(const char* p) {
  while (is_space(*p)) ++p;
  return p;
}

bool ends_token(char c) {
  return c == '\0' || is_space(c);
}

// The token at p, shortened for error messages.
std::string token_at(const char* p) {
  p = skip_space(p);
  const char* end = p;
  while (!ends_token(*end)) ++end;
  constexpr std::ptrdiff_t kMaxShown = 40;
  if (end - p > kMaxShown) return std::string(p, kMaxShown) + "...";
  return std::string(p, end);
}

// strtol and strtod, faster: std::from_chars (libstdc++ 12 on: fast_float, correctly
// rounded as strtod) for a plain decimal token; strtol / strtod for anything else (a '+'
// sign, hexadecimal, "inf", "nan", out of range), so that both accept, round and reject
// alike. Returns the end of the number, or p where there is none.
const char* parse_long(const char* p, long& value) {
  const char* end = p;
  while (!ends_token(*end)) ++end;
  const auto [next, error] = std::from_chars(p, end, value);
  if (error == std::errc() && next == end) return next;
  char* tail = nullptr;
  errno = 0;
  value = std::strtol(p, &tail, 10);
  return tail;
}

const char* parse_double(const char* p, double& value) {
#if defined(__cpp_lib_to_chars)
  const char* end = p;
  while (!ends_token(*end)) ++end;
  const auto [next, error] = std::from_chars(p, end, value);
  if (error == std::errc() && next == end) return next;
#endif
  char* tail = nullptr;
  value = std::strtod(p, &tail);
  return tail;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Reads lines through zlib, which reads uncompressed files as they are.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), buffer_(kInitialLineCapacity) {
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      throw IoError("cannot open " + path + ": " +
                    (errno != 0 ? std::strerror(errno) : "out of memory"));
    }
    gzbuffer(file_, 1u << 20);
  }
  ~LineReader() { gzclose(file_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its line ending, or nullptr at the end of the file.
  const char* next() {
    std::size_t length = 0;
    for (;;) {
      char* chunk = buffer_.data() + length;
      const int room = static_cast<int>(std::min<std::size_t>(
          buffer_.size() - length, static_cast<std::size_t>(std::numeric_limits<int>::max())));
      if (gzgets(file_, chunk, room) == nullptr) {
        check_stream();
        if (length == 0) return nullptr;
        break;
      }
      length += std::strlen(chunk);
      if (length > 0 && buffer_[length - 1] == '\n') break;
      if (length + 1 < buffer_.size()) {
        // gzgets stopped before filling the buffer without a newline: either the file ends
        // here, or the line holds a NUL byte that hides the rest of it from strlen.
        check_stream();
        if (gzeof(file_) == 0) fail_binary();
        break;
      }
      buffer_.resize(buffer_.size() * 2);
    }
    ++line_;
    while (length > 0 && (buffer_[length - 1] == '\n' || buffer_[length - 1] == '\r')) --length;
    buffer_[length] = '\0';
    return buffer_.data();
  }

  /// Number of the line last returned by next() (1-based; 0 before the first).
  long line() const { return line_; }

 private:
  void check_stream() const {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_ERRNO) {
      throw IoError("cannot read " + path_ + ": " + (errno != 0 ? std::strerror(errno) : "error"));
    }
    if (code != Z_OK) {
      // zlib prefixes its message with the path, which InputError already names.
      std::string reason = message;
      if (reason.compare(0, path_.size() + 2, path_ + ": ") == 0) reason.erase(0, path_.size() + 2);
      throw InputError(path_, line_ + 1, "corrupt compressed data (" + reason + ")");
    }
  }

  [[noreturn]] void fail_binary() const {
    throw InputError(path_, line_ + 1, "line contains a NUL byte (not a text file?)");
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  long line_ = 0;
};

struct Banner {
  std::string format;  // "coordinate" or "array"
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
};

// Parses the parts every Matrix Market file shares; errors name the file and line.
class MarketParser {
 public:
  explicit MarketParser(const std::string& path) : path_(path), reader_(path) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_, reader_.line(), what);
  }
  [[noreturn]] void fail_at(long line, const std::string& what) const {
    throw InputError(path_, line, what);
  }

  /// The line after the last one read: where the end of the file is reported.
  long end_line() const { return reader_.line() + 1; }
  /// The last line read (1-based).
  long line() const { return reader_.line(); }

  Banner read_banner() {
    const char* line = reader_.next();
    if (line == nullptr) fail_at(1, "missing Matrix Market banner (the file is empty)");
    static constexpr char kBanner[] = "%%MatrixMarket";
    constexpr std::size_t kBannerLength = sizeof(kBanner) - 1;
    if (strncasecmp(line, kBanner, kBannerLength) != 0 || !ends_token(line[kBannerLength])) {
      fail("missing Matrix Market banner: the first line must start with '%%MatrixMarket'");
    }
    std::vector<std::string> words;
    for (const char* p = skip_space(line + kBannerLength); *p != '\0'; p = skip_space(p)) {
      const char* end = p;
      while (!ends_token(*end)) ++end;
      words.push_back(lowercase(std::string(p, end)));
      p = end;
    }
    if (words.size() != 4) {
      fail("bad banner: expected '%%MatrixMarket matrix FORMAT FIELD SYMMETRY', got " +
           std::to_string(words.size()) + " words after '%%MatrixMarket'");
    }
    if (words[0] != "matrix") fail("unsupported object '" + words[0] + "' (only 'matrix')");

    Banner banner;
    banner.format = words[1];
    if (banner.format != "coordinate" && banner.format != "array") {
      fail("unsupported format '" + words[1] + "' (expected 'coordinate' or 'array')");
    }
    if (words[2] == "real") {
      banner.field = Field::real;
    } else if (words[2] == "integer") {
      banner.field = Field::integer;
    } else if (words[2] == "pattern") {
      banner.field = Field::pattern;
    } else {
      fail("unsupported field '" + words[2] + "' (expected 'real', 'integer' or 'pattern')");
    }
    if (words[3] == "general") {
      banner.symmetry = Symmetry::general;
    } else if (words[3] == "symmetric") {
      banner.symmetry = Symmetry::symmetric;
    } else {
      fail("unsupported symmetry '" + words[3] + "' (expected 'general' or 'symmetric')");
    }
    if (banner.format == "array" && banner.field == Field::pattern) {
      fail("unsupported field 'pattern' for format 'array'");
    }
    return banner;
  }

  /// The next line that is neither blank nor a comment, or nullptr at the end of the file.
  const char* next_data_line() {
    for (;;) {
      const char* line = reader_.next();
      if (line == nullptr) return nullptr;
      const char* p = skip_space(line);
      if (*p != '\0' && *p != '%') return p;
    }
  }

  /// Reads the size line: `count` non-negative integers (2 for array, 3 for coordinate).
  std::vector<long long> read_size_line(std::size_t count) {
    const char* p = next_data_line();
    const std::string expected = count == 3 ? "'ROWS COLS ENTRIES'" : "'ROWS COLS'";
    if (p == nullptr) fail_at(end_line(), "missing size line " + expected + " (end of file)");
    std::vector<long long> sizes;
    for (std::size_t i = 0; i < count; ++i) {
      p = skip_space(p);
      if (*p == '\0') {
        fail("bad size line: expected " + expected + ", item " + std::to_string(i + 1) +
             " is missing");
      }
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(p, &end, 10);
      if (end == p || !ends_token(*end) || errno == ERANGE || value < 0) {
        fail("bad size line: expected " + expected + ", got '" + token_at(p) + "' as item " +
             std::to_string(i + 1));
      }
      sizes.push_back(value);
      p = end;
    }
    if (*skip_space(p) != '\0') {
      fail("bad size line: expected " + expected + ", found extra '" + token_at(p) + "'");
    }
    if (sizes[0] > kMaxDimension || sizes[1] > kMaxDimension) {
      fail("bad size line: dimensions above 2^31 - 1 are not supported");
    }
    return sizes;
  }

  /// A 1-based index in [1, limit]; `what` is "row" or "column".
  index_t parse_index(const char*& p, long long limit, const char* what) {
    p = skip_space(p);
    if (*p == '\0') fail(std::string("missing ") + what + " index");
    errno = 0;
    long value = 0;
    const char* end = parse_long(p, value);
    if (end == p || !ends_token(*end)) {
      fail(std::string("bad ") + what + " index '" + token_at(p) + "' (not an integer)");
    }
    if (errno == ERANGE || value < 1 || value > limit) {
      fail(std::string(what) + " index " + token_at(p) + " out of range [1, " +
           std::to_string(limit) + "]");
    }
    p = end;
    return static_cast<index_t>(value);
  }

  double parse_value(const char*& p, Field field) {
    p = skip_space(p);
    if (*p == '\0') fail("missing value");
    if (field == Field::integer) {
      char* end = nullptr;
      errno = 0;
      const long long integer = std::strtoll(p, &end, 10);
      if (end == p || !ends_token(*end)) {
        fail("non-integer value '" + token_at(p) + "' in an integer matrix");
      }
      if (errno == ERANGE) fail("integer value '" + token_at(p) + "' out of range");
      p = end;
      return static_cast<double>(integer);
    }
    double value = 0.0;
    const char* end = parse_double(p, value);
    if (end == p || !ends_token(*end)) fail("non-numeric value '" + token_at(p) + "'");
    // strtod accepts "nan" and "inf" and turns overflow such as 1e999 into inf.
    if (!std::isfinite(value)) fail("value '" + token_at(p) + "' is NaN or Inf");
    p = end;
    return value;
  }

  void expect_end_of_entry(const char* p) {
    p = skip_space(p);
    if (*p != '\0') fail("trailing characters '" + token_at(p) + "' after the entry");
  }

  /// Fails when anything but blank and comment lines follows the last declared entry.
  void expect_end_of_file(long long declared) {
    if (next_data_line() != nullptr) {
      fail("more entries than the " + std::to_string(declared) + " declared in the size line");
    }
  }

  [[noreturn]] void fail_too_few(long long declared, long long found) {
    fail_at(end_line(), "too few entries: the size line declares " + std::to_string(declared) +
                            ", the file ends after " + std::to_string(found));
  }

 private:
  std::string path_;
  LineReader reader_;
};

void append(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

void append(std::string& out, const char* format, ...) {
  char line[128];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  out.append(line, static_cast<std::size_t>(n));
}

// Formatting goes through one large string so the stream sees a few big writes.
void flush_if_full(std::string& buffer, std::ostream& os) {
  constexpr std::size_t kFlushSize = 1u << 20;
  if (buffer.size() >= kFlushSize) {
    os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  }
}

// The banner and size line of a matrix file, checked, with the parser left after the size
// line (read_matrix_market_header and read_matrix_market).
MatrixMarketInfo read_header(MarketParser& parser, bool allow_pattern) {
  const Banner banner = parser.read_banner();
  if (banner.format != "coordinate") {
    parser.fail("unsupported format '" + banner.format +
                "' for a matrix (only 'coordinate'; 'array' is read as a vector)");
  }
  if (banner.field == Field::pattern && !allow_pattern) {
    parser.fail("pattern matrices have no values and are only accepted by `prism info`");
  }
  const std::vector<long long> sizes = parser.read_size_line(3);
  MatrixMarketInfo info;
  info.field = banner.field;
  info.symmetry = banner.symmetry;
  info.rows = static_cast<index_t>(sizes[0]);
  info.cols = static_cast<index_t>(sizes[1]);
  info.stored_entries = sizes[2];
  info.size_line = parser.line();
  if (info.symmetry == Symmetry::symmetric && sizes[0] != sizes[1]) {
    parser.fail("bad size line: a symmetric matrix must be square, got " +
                std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]));
  }
  if (info.stored_entries > kMaxEntries) {
    parser.fail("bad size line: " + std::to_string(info.stored_entries) +
                " entries exceed the 2^31 - 1 that prism supports");
  }
  return info;
}

}  // namespace

MatrixMarketInfo read_matrix_market_header(const std::string& path, bool allow_pattern) {
  MarketParser parser(path);
  return read_header(parser, allow_pattern);
}

CsrMatrix<double> read_matrix_market(const std::string& path, MatrixMarketInfo* info,
                                     bool allow_pattern) {
  MarketParser parser(path);
  const MatrixMarketInfo head = read_header(parser, allow_pattern);
  const bool symmetric = head.symmetry == Symmetry::symmetric;
  const long long rows = head.rows;
  const long long cols = head.cols;
  const long long entries = head.stored_entries;

  std::vector<Triplet> triplets;
  triplets.reserve(
      static_cast<std::size_t>(std::min(symmetric ? 2 * entries : entries, kMaxReservedTriplets)));
  for (long long k = 0; k < entries; ++k) {
    const char* p = parser.next_data_line();
    if (p == nullptr) parser.fail_too_few(entries, k);
    const index_t i = parser.parse_index(p, rows, "row") - 1;
    const index_t j = parser.parse_index(p, cols, "column") - 1;
    const double value = head.field == Field::pattern ? 1.0 : parser.parse_value(p, head.field);
    parser.expect_end_of_entry(p);
    triplets.push_back({i, j, value});
    if (symmetric && i != j) triplets.push_back({j, i, value});
  }
  parser.expect_end_of_file(entries);

  if (info != nullptr) *info = head;
  try {
    return csr_from_triplets(static_cast<index_t>(rows), static_cast<index_t>(cols),
                             std::move(triplets));
  } catch (const InvalidMatrixError& e) {
    // Only the size limit can fail here (indices were checked above); blame the file.
    throw InputError(path, 0, e.what());
  }
}

CsrMatrix<double> read_matrix_market_to_solve(const std::string& path, MatrixMarketInfo* info,
                                              bool allow_pattern) {
  const MatrixMarketInfo head = read_matrix_market_header(path, allow_pattern);
  if (head.stored_entries < head.rows) {
    throw InputError(path, head.size_line,
                     std::to_string(head.rows) + " rows but only " +
                         std::to_string(head.stored_entries) +
                         " stored entries: a matrix to solve needs a diagonal entry in every row");
  }
  return read_matrix_market(path, info, allow_pattern);
}

std::vector<double> read_vector_market(const std::string& path) {
  MarketParser parser(path);
  const Banner banner = parser.read_banner();
  if (banner.field == Field::pattern) {
    parser.fail("pattern files have no values and cannot be read as a vector");
  }
  if (banner.symmetry != Symmetry::general) {
    parser.fail("a vector file must be 'general', not 'symmetric'");
  }
  const bool array = banner.format == "array";

  const std::vector<long long> sizes = parser.read_size_line(array ? 2 : 3);
  const long long rows = sizes[0];
  if (sizes[1] != 1) {
    parser.fail("a vector file must have exactly 1 column, got " + std::to_string(sizes[1]));
  }

  std::vector<double> x;
  if (array) {
    x.reserve(static_cast<std::size_t>(std::min(rows, kMaxReservedTriplets)));
    for (long long k = 0; k < rows; ++k) {
      const char* p = parser.next_data_line();
      if (p == nullptr) parser.fail_too_few(rows, k);
      x.push_back(parser.parse_value(p, banner.field));
      parser.expect_end_of_entry(p);
    }
    parser.expect_end_of_file(rows);
    return x;
  }

  const long long entries = sizes[2];
  x.assign(static_cast<std::size_t>(rows), 0.0);
  for (long long k = 0; k < entries; ++k) {
    const char* p = parser.next_data_line();
    if (p == nullptr) parser.fail_too_few(entries, k);
    const index_t i = parser.parse_index(p, rows, "row") - 1;
    parser.parse_index(p, 1, "column");
    x[i] += parser.parse_value(p, banner.field);
    parser.expect_end_of_entry(p);
  }
  parser.expect_end_of_file(entries);
  return x;
}

void write_matrix_market(const std::string& path, const CsrMatrix<double>& a, bool symmetric) {
  if (symmetric && a.rows != a.cols) {
    throw InvalidMatrixError("cannot write a " + std::to_string(a.rows) + " x " +
                             std::to_string(a.cols) + " matrix as symmetric: it is not square");
  }
  long long written = a.nnz();
  if (symmetric) {
    written = 0;
    for (index_t r = 0; r < a.rows; ++r) {
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) written += a.col_idx[k] <= r;
    }
  }
  io::write_file_atomically(path, [&](std::ostream& os) {
    std::string buffer;
    append(buffer, "%%%%MatrixMarket matrix coordinate real %s\n",
           symmetric ? "symmetric" : "general");
    append(buffer, "%d %d %lld\n", a.rows, a.cols, written);
    for (index_t r = 0; r < a.rows; ++r) {
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        if (symmetric && a.col_idx[k] > r) continue;
        append(buffer, "%d %d %.17g\n", r + 1, a.col_idx[k] + 1, a.values[k]);
      }
      flush_if_full(buffer, os);
    }
    os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  });
}

void write_vector_market(const std::string& path, const std::vector<double>& x) {
  io::write_file_atomically(path, [&](std::ostream& os) {
    std::string buffer;
    append(buffer, "%%%%MatrixMarket matrix array real general\n");
    append(buffer, "%zu 1\n", x.size());
    for (double v : x) {
      append(buffer, "%.17g\n", v);
      flush_if_full(buffer, os);
    }
    os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  });
}

}  // namespace prism
