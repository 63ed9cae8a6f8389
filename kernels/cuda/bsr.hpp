#pragma once
// BSR SpMV on the device (layout: kernels/bsr.hpp). The values dominate the traffic, so
// they are read coalesced: one warp per block row reads the row's contiguous values
// (blocks of b^2, row-major) with unit stride. Chunks of M whole blocks (M b^2 values,
// M chosen per b so that a chunk nearly fills whole warp loads) give each lane fixed
// positions inside the blocks: a fixed row r and column c per load slot, so each slot keeps
// one partial sum, and the b row sums are reduced across the warp once per block row.
// Specialised for b = 2..8; any other b runs a plain kernel with one thread per row.

#include "kernels/bsr.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// y = A x; `a` (its arrays), x and y are device arrays. Asynchronous on `stream`.
/// Explicit zeros of the padding multiply x like stored entries (0 * inf is NaN where the
/// CSR SpMV would skip the entry); PCG's vectors are finite.
void bsr_spmv(BsrView<double> a, const double* x, double* y, cudaStream_t stream);

/// bsr_values[k] = csr_values[source[k]], 0 where source[k] < 0 (padding): the BSR values
/// refilled on the device from new CSR values (`stored` of them; the map is
/// BsrLayout::source, or it composed with a SourceValues map). Asynchronous on `stream`.
void bsr_gather(index_t stored, const index_t* source, const double* csr_values, double* bsr_values,
                cudaStream_t stream);

}  // namespace prism::kernels::cuda
