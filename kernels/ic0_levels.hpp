#pragma once
// The dependency levels of the entries of an IC(0) factor: entry (i, k) of L needs l_kk
// and the pairs l_ia, l_kb it subtracts (Ic0 matches); the diagonal l_ii needs every
// entry of row i. Entries of one level never read each other, so a factorization can
// compute a whole level at once, across rows and colors, instead of one color and then
// one run of a row at a time.

#include "kernels/csr_view.hpp"

#include <cstdint>
#include <vector>

namespace prism::kernels {

/// The entries of L (nnz = row_ptr[rows], diagonal last in each row) by level, each with
/// what it reads, laid out in that order. An entry's level is 1 + the highest level of
/// what it reads (level 0 if it reads nothing: a diagonal without entries left of it).
/// Slot s, in [level_ptr[l], level_ptr[l + 1]) for level l, in storage order within a
/// level:
/// - entry[s]: its position p in L; row[s]: its row i;
/// - pivot[s]: the position of l_kk it divides by, or p itself for a diagonal entry;
/// - products [product_ptr[s], product_ptr[s + 1]), in the reference's order: l_x l_y
///   with x = product_x[t], y = product_y[t] (positions in L); for entry (i, k) its pairs
///   l_ia l_kb, for a diagonal the squares l_ij l_ij of its row.
/// chain[l]: the most products of one entry of level l. steps: the sequential steps of
/// a row-by-row walk of the same factor (each entry of a row that reads an entry of the
/// same row one step after it, its pivot one more), summed over `blocks` (rows
/// [blocks[b], blocks[b + 1]) computed at once, each block taking its longest row's).
struct Ic0LevelPlan {
  std::vector<index_t> level_ptr;
  std::vector<index_t> entry, row, pivot, product_ptr;
  std::vector<index_t> product_x, product_y;
  std::vector<index_t> chain;
  index_t widest = 0;  // the most entries of one level
  long long steps = 0;

  index_t levels() const { return static_cast<index_t>(level_ptr.size()) - 1; }
};

/// The plan of the pattern `lower` (row_ptr and col_idx of L) from its matches: entry p
/// pairs with own[q] (offset in p's row) and other[q] (position in L) for q in
/// [match_ptr[p], match_ptr[p + 1]). `blocks`: the row blocks a color-by-color
/// factorization takes (ascending, from 0 to lower.rows).
Ic0LevelPlan ic0_level_plan(CsrView<double> lower, const index_t* match_ptr,
                            const std::uint16_t* own, const index_t* other,
                            const std::vector<index_t>& blocks);

}  // namespace prism::kernels
