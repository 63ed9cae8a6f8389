// line_ic: the symmetric zebra line Gauss-Seidel in block form in a line-multicolor order.
// Its apply against M built densely in the same order; whole solves on anisotropic and
// stretched problems (fewer iterations than line_jacobi), under a random symmetric
// permutation, on an isotropic Poisson problem, refactor, and the reference kernels
// against the threaded ones. Its GPU twin runs in test_cuda_solve_graph.cpp and
// test_line_ic_cuda.cpp.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/backend.hpp"
#include "common/test_matrices.hpp"
#include "precond/preconditioner.hpp"
#include "solver/line_order.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
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

/// The tridiagonal part of m.
Eigen::MatrixXd tridiagonal(const Eigen::MatrixXd& m) {
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = std::max<Eigen::Index>(0, i - 1); j <= std::min(m.cols() - 1, i + 1);
         ++j) {
      t(i, j) = m(i, j);
    }
  }
  return t;
}

// In the line-multicolor order the apply is z = M^{-1} r with BIC(0)'s
// M = (Delta + L) Delta^{-1} (Delta + L)^T: L the couplings to lines of earlier colors,
// Delta_l = tridiag(A_ll - sum_{p < l} A_lp tridiag(Delta_p^{-1}) A_pl). M built densely from
// the ordered matrix, with dense inverses, and solved by Cholesky gives the same z.
TEST(LineIc, ApplyIsBlockIc0OnTheLines) {
  for (const bool along_x : {true, false}) {
    const CsrMatrix<double> a = along_x ? prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-2)
                                        : prism::anisotropic3d(5, 6, 9, 1e-2, 1e-3, 1.0);
    prism::solver::LineOrder order = prism::solver::order_by_lines(a, prism::LineOptions{});
    prism::solver::color_lines(a, order, prism::VertexOrder::natural);
    ASSERT_GE(order.color_ptr.size(), 3u);  // at least two colors
    const CsrMatrix<double> ordered = prism::permute_symmetric(a, order.permutation);

    auto backend = prism::backend::make_backend(prism::BackendKind::cpu, nullptr);
    auto m = prism::precond::Registry::instance().create("line_ic", *backend,
                                                         prism::PreconditionerOptions{});
    m->set_blocks(order.lines);
    m->set_block_colors(order.color_ptr);
    m->analyze(ordered);
    m->factorize(ordered);
    const std::vector<double> r = prism::test::random_vector(a.rows, 4);
    auto rv = backend->make_vector(a.rows), zv = backend->make_vector(a.rows);
    backend->copy_from_host(r, *rv);
    m->apply(*rv, *zv);
    std::vector<double> z;
    backend->copy_to_host(*zv, z);
    EXPECT_EQ(m->info().factorization.retries, 0);

    const Eigen::MatrixXd dense = Eigen::MatrixXd(prism::test::to_eigen(ordered));
    const std::vector<index_t>& ptr = order.lines.ptr;
    const Eigen::Index n = dense.rows();
    Eigen::MatrixXd delta = Eigen::MatrixXd::Zero(n, n), l = dense;
    std::vector<Eigen::MatrixXd> band;  // tridiag(Delta_p^{-1}) of the lines before
    for (index_t line = 0; line < order.lines.count(); ++line) {
      const index_t b = ptr[line], rows = ptr[line + 1] - b;
      Eigen::MatrixXd schur = Eigen::MatrixXd::Zero(rows, rows);
      for (index_t p = 0; p < line; ++p) {
        const index_t c = ptr[p], cols = ptr[p + 1] - c;
        schur += dense.block(b, c, rows, cols) * band[p] * dense.block(c, b, cols, rows);
      }
      const Eigen::MatrixXd d = tridiagonal(dense.block(b, b, rows, rows) - schur);
      delta.block(b, b, rows, rows) = d;
      band.push_back(tridiagonal(d.inverse()));
      l.block(b, b, rows, n - b).setZero();  // the line's row block from its diagonal on
    }
    const Eigen::MatrixXd mm = (delta + l) * delta.inverse() * (delta + l).transpose();
    const Eigen::VectorXd want = mm.llt().solve(prism::test::to_eigen(r));
    EXPECT_LE((prism::test::to_eigen(z) - want).norm(), 1e-11 * want.norm()) << along_x;
  }
}

// One strong axis, along x or z: line_ic converges in fewer iterations than line_jacobi.
TEST(LineIc, AnisotropicProblemsBeatLineJacobi) {
  for (const bool along_x : {true, false}) {
    const CsrMatrix<double> a = along_x ? prism::anisotropic3d(14, 9, 8, 1.0, 1e-3, 1e-3)
                                        : prism::anisotropic3d(9, 8, 14, 1e-3, 1e-3, 1.0);
    const prism::SolveReport ic = solve(config("line_ic"), a);
    const prism::SolveReport jacobi = solve(config("line_jacobi"), a);
    EXPECT_LT(ic.iterations, jacobi.iterations) << along_x;
    EXPECT_EQ(plan_line(ic, "lines: ").rfind("lines: 72 of 14 rows (14 to 14), 99.", 0), 0u)
        << plan_line(ic, "lines: ");
    EXPECT_NE(plan_line(ic, "lines: ").find("; 2 colors of lines, 36 to 36 lines each"),
              std::string::npos)
        << plan_line(ic, "lines: ");
    EXPECT_EQ(ic.ordering.ordering, "lines");
    EXPECT_EQ(ic.ordering.method, "greedy (lines)");
    EXPECT_EQ(ic.ordering.colors.count, 2);
  }
}

