#pragma once
// CSR sparse matrix-vector product on the device, "CSR-vector" style: a power-of-two
// group of threads per row (sized from the mean row length, at most a warp) reads the
// row with unit stride and reduces with shuffles. Traffic as kernels/spmv.hpp.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// Threads per row for a mean of `mean_row_length` entries: the smallest power of two
/// not below it, at most 32.
int spmv_threads_per_row(double mean_row_length);

/// y = A x; `a`, x and y are device arrays. Asynchronous on `stream`.
void spmv(CsrView<double> a, int threads_per_row, const double* x, double* y, cudaStream_t stream);

}  // namespace prism::kernels::cuda
