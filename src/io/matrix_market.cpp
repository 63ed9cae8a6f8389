#include <prism/matrix_market.hpp>

#include <prism/errors.hpp>

#include "io/atomic_file.hpp"
#include "io/line_reader.hpp"
#include "io/market_entries.hpp"
#include "io/market_tokens.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
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

namespace prism {
namespace {

using Field = MatrixMarketInfo::Field;
using Symmetry = MatrixMarketInfo::Symmetry;

constexpr long long kMaxEntries = std::numeric_limits<index_t>::max();
constexpr long long kMaxDimension = std::numeric_limits<index_t>::max();

// A size line can claim any count; reserve at most this many values up front, so that a
// corrupt header fails on its missing entries rather than on a huge allocation.
constexpr long long kMaxReservedValues = 1LL << 26;

using io::ends_token;
using io::EntryError;
using io::skip_space;
using io::token_at;

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Banner {
  std::string format;  // "coordinate" or "array"
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
};

// Parses the parts every Matrix Market file shares; errors name the file and line.
class MarketParser {
 public:
  explicit MarketParser(const std::string& path) : path_(path), reader_(path) {}

  io::LineReader& reader() { return reader_; }

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
      if (++spare_lines_ > io::kMaxSpareLines + std::max(declared_, 0LL)) {
        fail(declared_ < 0 ? "more than " + std::to_string(io::kMaxSpareLines) +
                                 " blank or comment lines before the size line"
                           : io::too_many_spare_lines(declared_));
      }
    }
  }

  /// After the size line: the entries it declares, which may each bring a spare line.
  void declare(long long entries) { declared_ = entries; }

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

  /// What `read` returns (a token parser of market_tokens.hpp on the current line); its
  /// EntryError fails at the current line.
  template <typename Read>
  auto at_line(const Read& read) {
    try {
      return read();
    } catch (const EntryError& e) {
      fail(e.what());
    }
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
  io::LineReader reader_;
  long long spare_lines_ = 0;  ///< blank and comment lines read
  long long declared_ = -1;    ///< -1 before the size line
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
  return io::read_matrix_market_chunked(path, info, allow_pattern, io::Chunking{});
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

std::vector<double> read_vector_market(const std::string& path, long long expected_rows) {
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
  if (expected_rows >= 0 && rows != expected_rows) {
    parser.fail("the size line declares " + std::to_string(rows) + " rows, expected " +
                std::to_string(expected_rows) + " (the matrix's)");
  }

  parser.declare(array ? rows : sizes[2]);
  std::vector<double> x;
  if (array) {
    x.reserve(static_cast<std::size_t>(std::min(rows, kMaxReservedValues)));
    for (long long k = 0; k < rows; ++k) {
      const char* p = parser.next_data_line();
      if (p == nullptr) parser.fail_too_few(rows, k);
      x.push_back(parser.at_line([&] { return io::parse_value(p, banner.field); }));
      parser.at_line([&] { io::expect_end_of_entry(p); });
    }
    parser.expect_end_of_file(rows);
    return x;
  }

  const long long entries = sizes[2];
  x.assign(static_cast<std::size_t>(rows), 0.0);
  for (long long k = 0; k < entries; ++k) {
    const char* p = parser.next_data_line();
    if (p == nullptr) parser.fail_too_few(entries, k);
    const index_t i = parser.at_line([&] { return io::parse_index(p, rows, "row"); }) - 1;
    parser.at_line([&] { return io::parse_index(p, 1, "column"); });
    x[i] += parser.at_line([&] { return io::parse_value(p, banner.field); });
    parser.at_line([&] { io::expect_end_of_entry(p); });
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

namespace io {

CsrMatrix<double> read_matrix_market_chunked(const std::string& path, MatrixMarketInfo* info,
                                             bool allow_pattern, const Chunking& chunking) {
  MarketParser parser(path);
  const MatrixMarketInfo head = read_header(parser, allow_pattern);
  EntryFormat format;
  format.rows = head.rows;
  format.cols = head.cols;
  format.declared = head.stored_entries;
  format.field = head.field;
  format.symmetric = head.symmetry == Symmetry::symmetric;
  CsrMatrix<double> a = read_coordinate_matrix(parser.reader(), format, chunking);
  if (info != nullptr) *info = head;
  return a;
}

}  // namespace io

}  // namespace prism
