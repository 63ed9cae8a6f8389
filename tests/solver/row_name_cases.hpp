#pragma once
// The preconditioners' failures at a known row of the caller's matrix, under a coloring that
// moves that row: setup() and refactor() must name the caller's row, from 0 or from 1 as
// SolverConfig::numbering says (issue 45). Shared by the cpu tests (test_row_names.cpp) and
// their cuda twins (test_cuda_solve.cpp).

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace prism::test {

/// A 6 x 6 Poisson matrix that fails ic0 at `row`, and where greedy coloring puts that row.
struct RowCase {
  CsrMatrix<double> good;  // the matrix before the defect
  CsrMatrix<double> bad;
  index_t row = -1;      // the caller's row the message must name (0-based)
  index_t ordered = -1;  // its index in the solver's (colored) order
};

inline void set_entry(CsrMatrix<double>& a, index_t i, index_t j, double value) {
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    if (a.col_idx[k] == j) a.values[k] = value;
  }
}

inline index_t colored_index(const CsrMatrix<double>& a, index_t row) {
  return inverse_permutation(color_matrix(a, VertexOrder::natural).permutation)[row];
}

/// a(14, 15) = a(15, 14) = -5 against a diagonal of 4: the pivot of whichever of rows 14 and
/// 15 the coloring puts second goes negative (red-black: 15, moved to 25).
inline RowCase breakdown_case() {
  RowCase c;
  c.good = poisson2d(6, 6);
  c.bad = c.good;
  set_entry(c.bad, 14, 15, -5.0);
  set_entry(c.bad, 15, 14, -5.0);
  c.row = colored_index(c.bad, 14) > colored_index(c.bad, 15) ? 14 : 15;
  c.ordered = colored_index(c.bad, c.row);
  return c;
}

/// a(20, 20) = -1: the diagonal is not positive (a setup with check none lets it through
/// to the preconditioner).
inline RowCase diagonal_case() {
  RowCase c;
  c.good = poisson2d(6, 6);
  c.bad = c.good;
  set_entry(c.bad, 20, 20, -1.0);
  c.row = 20;
  c.ordered = colored_index(c.bad, c.row);
  return c;
}

/// The colored ic0 of `backend` (greedy, natural vertex order: what colored_index assumes).
inline SolverConfig row_name_config(BackendKind backend, const std::string& type,
                                    Numbering numbering) {
  SolverConfig config;
  config.backend = backend;
  config.preconditioner.type = type;
  config.preconditioner.ordering = Ordering::color;
  config.preconditioner.coloring.method = ColoringMethod::greedy;
  config.preconditioner.coloring.vertex_order = VertexOrder::natural;
  config.preconditioner.ic0.max_shift_retries = 0;
  config.numbering = numbering;
  return config;
}

/// The message of the prism::Error that `call` throws ("" when none).
inline std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// setup(bad) and, after setup(good), refactor(bad) both throw a message that starts with
/// before + the caller's row (numbered as config.numbering says) + after; the ordered index
/// is not the caller's (else the case would show nothing).
inline void expect_named(const RowCase& c, const SolverConfig& config, bool check_none,
                         const std::string& before, const std::string& after) {
  ASSERT_NE(c.ordered, c.row) << "the coloring must move the row";
  SolverConfig with_check = config;
  if (check_none) with_check.solver.check = MatrixCheck::none;
  const index_t base = config.numbering == Numbering::from_one ? 1 : 0;
  const std::string expected = before + std::to_string(c.row + base) + after;
  Solver fresh(with_check);
  const std::string set_up = message_of([&] { fresh.setup(c.bad); });
  EXPECT_EQ(set_up.substr(0, expected.size()), expected) << set_up;
  Solver refactored(with_check);
  refactored.setup(c.good);
  const std::string refactor = message_of([&] { refactored.refactor(c.bad); });
  EXPECT_EQ(refactor.substr(0, expected.size()), expected) << refactor;
}

}  // namespace prism::test
