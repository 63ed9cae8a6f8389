#pragma once
// Color-set sparse triangular solves (Suchoski 2012). The factor is split into its
// diagonal (kept inverted) and its strict triangle, and the rows into contiguous
// blocks with no dependency inside a block: in a multicolor ordering the rows of one
// color are never coupled, so each block (a color) is one parallel step. Lower solves
// run the blocks first to last, upper solves last to first.
//
// Traffic per solve: the strict triangle (12 B/nnz + 4 B/row), the inverse diagonal,
// b and x (8 B/row each), x written (8 B/row), x gathered through the cache.

#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::kernels {

/// Maximal contiguous row blocks of a strict triangle with no entry coupling two rows of
/// one block, as block pointers (first 0, last rows). For a lower triangle a row starts a
/// new block when it references a column of the current block (scanning down); for an
/// upper triangle when it references one of the block below it (scanning up).
std::vector<index_t> independent_blocks(CsrView<double> strict, bool lower);

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// Solves (D + S) x = b, S strictly lower (lower = true) or strictly upper, D given as
/// its inverse, block by block in dependency order. x may alias b.
void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                    double* x);

}  // namespace prism::kernels::reference
