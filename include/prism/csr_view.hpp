#pragma once
/// @file
/// Non-owning CSR views of a caller's arrays (what an FEM code assembled, in its own index
/// type and storage), and the helpers that bring assembly output into prism's contract.

#include <prism/csr_matrix.hpp>
#include <prism/types.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace prism {

/// Which part of a symmetric matrix a view holds.
enum class Storage {
  full,   ///< every entry, both triangles
  lower,  ///< the entries on and below the diagonal (j <= i)
  upper   ///< the entries on and above the diagonal (j >= i)
};

/// A square sparse matrix in the caller's CSR arrays, read and never kept. The contract:
/// 0-based indices; row i holds entries row_ptr[i] .. row_ptr[i + 1] - 1 with
/// row_ptr[0] = 0; the columns of each row sorted and unique (sort_and_merge_duplicates()
/// makes them so); with lower or upper storage no entry on the other side of the diagonal.
/// `Index` is std::int32_t or std::int64_t (Eigen's StorageIndex, PetscInt, Ginkgo's
/// IndexType); prism computes with 32-bit indices, so rows and entries (of the full matrix,
/// a triangle expanded) must stay below 2^31. The arrays must outlive the call they are
/// passed to, no longer.
template <typename Index>
struct CsrView {
  Index rows = 0;
  Index cols = 0;
  const Index* row_ptr = nullptr;  ///< rows + 1 offsets
  const Index* col_idx = nullptr;  ///< row_ptr[rows] column indices
  const double* values = nullptr;  ///< row_ptr[rows] values
  Storage storage = Storage::full;

  Index nnz() const noexcept { return row_ptr == nullptr ? 0 : row_ptr[rows]; }
};

using CsrView32 = CsrView<std::int32_t>;
using CsrView64 = CsrView<std::int64_t>;

/// A view of a prism matrix (full storage unless told otherwise).
inline CsrView32 view_of(const CsrMatrix<double>& a, Storage storage = Storage::full) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data(), storage};
}

/// The full matrix a view stands for, in prism's storage: the view checked against the
/// contract above (InvalidMatrixError naming the first problem, rows and entries counted
/// from 0, and the fix), indices narrowed to 32 bits (InvalidMatrixError when rows or
/// entries do not fit), one triangle mirrored. This is the one copy Solver::setup(view)
/// makes. Values are not checked (the solver's matrix checks do that).
template <typename Index>
CsrMatrix<double> to_csr_matrix(const CsrView<Index>& view);

/// to_csr_matrix() for a view of one triangle: L + L^T (or U^T + U) with the diagonal once,
/// columns sorted. Throws InvalidMatrixError for a view with full storage.
template <typename Index>
CsrMatrix<double> expand_triangle(const CsrView<Index>& triangle);

/// Assembly output in CSR form made to fit the contract, in place: the columns of each row
/// sorted and entries with the same (row, column) summed, in the order given (so the same
/// input always gives the same bits). row_ptr keeps rows + 1 entries; col_idx and values
/// shrink to the entries left. Throws InvalidMatrixError on inconsistent sizes or offsets.
template <typename Index>
void sort_and_merge_duplicates(std::vector<Index>& row_ptr, std::vector<Index>& col_idx,
                               std::vector<double>& values);

/// The same for a prism matrix (e.g. one filled row by row without sorting).
inline void sort_and_merge_duplicates(CsrMatrix<double>& a) {
  sort_and_merge_duplicates(a.row_ptr, a.col_idx, a.values);
}

/// The same for COO triplets in any order: a sorted CSR matrix with duplicates summed
/// (csr_from_triplets()).
inline CsrMatrix<double> sort_and_merge_duplicates(index_t rows, index_t cols,
                                                   std::vector<Triplet> triplets) {
  return csr_from_triplets(rows, cols, std::move(triplets));
}

}  // namespace prism
