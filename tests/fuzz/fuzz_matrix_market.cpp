// libFuzzer target: the Matrix Market readers (include/prism/matrix_market.hpp) on any bytes.
// A prism::Error is the expected answer to a bad file; anything else (a crash, another
// exception, a sanitizer report, a hang, a huge allocation, a matrix or an error that
// changes when the entry text is read in blocks of a few bytes) is a finding.
//
// Every reader runs on each input, rather than one chosen by a leading byte, so that a
// corpus or regression file stays a plain Matrix Market file that `prism info` reads too.
// The sizes a header declares are checked first, as a careful caller does
// (read_matrix_market_header says so): read_matrix_market allocates the declared rows
// without looking at the entries, and read_vector_market without an expected length
// allocates the declared one; neither is a bug of a hostile file.

#include <prism/errors.hpp>
#include <prism/matrix_market.hpp>

#include "io/market_entries.hpp"
#include "scratch_dir.hpp"

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Larger declared sizes are read by the header only: the entry readers reserve up to
// 1 GiB for a declared count, which would only slow the fuzzer down.
constexpr long long kMostDeclared = 1 << 16;
// Plain inputs up to this size are also read cut into blocks of a few bytes.
constexpr std::size_t kMostCutBytes = std::size_t{1} << 16;

/// The number of rows a vector file declares, guessed from its first line that is neither
/// the banner, a comment nor blank (the reader itself checks it properly); -1 if none.
long long declared_rows(const std::uint8_t* data, std::size_t size) {
  const char* p = reinterpret_cast<const char*>(data);
  const char* const end = p + size;
  bool first = true;
  while (p < end) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (eol == nullptr) eol = end;
    const char* q = p;
    while (q < eol && (*q == ' ' || *q == '\t')) ++q;
    if (!first && q < eol && *q != '%' && *q != '\r') {
      const std::string line(q, eol);
      char* stop = nullptr;
      const long long rows = std::strtoll(line.c_str(), &stop, 10);
      return stop == line.c_str() ? -1 : rows;
    }
    first = false;
    p = eol + 1;
  }
  return -1;
}

/// The same bytes gzip-compressed, so the .gz path of the line reader sees every input.
bool write_gzip(const std::string& path, const std::uint8_t* data, std::size_t size) {
  gzFile out = gzopen(path.c_str(), "wb1");
  if (out == nullptr) return false;
  const int written = size == 0 ? 0 : gzwrite(out, data, static_cast<unsigned>(size));
  return gzclose(out) == Z_OK && written == static_cast<int>(size);
}

/// A matrix read, or the error reading it gave.
struct Outcome {
  prism::CsrMatrix<double> matrix;
  std::string error;
  bool operator==(const Outcome& o) const {
    return error == o.error && matrix.rows == o.matrix.rows && matrix.cols == o.matrix.cols &&
           matrix.row_ptr == o.matrix.row_ptr && matrix.col_idx == o.matrix.col_idx &&
           matrix.values == o.matrix.values;
  }
};

Outcome read_cut(const std::string& path, const prism::io::Chunking& chunking) {
  Outcome out;
  try {
    out.matrix = prism::io::read_matrix_market_chunked(path, nullptr, true, chunking);
  } catch (const prism::Error& e) {
    out.error = e.what();
  }
  return out;
}

/// Runs every reader on `path` (`data` is its text, or empty when it is compressed);
/// returns whether the header declares sizes small enough to read entries.
bool read_all(const std::string& path, const std::uint8_t* data, std::size_t size) {
  prism::MatrixMarketInfo head;
  bool small = false;
  try {
    head = prism::read_matrix_market_header(path, /*allow_pattern=*/true);
    small = head.rows <= kMostDeclared && head.cols <= kMostDeclared &&
            head.stored_entries <= kMostDeclared;
  } catch (const prism::Error&) {
  }
  if (small) {
    try {
      prism::MatrixMarketInfo info;
      const prism::CsrMatrix<double> a = prism::read_matrix_market(path, &info, true);
      if (a.rows != head.rows || a.cols != head.cols) std::abort();  // header disagrees
    } catch (const prism::Error&) {
    }
    try {
      prism::read_matrix_market_to_solve(path, nullptr, false);
    } catch (const prism::Error&) {
    }
    // Cut into blocks of 7 bytes (inside numbers, between a CR and its LF, ...): the same
    // matrix or the same error. Plain text of up to 64 KiB only: a compressed input can
    // inflate to millions of blocks that size (tests/io/test_market_chunks.cpp cuts .gz
    // files), and where corrupt compressed data stops the text depends on the reads' sizes.
    if (size > 0 && size <= kMostCutBytes) {  // size 0: compressed (or empty) input
      const Outcome whole = read_cut(path, {});
      if (!(read_cut(path, {7, 3}) == whole)) std::abort();
    }
  }
  // As assemble_problem reads a right-hand side: with the matrix's row count, here the
  // count the file declares when it is small (so the entries are read), else a small one.
  const long long rows = declared_rows(data, size);
  const long long expected = rows >= 0 && rows <= kMostDeclared ? rows : 4;
  try {
    const std::vector<double> x = prism::read_vector_market(path, expected);
    if (static_cast<long long>(x.size()) != expected) std::abort();
  } catch (const prism::Error&) {
  }
  return small;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  prism::fuzz::use_one_host_thread();
  const std::string& dir = prism::fuzz::scratch_dir();
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  if (gzip) {
    // Compressed input: read as it is, through the name a user would give it.
    const std::string path = dir + "/input.mtx.gz";
    prism::fuzz::write_file(path, data, size);
    read_all(path, data, 0);
    return 0;
  }
  const std::string path = dir + "/input.mtx";
  prism::fuzz::write_file(path, data, size);
  const bool small = read_all(path, data, size);
  const std::string gz_path = dir + "/input_compressed.mtx.gz";
  if (small && write_gzip(gz_path, data, size)) {
    try {
      prism::read_matrix_market_to_solve(gz_path, nullptr, true);
    } catch (const prism::Error&) {
    }
  }
  return 0;
}
