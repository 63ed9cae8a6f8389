#pragma once
// The pattern checks of a matrix at set-up, as flags: whether its storage is consistent
// (row pointers in order and within the entries, columns in range, sorted and unique) and
// whether every entry has its mirror (found by a binary search in the mirror's row) and
// every row its diagonal, with the mirror map as a by-product. The values check on that map
// is first_bad_value (kernels/matrix_values.hpp). A backend that finds a defect hands the
// matrix to prism::check_spd_candidate and friends, which name it; valid matrices cost one
// pass. The CUDA twin is in kernels/cuda/setup_checks.hpp.

#include "kernels/csr_view.hpp"

#include <prism/types.hpp>

namespace prism::kernels {

/// Defect flags of pattern_defects(), or-ed.
enum PatternDefect : int {
  kNoDefect = 0,
  kBadStorage = 1,       ///< a row pointer out of order or past the entries, a column out of
                         ///< range, or columns not sorted and unique
  kNoMirror = 2,         ///< an entry (i, j) without (j, i)
  kMissingDiagonal = 4,  ///< a row without its diagonal entry
};

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// The storage checks of `a` (row_ptr[0] = 0 and row_ptr[rows] = the entries are the
/// caller's); with `structure`, and only where the storage is sound, also the mirrors and
/// diagonals: mirror[k] = the entry (j, i) of entry k = (i, j), k itself on the diagonal
/// (unspecified where an entry has no mirror). Returns the PatternDefect flags found.
/// `a.values` is not read; `mirror` may be null when !structure.
int pattern_defects(const CsrView<double>& a, index_t nnz, bool structure, index_t* mirror);

}  // namespace prism::kernels::reference
