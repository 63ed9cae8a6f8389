#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include <gtest/gtest.h>

#include "analysis/coloring_checks.hpp"
#include "common/host_threads.hpp"
#include "common/param_names.hpp"
#include "common/test_matrices.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

using test::diagonal_only;
using test::expect_consistent;
using test::kOrders;
using test::random_symmetric;

bool is_permutation_of_n(const std::vector<index_t>& perm) {
  std::vector<index_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<index_t>(i)) return false;
  }
  return true;
}

// B(i, j) = A(perm[i], perm[j]) entry by entry, and nothing else stored in B.
void expect_permuted(const CsrMatrix<double>& a, const std::vector<index_t>& perm,
                     const CsrMatrix<double>& b) {
  ASSERT_EQ(b.rows, a.rows);
  ASSERT_EQ(b.cols, a.cols);
  ASSERT_EQ(b.nnz(), a.nnz());
  ASSERT_EQ(b.row_ptr.size(), a.row_ptr.size());
  for (index_t i = 0; i < b.rows; ++i) {
    for (index_t k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k) {
      if (k > b.row_ptr[i]) ASSERT_LT(b.col_idx[k - 1], b.col_idx[k]) << "row " << i;
      const index_t old_row = perm[i];
      const index_t old_col = perm[b.col_idx[k]];
      const auto begin = a.col_idx.begin() + a.row_ptr[old_row];
      const auto end = a.col_idx.begin() + a.row_ptr[old_row + 1];
      const auto it = std::lower_bound(begin, end, old_col);
      ASSERT_TRUE(it != end && *it == old_col);
      EXPECT_EQ(b.values[k], a.values[it - a.col_idx.begin()]);
    }
  }
}

// In the color order, the block of each color is diagonal: the property the color-set
// solve relies on.
void expect_diagonal_color_blocks(const CsrMatrix<double>& b, const Coloring& c) {
  for (int k = 0; k < c.num_colors; ++k) {
    for (index_t i = c.color_ptr[k]; i < c.color_ptr[k + 1]; ++i) {
      for (index_t e = b.row_ptr[i]; e < b.row_ptr[i + 1]; ++e) {
        const index_t j = b.col_idx[e];
        if (j != i) {
          EXPECT_FALSE(j >= c.color_ptr[k] && j < c.color_ptr[k + 1]) << i << "," << j;
        }
      }
    }
  }
}

void expect_all_orders_valid(const CsrMatrix<double>& a) {
  for (const VertexOrder order : kOrders) {
    SCOPED_TRACE(std::string(to_string(order)));
    const Coloring c = color_matrix(a, order);
    expect_consistent(a, c);
    const CsrMatrix<double> b = permute_symmetric(a, c.permutation);
    expect_permuted(a, c.permutation, b);
    expect_diagonal_color_blocks(b, c);
  }
}

TEST(Coloring, Grid2dNaturalOrderIsRedBlack) {
  const CsrMatrix<double> a = poisson2d(17, 10);
  const Coloring c = color_matrix(a, VertexOrder::natural);
  EXPECT_EQ(c.num_colors, 2);
  expect_consistent(a, c);
  EXPECT_EQ(c.color_ptr[1], 85);
  expect_all_orders_valid(a);
}

TEST(Coloring, Grid3dSevenPoint) {
  const CsrMatrix<double> a = poisson3d(7, 6, 5, 7);
  EXPECT_EQ(color_matrix(a, VertexOrder::natural).num_colors, 2);
  expect_all_orders_valid(a);
}

TEST(Coloring, Grid3dTwentySevenPoint) {
  const CsrMatrix<double> a = poisson3d(6, 5, 7, 27);
  // Each 2x2x2 cube is a clique, so 8 colors are needed, and greedy in natural order
  // finds exactly the 8-coloring by parity of (x, y, z).
  EXPECT_EQ(color_matrix(a, VertexOrder::natural).num_colors, 8);
  for (const VertexOrder order : kOrders) EXPECT_GE(color_matrix(a, order).num_colors, 8);
  expect_all_orders_valid(a);
}

TEST(Coloring, RandomGraph) {
  const CsrMatrix<double> a = random_symmetric(500, 2000, 3);
  expect_all_orders_valid(a);
  // Greedy never needs more than max degree + 1 colors.
  index_t max_degree = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    max_degree = std::max(max_degree, a.row_ptr[i + 1] - a.row_ptr[i] - 1);
  }
  for (const VertexOrder order : kOrders) {
    EXPECT_LE(color_matrix(a, order).num_colors, max_degree + 1);
  }
}

