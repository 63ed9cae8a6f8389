// Reference dense triangular solves (trsv, trsm, batched trsv) against Eigen's
// triangularView solve: n in {1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097}, every
// uplo x op x diag, both precisions, lda > n with NaN in the padding, the unused triangle
// and (for unit) the diagonal, so a read of anything BLAS must not read shows up.
//
// Matrices: diagonal d_i in +-[1, 2] (random sign), off-diagonal entries uniform in
// (-0.5/n, 0.5/n), so every row and column of the triangle has off-diagonal absolute sum
// < 0.5 <= |d_i| - 0.5: ||L||_inf <= 2.5 and ||L^{-1}||_inf <= 2 (diagonal dominance),
// kappa_inf <= 5 for L and L^T alike. A triangular solve is backward stable with
// |dL| <= gamma_n |L| (Higham, ASNA Thm 8.5), so each computed solution has relative
// forward error <= kappa gamma_n / (1 - kappa gamma_n) ~ 5 n u; two such solutions (ours
// and Eigen's, Eigen in double also for float data) differ by at most ~10 n u. The test
// bound is 16 n u in the infinity norm (u = unit roundoff of T).

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <prism/errors.hpp>

#include "common/param_names.hpp"
#include "kernels/dense_triangular.hpp"
#include "kernels/dense_triangular_test_matrices.hpp"

namespace {

using prism::test::bound;
using prism::test::kDiags;
using prism::test::kOps;
using prism::test::kUplos;
using prism::test::make_rhs;
using prism::test::make_triangle;
using prism::test::uniform;
using prism::test::variant_name;

using prism::index_t;
using prism::kernels::TriDiag;
using prism::kernels::TriOp;
using prism::kernels::TriUplo;
namespace ref = prism::kernels::reference;

// Eigen's solution (in double) of op(A) X = alpha B.
template <typename T>
Eigen::MatrixXd eigen_solve(TriUplo uplo, TriOp op, TriDiag diag, index_t n,
                            const std::vector<T>& a, index_t lda, const std::vector<T>& b,
                            index_t nrhs, index_t ldb, double alpha) {
  Eigen::MatrixXd A(n, n), B(n, nrhs);
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) A(i, j) = static_cast<double>(a[i + std::size_t(j) * lda]);
  }
  for (index_t j = 0; j < nrhs; ++j) {
    for (index_t i = 0; i < n; ++i)
      B(i, j) = alpha * static_cast<double>(b[i + std::size_t(j) * ldb]);
  }
  const bool unit = diag == TriDiag::unit;
  if (op == TriOp::transpose) A.transposeInPlace();
  const bool lower = (uplo == TriUplo::lower) == (op == TriOp::none);
  if (lower) {
    if (unit)
      A.triangularView<Eigen::UnitLower>().solveInPlace(B);
    else
      A.triangularView<Eigen::Lower>().solveInPlace(B);
  } else {
    if (unit)
      A.triangularView<Eigen::UnitUpper>().solveInPlace(B);
    else
      A.triangularView<Eigen::Upper>().solveInPlace(B);
  }
  return B;
}

// max_j ||x_j - X_j||_inf / ||X_j||_inf over the columns.
template <typename T>
double rel_error(const std::vector<T>& got, index_t n, index_t nrhs, index_t ldb,
                 const Eigen::MatrixXd& want) {
  double worst = 0;
  for (index_t j = 0; j < nrhs; ++j) {
    double diff = 0, norm = 0;
    for (index_t i = 0; i < n; ++i) {
      const double g = static_cast<double>(got[i + std::size_t(j) * ldb]);
      if (std::isnan(g)) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::abs(g - want(i, j)));
      norm = std::max(norm, std::abs(want(i, j)));
    }
    if (norm > 0) worst = std::max(worst, diff / norm);
  }
  return worst;
}

template <typename T>
void trsv_all_variants(index_t n) {
  for (TriUplo u : kUplos) {
    for (TriOp o : kOps) {
      for (TriDiag d : kDiags) {
        SCOPED_TRACE(::testing::Message()
                     << variant_name(u, o, d) << " n=" << n << " " << 8 * sizeof(T) << "-bit");
        const index_t lda = n + 3;
        const auto a = make_triangle<T>(u, d, n, lda, 17 * n + 1);
        const auto b = make_rhs<T>(n, 31 * n + 5);
        auto x = b;
        ref::trsv(u, o, d, n, a.data(), lda, x.data());
        const auto want = eigen_solve(u, o, d, n, a, lda, b, 1, std::max<index_t>(n, 1), 1.0);
        EXPECT_LE(rel_error(x, n, 1, std::max<index_t>(n, 1), want), bound<T>(n));
      }
    }
  }
}

class DenseTrsv : public ::testing::TestWithParam<index_t> {};

TEST_P(DenseTrsv, ReferenceMatchesEigenDouble) {
  trsv_all_variants<double>(GetParam());
}
TEST_P(DenseTrsv, ReferenceMatchesEigenFloat) {
  trsv_all_variants<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, DenseTrsv,
                         ::testing::Values(1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097),
                         prism::test::SizeName());

