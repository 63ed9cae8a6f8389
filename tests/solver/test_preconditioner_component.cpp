// The preconditioner as a component: Solver::apply_preconditioner gives the M^{-1} the
// solves iterate with (jacobi: r ./ diag(A); ic0: the host factor's two triangular
// solves, in the caller's ordering), and a caller's preconditioner (type user) plugs into
// PCG: a callback doing Jacobi iterates exactly as the built-in jacobi.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

prism::SolverConfig config(const std::string& type) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = type;
  return c;
}

std::vector<double> diagonal_of(const CsrMatrix<double>& a) {
  std::vector<double> d(a.rows);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) d[i] = a.values[k];
    }
  }
  return d;
}

/// z = L^{-T} L^{-1} r with L (diagonal last in each row) by plain substitution.
std::vector<double> ic0_solve(const CsrMatrix<double>& l, std::vector<double> z) {
  for (index_t i = 0; i < l.rows; ++i) {
    const index_t last = l.row_ptr[i + 1] - 1;
    for (index_t k = l.row_ptr[i]; k < last; ++k) z[i] -= l.values[k] * z[l.col_idx[k]];
    z[i] /= l.values[last];
  }
  for (index_t i = l.rows - 1; i >= 0; --i) {
    const index_t last = l.row_ptr[i + 1] - 1;
    z[i] /= l.values[last];
    for (index_t k = l.row_ptr[i]; k < last; ++k) z[l.col_idx[k]] -= l.values[k] * z[i];
  }
  return z;
}

double max_relative_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0.0, size = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::abs(x[i] - y[i]));
    size = std::max(size, std::abs(y[i]));
  }
  return diff / size;
}

TEST(ApplyPreconditioner, JacobiIsRDividedByTheDiagonal) {
  const CsrMatrix<double> a = prism::test::scaled_and_shifted(prism::poisson2d(9, 7), 1.5, 0.25);
  prism::Solver solver(config("jacobi"));
  solver.setup(a);
  const std::vector<double> r = prism::test::random_vector(a.rows, 8);
  const std::vector<double> d = diagonal_of(a);
  std::vector<double> z, z_backend(r.size());
  solver.apply_preconditioner(r, z);
  solver.apply_preconditioner_on_backend(r.data(), z_backend.data(), r.size());
  ASSERT_EQ(z.size(), r.size());
  for (index_t i = 0; i < a.rows; ++i) EXPECT_EQ(z[i], (1.0 / d[i]) * r[i]) << i;
  EXPECT_EQ(z_backend, z);
  std::vector<double> z_queued(r.size());
  solver.queue_preconditioner_on_backend(r.data(), z_queued.data(), r.size());  // cpu: done
  EXPECT_EQ(z_queued, z);
}

// In the caller's ordering, whatever the solver's: natural with the reference solves (the
// same substitution, the same bits), and the multicolor order the default takes.
TEST(ApplyPreconditioner, Ic0IsTheHostFactorsTriangularSolves) {
  const CsrMatrix<double> a = prism::poisson3d(8, 7, 6);
  const std::vector<double> r = prism::test::random_vector(a.rows, 9);

  prism::SolverConfig natural = config("ic0");
  natural.preconditioner.ordering = prism::Ordering::natural;
  natural.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  prism::Solver in_order(natural);
  in_order.setup(a);
  prism::precond::Ic0Pattern factor(a);
  factor.factorize(a, {});
  std::vector<double> z;
  in_order.apply_preconditioner(r, z);
  EXPECT_LE(max_relative_diff(z, ic0_solve(factor.lower(), r)), 1e-15);

  prism::Solver colored(config("ic0"));
  colored.setup(a);
  const std::vector<index_t> p = prism::color_matrix(a, prism::VertexOrder::natural).permutation;
  const CsrMatrix<double> pa = prism::permute_symmetric(a, p);
  prism::precond::Ic0Pattern colored_factor(pa);
  colored_factor.factorize(pa, {});
  std::vector<double> r_ordered(r.size());
  for (std::size_t i = 0; i < p.size(); ++i) r_ordered[i] = r[p[i]];
  const std::vector<double> z_ordered = ic0_solve(colored_factor.lower(), r_ordered);
  std::vector<double> expected(r.size());
  for (std::size_t i = 0; i < p.size(); ++i) expected[p[i]] = z_ordered[i];
  std::vector<double> z_colored, z_backend(r.size());
  colored.apply_preconditioner(r, z_colored);
  colored.apply_preconditioner_on_backend(r.data(), z_backend.data(), r.size());
  EXPECT_LE(max_relative_diff(z_colored, expected), 1e-13);
  EXPECT_EQ(z_backend, z_colored);
}

