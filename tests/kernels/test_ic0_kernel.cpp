#include "kernels/ic0.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using prism::index_t;
using prism::kernels::CsrView;
namespace ref = prism::kernels::reference;
using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor, index_t>;
using Triplets = std::vector<Eigen::Triplet<double, index_t>>;

RowMajor from_triplets(index_t n, const Triplets& t) {
  RowMajor m(n, n);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// Adds the edge (i, j) with weight -1 to both triangles and keeps the degree.
void add_edge(Triplets& t, std::vector<double>& degree, index_t i, index_t j) {
  t.emplace_back(i, j, -1.0);
  t.emplace_back(j, i, -1.0);
  degree[i] += 1.0;
  degree[j] += 1.0;
}

// A graph Laplacian plus the identity: SPD for any graph.
RowMajor laplacian_plus_identity(index_t n, const std::vector<std::pair<index_t, index_t>>& edges) {
  Triplets t;
  std::vector<double> degree(n, 1.0);
  for (const auto& [i, j] : edges) add_edge(t, degree, i, j);
  for (index_t i = 0; i < n; ++i) t.emplace_back(i, i, degree[i]);
  return from_triplets(n, t);
}

struct Factor {
  RowMajor lower;
  prism::kernels::Ic0Status status;
};

Factor ic0(const RowMajor& a, double shift = 0.0) {
  Factor f{RowMajor(a.triangularView<Eigen::Lower>()), {}};
  f.lower.makeCompressed();
  CsrView<double> v{static_cast<index_t>(f.lower.rows()), static_cast<index_t>(f.lower.cols()),
                    f.lower.outerIndexPtr(), f.lower.innerIndexPtr(), f.lower.valuePtr()};
  f.status = ref::ic0_factorize(v, f.lower.valuePtr(), shift);
  return f;
}

// Where the exact Cholesky factor has no fill, IC(0) must reproduce it.
void expect_exact_cholesky(const RowMajor& a) {
  const Factor f = ic0(a);
  ASSERT_TRUE(f.status.ok()) << "row " << f.status.failed_row << " pivot " << f.status.pivot;
  const Eigen::SparseMatrix<double> col_major = a;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::NaturalOrdering<int>> llt(
      col_major);
  ASSERT_EQ(llt.info(), Eigen::Success);
  const Eigen::MatrixXd exact = Eigen::MatrixXd(llt.matrixL());
  const Eigen::MatrixXd ours = Eigen::MatrixXd(f.lower);
  EXPECT_LE((exact - ours).cwiseAbs().maxCoeff(), 1e-12 * exact.cwiseAbs().maxCoeff());
  // The premise: no fill, so the patterns agree.
  const Eigen::SparseMatrix<double> exact_sparse = llt.matrixL();
  EXPECT_EQ(exact_sparse.nonZeros(), f.lower.nonZeros());
}

TEST(Ic0Kernel, TridiagonalEqualsCholesky) {
  for (index_t n : {1, 2, 31, 100}) {
    std::vector<std::pair<index_t, index_t>> edges;
    for (index_t i = 0; i + 1 < n; ++i) edges.emplace_back(i + 1, i);
    expect_exact_cholesky(laplacian_plus_identity(n, edges));
  }
}

TEST(Ic0Kernel, ArrowWithHubLastEqualsCholesky) {
  const index_t n = 40;
  std::vector<std::pair<index_t, index_t>> edges;
  for (index_t i = 0; i + 1 < n; ++i) edges.emplace_back(n - 1, i);
  expect_exact_cholesky(laplacian_plus_identity(n, edges));
}

TEST(Ic0Kernel, RandomTreeWithParentsLastEqualsCholesky) {
  // Every vertex's parent has a larger index, so eliminating a vertex only touches its
  // parent: no fill.
  const index_t n = 300;
  std::mt19937 gen(7);
  std::vector<std::pair<index_t, index_t>> edges;
  for (index_t v = 0; v + 1 < n; ++v) {
    std::uniform_int_distribution<index_t> parent(v + 1, std::min(n - 1, v + 20));
    edges.emplace_back(parent(gen), v);
  }
  RowMajor a = laplacian_plus_identity(n, edges);
  // Values other than a Laplacian's: scale each row and column.
  Eigen::VectorXd s(n);
  for (index_t i = 0; i < n; ++i) s[i] = 1.0 + 0.01 * i;
  a = s.asDiagonal() * a * s.asDiagonal();
  expect_exact_cholesky(a);
}

TEST(Ic0Kernel, MatchesAOnThePatternWhenFillIsDropped) {
  // 2D grid: IC(0) drops fill, but (L L^T)_ij = a_ij still holds on the pattern of A.
  const index_t nx = 9, ny = 7, n = nx * ny;
  std::vector<std::pair<index_t, index_t>> edges;
  for (index_t y = 0; y < ny; ++y) {
    for (index_t x = 0; x < nx; ++x) {
      const index_t i = x + nx * y;
      if (x + 1 < nx) edges.emplace_back(i + 1, i);
      if (y + 1 < ny) edges.emplace_back(i + nx, i);
    }
  }
  const RowMajor a = laplacian_plus_identity(n, edges);
  const Factor f = ic0(a);
  ASSERT_TRUE(f.status.ok());
  const Eigen::MatrixXd l = Eigen::MatrixXd(f.lower);
  const Eigen::MatrixXd llt = l * l.transpose();
  const Eigen::MatrixXd dense = Eigen::MatrixXd(a);
  for (index_t i = 0; i < n; ++i) {
    for (RowMajor::InnerIterator it(a, i); it; ++it) {
      EXPECT_NEAR(llt(i, it.col()), dense(i, it.col()), 1e-12) << i << "," << it.col();
    }
  }
  // And fill was actually dropped somewhere, or this test would prove nothing new.
  EXPECT_GT((llt - dense).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Ic0Kernel, ReportsFirstBadPivotAndShiftRepairsIt) {
  // [[1, 2], [2, 1]] is indefinite: the second pivot is 1 - 4 = -3.
  const RowMajor a =
      from_triplets(3, {{0, 0, 1.0}, {1, 0, 2.0}, {0, 1, 2.0}, {1, 1, 1.0}, {2, 2, 1.0}});
  const Factor bad = ic0(a);
  EXPECT_FALSE(bad.status.ok());
  EXPECT_EQ(bad.status.failed_row, 1);
  EXPECT_DOUBLE_EQ(bad.status.pivot, -3.0);

  // With a shift s the pivot is (1 + s) - 4 / (1 + s) > 0 for s > 1.
  const Factor shifted = ic0(a, 2.0);
  ASSERT_TRUE(shifted.status.ok());
  EXPECT_DOUBLE_EQ(shifted.lower.coeff(0, 0), std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(shifted.lower.coeff(1, 1), std::sqrt(3.0 - 4.0 / 3.0));
  EXPECT_DOUBLE_EQ(shifted.lower.coeff(2, 2), std::sqrt(3.0));
}

TEST(Ic0Kernel, ReportsNonPositiveAndNonFinitePivots) {
  const Factor zero = ic0(from_triplets(2, {{0, 0, 1.0}, {1, 1, 0.0}}));
  EXPECT_EQ(zero.status.failed_row, 1);
  EXPECT_EQ(zero.status.pivot, 0.0);

  const Factor negative = ic0(from_triplets(2, {{0, 0, -2.0}, {1, 1, 1.0}}));
  EXPECT_EQ(negative.status.failed_row, 0);
  EXPECT_EQ(negative.status.pivot, -2.0);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Factor not_finite = ic0(from_triplets(2, {{0, 0, 1.0}, {1, 1, nan}}));
  EXPECT_EQ(not_finite.status.failed_row, 1);
  EXPECT_TRUE(std::isnan(not_finite.status.pivot));

  const double inf = std::numeric_limits<double>::infinity();
  const Factor infinite = ic0(from_triplets(2, {{0, 0, inf}, {1, 1, 1.0}}));
  EXPECT_EQ(infinite.status.failed_row, 0);
}

TEST(Ic0Kernel, RowWithoutDiagonalIsAZeroPivot) {
  // Row 1 stores only (1, 0): the kernel must not take (1, 0) for the diagonal.
  const std::vector<index_t> row_ptr{0, 1, 2};
  const std::vector<index_t> col_idx{0, 0};
  std::vector<double> values{4.0, 1.0};
  CsrView<double> v{2, 2, row_ptr.data(), col_idx.data(), values.data()};
  const auto status = ref::ic0_factorize(v, values.data(), 0.0);
  EXPECT_EQ(status.failed_row, 1);
  EXPECT_EQ(status.pivot, 0.0);
}

}  // namespace
