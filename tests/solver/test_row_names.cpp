// The preconditioners' failures name the caller's row (through the solver's permutation),
// from 0 or from 1 as SolverConfig::numbering says, on the cpu backend. The cuda twins are
// in test_cuda_solve.cpp.

#include "solver/row_name_cases.hpp"

#include <gtest/gtest.h>

namespace {

using prism::BackendKind;
using prism::Numbering;
using prism::test::expect_named;
using prism::test::row_name_config;

const Numbering kNumberings[] = {Numbering::from_zero, Numbering::from_one};

TEST(RowNames, Ic0BreakdownNamesTheCallersRow) {
  const prism::test::RowCase c = prism::test::breakdown_case();
  for (const Numbering numbering : kNumberings) {
    expect_named(c, row_name_config(BackendKind::cpu, "ic0", numbering), false,
                 "ic0: factorization broke down at row ", " (pivot ");
  }
}

TEST(RowNames, Ic0DiagonalNamesTheCallersRow) {
  const prism::test::RowCase c = prism::test::diagonal_case();
  for (const Numbering numbering : kNumberings) {
    expect_named(c, row_name_config(BackendKind::cpu, "ic0", numbering), true,
                 "ic0: diagonal entry of row ", " is not positive (-1)");
  }
}

TEST(RowNames, JacobiDiagonalNamesTheCallersRow) {
  const prism::test::RowCase c = prism::test::diagonal_case();
  for (const Numbering numbering : kNumberings) {
    expect_named(c, row_name_config(BackendKind::cpu, "jacobi", numbering), true,
                 "jacobi: diagonal entry of row ", " is not positive");
  }
}

TEST(RowNames, BlockIcBreakdownNamesTheCallersRows) {
  // One row per node of a scalar Poisson matrix: the failing block is the failing row.
  const prism::test::RowCase c = prism::test::breakdown_case();
  for (const Numbering numbering : kNumberings) {
    prism::SolverConfig config = row_name_config(BackendKind::cpu, "block_ic", numbering);
    config.preconditioner.block_ic.block_size = 1;
    expect_named(c, config, false, "block_ic: factorization broke down at the block of row ",
                 " after 0 shift retries");
  }
}

}  // namespace