// A boundary layer: lines along z near the wall; line_ic beats line_jacobi there too.
TEST(LineIc, StretchedGridBeatsLineJacobi) {
  const CsrMatrix<double> a = prism::stretched3d(10, 9, 16, 1000.0);
  const prism::SolveReport ic = solve(config("line_ic"), a);
  const prism::SolveReport jacobi = solve(config("line_jacobi"), a);
  EXPECT_LT(ic.iterations, jacobi.iterations);
}

// The lines do not depend on the numbering, but the greedy coloring of their quotient
// graph does (lines are visited in the order of their smallest row): a random symmetric
// permutation may change the colors, not the convergence much.
TEST(LineIc, StableUnderAPermutation) {
  const CsrMatrix<double> a = prism::anisotropic3d(12, 7, 9, 1e-2, 1.0, 1e-2);
  std::vector<index_t> perm(static_cast<std::size_t>(a.rows));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::shuffle(perm.begin(), perm.end(), std::mt19937(5));
  const CsrMatrix<double> p = prism::permute_symmetric(a, perm);
  const prism::SolveReport r1 = solve(config("line_ic"), a);
  const prism::SolveReport r2 = solve(config("line_ic"), p);
  const std::string lines1 = plan_line(r1, "lines: "), lines2 = plan_line(r2, "lines: ");
  EXPECT_EQ(lines1.substr(0, lines1.find(';')), lines2.substr(0, lines2.find(';')));
  EXPECT_LE(r2.iterations, r1.iterations + r1.iterations / 4 + 1);
  EXPECT_LE(r1.iterations, r2.iterations + r2.iterations / 4 + 1);
}

// Without a dominant direction every line is one row: line_ic is IC(0) in a greedy
// multicolor order of the rows, as ic0 is (to rounding).
TEST(LineIc, IsotropicPoissonConverges) {
  const CsrMatrix<double> a = prism::poisson3d(11, 10, 9);
  const prism::SolveReport lines = solve(config("line_ic"), a);
  const prism::SolveReport ic0 = solve(config("ic0"), a);
  EXPECT_EQ(plan_line(lines, "lines: ").rfind("lines: 990 of 1 rows (1 to 1), 0.0%", 0), 0u)
      << plan_line(lines, "lines: ");
  EXPECT_NEAR(lines.iterations, ic0.iterations, 1);
}

// refactor() with new values equals a fresh setup; the reference kernels solve as the
// threaded ones do.
TEST(LineIc, RefactorAndReferenceKernels) {
  const CsrMatrix<double> a = prism::anisotropic3d(23, 5, 4, 1.0, 1e-2, 1e-2);
  prism::SolverConfig c = config("line_ic");
  c.preconditioner.lines.max_length = 6;  // lines of 5 and 6 rows, each color long to short
  const CsrMatrix<double> scaled = prism::test::scaled_and_shifted(a, 3.0, 0.25);
  prism::Solver s(c);
  s.setup(a);
  s.refactor(scaled);
  prism::Solver fresh(c);
  fresh.setup(scaled);
  const std::vector<double> b = prism::test::random_vector(a.rows, 3);
  std::vector<double> x1, x2, x3;
  const prism::SolveReport r1 = s.solve(b, x1);
  EXPECT_TRUE(r1.converged());
  EXPECT_EQ(r1.iterations, fresh.solve(b, x2).iterations);
  EXPECT_EQ(x1, x2);
  c.cpu_kernels = prism::CpuKernels::reference;
  prism::Solver reference(c);
  reference.setup(scaled);
  // The same preconditioner to rounding (the CG's sums differ in order).
  EXPECT_NEAR(reference.solve(b, x3).iterations, r1.iterations, 1);
  for (std::size_t i = 0; i < x1.size(); ++i)
    EXPECT_NEAR(x3[i], x1[i], 1e-8 * std::abs(x1[i]) + 1e-12);
}

// A line block that is not positive definite (a coupling along a line larger than the
// diagonal) takes ic0's shift ladder; without retries it is named.
TEST(LineIc, BreakdownTakesTheShiftLadder) {
  CsrMatrix<double> a = prism::anisotropic3d(6, 3, 3, 1.0, 1e-3, 1e-3);
  for (index_t i : {index_t{2}, index_t{3}}) {  // the pair (2, 3) of the first x-line
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == 5 - i) a.values[k] = -5.0;
    }
  }
  prism::solver::LineOrder order = prism::solver::order_by_lines(a, prism::LineOptions{});
  prism::solver::color_lines(a, order, prism::VertexOrder::natural);
  const CsrMatrix<double> ordered = prism::permute_symmetric(a, order.permutation);
  auto backend = prism::backend::make_backend(prism::BackendKind::cpu, nullptr);
  for (const int retries : {30, 0}) {
    prism::PreconditionerOptions options;
    options.ic0.max_shift_retries = retries;
    auto m = prism::precond::Registry::instance().create("line_ic", *backend, options);
    m->set_blocks(order.lines);
    m->set_block_colors(order.color_ptr);
    m->analyze(ordered);
    if (retries > 0) {
      m->factorize(ordered);
      EXPECT_GT(m->info().factorization.retries, 0);
      EXPECT_GT(m->info().factorization.shift, 0.0);
      continue;
    }
    try {
      m->factorize(ordered);
      FAIL() << "expected NumericalError";
    } catch (const prism::NumericalError& e) {
      EXPECT_NE(std::string(e.what()).find("of a line"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("(6 rows)"), std::string::npos) << e.what();
    }
  }
}

TEST(LineIc, OrdersAndColorsByItsLinesOnly) {
  prism::SolverConfig c = config("line_ic");
  c.preconditioner.ordering = prism::Ordering::color;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c = config("line_ic");
  c.preconditioner.coloring.balance = true;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
}

}  // namespace