TEST(Coloring, NonSymmetricPatternIsSymmetrized) {
  // Only (2, 0) and (1, 2) are stored; 0-2 and 1-2 must still get different colors.
  const CsrMatrix<double> a =
      csr_from_triplets(3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}, {2, 0, 1.0}, {1, 2, 1.0}});
  for (const VertexOrder order : kOrders) {
    const Coloring c = color_matrix(a, order);
    EXPECT_EQ(c.num_colors, 2);
    expect_consistent(a, c);
    EXPECT_NE(c.color[0], c.color[2]);
    EXPECT_NE(c.color[1], c.color[2]);
  }
}

// A symmetric pattern is colored from the matrix's own rows, any other pattern after
// symmetrising: storing only a triangle (some rows without a diagonal) or a symmetric
// pattern with a few diagonal entries dropped gives the same graph, so the same coloring.
TEST(Coloring, EveryPatternOfOneGraphGivesTheSameColoring) {
  for (const CsrMatrix<double>& full :
       {random_symmetric(300, 1500, 7), elasticity3d(3, 2, 2, 1, {1.0}), poisson3d(5, 4, 3, 27)}) {
    std::vector<Triplet> lower, upper, no_diagonal;
    for (index_t i = 0; i < full.rows; ++i) {
      for (index_t k = full.row_ptr[i]; k < full.row_ptr[i + 1]; ++k) {
        const index_t j = full.col_idx[k];
        const Triplet t{i, j, full.values[k]};
        if (j < i) lower.push_back(t);  // no diagonal at all
        if (j >= i) upper.push_back(t);
        if (j != i || i % 3 != 0) no_diagonal.push_back(t);
      }
    }
    for (const VertexOrder order : kOrders) {
      const Coloring expected = color_matrix(full, order);
      for (auto* part : {&lower, &upper, &no_diagonal}) {
        const CsrMatrix<double> a = csr_from_triplets(full.rows, full.cols, *part);
        const Coloring c = color_matrix(a, order);
        EXPECT_EQ(c.color, expected.color);
        EXPECT_EQ(c.permutation, expected.permutation);
      }
    }
  }
}

TEST(Coloring, SingleRowAndDiagonalOnly) {
  for (const index_t n : {1, 33}) {
    const CsrMatrix<double> a = diagonal_only(n);
    for (const VertexOrder order : kOrders) {
      const Coloring c = color_matrix(a, order);
      EXPECT_EQ(c.num_colors, 1);
      expect_consistent(a, c);
      std::vector<index_t> identity(n);
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(c.permutation, identity);
    }
  }
}

TEST(Coloring, EmptyMatrix) {
  const CsrMatrix<double> a;
  const Coloring c = color_matrix(a, VertexOrder::smallest_last);
  EXPECT_EQ(c.num_colors, 0);
  EXPECT_EQ(c.color_ptr, std::vector<index_t>{0});
}

TEST(Coloring, RejectsNonSquare) {
  CsrMatrix<double> a;
  a.rows = 1;
  a.cols = 2;
  a.row_ptr = {0, 0};
  EXPECT_THROW(color_matrix(a, VertexOrder::natural), InvalidMatrixError);
}

TEST(Coloring, InvalidColoringsAreDetected) {
  const CsrMatrix<double> a = poisson2d(3, 3);
  std::vector<int> color = color_matrix(a, VertexOrder::natural).color;
  EXPECT_TRUE(is_valid_coloring(a, color));
  color[1] = color[0];
  EXPECT_FALSE(is_valid_coloring(a, color));
  EXPECT_FALSE(is_valid_coloring(a, std::vector<int>(5, 0)));
  EXPECT_TRUE(is_valid_coloring(diagonal_only(4), std::vector<int>(4, 0)));
}

// The level-cyclic coloring: valid, colors in cyclic index order (not by size), the
// requested number where every row has fewer neighbours, raised where one has more.
void expect_level_cyclic(const CsrMatrix<double>& a, int colors) {
  const Coloring c = level_cyclic_coloring(a, colors);
  ASSERT_EQ(c.color.size(), static_cast<std::size_t>(a.rows));
  ASSERT_EQ(c.color_ptr.size(), static_cast<std::size_t>(c.num_colors) + 1);
  EXPECT_TRUE(is_valid_coloring(a, c.color));
  EXPECT_TRUE(is_permutation_of_n(c.permutation));
  EXPECT_EQ(c.color_ptr.back(), a.rows);
  for (int k = 0; k < c.num_colors; ++k) {
    EXPECT_GT(c.color_ptr[k + 1], c.color_ptr[k]) << "color " << k << " is empty";
    for (index_t p = c.color_ptr[k]; p < c.color_ptr[k + 1]; ++p) {
      EXPECT_EQ(c.color[c.permutation[p]], k);
      if (p > c.color_ptr[k]) EXPECT_LT(c.permutation[p - 1], c.permutation[p]);
    }
  }
  index_t max_degree = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    max_degree = std::max(max_degree, a.row_ptr[i + 1] - a.row_ptr[i] - 1);
  }
  EXPECT_LE(c.num_colors, std::max<index_t>(colors, max_degree + 1));
  expect_diagonal_color_blocks(permute_symmetric(a, c.permutation), c);
}

