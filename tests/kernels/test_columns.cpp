// The multi-column kernels (kernels/columns.hpp): the reference computes each listed column
// as the one-column reference kernel does, bit for bit, and leaves the other columns alone;
// the threaded host kernels (1, 2, 4 threads) give the reference's bits for rows (spmm,
// color-set solves, pointwise) and the threaded one-column kernel's bits for sums. Awkward
// sizes: k = 1, 3, 8 and 9 (past one register group), n not a multiple of anything, subsets
// of the columns.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "backend/split_triangle.hpp"
#include "common/test_matrices.hpp"
#include "kernels/blas1.hpp"
#include "kernels/cg_scalars.hpp"
#include "kernels/colorset.hpp"
#include "kernels/columns.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/spmv.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;
using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::kCgScalarCount;
using prism::test::random_vector;

constexpr int kThreads[] = {1, 2, 4};

prism::kernels::CsrView<double> view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// The listed columns of k: every one, or every other one from the last (a gap first).
struct Case {
  int k;
  std::vector<index_t> cols;
};
std::vector<Case> cases() {
  std::vector<Case> out;
  for (int k : {1, 3, 8, 9}) {
    std::vector<index_t> all, some;
    for (index_t j = 0; j < k; ++j) all.push_back(j);
    for (index_t j = k - 1; j >= 0; j -= 2) some.insert(some.begin(), j);
    out.push_back({k, all});
    if (some.size() != all.size()) out.push_back({k, some});
  }
  return out;
}

std::vector<double> column(const std::vector<double>& block, index_t n, index_t j) {
  return {block.begin() + j * n, block.begin() + (j + 1) * n};
}

bool listed(const std::vector<index_t>& cols, index_t j) {
  return std::find(cols.begin(), cols.end(), j) != cols.end();
}

/// CG scalars for k columns with positive rz, pq and rz_new (and one zero rz: beta 0).
std::vector<double> scalars(int k) {
  std::vector<double> s = random_vector(k * kCgScalarCount, 9);
  for (double& v : s) v = 1.0 + std::abs(v);
  s[prism::kernels::kCgRz] = 0.0;
  return s;
}

const std::vector<index_t> kRows{1, 37, 1000, 3001};

TEST(ColumnKernels, ReferenceVectorOperationsAreTheOneColumnKernelsPerColumn) {
  for (index_t n : kRows) {
    for (const Case& c : cases()) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", k = " + std::to_string(c.k) + ", " +
                   std::to_string(c.cols.size()) + " listed");
      const int count = static_cast<int>(c.cols.size());
      const std::vector<double> x = random_vector(n * c.k, 1), y0 = random_vector(n * c.k, 2),
                                q = random_vector(n * c.k, 3);
      std::vector<double> s = scalars(c.k), y = y0, x1 = x, r = y0;
      ref::dot_columns(n, c.cols.data(), count, x.data(), y0.data(), s.data(),
                       prism::kernels::kCgRzNew);
      for (index_t j = 0; j < c.k; ++j) {
        if (!listed(c.cols, j)) continue;
        EXPECT_EQ(s[j * kCgScalarCount + prism::kernels::kCgRzNew],
                  ref::dot(n, column(x, n, j).data(), column(y0, n, j).data()));
      }
      ref::axpy_columns(n, c.cols.data(), count, -0.5, x.data(), y.data());
      ref::cg_update_columns(n, c.cols.data(), count, q.data(), q.data(), x1.data(), r.data(),
                             s.data());
      for (index_t j = 0; j < c.k; ++j) {
        std::vector<double> yj = column(y0, n, j), xj = column(x, n, j), rj = column(y0, n, j);
        if (listed(c.cols, j)) {
          ref::axpy(n, -0.5, column(x, n, j).data(), yj.data());
          const double* sj = s.data() + j * kCgScalarCount;
          const double rz = sj[prism::kernels::kCgRz], pq = sj[prism::kernels::kCgPq];
          const double alpha = rz > 0.0 && pq > 0.0 ? rz / pq : 0.0;
          const double rr = ref::cg_update(n, alpha, column(q, n, j).data(), column(q, n, j).data(),
                                           xj.data(), rj.data());
          EXPECT_EQ(sj[prism::kernels::kCgRr], rr);
        }
        EXPECT_EQ(column(y, n, j), yj) << "axpy, column " << j;
        EXPECT_EQ(column(x1, n, j), xj) << "cg_update x, column " << j;
        EXPECT_EQ(column(r, n, j), rj) << "cg_update r, column " << j;
      }
    }
  }
}

