// Line IC's set-up reference (kernels/line_ic_setup.hpp), what the host set-up runs and the
// CUDA twins are tested against (tests/backend/test_cuda_line_ic_setup.cpp): the split of a
// small chain into the operators and its defect, and one attempt on a single line, which
// is the exact Cholesky factor of its tridiagonal block.

#include <prism/generators.hpp>

#include "kernels/line_ic_setup.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using prism::index_t;
namespace k = prism::kernels;

k::CsrView<double> view(const prism::CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// The entry (i, j) of a, -1 when not stored.
index_t entry(const prism::CsrMatrix<double>& a, index_t i, index_t j) {
  for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
    if (a.col_idx[p] == j) return p;
  }
  return -1;
}

// A chain of 6 rows in three lines of two, one color each: the couplings 1-2 and 3-4 go to
// L (the later row) and L^T (the earlier one), each line's inner coupling to sub_source.
TEST(LineIcSetupReference, SplitsAChainIntoItsOperators) {
  const prism::CsrMatrix<double> a = prism::anisotropic3d(1, 1, 6, 1.0, 1.0, 1.0);
  const std::vector<index_t> line_ptr{0, 2, 4, 6};
  const k::LineIcSplit s = k::reference::line_ic_split(view(a), line_ptr, {0, 1, 2, 3});
  EXPECT_EQ(s.coupled_row, -1);
  EXPECT_EQ(s.lower_ptr, (std::vector<index_t>{0, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(s.lower_col, (std::vector<index_t>{1, 3}));
  EXPECT_EQ(s.lower_source, (std::vector<index_t>{entry(a, 2, 1), entry(a, 4, 3)}));
  EXPECT_EQ(s.upper_ptr, (std::vector<index_t>{0, 0, 1, 1, 2, 2, 2}));
  EXPECT_EQ(s.upper_col, (std::vector<index_t>{2, 4}));
  EXPECT_EQ(s.upper_source, (std::vector<index_t>{entry(a, 1, 2), entry(a, 3, 4)}));
  for (index_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s.diagonal_source[i], entry(a, i, i));
    EXPECT_EQ(s.sub_source[i], i % 2 == 1 ? entry(a, i, i - 1) : -1);
  }
  EXPECT_EQ(k::reference::line_ic_line_of(line_ptr), (std::vector<index_t>{0, 0, 1, 1, 2, 2}));
  // The first two lines in one color: rows 1 and 2 are the first coupled pair.
  const k::LineIcSplit bad = k::reference::line_ic_split(view(a), line_ptr, {0, 2, 3});
  EXPECT_EQ(bad.coupled_row, 1);
  EXPECT_EQ(bad.coupled_col, 2);
  EXPECT_TRUE(bad.lower_col.empty());
}

// One line of all rows: no couplings to other lines, so the attempt is the Cholesky factor
// of the tridiagonal matrix (with the shift on its diagonal); a negative diagonal fails at
// its row with its pivot.
TEST(LineIcSetupReference, OneLineIsItsCholeskyFactor) {
  const index_t n = 37;
  const std::vector<index_t> line_ptr{0, n}, line_of(static_cast<std::size_t>(n), 0), empty(n + 1);
  std::vector<double> diagonal(n, 2.0), below(n, -1.0), sub(n), inverse(n), band(n), off(n);
  below[0] = 0.0;
  k::LineIcAttemptView f;
  f.rows = n;
  f.line_ptr = line_ptr.data();
  f.line_of = line_of.data();
  f.lower = {n, n, empty.data(), nullptr, nullptr};
  f.diagonal = diagonal.data();
  f.below = below.data();
  f.sub = sub.data();
  f.inverse_diagonal = inverse.data();
  f.band_diagonal = band.data();
  f.band_off = off.data();
  for (const double shift : {0.0, 0.25}) {
    double pivot = 0.0;
    ASSERT_EQ(k::reference::line_ic_attempt_lines(f, 0, 1, shift, pivot), -1);
    double l = std::sqrt(2.0 + 2.0 * shift);  // l_00
    EXPECT_NEAR(inverse[0], 1.0 / l, 1e-15);
    for (index_t i = 1; i < n; ++i) {
      const double s = -1.0 / l;  // l_{i,i-1}
      l = std::sqrt(2.0 + 2.0 * shift - s * s);
      EXPECT_NEAR(sub[i], s, 1e-14);
      EXPECT_NEAR(inverse[i], 1.0 / l, 1e-14);
    }
    // Sigma(n-1, n-1) = (T^{-1})(n-1, n-1): 1 / l^2 at the line's end.
    EXPECT_NEAR(band[n - 1], 1.0 / (l * l), 1e-14);
  }
  diagonal[20] = -2.0;
  double pivot = 0.0;
  EXPECT_EQ(k::reference::line_ic_attempt_lines(f, 0, 1, 0.0, pivot), 20);
  EXPECT_LT(pivot, -2.0);
}

}  // namespace
