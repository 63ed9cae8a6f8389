#pragma once
/// @file
/// The entries of a coordinate Matrix Market file, streamed and parsed on several host
/// threads.

#include <prism/csr_matrix.hpp>
#include <prism/matrix_market.hpp>

#include "io/line_reader.hpp"

#include <cstddef>
#include <string>

namespace prism::io {

/// What the header says the entry lines hold.
struct EntryFormat {
  long long rows = 0;
  long long cols = 0;
  long long declared = 0;  ///< entries the size line declares
  MatrixMarketInfo::Field field = MatrixMarketInfo::Field::real;
  bool symmetric = false;  ///< an off-diagonal entry (i, j) also gives (j, i)
};

/// How the entry text is cut. The defaults suit reading; tests pass tiny sizes to put
/// block and part boundaries anywhere in a line.
struct Chunking {
  std::size_t block_bytes = 0;  ///< text read at a time; 0: 4 MiB per host thread
  std::size_t part_bytes = 0;   ///< least text a host thread parses; 0: 1 MiB
};

/// Reads everything after the size line (`reader`'s last line) and returns the matrix,
/// exactly as csr_from_triplets builds it from the entries in file order (the mirror of
/// a symmetric file's off-diagonal entry right after it). The text is read in blocks,
/// each cut at line ends into parts parsed on common::host_threads() threads while the
/// next block is read (for a .gz file, inflated) on one more thread (none with one host
/// thread); each block's entries go into buckets of rows, built into the matrix bucket by
/// bucket at the end. At most two blocks are held, each a block's size plus the start of
/// a line carried over. The first bad line in file order is reported (InputError at its
/// line) exactly as a line-by-line reading reports it: a bad index or value, a NUL byte,
/// a line longer than kMaxLineBytes, a data line past the declared count, the blank or
/// comment line past kMaxSpareLines plus that count, too few entries (at the line after
/// the last). Corrupt compressed data fails after the whole lines inflated before it,
/// which depend on the block size (zlib drops what the read that meets it inflated).
CsrMatrix<double> read_coordinate_matrix(LineReader& reader, const EntryFormat& format,
                                         const Chunking& chunking = {});

/// read_matrix_market (prism/matrix_market.hpp) with the entry text cut as `chunking`
/// says.
CsrMatrix<double> read_matrix_market_chunked(const std::string& path, MatrixMarketInfo* info,
                                             bool allow_pattern, const Chunking& chunking);

}  // namespace prism::io
