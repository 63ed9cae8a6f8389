#pragma once
// The block coloring's passes on the GPU (prism::color_blocks: the quotient graph of the
// blocks, its greedy coloring, the blocks color by color): the quotient pattern of the
// blocks of a grouped matrix, the largest-first vertex order on it and a block order
// expanded to rows. Twins: prism::quotient_matrix (the pattern) and
// kernels/block_coloring.hpp (the others); the coloring itself is
// kernels/cuda/parallel_coloring.hpp's ordered greedy.

#include "kernels/block_coloring.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// A pattern in device memory (no values).
struct DevicePattern {
  index_t rows = 0;
  DeviceBuffer<index_t> row_ptr, col_idx;

  CsrView<double> view() const { return {rows, rows, row_ptr.data(), col_idx.data(), nullptr}; }
};

/// The pattern of prism::quotient_matrix(G A G^T, blocks) for a square `a` in device memory
/// (values not read) with `nnz` entries: G the rows of A in group order (grouping[new] =
/// old, a permutation of the rows, not checked; nullptr: the identity), block b rows
/// [block_ptr[b], block_ptr[b + 1]) of G A G^T (`blocks` blocks covering its rows, none
/// empty; block_ptr in device memory). Row I holds the blocks that rows of block I couple
/// to, sorted, each once. The block of each row, the rows' block columns in block row
/// order, a segmented sort per block row and a compaction of the repeats; reads the entry
/// count back once. Allocates its scratch (about 3 ints an entry) for the call; throws
/// DeviceMemoryError where it does not fit.
DevicePattern quotient_pattern(const CsrView<double>& a, index_t nnz, const index_t* grouping,
                               index_t blocks, const index_t* block_ptr, cudaStream_t stream);

/// reference::largest_first_rank(n, row_ptr, col_idx, rank) on device arrays: the degrees,
/// then a stable radix sort of the vertices by decreasing degree.
void largest_first_rank(index_t n, const index_t* row_ptr, const index_t* col_idx, index_t* rank,
                        cudaStream_t stream);

/// reference::rows_in_block_order(blocks, block_ptr, grouping, order, new_ptr, perm) on
/// device arrays (`grouping` may be null) of `rows` rows in all: the sizes in the new order
/// and their scan, then a thread a row that finds its position by bisection.
void rows_in_block_order(index_t rows, index_t blocks, const index_t* block_ptr,
                         const index_t* grouping, const index_t* order, index_t* new_ptr,
                         index_t* perm, cudaStream_t stream);

}  // namespace prism::kernels::cuda
