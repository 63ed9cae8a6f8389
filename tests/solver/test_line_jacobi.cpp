// line_jacobi through the Solver (the lines of find_lines, ordered by length, solved by the
// batched tridiagonal solver batch by batch), and the threaded tridiagonal batches
// against the reference. Its GPU twin runs in test_cuda_solve_graph.cpp.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/tridiagonal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

prism::SolverConfig config(const std::string& type) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.preconditioner.type = type;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 5000;
  return c;
}

prism::SolveReport solve(const prism::SolverConfig& c, const CsrMatrix<double>& a,
                         std::vector<double>* solution = nullptr) {
  prism::Solver s(c);
  s.setup(a);
  const std::vector<double> b = prism::test::random_vector(a.rows, 7);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(b, x);
  EXPECT_TRUE(r.converged()) << r.diagnosis;
  EXPECT_LE(prism::test::relative_residual(a, x, b), 1e-9);
  if (solution != nullptr) *solution = x;
  return r;
}

std::string plan_line(const prism::SolveReport& r, const std::string& prefix) {
  for (const std::string& line : r.plan) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

// One strong axis, along x or z: the lines are the grid lines of that axis, and line
// Jacobi takes a small fraction of Jacobi's iterations (and fewer than ic0's).
TEST(LineJacobi, AnisotropicProblemsTakeFewIterations) {
  for (const bool along_x : {true, false}) {
    const double strong = 1.0, weak = 1e-3;
    const CsrMatrix<double> a = along_x ? prism::anisotropic3d(14, 9, 8, strong, weak, weak)
                                        : prism::anisotropic3d(9, 8, 14, weak, weak, strong);
    const prism::SolveReport lines = solve(config("line_jacobi"), a);
    const prism::SolveReport jacobi = solve(config("jacobi"), a);
    const prism::SolveReport ic0 = solve(config("ic0"), a);
    EXPECT_LT(4 * lines.iterations, jacobi.iterations) << along_x;
    EXPECT_LT(lines.iterations, ic0.iterations) << along_x;
    EXPECT_EQ(plan_line(lines, "lines: ").rfind("lines: 72 of 14 rows (14 to 14), 99.", 0), 0u)
        << plan_line(lines, "lines: ");
    EXPECT_EQ(lines.ordering.ordering, "lines");
  }
}

// The lines do not depend on the numbering, and M is block diagonal on them, so a
// symmetric permutation of A gives the same preconditioner: the same iterations (up to
// rounding) and the same solution, permuted.
TEST(LineJacobi, IndependentOfTheNumbering) {
  const CsrMatrix<double> a = prism::anisotropic3d(12, 7, 9, 1e-2, 1.0, 1e-2);
  std::vector<index_t> perm(static_cast<std::size_t>(a.rows));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::shuffle(perm.begin(), perm.end(), std::mt19937(5));
  const CsrMatrix<double> p = prism::permute_symmetric(a, perm);
  const prism::SolveReport r1 = solve(config("line_jacobi"), a);
  const prism::SolveReport r2 = solve(config("line_jacobi"), p);
  EXPECT_LE(std::abs(r1.iterations - r2.iterations), 1);
  EXPECT_EQ(plan_line(r1, "lines: "), plan_line(r2, "lines: "));
}

// Without a dominant direction every line is one row: line Jacobi is Jacobi.
TEST(LineJacobi, IsotropicProblemsGiveJacobi) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  std::vector<double> x_lines, x_jacobi;
  const prism::SolveReport lines = solve(config("line_jacobi"), a, &x_lines);
  const prism::SolveReport jacobi = solve(config("jacobi"), a, &x_jacobi);
  EXPECT_EQ(lines.iterations, jacobi.iterations);
  EXPECT_EQ(plan_line(lines, "lines: "),
            "lines: 504 of 1 rows (1 to 1), 0.0% of the off-diagonal sum |a_ij| inside them");
}

