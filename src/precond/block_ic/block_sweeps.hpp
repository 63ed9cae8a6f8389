#pragma once
// The block IC(0) factor (block_factor.hpp) as four operators that any backend applies
// with the kernels it already has: two SpMVs with block diagonal matrices and two
// color-set triangular solves with a unit diagonal. With the diagonal blocks inverted
// (as Hogg's inversion of the diagonal blocks of a supernodal factor), every row of a
// color depends only on rows of other colors, so a sweep needs no dense trsv:
//   forward   y = L_s^{-1} S r:   t = F r,  (I + W) y = t,
//             F = blockdiag(L_II^{-1}) S,  W_IJ = L_II^{-1} L_IJ  (J < I);
//   backward  z = S L_s^{-T} y:   s = B y,  (I + V) z = s,
//             B = S blockdiag(L_JJ^{-T}),  V_JI = S_J L_JJ^{-T} L_IJ^T S_I^{-1}  (I > J).
// so that z = M^{-1} r with M = S^{-1} L_s L_s^T S^{-1}. W has the block pattern of L_s
// below the diagonal blocks and V that of its transpose; the zeros of dense blocks are
// kept, so a new factor on the same blocks gives the same patterns (refactor).

#include "precond/block_ic/block_factor.hpp"

#include <prism/csr_matrix.hpp>

namespace prism::precond {

struct BlockSweeps {
  CsrMatrix<double> forward_diagonal;   ///< F
  CsrMatrix<double> forward;            ///< I + W, lower, the unit diagonal last in each row
  CsrMatrix<double> backward_diagonal;  ///< B
  CsrMatrix<double> backward;           ///< I + V, upper, the unit diagonal first in each row
};

/// The four operators of a factored `f`.
BlockSweeps block_sweeps(const BlockFactor& f);

/// Their patterns alone (f need not be factored): zeros, and the unit diagonals of I + W
/// and I + V; the same patterns as block_sweeps(f) gives.
BlockSweeps block_sweeps_pattern(const BlockFactor& f);

}  // namespace prism::precond
