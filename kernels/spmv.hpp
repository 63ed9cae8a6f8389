#pragma once
// Sparse matrix-vector product. Traffic: 12 B/nnz (double value + 32-bit column)
// + 4 B/row (row pointer) + x reads (gathered) + 8 B/row written.

#include "kernels/csr_view.hpp"

namespace prism::kernels::reference {

/// y = A x
void spmv(CsrView<double> a, const double* x, double* y);

}  // namespace prism::kernels::reference
