#pragma once
// The per-row and per-block passes of a block coloring (prism::color_blocks) that have no
// host twin in src/: the greedy's largest-first vertex order from a pattern's degrees, and
// a block order expanded to rows. The CUDA twins, with the quotient pattern of the blocks
// (whose host twin is prism::quotient_matrix), are in kernels/cuda/block_coloring.hpp.

#include <prism/types.hpp>

namespace prism::kernels::reference {

/// rank[v] of every vertex v of a structurally symmetric pattern of n rows (row_ptr,
/// col_idx): its position when the vertices go by decreasing degree (entries off the
/// diagonal), ties by increasing index: Welsh-Powell's largest-first order, as
/// analysis::greedy_rank(largest_first) gives it.
void largest_first_rank(index_t n, const index_t* row_ptr, const index_t* col_idx, index_t* rank);

/// The rows of `blocks` blocks listed in `order` (order[q]: the block at position q; block b
/// is positions [block_ptr[b], block_ptr[b + 1]) of `grouping`, or those rows themselves
/// when grouping is null): new_ptr[q] the first row of position q (blocks + 1 entries) and
/// perm[new_ptr[q] + t] = grouping[block_ptr[order[q]] + t], a block's rows in order.
void rows_in_block_order(index_t blocks, const index_t* block_ptr, const index_t* grouping,
                         const index_t* order, index_t* new_ptr, index_t* perm);

}  // namespace prism::kernels::reference
