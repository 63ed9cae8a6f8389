// The SELL-32 layout (kernels/sell.hpp): every nonzero at its slice position, padding
// marked, slices inside the given ranges, values gathered through the source map.

#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/threaded_sell_layout.hpp"
#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"
#include "kernels/sell.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::kSellSlice;

prism::kernels::CsrView<double> view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// Rebuilds the CSR entries from the layout and checks structure and padding.
void expect_layout_holds(const CsrMatrix<double>& a, const std::vector<index_t>& ranges) {
  const prism::kernels::SellLayout s = prism::kernels::sell_layout(view(a), ranges);
  ASSERT_EQ(s.range_ptr, ranges);
  ASSERT_EQ(s.range_slice.size(), ranges.size());
  std::vector<int> seen(static_cast<std::size_t>(a.nnz()), 0);
  for (std::size_t r = 0; r + 1 < ranges.size(); ++r) {
    const index_t rows = ranges[r + 1] - ranges[r];
    ASSERT_EQ(s.range_slice[r + 1] - s.range_slice[r], (rows + kSellSlice - 1) / kSellSlice);
    for (index_t sl = s.range_slice[r]; sl < s.range_slice[r + 1]; ++sl) {
      const index_t size = s.slice_ptr[sl + 1] - s.slice_ptr[sl];
      ASSERT_EQ(size % kSellSlice, 0);
      const index_t width = size / kSellSlice;
      index_t longest = 0;
      for (int lane = 0; lane < kSellSlice; ++lane) {
        const index_t row = ranges[r] + (sl - s.range_slice[r]) * kSellSlice + lane;
        const index_t length = row < ranges[r + 1] ? a.row_ptr[row + 1] - a.row_ptr[row] : 0;
        longest = std::max(longest, length);
        for (index_t k = 0; k < width; ++k) {
          const index_t at = s.slice_ptr[sl] + k * kSellSlice + lane;
          if (k < length) {
            const index_t csr = a.row_ptr[row] + k;
            EXPECT_EQ(s.source[at], csr);
            EXPECT_EQ(s.col_idx[at], a.col_idx[csr]);
            ++seen[csr];
          } else {
            EXPECT_EQ(s.source[at], -1);
            EXPECT_EQ(s.col_idx[at], -1);
          }
        }
      }
      EXPECT_EQ(width, longest);  // padded to the slice's longest row, no more
    }
  }
  for (int count : seen) EXPECT_EQ(count, 1);
  std::vector<float> gathered;
  prism::kernels::sell_gather(s, a.values.data(), gathered);
  for (std::size_t k = 0; k < gathered.size(); ++k) {
    EXPECT_EQ(gathered[k], s.source[k] >= 0 ? static_cast<float>(a.values[s.source[k]]) : 0.0f);
  }
}

TEST(SellLayout, HoldsEveryEntryOnceWithMarkedPadding) {
  const CsrMatrix<double> p = prism::poisson3d(7, 6, 5, 27);  // 210 rows, 7..27 per row
  expect_layout_holds(p, {0, p.rows});
  expect_layout_holds(p, {0, 31, 32, 33, 100, p.rows});  // ranges not multiples of 32
  expect_layout_holds(p, {0, 0, p.rows, p.rows});        // empty ranges
  expect_layout_holds(prism::poisson2d(1, 1), {0, 1});
  expect_layout_holds(prism::csr_from_triplets(3, 3, {{0, 0, 1.0}, {2, 2, 2.0}}), {0, 3});
}

TEST(SellLayout, PaddingIsStoredOverNonzeros) {
  const CsrMatrix<double> p = prism::poisson2d(64, 64);  // 4096 rows, slices of 32
  const auto s = prism::kernels::sell_layout(view(p), {0, p.rows});
  // Slices of interior grid rows pad their two edge rows to 5 entries; the 4 slices of
  // the first and last grid row have no 5-entry row and a width of 4.
  EXPECT_EQ(s.stored(), 5 * p.rows - 4 * 32);
  EXPECT_DOUBLE_EQ(prism::kernels::sell_padding(s, p.nnz()),
                   static_cast<double>(5 * p.rows - 4 * 32) / p.nnz());
  // One long row pads its whole slice.
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < 32; ++i) t.push_back({i, i, 1.0});
  for (index_t j = 1; j < 32; ++j) t.push_back({0, j, 1.0});
  const CsrMatrix<double> arrow = prism::csr_from_triplets(32, 32, t);
  const auto sa = prism::kernels::sell_layout(view(arrow), {0, 32});
  EXPECT_EQ(sa.stored(), 32 * 32);
}

TEST(SellLayout, RejectsRangesThatDoNotCoverTheRows) {
  const CsrMatrix<double> p = prism::poisson2d(4, 4);
  EXPECT_THROW(prism::kernels::sell_layout(view(p), {0, 10}), prism::ConfigError);
  EXPECT_THROW(prism::kernels::sell_layout(view(p), {0, 12, 8, 16}), prism::ConfigError);
  EXPECT_THROW(prism::kernels::sell_layout(view(p), {16}), prism::ConfigError);
}

// The set-up's threaded layout is the reference's entry for entry: awkward ranges (not
// multiples of the slice, empty ones), slices of 32 and 8, rows spread over several parts
// on 1 to 4 threads, and the reference's errors.
TEST(SellLayout, ThreadedLayoutIsTheReference) {
  const CsrMatrix<double> big = prism::poisson3d(41, 37, 23, 27);  // 34891 rows, 8..27 a row
  const CsrMatrix<double> p = prism::poisson3d(7, 6, 5, 27);
  const CsrMatrix<double> arrow = prism::test::random_symmetric(3001, 20000, 3);
  const std::vector<std::pair<const CsrMatrix<double>*, std::vector<index_t>>> cases{
      {&big, {0, big.rows}},
      {&big, {0, 17, 17, 9000, 20033, big.rows}},
      {&p, {0, 31, 32, 33, 100, p.rows}},
      {&p, {0, 0, p.rows, p.rows}},
      {&arrow, {0, 1000, arrow.rows}}};
  for (const int threads : {1, 2, 3, 4}) {
    const prism::test::ScopedHostThreads scoped(threads);
    for (const auto& [a, ranges] : cases) {
      for (const index_t slice : {index_t{kSellSlice}, index_t{prism::kernels::kHostSellSlice}}) {
        SCOPED_TRACE(std::to_string(a->rows) + " rows, " + std::to_string(ranges.size() - 1) +
                     " ranges, slice " + std::to_string(slice) + ", " + std::to_string(threads) +
                     " threads");
        const auto want = prism::kernels::sell_layout(view(*a), ranges, slice);
        const auto got = prism::backend::threaded_sell_layout(view(*a), ranges, slice);
        EXPECT_EQ(got.rows, want.rows);
        EXPECT_EQ(got.slice, want.slice);
        EXPECT_EQ(got.range_ptr, want.range_ptr);
        EXPECT_EQ(got.range_slice, want.range_slice);
        EXPECT_EQ(got.slice_ptr, want.slice_ptr);
        EXPECT_EQ(got.col_idx, want.col_idx);
        EXPECT_EQ(got.source, want.source);
      }
    }
  }
  EXPECT_THROW(prism::backend::threaded_sell_layout(view(p), {0, 10}), prism::ConfigError);
  EXPECT_THROW(prism::backend::threaded_sell_layout(view(p), {0, 12, 8, p.rows}),
               prism::ConfigError);
  EXPECT_THROW(prism::backend::threaded_sell_layout(view(p), {0, p.rows}, 0), prism::ConfigError);
}

}  // namespace