TEST(LevelCyclicColoring, ValidWithTheRequestedColorsInCyclicOrder) {
  for (int colors : {1, 2, 3, 8, 64}) {
    SCOPED_TRACE(colors);
    expect_level_cyclic(poisson3d(9, 8, 7), colors);
    expect_level_cyclic(poisson2d(17, 13), colors);
    expect_level_cyclic(random_symmetric(500, 2000, 5), colors);
    expect_level_cyclic(diagonal_only(33), colors);
  }
  // 7-point grid, 8 colors: every color used and sizes even (the cycle runs over the
  // levels i + j + k).
  const Coloring c = level_cyclic_coloring(poisson3d(20, 20, 20), 8);
  EXPECT_EQ(c.num_colors, 8);
  for (int k = 0; k < 8; ++k) {
    const double size = c.color_ptr[k + 1] - c.color_ptr[k];
    EXPECT_NEAR(size, 1000.0, 100.0) << "color " << k;
  }
  // Fewer colors than a row has neighbours: raised to max degree + 1 (a 7-point row
  // has 6), still valid.
  EXPECT_LE(level_cyclic_coloring(poisson3d(6, 6, 6), 2).num_colors, 7);
  EXPECT_GE(level_cyclic_coloring(poisson3d(6, 6, 6), 2).num_colors, 3);
}

TEST(LevelCyclicColoring, NonSymmetricPatternIsSymmetrizedAndEdgeCases) {
  const CsrMatrix<double> a =
      csr_from_triplets(3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}, {2, 0, 1.0}, {1, 2, 1.0}});
  const Coloring c = level_cyclic_coloring(a, 8);
  EXPECT_TRUE(is_valid_coloring(a, c.color));
  EXPECT_EQ(level_cyclic_coloring(CsrMatrix<double>{}, 8).num_colors, 0);
  EXPECT_THROW(level_cyclic_coloring(a, 0), ConfigError);
  CsrMatrix<double> wide;
  wide.rows = 1;
  wide.cols = 2;
  wide.row_ptr = {0, 0};
  EXPECT_THROW(level_cyclic_coloring(wide, 8), InvalidMatrixError);
}

class RealMatrixColoring : public ::testing::TestWithParam<const char*> {};

TEST_P(RealMatrixColoring, AllOrdersGiveValidSortedColorings) {
  const std::string path = test::shared_matrix(GetParam());
  if (path.empty()) GTEST_SKIP() << GetParam() << " not found in shared/matrices";
  const CsrMatrix<double> a = read_matrix_market(path);
  expect_all_orders_valid(a);
  for (int colors : {8, 64}) expect_level_cyclic(a, colors);
}

INSTANTIATE_TEST_SUITE_P(SharedMatrices, RealMatrixColoring,
                         ::testing::Values("bcsstk08.mtx", "1138_bus.mtx", "bcsstk13.mtx.gz"),
                         test::FileStemName());

TEST(Permutation, PermuteSymmetricMatchesDirectIndexing) {
  const CsrMatrix<double> a = random_symmetric(200, 700, 5);
  std::vector<index_t> perm(a.rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(6));
  expect_permuted(a, perm, permute_symmetric(a, perm));
}