template <typename T>
void trsm_all_variants(index_t m, index_t nrhs) {
  for (TriUplo u : kUplos) {
    for (TriOp o : kOps) {
      for (TriDiag d : kDiags) {
        SCOPED_TRACE(::testing::Message() << variant_name(u, o, d) << " m=" << m << " nrhs=" << nrhs
                                          << " " << 8 * sizeof(T) << "-bit");
        const index_t lda = m + 1;
        const index_t ldb = m + 2;
        const auto a = make_triangle<T>(u, d, m, lda, 7 * m + 3);
        const auto b = make_rhs<T>(std::size_t(ldb) * nrhs, 11 * m + nrhs);
        auto x = b;
        const T alpha = T(-0.75);
        ref::trsm(u, o, d, m, nrhs, alpha, a.data(), lda, x.data(), ldb);
        const auto want = eigen_solve(u, o, d, m, a, lda, b, nrhs, ldb, -0.75);
        EXPECT_LE(rel_error(x, m, nrhs, ldb, want), bound<T>(m));
        // Padding rows of B (i >= m) are untouched.
        for (index_t j = 0; j < nrhs; ++j) {
          for (index_t i = m; i < ldb; ++i) {
            ASSERT_EQ(x[i + std::size_t(j) * ldb], b[i + std::size_t(j) * ldb]);
          }
        }
      }
    }
  }
}

struct TrsmCase {
  index_t m, nrhs;
};

std::ostream& operator<<(std::ostream& os, const TrsmCase& c) {
  return os << "m=" << c.m << " nrhs=" << c.nrhs;
}

std::string trsm_case_name(const ::testing::TestParamInfo<TrsmCase>& info) {
  return "m" + std::to_string(info.param.m) + "_nrhs" + std::to_string(info.param.nrhs);
}
class DenseTrsm : public ::testing::TestWithParam<TrsmCase> {};

TEST_P(DenseTrsm, ReferenceMatchesEigenDouble) {
  trsm_all_variants<double>(GetParam().m, GetParam().nrhs);
}
TEST_P(DenseTrsm, ReferenceMatchesEigenFloat) {
  trsm_all_variants<float>(GetParam().m, GetParam().nrhs);
}

// nrhs in {1, 7, 64, 1000}; m kept moderate so the O(m^2 nrhs) oracle stays quick.
INSTANTIATE_TEST_SUITE_P(Sizes, DenseTrsm,
                         ::testing::Values(TrsmCase{1, 1}, TrsmCase{33, 1}, TrsmCase{129, 1},
                                           TrsmCase{1, 7}, TrsmCase{31, 7}, TrsmCase{200, 7},
                                           TrsmCase{32, 64}, TrsmCase{129, 64}, TrsmCase{33, 1000},
                                           TrsmCase{100, 1000}),
                         trsm_case_name);

template <typename T>
void batched_mixed(index_t batch) {
  for (TriUplo u : kUplos) {
    for (TriOp o : kOps) {
      for (TriDiag d : kDiags) {
        SCOPED_TRACE(::testing::Message() << variant_name(u, o, d) << " batch=" << batch);
        std::uint64_t s = 99 + batch;
        std::vector<index_t> n(batch), lda(batch);
        std::vector<std::vector<T>> a(batch), x(batch), b(batch);
        std::vector<const T*> ap(batch);
        std::vector<T*> xp(batch);
        const index_t planted[] = {1, 2, 31, 32, 33, 127, 128, 0, 64, 96};
        for (index_t k = 0; k < batch; ++k) {
          n[k] = k < 10 ? planted[k] : static_cast<index_t>(uniform(s) * 129);
          lda[k] = n[k] + (k % 3);
          if (lda[k] == 0) lda[k] = 1;
          a[k] = make_triangle<T>(u, d, n[k], lda[k], 1000 + k);
          b[k] = make_rhs<T>(n[k], 2000 + k);
          x[k] = b[k];
          ap[k] = a[k].data();
          xp[k] = x[k].data();
        }
        ref::trsv_batched(u, o, d, batch, n.data(), ap.data(), lda.data(), xp.data());
        for (index_t k = 0; k < batch; ++k) {
          if (n[k] == 0) continue;
          const auto want = eigen_solve(u, o, d, n[k], a[k], lda[k], b[k], 1, n[k], 1.0);
          EXPECT_LE(rel_error(x[k], n[k], 1, n[k], want), bound<T>(n[k])) << "system " << k;
        }
      }
    }
  }
}

TEST(DenseTrsvBatched, MixedSizesMatchEigen) {
  batched_mixed<double>(1);
  batched_mixed<double>(300);
  batched_mixed<float>(1);
  batched_mixed<float>(300);
}

TEST(DenseTriangular, RejectsBadArguments) {
  std::vector<double> a(4, 1.0), x(2, 1.0);
  EXPECT_THROW(ref::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, -1, a.data(), 1, x.data()),
               prism::ConfigError);
  EXPECT_THROW(ref::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, a.data(), 1, x.data()),
               prism::ConfigError);
  EXPECT_THROW(ref::trsm(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, 1, 1.0, a.data(), 2,
                         x.data(), 1),
               prism::ConfigError);
  const index_t big = 129;
  const double* ap = a.data();
  double* xp = x.data();
  EXPECT_THROW(
      ref::trsv_batched(TriUplo::lower, TriOp::none, TriDiag::non_unit, 1, &big, &ap, &big, &xp),
      prism::ConfigError);
  // n = 0 is a no-op.
  EXPECT_NO_THROW(
      ref::trsv(TriUplo::upper, TriOp::transpose, TriDiag::unit, 0, a.data(), 1, x.data()));
}

}  // namespace
