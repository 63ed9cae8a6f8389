// Solver::solve_on_backend on the cpu backend (its memory is the host's): the same result,
// bit for bit, as solve() on the same values, for every ordering and the scaled path; and
// bad pointers, sizes and overlaps refused with the cause named.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;

prism::SolverConfig config(const std::string& preconditioner, prism::TimingMode timing) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.solver.tolerance = 1e-10;
  c.solver.timing = timing;
  c.preconditioner.type = preconditioner;
  return c;
}

/// What `call` throws as InvalidMatrixError, or "no error".
template <typename Call>
std::string invalid_message(const Call& call) {
  try {
    call();
  } catch (const prism::InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

void expect_same_solve(prism::Solver& solver, const std::vector<double>& b,
                       const std::vector<double>& x0) {
  std::vector<double> x_host = x0;
  const prism::SolveReport host = solver.solve(b, x_host);
  std::vector<double> x_backend = x0;
  const prism::SolveReport on_backend =
      solver.solve_on_backend(b.data(), x_backend.data(), b.size());
  ASSERT_TRUE(host.converged());
  EXPECT_EQ(on_backend.status, host.status);
  EXPECT_EQ(on_backend.iterations, host.iterations);
  EXPECT_EQ(on_backend.relative_residual, host.relative_residual);
  EXPECT_EQ(on_backend.true_relative_residual, host.true_relative_residual);
  EXPECT_EQ(x_backend, x_host);  // bit for bit
}

TEST(SolveOnBackend, EqualsHostSolveBitForBit) {
  const CsrMatrix<double> a = prism::poisson3d(11, 9, 8);
  const std::vector<double> b = prism::test::random_vector(a.rows, 3);
  const std::vector<double> x0 = prism::test::random_vector(a.rows, 4);
  for (const char* type : {"ic0", "jacobi", "none"}) {
    for (const auto timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
      SCOPED_TRACE(std::string(type) + (timing == prism::TimingMode::total ? " total" : ""));
      prism::Solver solver(config(type, timing));
      solver.setup(a);
      expect_same_solve(solver, b, x0);
      expect_same_solve(solver, b, std::vector<double>(b.size(), 0.0));
    }
  }
}

// Values whose squares leave the range of doubles take solve()'s power-of-two scaling.
TEST(SolveOnBackend, EqualsHostSolveWhereTheVectorsAreScaled) {
  const CsrMatrix<double> a = prism::poisson2d(17, 13);
  for (const double scale : {std::ldexp(1.0, 600), std::ldexp(1.0, -600)}) {
    std::vector<double> b = prism::test::random_vector(a.rows, 5);
    for (double& v : b) v *= scale;
    for (const char* type : {"ic0", "jacobi"}) {
      SCOPED_TRACE(type);
      prism::Solver solver(config(type, prism::TimingMode::phases));
      solver.setup(a);
      expect_same_solve(solver, b, std::vector<double>(b.size(), 0.0));
    }
  }
}

TEST(SolveOnBackend, RefusesBadInputNamingTheCause) {
  const CsrMatrix<double> a = prism::poisson2d(6, 5);
  prism::Solver solver(config("ic0", prism::TimingMode::phases));
  std::vector<double> b(a.rows, 1.0), x(a.rows, 0.0);
  EXPECT_THROW(solver.solve_on_backend(b.data(), x.data(), b.size()), prism::Error);
  solver.setup(a);
  const std::size_t n = b.size();
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(b.data(), x.data(), n - 1);
            }).find("count is 29, the matrix has 30 rows"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(nullptr, x.data(), n);
            }).find("b is a null pointer"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(b.data(), nullptr, n);
            }).find("x is a null pointer"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(b.data(), b.data(), n);
            }).find("b and x overlap"),
            std::string::npos);
  std::vector<double> both(2 * n - 1, 1.0);
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(both.data(), both.data() + n - 1, n);
            }).find("b and x overlap"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.apply_preconditioner_on_backend(b.data(), nullptr, n);
            }).find("apply_preconditioner_on_backend: z is a null pointer"),
            std::string::npos);
  EXPECT_EQ(b, std::vector<double>(n, 1.0));  // b is only read
}

}  // namespace
