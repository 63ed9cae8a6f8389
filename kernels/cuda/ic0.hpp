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
/// One thread per row walks its row and merges it with each row it reads: about m^2
/// dependent steps for m entries. With warp_per_row one warp takes a row and looks up
/// 32 entries at once (binary search, ordered shuffles): about m (log m + 32) cheap
/// steps, the faster choice for long rows (ic0_warp_per_row) even though it uses 32
/// times the threads. Both give the reference factor bit for bit.
void ic0_factor_rows(index_t begin, index_t end, CsrView<double> lower, double* values,
                     double shift, int* failed_row, cudaStream_t stream,
                     bool warp_per_row = false);

/// The choice of ic0_factor_rows for a block whose longest row has `entries` entries
/// left of the diagonal: a warp per row from 16 on, where the m^2 dependent loads of
/// the one-thread merge (about 30 cycles each) outweigh the warp's m (log m + 32)
/// shuffle-bound steps (the two meet near m = 11-16 in that count).
inline bool ic0_warp_per_row(index_t entries) { return entries >= 16; }

/// The device twin of reference::ic0_scale: row_scale[i] = sqrt(a_ii), s_i =
/// inverse_scale[i] = 1 / row_scale[i] and scaled[k] = a[source[k]] s_i s_j, one thread
/// per entry (entry_row[k]: the row of entry k), in the reference's operation order, so
/// bit for bit the same. `nnz`: the entries of `lower`; diagonal_source[i] = the source
/// of row i's diagonal entry (source[row_ptr[i + 1] - 1], composed once by the caller).
/// A row whose a_ii is not positive or not finite min-reduces its index into
/// *failed_row (which the call sets to kNoFailedRow first).
void ic0_scale(CsrView<double> lower, index_t nnz, const index_t* entry_row,
               const index_t* source, const index_t* diagonal_source, const double* a,
               double* scaled, double* row_scale, double* inverse_scale, int* failed_row,
               cudaStream_t stream);

/// The factor L = S^{-1} L_s laid out for a solve while it is gathered from L_s (the
/// scaling fused into the layout pass): out[i] = ls[source[i]] * row_scale[entry_row[
/// source[i]]], 0 where source[i] < 0; the float overload rounds the double product, as
/// rounding L would.
void gather_unscaled(index_t n, const index_t* source, const double* ls, const index_t* entry_row,
                     const double* row_scale, double* out, cudaStream_t stream);
void gather_unscaled(index_t n, const index_t* source, const double* ls, const index_t* entry_row,
                     const double* row_scale, float* out, cudaStream_t stream);

/// The inverse diagonal of L: out[i] = 1 / (ls[diagonal[i]] * row_scale[i]) in double
/// (then rounded by the float overload), also into out2 unless it is null (the second
/// triangle's copy, from the same pass).
void gather_inverse_unscaled(index_t n, const index_t* diagonal, const double* ls,
                             const double* row_scale, double* out, double* out2,
                             cudaStream_t stream);
void gather_inverse_unscaled(index_t n, const index_t* diagonal, const double* ls,
                             const double* row_scale, float* out, float* out2,
                             cudaStream_t stream);

}  // namespace prism::kernels::cuda
