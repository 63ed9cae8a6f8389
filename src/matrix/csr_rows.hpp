#pragma once
/// @file
/// The last step of building a CSR matrix from entries already grouped by row
/// (csr_from_triplets, and the Matrix Market reader's row buckets).

#include <prism/csr_matrix.hpp>

#include <cstdint>
#include <vector>

namespace prism {

/// The CSR matrix whose row r holds col/val[start[r], start[r + 1]) in the order given,
/// unsorted and with duplicates: each row is sorted by column (stably) and its duplicates
/// summed in that order, rows in parts on host threads. Throws InvalidMatrixError when
/// more than 2^31 - 1 entries remain.
CsrMatrix<double> csr_from_row_ranges(index_t rows, index_t cols,
                                      const std::vector<std::int64_t>& start,
                                      std::vector<index_t> col, std::vector<double> val);

}  // namespace prism
