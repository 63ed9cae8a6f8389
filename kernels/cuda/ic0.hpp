#pragma once
// IC(0) factorization on the device, one independent block of rows (a color) per
// launch: the rows of a block only read rows of earlier blocks, so each row is one
// thread running the same up-looking Crout step as the reference kernel
// (kernels/ic0.hpp). Plus the gathers that lay the factor out for the color-set solves.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// No failure recorded: the initial value of `failed_row`, which a byte-wise
/// cudaMemset(0x7f) writes (larger than any row index prism accepts).
inline constexpr int kNoFailedRowByte = 0x7f;
inline constexpr int kNoFailedRow = 0x7f7f7f7f;

/// Factors rows [begin, end) of `lower` (diagonal last; values in `values`, tril(A) in,
/// L out) with the diagonal shifted by `shift`. A row whose pivot is <= 0 or not finite
/// min-reduces its index into *failed_row and leaves the pivot in its diagonal slot.
void ic0_factor_rows(index_t begin, index_t end, CsrView<double> lower, double* values,
                     double shift, int* failed_row, cudaStream_t stream);

/// The device twin of reference::ic0_scale: row_scale[i] = sqrt(a_ii) and
/// scaled[k] = a[source[k]] s_i s_j (s = 1 / row_scale), in the reference's operation
/// order, so bit for bit the same. A row whose a_ii is not positive or not finite
/// min-reduces its index into *failed_row (which the call sets to kNoFailedRow first).
void ic0_scale(CsrView<double> lower, const index_t* source, const double* a, double* scaled,
               double* row_scale, int* failed_row, cudaStream_t stream);

/// values[k] *= row_scale[i] for every entry k of row i.
void scale_rows(index_t rows, const index_t* row_ptr, const double* row_scale, double* values,
                cudaStream_t stream);

/// out[i] = 1 / values[source[i]], computed in double (then rounded by the float overload).
void gather_inverse(index_t n, const index_t* source, const double* values, double* out,
                    cudaStream_t stream);
void gather_inverse(index_t n, const index_t* source, const double* values, float* out,
                    cudaStream_t stream);

}  // namespace prism::kernels::cuda
