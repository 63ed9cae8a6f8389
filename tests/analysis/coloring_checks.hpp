#pragma once
// Checks shared by the coloring tests: every vertex order, and everything a Coloring
// promises.

#include <prism/analysis.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace prism::test {

inline constexpr VertexOrder kOrders[] = {VertexOrder::natural, VertexOrder::largest_first,
                                          VertexOrder::smallest_last};

/// Everything Coloring promises, checked against the matrix it came from: valid, colors
/// by decreasing size and non-empty, color_ptr and permutation consistent with color
/// (every row once), rows in index order in a color.
inline void expect_consistent(const CsrMatrix<double>& a, const Coloring& c) {
  const auto n = static_cast<std::size_t>(a.rows);
  ASSERT_EQ(c.color.size(), n);
  ASSERT_EQ(c.permutation.size(), n);
  ASSERT_EQ(c.color_ptr.size(), static_cast<std::size_t>(c.num_colors) + 1);
  EXPECT_TRUE(is_valid_coloring(a, c.color));
  EXPECT_EQ(c.color_ptr.front(), 0);
  EXPECT_EQ(c.color_ptr.back(), a.rows);
  std::vector<bool> seen(n, false);
  for (int k = 0; k < c.num_colors; ++k) {
    const index_t size = c.color_ptr[k + 1] - c.color_ptr[k];
    EXPECT_GT(size, 0) << "color " << k << " is empty";
    if (k > 0) EXPECT_LE(size, c.color_ptr[k] - c.color_ptr[k - 1]) << "colors not by size";
    for (index_t p = c.color_ptr[k]; p < c.color_ptr[k + 1]; ++p) {
      const index_t row = c.permutation[p];
      ASSERT_TRUE(row >= 0 && row < a.rows);
      EXPECT_FALSE(seen[row]) << "row " << row << " twice";
      seen[row] = true;
      EXPECT_EQ(c.color[row], k);
      if (p > c.color_ptr[k]) EXPECT_LT(c.permutation[p - 1], row) << "not stable";
    }
  }
}

}  // namespace prism::test
