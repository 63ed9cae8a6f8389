#pragma once
// The symmetric permutation of the set-up (prism::permute_symmetric, the host reference)
// on the GPU: B = P A P^T with b_{ij} = a_{perm[i], perm[j]}, each row's columns sorted,
// and where each of B's entries comes from in A.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// B = P A P^T of a square `a` with sorted columns in device memory (a.values may be null:
/// then b_values is not written), perm[new] = old a permutation of the rows (not checked).
/// Writes b_row_ptr (rows + 1), b_col_idx, b_values and source (nnz each: b_values[k] =
/// a.values[source[k]]), all device arrays of the caller; equal to the host reference's
/// arrays entry for entry. Allocates its scratch (the inverse permutation, the unsorted
/// rows, the sort's storage) for the call; freeing it waits for the work.
void permute_symmetric(const CsrView<double>& a, index_t nnz, const index_t* perm,
                       index_t* b_row_ptr, index_t* b_col_idx, double* b_values, index_t* source,
                       cudaStream_t stream);

}  // namespace prism::kernels::cuda
