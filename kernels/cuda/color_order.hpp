#pragma once
// Device twins of kernels/color_order.hpp's per-row passes, on a coloring that stays in
// device memory (kernels/cuda/parallel_coloring.hpp): only the color sizes and the
// permutation come back.

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// reference::color_sizes(n, colors, count, sizes) on device arrays (`sizes`: count
/// entries). Allocates its scratch for the call; freeing it waits for the work.
void color_sizes(index_t n, const int* colors, int count, index_t* sizes, cudaStream_t stream);

/// reference::order_by_color(n, colors, new_id, count, perm) on device arrays (`new_id`:
/// count entries, a renumbering of 0 .. count-1): a stable radix sort of the rows by their
/// new color over the bits it needs. Allocates its scratch for the call; freeing it waits
/// for the work.
void order_by_color(index_t n, int* colors, const int* new_id, int count, index_t* perm,
                    cudaStream_t stream);

}  // namespace prism::kernels::cuda
