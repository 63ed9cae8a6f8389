// Reference Thomas solver: against a dense LU solve (Eigen) for small N, and the
// documented residual bound (tridiagonal_test_systems.hpp) for large N.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include <prism/errors.hpp>

#include "kernels/tridiagonal.hpp"
#include "tridiagonal_test_systems.hpp"

namespace {

using prism::index_t;
using prism::kernels::TridiagonalLayout;
using prism::test::make_tri_systems;
using prism::test::TriKind;
using prism::test::TriSystems;

constexpr TridiagonalLayout kLayouts[] = {TridiagonalLayout::contiguous,
                                          TridiagonalLayout::interleaved};
constexpr TriKind kKinds[] = {TriKind::dominant, TriKind::laplacian};

// Dense solve of system `sys` in double (a[first], c[last] ignored).
template <typename T>
Eigen::VectorXd dense_solve(const TriSystems<T>& s, index_t sys) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(s.n, s.n);
  Eigen::VectorXd d(s.n);
  for (index_t i = 0; i < s.n; ++i) {
    const std::size_t k = s.at(sys, i);
    A(i, i) = static_cast<double>(s.b[k]);
    if (i > 0) A(i, i - 1) = static_cast<double>(s.a[k]);
    if (i < s.n - 1) A(i, i + 1) = static_cast<double>(s.c[k]);
    d(i) = static_cast<double>(s.d[k]);
  }
  return A.partialPivLu().solve(d);
}

template <typename T>
void check_against_dense(double tol) {
  for (TridiagonalLayout layout : kLayouts) {
    for (TriKind kind : kKinds) {
      for (index_t n : {1, 2, 3, 5, 31, 32, 33}) {
        for (index_t m : {1, 5}) {
          SCOPED_TRACE(::testing::Message()
                       << "n=" << n << " m=" << m << " layout=" << static_cast<int>(layout)
                       << " kind=" << static_cast<int>(kind));
          const auto s = make_tri_systems<T>(kind, layout, n, m, 17 * n + m);
          std::vector<T> x(s.d.size(), std::numeric_limits<T>::quiet_NaN());
          prism::kernels::reference::tridiagonal_solve(layout, n, m, s.a.data(), s.b.data(),
                                                       s.c.data(), s.d.data(), x.data());
          for (index_t sys = 0; sys < m; ++sys) {
            const Eigen::VectorXd ref = dense_solve(s, sys);
            double diff = 0.0;
            for (index_t i = 0; i < n; ++i) {
              diff = std::max(diff, std::abs(static_cast<double>(x[s.at(sys, i)]) - ref(i)));
            }
            EXPECT_LE(diff, tol * ref.lpNorm<Eigen::Infinity>()) << "system " << sys;
          }
          EXPECT_LE(prism::test::tri_backward_error(s, x), prism::test::tri_residual_bound<T>(n));
        }
      }
    }
  }
}

TEST(TridiagonalReference, DoubleMatchesDenseSolve) {
  check_against_dense<double>(1e-9);
}

TEST(TridiagonalReference, FloatMatchesDenseSolve) {
  check_against_dense<float>(1e-2);
}

TEST(TridiagonalReference, LargeSystemsMeetResidualBound) {
  for (TridiagonalLayout layout : kLayouts) {
    for (TriKind kind : kKinds) {
      const auto s = make_tri_systems<double>(kind, layout, 100000, 5, 3);
      std::vector<double> x(s.d.size());
      prism::kernels::reference::tridiagonal_solve(layout, s.n, s.m, s.a.data(), s.b.data(),
                                                   s.c.data(), s.d.data(), x.data());
      EXPECT_LE(prism::test::tri_backward_error(s, x),
                prism::test::tri_residual_bound<double>(s.n));
    }
  }
}

TEST(TridiagonalReference, InPlaceEqualsOutOfPlaceAndLeavesMatrixUntouched) {
  for (TridiagonalLayout layout : kLayouts) {
    const auto s = make_tri_systems<double>(TriKind::dominant, layout, 33, 5, 9);
    const auto copy = s;
    std::vector<double> x(s.d.size());
    prism::kernels::reference::tridiagonal_solve(layout, s.n, s.m, s.a.data(), s.b.data(),
                                                 s.c.data(), s.d.data(), x.data());
    std::vector<double> inplace = s.d;
    prism::kernels::reference::tridiagonal_solve(layout, s.n, s.m, s.a.data(), s.b.data(),
                                                 s.c.data(), inplace.data(), inplace.data());
    EXPECT_EQ(inplace, x);
    EXPECT_EQ(s.a, copy.a);
    EXPECT_EQ(s.b, copy.b);
    EXPECT_EQ(s.c, copy.c);
    EXPECT_EQ(s.d, copy.d);
  }
}

TEST(TridiagonalReference, ZeroPivotThrowsNamingSystemAndRow) {
  // System 1 of 2: [[1, 1], [1, 1]] is singular; the pivot of row 1 is zero.
  const std::vector<double> a = {0, 0, 0, 1}, b = {2, 2, 1, 1}, c = {0, 0, 1, 0}, d = {1, 1, 1, 1};
  std::vector<double> x(4);
  try {
    prism::kernels::reference::tridiagonal_solve(TridiagonalLayout::contiguous, 2, 2, a.data(),
                                                 b.data(), c.data(), d.data(), x.data());
    FAIL() << "expected NumericalError";
  } catch (const prism::NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("system 1 at row 1"), std::string::npos) << e.what();
  }
}

TEST(TridiagonalReference, EmptyBatchIsANoOp) {
  std::vector<double> x;
  EXPECT_NO_THROW(prism::kernels::reference::tridiagonal_solve(
      TridiagonalLayout::contiguous, 0, 3, nullptr, nullptr, nullptr, nullptr, x.data()));
  EXPECT_NO_THROW(prism::kernels::reference::tridiagonal_solve(
      TridiagonalLayout::interleaved, 4, 0, nullptr, nullptr, nullptr, nullptr, x.data()));
}

}  // namespace
