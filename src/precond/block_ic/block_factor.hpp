#pragma once
// Host block incomplete Cholesky, BIC(0), on a partition of the unknowns into blocks of
// consecutive rows, the reference of the block preconditioner (DESIGN.md, "one block
// framework"): no fill outside the block pattern of A, dense inside it, so that
// (L L^T)_IJ = A_IJ on every block (I, J) that A couples; blocks of one row give IC(0).
// As in ic0 (precond/ic0_pattern.hpp) the factor is of the scaled matrix
//   A_s = S A S, S = diag(a_ii)^{-1/2};  A_s + shift I = L_s L_s^T;  M = S^{-1} L_s L_s^T S^{-1}
// so the shift is relative to each diagonal entry.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>

#include <cstdint>
#include <vector>

namespace prism::precond {

/// The block lower triangle L_s: per block row I, the dense blocks L_IJ (b_I x b_J,
/// row-major) of the block columns J < I that A couples to I, ascending, then the
/// diagonal block L_II (b_I x b_I, row-major, lower triangle).
struct BlockFactor {
  BlockPartition blocks;
  std::vector<index_t> row_ptr;        ///< block row I: entries [row_ptr[I], row_ptr[I + 1])
  std::vector<index_t> col;            ///< block column J < I of each entry, ascending per row
  std::vector<std::int64_t> offset;    ///< where each entry's values start
  std::vector<std::int64_t> diagonal;  ///< where each L_II starts
  std::vector<double> values;
  std::vector<double> scale;  ///< S_ii = a_ii^{-1/2}
  /// Where each entry k of A on or below the block diagonal goes in `values` (-1 above).
  std::vector<std::int64_t> scatter;

  index_t size(index_t block) const { return blocks.ptr[block + 1] - blocks.ptr[block]; }
};

/// The pattern of L_s for A (square, structurally symmetric, full diagonal) over
/// `blocks`, and where A's entries go; values are left zero.
BlockFactor analyze_block_factor(const CsrMatrix<double>& a, const BlockPartition& blocks);

/// Factors A's values (on the analyzed pattern) with `shift` added to the scaled
/// diagonal. Returns -1, or the first block whose diagonal Schur complement is not
/// positive definite (or not finite): f then holds no usable factor.
index_t factor_block_ic0(const CsrMatrix<double>& a, double shift, BlockFactor& f);

/// z = M^{-1} r: forward sweep with L_s, backward with L_s^T, block row by block row,
/// between the scalings by S. r and z may be the same array.
void solve_block_ic0(const BlockFactor& f, const double* r, double* z);

}  // namespace prism::precond
