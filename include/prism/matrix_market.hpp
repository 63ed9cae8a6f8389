#pragma once
/// @file
/// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reading and writing.
/// Files ending in .gz are read through zlib (plain files are read the same way).

#include <prism/csr_matrix.hpp>

#include <string>
#include <vector>

namespace prism {

/// The header of a Matrix Market file.
struct MatrixMarketInfo {
  enum class Field { real, integer, pattern };
  enum class Symmetry { general, symmetric };
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  index_t rows = 0;
  index_t cols = 0;
  long long stored_entries = 0;  ///< entries in the file (one triangle when symmetric)
  long size_line = 0;            ///< line number of the size line (1-based)
};

/// Reads only the banner and the size line of a matrix file, checked as read_matrix_market
/// checks them: a caller can reject a file by its sizes before reading its entries.
MatrixMarketInfo read_matrix_market_header(const std::string& path, bool allow_pattern = false);

/// Reads a `coordinate` matrix (`real` or `integer`; `pattern` only when allow_pattern,
/// with every value 1) stored `general` or `symmetric`. Symmetric files are expanded
/// to both triangles; duplicate entries are summed. Any malformed content throws
/// InputError naming the file and line: bad banner, unsupported field (complex) or
/// format, bad size line, index out of range, too few or too many entries,
/// non-numeric, NaN or Inf values.
CsrMatrix<double> read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr,
                                     bool allow_pattern = false);

/// read_matrix_market for a matrix to solve or analyse as one (`prism solve`, `prism info`):
/// a file whose size line declares fewer stored entries than rows, so that some row has no
/// diagonal entry, fails there with InputError before its rows are allocated (a size line
/// of 2e9 rows and one entry would otherwise take all memory).
CsrMatrix<double> read_matrix_market_to_solve(const std::string& path,
                                              MatrixMarketInfo* info = nullptr,
                                              bool allow_pattern = false);

/// Reads a vector: `array real general` with one column, or a `coordinate` matrix
/// with one column (missing entries are zero). With `expected_rows` >= 0, a size line
/// declaring another length fails there with InputError, before anything is allocated
/// (a size line of 2e9 rows would otherwise take all memory).
std::vector<double> read_vector_market(const std::string& path, long long expected_rows = -1);

/// Writes a matrix as `coordinate real general`, or `coordinate real symmetric`
/// (lower triangle) when symmetric is true. Values are written with 17 significant
/// digits, so they read back exactly. The file is written to a temporary name and
/// renamed, so a failed write never leaves a half-written file.
void write_matrix_market(const std::string& path, const CsrMatrix<double>& a,
                         bool symmetric = false);

/// Writes a vector as `array real general` with one column (same guarantees).
void write_vector_market(const std::string& path, const std::vector<double>& x);

}  // namespace prism
