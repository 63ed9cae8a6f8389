// The BSR layout (kernels/bsr.hpp): every CSR entry stored once at its block position,
// padding marked, the gather map reproducing the values, and the reference BSR SpMV equal to
// the reference CSR SpMV on the awkward cases (bsr_test_matrices.hpp).

#include <prism/errors.hpp>

#include "common/test_matrices.hpp"
#include "kernels/bsr.hpp"
#include "kernels/bsr_test_matrices.hpp"
#include "kernels/spmv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::BsrLayout;
using prism::test::csr_view;
namespace ref = prism::kernels::reference;

/// Every stored value's source entry lies at its block's row and column, every CSR entry
/// is stored once, and every stored block holds at least one entry.
void expect_layout_holds(const CsrMatrix<double>& a, const BsrLayout& s) {
  const int b = s.block_size;
  ASSERT_EQ(s.block_rows(), (a.rows + b - 1) / b);
  ASSERT_EQ(s.source.size(), static_cast<std::size_t>(s.stored()));
  std::vector<int> seen(static_cast<std::size_t>(a.nnz()), 0);
  for (index_t br = 0; br < s.block_rows(); ++br) {
    for (index_t k = s.block_row_ptr[br]; k < s.block_row_ptr[br + 1]; ++k) {
      const index_t bc = s.block_col_idx[k];
      ASSERT_LT(bc, (a.cols + b - 1) / b);
      if (k > s.block_row_ptr[br]) EXPECT_LT(s.block_col_idx[k - 1], bc);  // sorted, unique
      int entries = 0;
      for (int p = 0; p < b * b; ++p) {
        const index_t e = s.source[static_cast<std::size_t>(k) * b * b + p];
        if (e < 0) continue;
        ++entries;
        ++seen[e];
        const index_t row = br * b + p / b, col = bc * b + p % b;
        ASSERT_LT(row, a.rows);
        EXPECT_GE(e, a.row_ptr[row]);
        EXPECT_LT(e, a.row_ptr[row + 1]);
        EXPECT_EQ(a.col_idx[e], col);
      }
      EXPECT_GT(entries, 0);
    }
  }
  for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(BsrLayout, HoldsEveryEntryOnceWithMarkedPadding) {
  for (const prism::test::BsrCase& c : prism::test::bsr_cases()) {
    SCOPED_TRACE(c.name + ", b = " + std::to_string(c.block_size));
    expect_layout_holds(c.a, ref::bsr_layout(csr_view(c.a), c.block_size));
  }
}

TEST(BsrLayout, PaddingIsStoredOverNonzeros) {
  // Elasticity's 3x3 node blocks are dense: no padding at b = 3, some at 6 (node pairs).
  const CsrMatrix<double> e = prism::elasticity3d(3, 2, 2, 1, {1.0});
  EXPECT_DOUBLE_EQ(prism::kernels::bsr_padding(ref::bsr_pattern(csr_view(e), 3), e.nnz()), 1.0);
  EXPECT_GT(prism::kernels::bsr_padding(ref::bsr_pattern(csr_view(e), 6), e.nnz()), 1.0);
  // b = 1 is CSR; a 2x2 tridiagonal block pattern: 4 rows, 10 entries, 4 blocks of 4.
  const CsrMatrix<double> p = prism::poisson2d(4, 1);
  EXPECT_DOUBLE_EQ(prism::kernels::bsr_padding(ref::bsr_pattern(csr_view(p), 1), p.nnz()), 1.0);
  const BsrLayout two = ref::bsr_pattern(csr_view(p), 2);
  EXPECT_EQ(two.stored(), 16);
  EXPECT_DOUBLE_EQ(prism::kernels::bsr_padding(two, p.nnz()), 1.6);
  EXPECT_TRUE(two.source.empty());  // the pattern alone
  const BsrLayout none = ref::bsr_pattern(csr_view(CsrMatrix<double>{}), 2);
  EXPECT_EQ(none.block_rows(), 0);
  EXPECT_DOUBLE_EQ(prism::kernels::bsr_padding(none, 0), 1.0);
}

TEST(BsrLayout, GatherReproducesTheValues) {
  for (const prism::test::BsrCase& c : prism::test::bsr_cases()) {
    SCOPED_TRACE(c.name + ", b = " + std::to_string(c.block_size));
    const BsrLayout s = ref::bsr_layout(csr_view(c.a), c.block_size);
    std::vector<double> fresh(c.a.values.size());
    for (std::size_t e = 0; e < fresh.size(); ++e) fresh[e] = 1.0 + static_cast<double>(e);
    std::vector<double> gathered;
    ref::bsr_gather(s, fresh.data(), gathered);
    ASSERT_EQ(gathered.size(), s.source.size());
    for (std::size_t k = 0; k < gathered.size(); ++k) {
      EXPECT_EQ(gathered[k], s.source[k] >= 0 ? fresh[s.source[k]] : 0.0);
    }
  }
}

// The BSR sum of a row runs over its entries in column order plus zeros: equal to CSR's.
TEST(BsrSpmv, IsEquivalentToCsrSpmv) {
  for (const prism::test::BsrCase& c : prism::test::bsr_cases()) {
    SCOPED_TRACE(c.name + ", b = " + std::to_string(c.block_size));
    const BsrLayout s = ref::bsr_layout(csr_view(c.a), c.block_size);
    std::vector<double> values;
    ref::bsr_gather(s, c.a.values.data(), values);
    const std::vector<double> x = prism::test::random_vector(c.a.cols, 3);
    std::vector<double> expected(static_cast<std::size_t>(c.a.rows));
    ref::spmv(csr_view(c.a), x.data(), expected.data());
    // One sentinel past the last row: the padded last block row writes nothing there.
    std::vector<double> y(static_cast<std::size_t>(c.a.rows) + 1, -7.0);
    ref::bsr_spmv(s.view(values.data()), x.data(), y.data());
    EXPECT_EQ(y.back(), -7.0);
    y.pop_back();
    EXPECT_EQ(y, expected);
  }
}

TEST(BsrLayout, RejectsBadInput) {
  const CsrMatrix<double> p = prism::poisson2d(3, 3);
  EXPECT_THROW(ref::bsr_pattern(csr_view(p), 0), prism::ConfigError);
  CsrMatrix<double> twice;  // row 0 holds column 1 twice
  twice.rows = twice.cols = 2;
  twice.row_ptr = {0, 2, 2};
  twice.col_idx = {1, 1};
  twice.values = {1.0, 2.0};
  EXPECT_THROW(ref::bsr_layout(csr_view(twice), 2), prism::InvalidMatrixError);
  CsrMatrix<double> outside = twice;
  outside.col_idx = {0, 2};
  EXPECT_THROW(ref::bsr_pattern(csr_view(outside), 2), prism::InvalidMatrixError);
  // A map asked of another matrix than the pattern's.
  BsrLayout s = ref::bsr_pattern(csr_view(prism::poisson2d(1, 3)), 2);
  EXPECT_THROW(ref::bsr_map(csr_view(p), s), prism::InvalidMatrixError);
}

}  // namespace