TEST(ColumnKernels, ReferenceSpmmAndColorsetAreTheOneColumnKernelsPerColumn) {
  const CsrMatrix<double> a = prism::poisson3d(7, 5, 3, 27);  // 105 rows
  const auto coloring = prism::color_matrix(a, prism::VertexOrder::natural);
  const CsrMatrix<double> pa = prism::permute_symmetric(a, coloring.permutation);
  prism::precond::Ic0Pattern pattern(pa);
  pattern.factorize(pa, {});
  const prism::backend::SplitTriangle lower(pattern.lower(), prism::backend::Triangle::lower);
  const index_t n = a.rows;
  for (const Case& c : cases()) {
    SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
    const int count = static_cast<int>(c.cols.size());
    const std::vector<double> x = random_vector(n * c.k, 5), y0 = random_vector(n * c.k, 6);
    std::vector<double> y = y0, z = y0;
    ref::spmm(view(pa), c.cols.data(), count, x.data(), y.data());
    ref::colorset_solve_columns(lower.view(), lower.inverse_diagonal().data(),
                                lower.block_ptr().data(), lower.num_blocks(), true, c.cols.data(),
                                count, x.data(), z.data());
    for (index_t j = 0; j < c.k; ++j) {
      std::vector<double> yj = column(y0, n, j), zj = column(y0, n, j);
      if (listed(c.cols, j)) {
        ref::spmv(view(pa), column(x, n, j).data(), yj.data());
        ref::colorset_solve(lower.view(), lower.inverse_diagonal().data(), lower.block_ptr().data(),
                            lower.num_blocks(), true, column(x, n, j).data(), zj.data());
      }
      EXPECT_EQ(column(y, n, j), yj) << "spmm, column " << j;
      EXPECT_EQ(column(z, n, j), zj) << "colorset, column " << j;
    }
  }
}

TEST(ColumnKernels, ThreadedKernelsAreTheReferenceBits) {
  const CsrMatrix<double> grid = prism::poisson3d(17, 13, 11);  // 2431 rows
  const auto coloring = prism::color_matrix(grid, prism::VertexOrder::natural);
  const CsrMatrix<double> a = prism::permute_symmetric(grid, coloring.permutation);
  prism::precond::Ic0Pattern pattern(a);
  pattern.factorize(a, {});
  const prism::backend::SplitTriangle lower(pattern.lower(), prism::backend::Triangle::lower);
  const prism::backend::SplitTriangle upper(pattern.upper(), prism::backend::Triangle::upper);
  const index_t n = a.rows;
  for (const Case& c : cases()) {
    const int count = static_cast<int>(c.cols.size());
    const std::vector<double> x = random_vector(n * c.k, 7), y0 = random_vector(n * c.k, 8),
                              d = random_vector(n, 10);
    std::vector<double> y_ref = y0, w_ref = y0, l_ref = y0, u_ref = y0, s_ref = scalars(c.k);
    ref::spmm(view(a), c.cols.data(), count, x.data(), y_ref.data());
    ref::pointwise_multiply_columns(n, c.cols.data(), count, d.data(), x.data(), w_ref.data());
    ref::colorset_solve_columns(lower.view(), lower.inverse_diagonal().data(),
                                lower.block_ptr().data(), lower.num_blocks(), true, c.cols.data(),
                                count, x.data(), l_ref.data());
    ref::colorset_solve_columns(upper.view(), upper.inverse_diagonal().data(),
                                upper.block_ptr().data(), upper.num_blocks(), false, c.cols.data(),
                                count, x.data(), u_ref.data());
    for (int t : kThreads) {
      SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(count) + " listed, " +
                   std::to_string(t) + " threads");
      std::vector<double> y = y0, w = y0, l = y0, u = y0, p = y0, xc = x, r = y0;
      host::spmm(t, view(a), c.cols.data(), count, x.data(), y.data());
      EXPECT_EQ(y, y_ref);
      host::pointwise_multiply_columns(t, n, c.cols.data(), count, d.data(), x.data(), w.data());
      EXPECT_EQ(w, w_ref);
      host::colorset_solve_columns(t, lower.view(), lower.inverse_diagonal().data(),
                                   lower.block_ptr().data(), lower.num_blocks(), true,
                                   c.cols.data(), count, x.data(), l.data());
      EXPECT_EQ(l, l_ref);
      host::colorset_solve_columns(t, upper.view(), upper.inverse_diagonal().data(),
                                   upper.block_ptr().data(), upper.num_blocks(), false,
                                   c.cols.data(), count, x.data(), u.data());
      EXPECT_EQ(u, u_ref);
      // Sums: each column the threaded one-column kernel's bits, near the reference's.
      std::vector<double> s = scalars(c.k), s_ref2 = scalars(c.k);
      host::dot_columns(t, n, c.cols.data(), count, x.data(), y0.data(), s.data(),
                        prism::kernels::kCgPq);
      ref::dot_columns(n, c.cols.data(), count, x.data(), y0.data(), s_ref2.data(),
                       prism::kernels::kCgPq);
      host::cg_direction_columns(t, n, c.cols.data(), count, x.data(), p.data(), s.data());
      host::cg_update_columns(t, n, c.cols.data(), count, x.data(), y0.data(), xc.data(), r.data(),
                              s.data());
      for (index_t j = 0; j < c.k; ++j) {
        const std::size_t at = static_cast<std::size_t>(j) * kCgScalarCount;
        if (!listed(c.cols, j)) {
          EXPECT_EQ(column(p, n, j), column(y0, n, j));
          continue;
        }
        const double pq = s[at + prism::kernels::kCgPq];
        EXPECT_EQ(pq, host::dot(t, n, column(x, n, j).data(), column(y0, n, j).data()));
        EXPECT_NEAR(pq, s_ref2[at + prism::kernels::kCgPq], 1e-12 * n);
      }
      std::vector<double> p1 = y0, s1 = scalars(c.k);
      host::cg_direction_columns(1, n, c.cols.data(), count, x.data(), p1.data(), s1.data());
      EXPECT_EQ(p, p1);  // elementwise: any thread count, the same bits
    }
  }
}

}  // namespace
