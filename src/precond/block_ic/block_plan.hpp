#pragma once
// The arrays the block IC(0) kernels read (kernels/block_ic.hpp), built once per pattern
// from the analyzed factor and the operators' patterns.

#include "kernels/block_ic.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_sweeps.hpp"

#include <prism/csr_matrix.hpp>

namespace prism::precond {

/// The plan for `a` (the analyzed matrix) on the pattern of `f` with the operators'
/// patterns `sweeps` (block_ic.solve: inverted). The levels: a block row's level is one
/// past the highest level of the block columns it reads (in a block-colored order, at
/// most the colors).
kernels::BlockIcPlan block_ic_plan(const CsrMatrix<double>& a, const BlockFactor& f,
                                   const BlockSweeps& sweeps);

/// The same without operators (block_ic.solve: trsv): the factor's own solves, in float
/// with `float_solves`.
kernels::BlockIcPlan block_ic_solve_plan(const CsrMatrix<double>& a, const BlockFactor& f,
                                         bool float_solves);

}  // namespace prism::precond
