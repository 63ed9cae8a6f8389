// The SELL-C layout built on the device (kernels/cuda/sell_layout.hpp) against its
// reference, kernels::sell_layout: the same ranges, slice offsets, columns and sources
// entry for entry, and sell_stored_device equal to kernels::sell_stored, on awkward
// patterns (0 rows, 1 row, sizes not a multiple of 32, empty rows, rows far longer than
// the others) and ranges (one, several, empty ones, ranges shorter than a slice), for
// slices of 32, 8, 1 and 40 rows (wider than a warp). The range checks run without a
// device; the rest skips without one.

#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "common/gpu.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/sell_layout.hpp"
#include "kernels/sell.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;

/// A pattern of `rows` rows with random lengths up to `typical` (some empty) and every
/// 37th row `long_row` entries long; sorted distinct columns in [0, max(rows, long_row)).
CsrMatrix<double> uneven_pattern(index_t rows, index_t typical, index_t long_row, unsigned seed) {
  CsrMatrix<double> a;
  a.rows = rows;
  a.cols = std::max(rows, long_row);
  a.row_ptr.push_back(0);
  std::mt19937 rng(seed);
  std::vector<index_t> all(static_cast<std::size_t>(a.cols));
  for (index_t j = 0; j < a.cols; ++j) all[j] = j;
  for (index_t i = 0; i < rows; ++i) {
    index_t length = static_cast<index_t>(rng() % static_cast<unsigned>(typical + 1));
    if (i % 37 == 5) length = long_row;
    length = std::min(length, a.cols);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<index_t> cols(all.begin(), all.begin() + length);
    std::sort(cols.begin(), cols.end());
    a.col_idx.insert(a.col_idx.end(), cols.begin(), cols.end());
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
  }
  a.values.assign(a.col_idx.size(), 1.0);
  return a;
}

struct Case {
  std::string name;
  CsrMatrix<double> a;
  std::vector<std::vector<index_t>> ranges;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  CsrMatrix<double> empty;
  empty.row_ptr = {0};
  out.push_back({"0 rows", empty, {{0, 0}, {0, 0, 0}}});
  out.push_back({"1 row", prism::poisson2d(1, 1), {{0, 1}, {0, 0, 1, 1}}});
  CsrMatrix<double> empty_row = uneven_pattern(1, 0, 0, 1);
  out.push_back({"1 empty row", empty_row, {{0, 1}}});
  const CsrMatrix<double> grid = prism::poisson2d(31, 33);  // 1023 rows
  out.push_back({"poisson2d 31x33", grid, {{0, 1023}, {0, 500, 1023}, {0, 1, 2, 1023}}});
  const CsrMatrix<double> uneven = uneven_pattern(1000, 9, 300, 7);
  out.push_back({"uneven 1000",
                 uneven,
                 {{0, 1000},
                  {0, 0, 31, 31, 32, 97, 97, 500, 999, 1000, 1000},
                  {0, 33, 65, 100, 300, 301, 640, 1000}}});
  const CsrMatrix<double> short_rows = uneven_pattern(65, 3, 70, 3);
  std::vector<index_t> every_row(66);
  for (index_t i = 0; i <= 65; ++i) every_row[i] = i;
  out.push_back({"uneven 65", short_rows, {{0, 65}, every_row}});
  return out;
}

void expect_layout_equal(const CsrMatrix<double>& a, const std::vector<index_t>& ranges,
                         index_t slice, const std::string& what) {
  SCOPED_TRACE(what);
  const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
  const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
  const prism::kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                             nullptr};
  const prism::kernels::SellLayout want = prism::kernels::sell_layout(view, ranges, slice);
  const k::DeviceSellLayout got =
      k::sell_layout_device(row_ptr.data(), col_idx.data(), a.rows, ranges, slice, nullptr);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.slice, want.slice);
  EXPECT_EQ(got.range_ptr, want.range_ptr);
  EXPECT_EQ(got.range_slice, want.range_slice);
  EXPECT_EQ(got.stored(), want.stored());
  EXPECT_EQ(k::download_and_wait(got.slice_ptr, nullptr), want.slice_ptr);
  EXPECT_EQ(k::download_and_wait(got.col_idx, nullptr), want.col_idx);
  EXPECT_EQ(k::download_and_wait(got.source, nullptr), want.source);
  EXPECT_EQ(k::sell_stored_device(row_ptr.data(), ranges, slice, nullptr),
            prism::kernels::sell_stored(view, ranges, slice));
}

TEST(SellLayoutCuda, LayoutIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const Case& c : cases()) {
    for (const auto& ranges : c.ranges) {
      for (const index_t slice : {prism::kernels::kSellSlice, 8, 1, 40}) {
        expect_layout_equal(c.a, ranges, slice,
                            c.name + ", " + std::to_string(ranges.size() - 1) + " ranges, slice " +
                                std::to_string(slice));
      }
    }
  }
}

TEST(SellLayoutCuda, BadRangesAreRejectedAsByTheReference) {
  // The checks run before any device work: no device needed.
  const std::vector<std::vector<index_t>> bad{{}, {0}, {1, 10}, {0, 9}, {0, 6, 4, 10}};
  for (const auto& ranges : bad) {
    EXPECT_THROW(k::sell_layout_device(nullptr, nullptr, 10, ranges, 32, nullptr),
                 prism::ConfigError);
  }
  EXPECT_THROW(k::sell_layout_device(nullptr, nullptr, 10, {0, 10}, 0, nullptr),
               prism::ConfigError);
  EXPECT_THROW(k::sell_stored_device(nullptr, {0, 6, 4, 10}, 32, nullptr), prism::ConfigError);
}

}  // namespace