// Large enough for several host threads (rows are permuted in parts): the same matrix
// and value sources as on one thread.
TEST(Permutation, HostThreadsGiveTheSameMatrix) {
  const CsrMatrix<double> a = poisson3d(40, 40, 30);  // 48k rows
  std::vector<index_t> perm(a.rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
  std::vector<index_t> source_one;
  std::vector<index_t> source_many;
  CsrMatrix<double> one;
  {
    const test::ScopedHostThreads threads(1);
    one = permute_symmetric(a, perm, &source_one);
  }
  const test::ScopedHostThreads threads(5);
  const CsrMatrix<double> many = permute_symmetric(a, perm, &source_many);
  expect_permuted(a, perm, many);
  EXPECT_EQ(many.row_ptr, one.row_ptr);
  EXPECT_EQ(many.col_idx, one.col_idx);
  EXPECT_EQ(many.values, one.values);
  EXPECT_EQ(source_many, source_one);
  for (std::size_t k = 0; k < source_many.size(); ++k) {
    ASSERT_EQ(many.values[k], a.values[source_many[k]]);
  }
}

TEST(Permutation, IdentityAndReversal) {
  const CsrMatrix<double> a = poisson2d(4, 3);
  std::vector<index_t> perm(a.rows);
  std::iota(perm.begin(), perm.end(), 0);
  const CsrMatrix<double> same = permute_symmetric(a, perm);
  EXPECT_EQ(same.row_ptr, a.row_ptr);
  EXPECT_EQ(same.col_idx, a.col_idx);
  EXPECT_EQ(same.values, a.values);
  std::reverse(perm.begin(), perm.end());
  expect_permuted(a, perm, permute_symmetric(a, perm));
}

TEST(Permutation, PermuteRejectsWrongSizeAndNonPermutations) {
  const CsrMatrix<double> a = poisson2d(2, 2);
  EXPECT_THROW(permute_symmetric(a, {0, 1, 2}), InvalidMatrixError);
  EXPECT_THROW(permute_symmetric(a, {0, 1, 1, 3}), InvalidMatrixError);
}

TEST(Permutation, InverseRoundTrips) {
  const std::vector<index_t> perm{3, 0, 4, 1, 2};
  const std::vector<index_t> inverse = inverse_permutation(perm);
  for (index_t i = 0; i < 5; ++i) EXPECT_EQ(inverse[perm[i]], i);
  EXPECT_EQ(inverse_permutation(inverse), perm);
  EXPECT_TRUE(inverse_permutation({}).empty());
}

TEST(Permutation, InverseRejectsNonPermutations) {
  EXPECT_THROW(inverse_permutation({0, 0}), InvalidMatrixError);
  EXPECT_THROW(inverse_permutation({0, 2}), InvalidMatrixError);
  EXPECT_THROW(inverse_permutation({-1, 0}), InvalidMatrixError);
}

TEST(SetStats, SizesAndParallelWorkload) {
  const SetStats s = set_stats({0, 5, 8, 12});
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.min_size, 3);
  EXPECT_EQ(s.max_size, 5);
  EXPECT_DOUBLE_EQ(s.mean_size, 4.0);
  EXPECT_DOUBLE_EQ(s.phi, 4.0);

  const SetStats empty = set_stats({0});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.phi, 0.0);
  EXPECT_EQ(set_stats({}).count, 0);
}

TEST(SetStats, RedBlackGridHasPhiHalfN) {
  // Suchoski 2012, section 4: the model grid has 2 colors and phi(A, CS) = N / 2.
  const CsrMatrix<double> a = poisson2d(20, 20);
  const SetStats s = set_stats(color_matrix(a, VertexOrder::natural).color_ptr);
  EXPECT_EQ(s.count, 2);
  EXPECT_DOUBLE_EQ(s.phi, 200.0);
}

// coloring_of: colors by decreasing size, ties in their old order (the CUDA set-up
// session renumbers with the same kernels::colors_by_size), an empty color last, rows in
// increasing index within each color.
TEST(ColoringOf, RenumbersBySizeWithTiesInOrder) {
  // Sizes 2, 2, 3: color 2 first, then 0 and 1 in their order.
  Coloring c = coloring_of({1, 0, 1, 0, 2, 2, 2}, 3);
  EXPECT_EQ(c.color, (std::vector<int>{2, 1, 2, 1, 0, 0, 0}));
  EXPECT_EQ(c.permutation, (std::vector<index_t>{4, 5, 6, 1, 3, 0, 2}));
  EXPECT_EQ(c.color_ptr, (std::vector<index_t>{0, 3, 5, 7}));
  // Sizes 1, 2, 0, 3: the empty color 2 goes last.
  c = coloring_of({3, 1, 3, 0, 1, 3}, 4);
  EXPECT_EQ(c.color, (std::vector<int>{0, 1, 0, 2, 1, 0}));
  EXPECT_EQ(c.permutation, (std::vector<index_t>{0, 2, 5, 1, 4, 3}));
  EXPECT_EQ(c.color_ptr, (std::vector<index_t>{0, 3, 5, 6, 6}));
  c = coloring_of({0}, 1);
  EXPECT_EQ(c.permutation, (std::vector<index_t>{0}));
  EXPECT_EQ(c.color_ptr, (std::vector<index_t>{0, 1}));
}

}  // namespace
}  // namespace prism
