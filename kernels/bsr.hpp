#pragma once
// Block sparse row (BSR; register blocking as in Im, Yelick and Vuduc, "Sparsity", IJHPCA
// 18(1), 2004) layout of a CSR matrix with uniform b x b blocks, for FEM matrices with b
// unknowns per node (3 for elasticity, 6 for shells). One column index per block instead of
// one per entry: 8 + 4 / b^2 bytes per stored value instead of 12, and the b values of a
// block row share their column reads. Traffic of y = A x: 8 B per stored value, 4 B per
// block, 4 B per block row, x read (gathered by block) and 8 B per row written.
//
// Block (I, J) covers rows [I b, I b + b) and columns [J b, J b + b); it is stored when any
// CSR entry falls in it, and its entries without a CSR entry are explicit zeros. Where b
// does not divide rows (cols), the last block row (column) is padded logically: its values
// past the last row (column) are zeros that the kernels never multiply with x, so no
// vector is read or written out of bounds.

#include "kernels/csr_view.hpp"

#include <cstdint>
#include <vector>

namespace prism::kernels {

/// The CUDA backend takes BSR (spmv: bsr) up to this many stored values per nonzero:
/// every value costs its 8 bytes, padding or not, so beyond this the CSR kernels move fewer
/// bytes. Structurally symmetric matrices with uniform node blocks store none.
inline constexpr double kBsrMaxPadding = 1.25;

/// Non-owning view of a BSR matrix, host or device arrays (as CsrView).
template <typename T>
struct BsrView {
  index_t rows = 0;  ///< scalar rows (the last block row may hold fewer than b)
  index_t cols = 0;  ///< scalar columns
  int block_size = 1;
  index_t block_rows = 0;                  ///< ceil(rows / b)
  const index_t* block_row_ptr = nullptr;  ///< block_rows + 1 entries
  const index_t* block_col_idx = nullptr;  ///< one per block, sorted within a block row
  const T* values = nullptr;               ///< block k at [k b^2, (k + 1) b^2), row-major inside
};

/// The layout only (pattern and where each value comes from), built once per pattern.
struct BsrLayout {
  index_t rows = 0;
  index_t cols = 0;
  int block_size = 1;
  std::vector<index_t> block_row_ptr{0};
  std::vector<index_t> block_col_idx;
  /// CSR entry each stored value comes from, -1 for padding: the gather map that refills
  /// the BSR values from new CSR values (empty after bsr_pattern alone).
  std::vector<index_t> source;

  index_t block_rows() const { return static_cast<index_t>(block_row_ptr.size()) - 1; }
  index_t blocks() const { return static_cast<index_t>(block_col_idx.size()); }
  /// Stored values, padding included (64-bit: may exceed index_t before the caller refuses).
  std::int64_t stored() const {
    return static_cast<std::int64_t>(blocks()) * block_size * block_size;
  }
  /// The view of this layout over `values` (stored() of them, in this layout's order).
  BsrView<double> view(const double* values) const {
    return {rows,  cols, block_size, block_rows(), block_row_ptr.data(), block_col_idx.data(),
            values};
  }
};

/// Stored values / nonzeros (1 for an empty matrix).
double bsr_padding(const BsrLayout& layout, index_t nnz);

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// The block pattern of `a` for blocks of `block_size` (values ignored; `source` left
/// empty): enough to count stored() and refuse before the map is built. Throws ConfigError
/// when block_size < 1, InvalidMatrixError on a column outside [0, cols).
BsrLayout bsr_pattern(CsrView<double> a, int block_size);

/// Fills layout.source from `a` (the matrix bsr_pattern was built from). Throws
/// InvalidMatrixError when stored() exceeds index_t, two entries of a row share a column, or
/// an entry lies outside the layout's blocks.
void bsr_map(CsrView<double> a, BsrLayout& layout);

/// bsr_pattern, then bsr_map.
BsrLayout bsr_layout(CsrView<double> a, int block_size);

/// out[k] = values[source[k]], 0 for padding: the BSR values from CSR values.
void bsr_gather(const BsrLayout& layout, const double* values, std::vector<double>& out);

/// y = A x (x: cols entries, y: rows entries), block by block in column order: each row's
/// sum runs over its entries in column order plus zeros, so it equals reference::spmv for
/// finite x and sorted CSR columns (prism's invariant).
void bsr_spmv(BsrView<double> a, const double* x, double* y);

}  // namespace prism::kernels::reference
