#include "kernels/blas1.hpp"
#include "kernels/matrix_values.hpp"
#include "kernels/spmv.hpp"
#include "kernels/trisolve.hpp"

#include "common/param_names.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using prism::index_t;
using prism::kernels::CsrView;
namespace ref = prism::kernels::reference;
using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor, index_t>;

CsrView<double> view(const RowMajor& m) {
  CsrView<double> v;
  v.rows = static_cast<index_t>(m.rows());
  v.cols = static_cast<index_t>(m.cols());
  v.row_ptr = m.outerIndexPtr();
  v.col_idx = m.innerIndexPtr();
  v.values = m.valuePtr();
  return v;
}

// Symmetric, strictly diagonally dominant (so SPD), with every fifth row left without
// off-diagonal entries to plant empty rows.
RowMajor random_spd(index_t n, int per_row, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<index_t> pick(0, n - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Eigen::Triplet<double, index_t>> triplets;
  std::vector<double> row_sum(n, 0.0);
  for (index_t i = 0; i < n; ++i) {
    if (i % 5 == 4) continue;
    for (int e = 0; e < per_row; ++e) {
      const index_t j = pick(gen);
      if (j == i || j % 5 == 4) continue;
      const double v = value(gen);
      triplets.emplace_back(i, j, v);
      triplets.emplace_back(j, i, v);
      row_sum[i] += std::abs(v);
      row_sum[j] += std::abs(v);
    }
  }
  for (index_t i = 0; i < n; ++i) triplets.emplace_back(i, i, row_sum[i] + 1.0 + 0.1 * (i % 3));
  RowMajor m(n, n);
  m.setFromTriplets(triplets.begin(), triplets.end());
  m.makeCompressed();
  return m;
}

std::vector<double> random_vector(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = value(gen);
  return v;
}

Eigen::Map<const Eigen::VectorXd> as_eigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

class ReferenceKernels : public ::testing::TestWithParam<index_t> {};

TEST_P(ReferenceKernels, SpmvMatchesEigen) {
  const index_t n = GetParam();
  const RowMajor a = random_spd(n, 4, 1);
  const std::vector<double> x = random_vector(n, 2);
  std::vector<double> y(n, 123.0);
  ref::spmv(view(a), x.data(), y.data());
  const Eigen::VectorXd expected = a * as_eigen(x);
  for (index_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], expected[i], 1e-13 * (1 + std::abs(y[i])));
}