// Lines of several lengths (chains cut by max_length) are several batches; refactor()
// with new values equals a fresh setup.
TEST(LineJacobi, SeveralLengthsAndRefactor) {
  const CsrMatrix<double> a = prism::anisotropic3d(23, 5, 4, 1.0, 1e-2, 1e-2);
  prism::SolverConfig c = config("line_jacobi");
  c.preconditioner.lines.max_length = 6;  // 23 rows: pieces of 6, 6, 6 and 5
  const prism::SolveReport cut = solve(c, a);
  EXPECT_EQ(plan_line(cut, "lines: ").rfind("lines: 80 of 5.75 rows (5 to 6)", 0), 0u)
      << plan_line(cut, "lines: ");

  const CsrMatrix<double> scaled = prism::test::scaled_and_shifted(a, 3.0, 0.25);
  prism::Solver s(c);
  s.setup(a);
  s.refactor(scaled);
  prism::Solver fresh(c);
  fresh.setup(scaled);
  const std::vector<double> b = prism::test::random_vector(a.rows, 3);
  std::vector<double> x1, x2;
  EXPECT_EQ(s.solve(b, x1).iterations, fresh.solve(b, x2).iterations);
  EXPECT_EQ(x1, x2);
}

// A tridiagonal block that is not positive definite (a coupling along a line larger than
// the diagonal) is named before any solve.
TEST(LineJacobi, IndefiniteLineIsNamed) {
  CsrMatrix<double> a = prism::anisotropic3d(6, 3, 3, 1.0, 1e-3, 1e-3);
  for (index_t i : {index_t{2}, index_t{3}}) {  // the pair (2, 3) of the first x-line
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == 5 - i) a.values[k] = -5.0;
    }
  }
  prism::Solver s(config("line_jacobi"));
  try {
    s.setup(a);
    FAIL() << "expected NumericalError";
  } catch (const prism::NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("(6 rows) is not positive definite"), std::string::npos)
        << e.what();
  }
}

TEST(LineJacobi, OrdersByItsLinesOnly) {
  prism::SolverConfig c = config("line_jacobi");
  c.preconditioner.ordering = prism::Ordering::color;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c.preconditioner.ordering = prism::Ordering::natural;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c = config("line_jacobi");
  c.preconditioner.lines.dominance = 1.0;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
}

// set_solver_options() checks the caller's configuration, not the resolved ordering: a
// line solver takes new solver options (what bench_pcg does before its timed solves).
TEST(LineJacobi, TakesNewSolverOptions) {
  const CsrMatrix<double> a = prism::anisotropic3d(12, 10, 8, 1.0, 1e-3, 1e-3);
  for (const std::string type : {"line_jacobi", "line_ic"}) {
    SCOPED_TRACE(type);
    prism::Solver s(config(type));
    s.setup(a);
    prism::SolverOptions options = config(type).solver;
    options.timing = prism::TimingMode::total;
    options.tolerance = 1e-8;
    EXPECT_NO_THROW(s.set_solver_options(options));
    std::vector<double> x;
    EXPECT_TRUE(s.solve(prism::test::random_vector(a.rows, 3), x).converged());
  }
}

// The threaded batches split whole systems among the threads: the reference's bits.
TEST(LineJacobi, ThreadedTridiagonalBatchesAreTheReferenceBits) {
  for (const auto& [n, m] :
       std::vector<std::pair<index_t, index_t>>{{1, 7}, {2, 1}, {17, 3}, {64, 129}, {3, 1000}}) {
    const auto size = static_cast<std::size_t>(n) * m;
    std::vector<double> a = prism::test::random_vector(static_cast<index_t>(size), 1);
    std::vector<double> c = prism::test::random_vector(static_cast<index_t>(size), 2);
    std::vector<double> d = prism::test::random_vector(static_cast<index_t>(size), 3);
    std::vector<double> b(size, 4.0);
    std::vector<double> want(size), got(size);
    prism::kernels::reference::tridiagonal_solve(prism::kernels::TridiagonalLayout::contiguous, n,
                                                 m, a.data(), b.data(), c.data(), d.data(),
                                                 want.data());
    for (const int threads : {1, 2, 4}) {
      prism::kernels::host::tridiagonal_solve(threads, n, m, a.data(), b.data(), c.data(), d.data(),
                                              got.data());
      EXPECT_EQ(got, want) << n << " x " << m << ", " << threads << " threads";
    }
  }
}

}  // namespace
