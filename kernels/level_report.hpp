#pragma once
// The level-set sizes of the lower triangular solve with L = tril(A) (prism::level_sets'
// level_ptr: level(i) = 1 + the largest level(j) over the entries j < i of row i, 0
// without any), computed range by range where the rows come in ranges that do not couple
// inside (the colors of a coloring, in its order): a row of range r reads only the levels
// of rows before the range, so every row of a range is levelled at once; or, in any order,
// row by row as a dataflow (a row once the rows it reads are levelled). The set-up's
// report (analysis::level_ptr) on the matrix the set-up keeps in the backend's memory. The
// CUDA twin is in kernels/cuda/level_report.hpp.

#include "kernels/csr_view.hpp"

#include <prism/types.hpp>

#include <vector>

namespace prism::kernels {

/// Whether `ranges` cover the rows in order: at least two entries, the first 0, the last
/// `rows`, none decreasing (empty ranges allowed).
bool ranges_cover(const std::vector<index_t>& ranges, index_t rows);

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// level_sets(a).level_ptr for a square pattern `a` (values not read) whose rows come in
/// `ranges` (ranges_cover(ranges, a.rows), else ConfigError): true and level_ptr set where
/// no row of a range has an entry in an earlier row of its own range; false (level_ptr
/// untouched) where one does, the ranges then being no independent sets.
bool range_level_ptr(const CsrView<double>& a, const std::vector<index_t>& ranges,
                     std::vector<index_t>& level_ptr);

/// level_sets(a).level_ptr for a square pattern `a` (values not read) in any order, as the
/// device's dataflow finds it (a row is levelled once the earlier rows holding it in their
/// pattern are): true and level_ptr set where every entry (i, j) below the diagonal has its
/// mirror (j, i), found by a binary search in row j (columns sorted in each row); false
/// (level_ptr untouched) where one has not, the dataflow then not waiting for row j.
bool dataflow_level_ptr(const CsrView<double>& a, std::vector<index_t>& level_ptr);

}  // namespace prism::kernels::reference