TEST_P(ReferenceKernels, VectorKernelsMatchEigen) {
  const index_t n = GetParam();
  const std::vector<double> x = random_vector(n, 3);
  const std::vector<double> y0 = random_vector(n, 4);
  const double tol = 1e-13 * n;

  EXPECT_NEAR(ref::dot(n, x.data(), y0.data()), as_eigen(x).dot(as_eigen(y0)), tol);

  std::vector<double> y = y0;
  ref::axpy(n, 0.5, x.data(), y.data());
  for (index_t i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(y[i], y0[i] + 0.5 * x[i]);

  y = y0;
  ref::xpay(n, x.data(), -2.0, y.data());
  for (index_t i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(y[i], x[i] - 2.0 * y0[i]);

  y = y0;
  ref::xpay(n, x.data(), 0.0, y.data());
  EXPECT_EQ(y, x);

  y = y0;
  ref::pointwise_multiply(n, x.data(), y0.data(), y.data());
  for (index_t i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(y[i], x[i] * y0[i]);

  y.assign(n, 0.0);
  ref::copy(n, x.data(), y.data());
  EXPECT_EQ(y, x);
}

TEST_P(ReferenceKernels, CgUpdateIsFusedAxpysAndNorm) {
  const index_t n = GetParam();
  const std::vector<double> p = random_vector(n, 5);
  const std::vector<double> q = random_vector(n, 6);
  std::vector<double> x = random_vector(n, 7);
  std::vector<double> r = random_vector(n, 8);
  Eigen::VectorXd x_expected = as_eigen(x) + 0.25 * as_eigen(p);
  Eigen::VectorXd r_expected = as_eigen(r) - 0.25 * as_eigen(q);
  const double rr = ref::cg_update(n, 0.25, p.data(), q.data(), x.data(), r.data());
  for (index_t i = 0; i < n; ++i) {
    EXPECT_DOUBLE_EQ(x[i], x_expected[i]);
    EXPECT_DOUBLE_EQ(r[i], r_expected[i]);
  }
  EXPECT_NEAR(rr, r_expected.squaredNorm(), 1e-13 * n);
}

TEST_P(ReferenceKernels, GatherAndScatterAreInverse) {
  const index_t n = GetParam();
  std::vector<index_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(9));
  const std::vector<double> x = random_vector(n, 10);
  std::vector<double> gathered(n), back(n);
  ref::gather(n, perm.data(), x.data(), gathered.data());
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(gathered[i], x[perm[i]]);
  ref::scatter(n, perm.data(), gathered.data(), back.data());
  EXPECT_EQ(back, x);
}

TEST_P(ReferenceKernels, TriangularSolvesMatchEigen) {
  const index_t n = GetParam();
  const RowMajor a = random_spd(n, 5, 11);
  // Row-major lower triangle has the diagonal last in each row, its transpose (stored
  // row-major again) the diagonal first: the layouts the kernels expect.
  const RowMajor lower = RowMajor(a.triangularView<Eigen::Lower>());
  const RowMajor upper = RowMajor(lower.transpose());
  const std::vector<double> b = random_vector(n, 12);

  std::vector<double> x(n, 0.0);
  ref::lower_solve(view(lower), b.data(), x.data());
  const Eigen::VectorXd x_lower = lower.triangularView<Eigen::Lower>().solve(as_eigen(b));
  for (index_t i = 0; i < n; ++i) EXPECT_NEAR(x[i], x_lower[i], 1e-12 * (1 + std::abs(x[i])));

  ref::upper_solve(view(upper), b.data(), x.data());
  const Eigen::VectorXd x_upper = upper.triangularView<Eigen::Upper>().solve(as_eigen(b));
  for (index_t i = 0; i < n; ++i) EXPECT_NEAR(x[i], x_upper[i], 1e-12 * (1 + std::abs(x[i])));

  // The rows stored in reverse order: the same solve, bit for bit.
  std::vector<index_t> rev_ptr{0}, rev_col;
  std::vector<double> rev_val, x_reversed(n, 0.0);
  const CsrView<double> u = view(upper);
  for (index_t r = 0; r < n; ++r) {
    const index_t i = n - 1 - r;
    for (index_t k = u.row_ptr[i]; k < u.row_ptr[i + 1]; ++k) {
      rev_col.push_back(u.col_idx[k]);
      rev_val.push_back(u.values[k]);
    }
    rev_ptr.push_back(static_cast<index_t>(rev_col.size()));
  }
  ref::upper_solve_reversed({n, n, rev_ptr.data(), rev_col.data(), rev_val.data()}, b.data(),
                            x_reversed.data());
  EXPECT_EQ(x_reversed, x);

  // In place: x aliases b.
  std::vector<double> inplace = b;
  ref::lower_solve(view(lower), inplace.data(), inplace.data());
  for (index_t i = 0; i < n; ++i)
    EXPECT_NEAR(inplace[i], x_lower[i], 1e-12 * (1 + std::abs(x_lower[i])));
}

INSTANTIATE_TEST_SUITE_P(AwkwardSizes, ReferenceKernels, ::testing::Values(1, 2, 31, 33, 1000),
                         prism::test::SizeName());

TEST(ReferenceKernels, EmptyVectorsAreFine) {
  EXPECT_EQ(ref::dot(0, nullptr, nullptr), 0.0);
  EXPECT_EQ(ref::cg_update(0, 1.0, nullptr, nullptr, nullptr, nullptr), 0.0);
  const std::vector<index_t> row_ptr{0};
  CsrView<double> empty;
  empty.row_ptr = row_ptr.data();
  ref::spmv(empty, nullptr, nullptr);
  ref::lower_solve(empty, nullptr, nullptr);
  ref::upper_solve(empty, nullptr, nullptr);
  ref::upper_solve_reversed(empty, nullptr, nullptr);
}

TEST(ReferenceKernels, SpmvWithEmptyRowsWritesZero) {
  // Rows 1 and 3 store nothing at all (not even a diagonal).
  const std::vector<index_t> row_ptr{0, 2, 2, 3, 3};
  const std::vector<index_t> col_idx{0, 3, 2};
  const std::vector<double> values{2.0, -1.0, 5.0};
  CsrView<double> a{4, 4, row_ptr.data(), col_idx.data(), values.data()};
  const std::vector<double> x{1.0, 2.0, 3.0, 4.0};
  std::vector<double> y(4, 99.0);
  ref::spmv(a, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{-2.0, 0.0, 15.0, 0.0}));
}

// Infinities and NaN are skipped; none finite (or none at all) gives 0.
TEST(ReferenceKernels, LargestFiniteMagnitudeSkipsNonFiniteValues) {
  namespace ref = prism::kernels::reference;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {1.0, -7.5, inf, std::nan(""), 3.0, -inf};
  EXPECT_EQ(ref::largest_finite_magnitude(static_cast<prism::index_t>(v.size()), v.data()), 7.5);
  EXPECT_EQ(ref::largest_finite_magnitude(1, v.data() + 2), 0.0);
  EXPECT_EQ(ref::largest_finite_magnitude(0, nullptr), 0.0);
}

}  // namespace
