#pragma once
// Level-set sizes without the level sets' permutation: what the set-up's report needs.

#include <prism/csr_matrix.hpp>

#include <vector>

namespace prism::analysis {

/// level_sets(a).level_ptr. Rows of one range of `independent` (range r holds rows
/// [independent[r], independent[r + 1]), a cover of the rows in order: the colors of a
/// coloring in its order) never couple, so each range is levelled on host threads at
/// once; where two rows of a range couple after all, or without ranges, the rows are
/// levelled one by one in order.
std::vector<index_t> level_ptr(const CsrMatrix<double>& a, const std::vector<index_t>& independent);

}  // namespace prism::analysis
