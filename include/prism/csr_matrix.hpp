#pragma once
/// @file
/// Compressed sparse row matrices on the host and the operations that build them.

#include <prism/types.hpp>

#include <vector>

namespace prism {

/// A sparse matrix in CSR form. Invariants kept by every builder in prism: row_ptr has
/// rows + 1 entries starting at 0, column indices are sorted and unique within a row.
template <typename T>
struct CsrMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};
  std::vector<index_t> col_idx;
  std::vector<T> values;

  index_t nnz() const noexcept { return static_cast<index_t>(col_idx.size()); }
};

/// One (row, column, value) entry of a matrix being assembled.
struct Triplet {
  index_t row;
  index_t col;
  double value;
};

/// Builds a CSR matrix from triplets: sorts by row and column and sums duplicates.
/// Throws InvalidMatrixError on an index outside [0, rows) x [0, cols) or more than
/// 2^31 - 1 entries.
CsrMatrix<double> csr_from_triplets(index_t rows, index_t cols, std::vector<Triplet> triplets);

/// The transpose (sorted, like every CSR matrix in prism).
CsrMatrix<double> transpose(const CsrMatrix<double>& a);

/// The lower triangle of a square matrix, diagonal included.
CsrMatrix<double> lower_triangle(const CsrMatrix<double>& a);

/// The full symmetric matrix from one stored triangle (what FEM codes often keep and the
/// solver does not take): L + L^T with the diagonal once. `triangle` holds the entries on
/// and below the diagonal, or on and above it; throws InvalidMatrixError naming the first
/// entry on the other side (a full matrix given by mistake) or a non-square matrix.
CsrMatrix<double> symmetric_from_triangle(const CsrMatrix<double>& triangle);

/// The diagonal of a square matrix (0 where no entry is stored).
std::vector<double> diagonal(const CsrMatrix<double>& a);

}  // namespace prism
