#pragma once
// Incomplete Cholesky with zero fill, IC(0), on the lower triangle of a symmetric
// matrix stored in CSR with the diagonal as the last entry of each row.

#include "kernels/csr_view.hpp"

namespace prism::kernels {

/// Outcome of one factorization attempt.
struct Ic0Status {
  index_t failed_row = -1;  ///< first row whose pivot was <= 0 or not finite; -1 on success
  double pivot = 0.0;       ///< the offending pivot value
  /// The input's own diagonal entry was not positive (pivot = a_ii): no shift helps.
  bool bad_input = false;
  bool ok() const noexcept { return failed_row < 0; }
};

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// The scaled lower triangle IC(0) factors: scaled[k] = a[source[k]] s_i s_j for entry k
/// = (i, j) of `lower` (a pattern, diagonal last), s_i = 1 / row_scale[i] and
/// row_scale[i] = sqrt(a_ii), so tril(S A S) with unit diagonal. `source` maps the
/// entries of `lower` to those of A. Returns the first row whose a_ii is not positive or
/// not finite, with a_ii as the pivot and bad_input set (then scaled and row_scale are
/// unspecified).
Ic0Status ic0_scale(CsrView<double> lower, const index_t* source, const double* a, double* scaled,
                    double* row_scale);

/// Factors tril(A) + shift I into L with L L^T ~ A + shift I on the pattern of tril(A).
/// `lower` gives the pattern (sorted columns, diagonal last in every row); `values`
/// holds tril(A) on input and L on output. Row-oriented (up-looking) Crout:
///   l_ik = (a_ik - sum_{j<k} l_ij l_kj) / l_kk,  l_ii = sqrt(a_ii + shift - sum_{j<i} l_ij^2)
/// with the sums over the common pattern of rows i and k. Stops at the first bad pivot.
Ic0Status ic0_factorize(CsrView<double> lower, double* values, double shift);

/// Row i of ic0_factorize (rows it reads, k < i, already factored): its status.
Ic0Status ic0_factor_row(CsrView<double> lower, double* values, double shift, index_t i);

}  // namespace prism::kernels::reference
