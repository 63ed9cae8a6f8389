#pragma once
/// @file
/// The entries of a coordinate Matrix Market file, parsed on several host threads.

#include <prism/csr_matrix.hpp>
#include <prism/matrix_market.hpp>

#include "io/line_reader.hpp"

#include <vector>

namespace prism::io {

/// What the header says the entry lines hold.
struct EntryFormat {
  long long rows = 0;
  long long cols = 0;
  long long declared = 0;  ///< entries the size line declares
  MatrixMarketInfo::Field field = MatrixMarketInfo::Field::real;
  bool symmetric = false;  ///< an off-diagonal entry (i, j) also gives (j, i)
};

/// Reads everything after the size line (`reader`'s last line) and returns the entries
/// as triplets in file order, the mirror of a symmetric file's off-diagonal entry right
/// after it. The text is read in large blocks, each cut at line ends into parts parsed
/// on common::host_threads() threads while the next block is read (for a .gz file,
/// inflated) on one more thread (none with one host thread); the first bad line in file
/// order is reported
/// (InputError at its line) exactly as a line-by-line reading reports it: a bad index or
/// value, a NUL byte, a data line past the declared count, too few entries (at the line
/// after the last).
std::vector<Triplet> read_coordinate_entries(LineReader& reader, const EntryFormat& format);

}  // namespace prism::io
