#pragma once
// Device twins of kernels/choice_scans.hpp, on a matrix in device memory whose columns are
// sorted and unique in every row (what the set-up's storage check finds). One thread per
// row; the strengths are computed with the reference's roundings (no fused multiply-add).

#include "kernels/csr_view.hpp"

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// reference::node_block_ptr(a, max_size, ptr) (`ptr`: rows + 1 device entries): the
/// patterns of adjacent rows compared in parallel, each run's first row carried by a
/// max-scan, the block starts (run starts and every max_size-th row after) compacted by a
/// sum-scan. Returns count (waits for the work). max_size >= 1.
index_t node_block_ptr(const CsrView<double>& a, index_t max_size, index_t* ptr,
                       cudaStream_t stream);

/// reference::inverse_sqrt_diagonal(a, r) (`r`: rows device entries): *first_bad = the
/// first row whose diagonal is not positive and finite, kNoBadEntry
/// (kernels/cuda/matrix_values.hpp) when none; set by the call, copied back by the caller.
void inverse_sqrt_diagonal(const CsrView<double>& a, double* r, int* first_bad,
                           cudaStream_t stream);

/// *count = reference::rows_choosing_links(a, r, dominance, min_strength) (`count`: one
/// device index, set by the call, copied back by the caller).
void rows_choosing_links(const CsrView<double>& a, const double* r, double dominance,
                         double min_strength, index_t* count, cudaStream_t stream);

/// reference::chosen_links(a, r, dominance, min_strength, chosen) (`chosen`: 2 rows device
/// entries).
void chosen_links(const CsrView<double>& a, const double* r, double dominance, double min_strength,
                  index_t* chosen, cudaStream_t stream);

/// reference::mutual_links(rows, chosen, links) (`links`: 2 rows device entries).
void mutual_links(index_t rows, const index_t* chosen, index_t* links, cudaStream_t stream);

}  // namespace prism::kernels::cuda
