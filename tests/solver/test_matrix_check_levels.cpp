// solver.check and solver.symmetry_tolerance through the Solver: what each level accepts
// at setup() and refactor(), and that a skipped check never turns into a false verdict.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::MatrixCheck;

prism::SolverConfig config(MatrixCheck check, double tolerance = 1e-12) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.preconditioner.type = "ic0";
  c.solver.check = check;
  c.solver.symmetry_tolerance = tolerance;
  c.solver.tolerance = 1e-10;
  return c;
}

/// `a` with a(i, j) moved by `delta` (its mirror unchanged), for the first off-diagonal
/// entry of row i.
CsrMatrix<double> nudged(CsrMatrix<double> a, index_t i, double delta) {
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    if (a.col_idx[k] != i) {
      a.values[k] += delta;
      return a;
    }
  }
  return a;
}

// An assembly whose a_ij and a_ji differ in the last digits of float: rejected by the
// default tolerance, accepted by a looser one and by the pattern check, and solved.
TEST(MatrixCheckLevels, SymmetryToleranceAcceptsAFloatAssembly) {
  const CsrMatrix<double> a = prism::poisson3d(8, 7, 6);
  const CsrMatrix<double> loose = nudged(a, 17, 1e-7);
  const std::vector<double> b = prism::test::random_vector(a.rows, 2);
  EXPECT_THROW(prism::Solver(config(MatrixCheck::full)).setup(loose), prism::InvalidMatrixError);
  for (const prism::SolverConfig& c :
       {config(MatrixCheck::full, 1e-6), config(MatrixCheck::pattern)}) {
    prism::Solver s(c);
    s.setup(loose);
    std::vector<double> x;
    EXPECT_TRUE(s.solve(b, x).converged());
    EXPECT_LE(prism::test::relative_residual(loose, x, b), 1e-9);
  }
}

// refactor() checks new values at check full only.
TEST(MatrixCheckLevels, RefactorChecksValuesOnlyAtFull) {
  const CsrMatrix<double> a = prism::poisson2d(12, 9);
  const CsrMatrix<double> asymmetric = nudged(a, 30, 0.25);
  prism::Solver full(config(MatrixCheck::full));
  full.setup(a);
  EXPECT_THROW(full.refactor(asymmetric), prism::InvalidMatrixError);
  for (const MatrixCheck level : {MatrixCheck::pattern, MatrixCheck::none}) {
    prism::Solver s(config(level));
    s.setup(a);
    EXPECT_NO_THROW(s.refactor(asymmetric));
    s.refactor_on_backend(asymmetric.values.data(), asymmetric.values.size());
    CsrMatrix<double> short_values = a;  // the values are still counted
    short_values.values.pop_back();
    EXPECT_THROW(s.refactor(short_values), prism::InvalidMatrixError);
  }
}

// What the pattern level still rejects (a pattern that is not symmetric, a missing
// diagonal) and what none still rejects (storage read out of bounds).
TEST(MatrixCheckLevels, LowerLevelsStillRejectWhatTheyCheck) {
  CsrMatrix<double> broken = prism::poisson2d(5, 4);
  broken.col_idx.back() = broken.cols;
  for (const MatrixCheck level : {MatrixCheck::full, MatrixCheck::pattern, MatrixCheck::none}) {
    EXPECT_THROW(prism::Solver(config(level)).setup(broken), prism::InvalidMatrixError);
    EXPECT_THROW(prism::Solver(config(level)).setup(CsrMatrix<double>{}),
                 prism::InvalidMatrixError);
  }
  // Drop entry (0, 1) of row 0: its mirror (1, 0) stays.
  CsrMatrix<double> a = prism::poisson2d(5, 4);
  CsrMatrix<double> cut{a.rows, a.cols, {0}, {}, {}};
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (i == 0 && a.col_idx[k] == 1) continue;
      cut.col_idx.push_back(a.col_idx[k]);
      cut.values.push_back(a.values[k]);
    }
    cut.row_ptr.push_back(static_cast<index_t>(cut.col_idx.size()));
  }
  EXPECT_THROW(prism::Solver(config(MatrixCheck::pattern)).setup(cut), prism::InvalidMatrixError);
  EXPECT_NO_THROW(prism::Solver(config(MatrixCheck::none)).setup(cut));
}

// A value the skipped check would have caught shows up as a failed factorization or a
// breakdown, never as "converged".
TEST(MatrixCheckLevels, SkippedValueChecksNeverConvergeFalsely) {
  CsrMatrix<double> a = prism::poisson2d(10, 10);
  a.values[a.row_ptr[40] + 1] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> b = prism::test::random_vector(a.rows, 3);
  for (const MatrixCheck level : {MatrixCheck::pattern, MatrixCheck::none}) {
    for (const char* type : {"ic0", "jacobi", "none"}) {
      prism::SolverConfig c = config(level);
      c.preconditioner.type = type;
      prism::Solver s(c);
      try {
        s.setup(a);
        std::vector<double> x;
        EXPECT_FALSE(s.solve(b, x).converged()) << type;
      } catch (const prism::Error&) {
        // the factorization names the bad value: also a clear refusal
      }
    }
  }
}

TEST(MatrixCheckLevels, ToleranceOutsideItsRangeIsAConfigError) {
  EXPECT_THROW(prism::Solver{config(MatrixCheck::full, -1e-3)}, prism::ConfigError);
  EXPECT_THROW(prism::Solver{config(MatrixCheck::full, 1.0)}, prism::ConfigError);
  EXPECT_THROW(prism::Solver{config(MatrixCheck::full, std::nan(""))}, prism::ConfigError);
  EXPECT_NO_THROW(prism::Solver{config(MatrixCheck::full, 0.0)});
}

}  // namespace
