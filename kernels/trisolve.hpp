#pragma once
// Sparse triangular solves with the IC(0) factor. L is stored row-wise with the
// diagonal last in each row, U = L^T row-wise with the diagonal first, so both solves
// are row-oriented (no atomics, no transposed access).

#include "kernels/csr_view.hpp"

namespace prism::kernels::reference {

/// Solves L x = b by forward substitution (diagonal = last entry of each row).
void lower_solve(CsrView<double> lower, const double* b, double* x);

/// Solves U x = b by backward substitution (diagonal = first entry of each row).
void upper_solve(CsrView<double> upper, const double* b, double* x);

}  // namespace prism::kernels::reference