TEST(UserPreconditioner, JacobiCallbackIteratesAsTheBuiltInJacobi) {
  const CsrMatrix<double> a = prism::test::scaled_and_shifted(prism::poisson3d(9, 8, 7), 2.0, 0.5);
  const std::vector<double> b = prism::test::random_vector(a.rows, 10);
  std::vector<double> inverse = diagonal_of(a);
  for (double& v : inverse) v = 1.0 / v;
  for (const auto timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
    prism::SolverConfig c = config("jacobi");
    c.solver.timing = timing;
    prism::Solver builtin(c);
    builtin.setup(a);
    c.preconditioner.type = "user";
    prism::Solver user(c);
    int calls = 0;
    user.set_preconditioner_callback([&](const double* r, double* z, std::size_t n) {
      ASSERT_EQ(n, inverse.size());
      for (std::size_t i = 0; i < n; ++i) z[i] = inverse[i] * r[i];
      ++calls;
    });
    user.setup(a);
    std::vector<double> x_builtin, x_user;
    const prism::SolveReport expected = builtin.solve(b, x_builtin);
    const prism::SolveReport got = user.solve(b, x_user);
    ASSERT_TRUE(got.converged());
    EXPECT_EQ(got.preconditioner, "user");
    EXPECT_EQ(got.iterations, expected.iterations);
    EXPECT_EQ(x_user, x_builtin);
    EXPECT_GE(calls, got.iterations);

    // A callback that applies another solver's preconditioner: the same again.
    user.set_preconditioner_callback([&](const double* r, double* z, std::size_t n) {
      builtin.apply_preconditioner_on_backend(r, z, n);
    });
    std::vector<double> x_delegated;
    EXPECT_EQ(user.solve(b, x_delegated).iterations, expected.iterations);
    EXPECT_EQ(x_delegated, x_builtin);
  }
}

TEST(UserPreconditioner, RefusedWithoutACallback) {
  const CsrMatrix<double> a = prism::poisson2d(5, 5);
  prism::Solver solver(config("user"));
  try {
    solver.setup(a);
    ADD_FAILURE() << "setup without a callback";
  } catch (const prism::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("set_preconditioner_callback"), std::string::npos)
        << e.what();
  }
  solver.set_preconditioner_callback(
      [](const double* r, double* z, std::size_t n) { std::copy(r, r + n, z); });
  solver.setup(a);
  std::vector<double> b(a.rows, 1.0), x;
  EXPECT_TRUE(solver.solve(b, x).converged());
  solver.set_preconditioner_callback({});
  EXPECT_THROW(solver.solve(b, x), prism::ConfigError);

  // The callback sees the caller's ordering: a multicolor order is refused up front.
  prism::SolverConfig colored = config("user");
  colored.preconditioner.ordering = prism::Ordering::color;
  EXPECT_THROW(prism::Solver{colored}, prism::ConfigError);
}

TEST(UserPreconditioner, WhatTheCallbackThrowsPassesThrough) {
  const CsrMatrix<double> a = prism::poisson2d(5, 5);
  prism::Solver solver(config("user"));
  solver.set_preconditioner_callback(
      [](const double*, double*, std::size_t) { throw std::runtime_error("callback failed"); });
  solver.setup(a);
  std::vector<double> b(a.rows, 1.0), x;
  EXPECT_THROW(solver.solve(b, x), std::runtime_error);
}

}  // namespace
