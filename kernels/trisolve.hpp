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

/// upper_solve on U with its rows stored in reverse order: position r holds row
/// rows - 1 - r (its entries as in U, diagonal first; the columns stay U's). The backward
/// substitution then reads the factor front to back in memory, which the prefetcher
/// follows, and gives the same bits as upper_solve.
void upper_solve_reversed(CsrView<double> reversed, const double* b, double* x);

}  // namespace prism::kernels::reference
