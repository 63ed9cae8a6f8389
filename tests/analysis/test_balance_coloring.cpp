// balance_coloring: the balanced coloring is still a valid, size-sorted, stable color
// ordering, has no more colors than the greedy one, a smallest color no smaller and a
// largest no larger, and is the same on every run.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include <gtest/gtest.h>

#include "analysis/coloring_checks.hpp"
#include "common/param_names.hpp"
#include "common/test_matrices.hpp"

#include <algorithm>
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

// The balanced coloring against the greedy one it started from.
void expect_balanced(const CsrMatrix<double>& a, const Coloring& greedy, const Coloring& balanced) {
  expect_consistent(a, balanced);
  EXPECT_LE(balanced.num_colors, greedy.num_colors);
  const SetStats before = set_stats(greedy.color_ptr);
  const SetStats after = set_stats(balanced.color_ptr);
  EXPECT_GE(after.min_size, before.min_size);
  EXPECT_LE(after.max_size, before.max_size);
}

// Balances every vertex order of A and checks the result and that a second run gives
// the same coloring; returns the balanced colorings.
std::vector<Coloring> check_all_orders(const CsrMatrix<double>& a) {
  std::vector<Coloring> out;
  for (const VertexOrder order : kOrders) {
    SCOPED_TRACE(std::string(to_string(order)));
    const Coloring greedy = color_matrix(a, order);
    Coloring balanced = greedy;
    balance_coloring(a, balanced);
    expect_balanced(a, greedy, balanced);
    Coloring again = color_matrix(a, order);
    balance_coloring(a, again);
    EXPECT_EQ(again.color, balanced.color) << "not deterministic";
    EXPECT_EQ(again.permutation, balanced.permutation);
    out.push_back(std::move(balanced));
  }
  return out;
}

TEST(BalanceColoring, Grid2dRedBlackIsLeftAlone) {
  // 17 x 10: 85 red, 85 black, already balanced.
  const CsrMatrix<double> a = poisson2d(17, 10);
  const Coloring greedy = color_matrix(a, VertexOrder::natural);
  Coloring balanced = greedy;
  balance_coloring(a, balanced);
  EXPECT_EQ(balanced.color, greedy.color);
  EXPECT_EQ(balanced.permutation, greedy.permutation);
  check_all_orders(a);
}

TEST(BalanceColoring, Grid2dOddSize) {
  // 7 x 7 = 49 rows: red-black with 25 and 24, within tolerance; the other orders
  // may use more colors, and those get evened out.
  check_all_orders(poisson2d(7, 7));
}

TEST(BalanceColoring, Grid3dSevenPoint) {
  check_all_orders(poisson3d(7, 6, 5, 7));
}

TEST(BalanceColoring, Grid3dTwentySevenPoint) {
  // 2x2x2 cubes are cliques, so at least 8 colors; the natural order's parity coloring
  // of a 6 x 5 x 7 grid is uneven (odd dimensions), and balancing must keep 8 colors.
  const CsrMatrix<double> a = poisson3d(6, 5, 7, 27);
  const std::vector<Coloring> balanced = check_all_orders(a);
  EXPECT_EQ(balanced.front().num_colors, 8);
}

TEST(BalanceColoring, RandomGraphEvensTheSizes) {
  const CsrMatrix<double> a = random_symmetric(2000, 6000, 3);
  for (const VertexOrder order : kOrders) {
    SCOPED_TRACE(std::string(to_string(order)));
    const Coloring greedy = color_matrix(a, order);
    Coloring balanced = greedy;
    balance_coloring(a, balanced);
    expect_balanced(a, greedy, balanced);
    // First-fit greedy leaves the last colors tiny; balancing must help them here.
    EXPECT_GT(set_stats(balanced.color_ptr).min_size, set_stats(greedy.color_ptr).min_size);
    EXPECT_LT(set_stats(balanced.color_ptr).max_size, set_stats(greedy.color_ptr).max_size);
  }
  check_all_orders(a);
}

TEST(BalanceColoring, NonSymmetricPatternIsSymmetrized) {
  // Only (1, 0), (2, 0) and (3, 0) are stored: row 0 has no off-diagonal entries, yet
  // it must never join the color of rows 1 to 3. A star of 3 leaves plus 3 lone rows.
  const CsrMatrix<double> a = csr_from_triplets(7, 7,
                                                {{0, 0, 1.0},
                                                 {1, 1, 1.0},
                                                 {2, 2, 1.0},
                                                 {3, 3, 1.0},
                                                 {4, 4, 1.0},
                                                 {5, 5, 1.0},
                                                 {6, 6, 1.0},
                                                 {1, 0, 1.0},
                                                 {2, 0, 1.0},
                                                 {3, 0, 1.0}});
  for (const VertexOrder order : kOrders) {
    const Coloring greedy = color_matrix(a, order);
    Coloring balanced = greedy;
    balance_coloring(a, balanced);
    expect_balanced(a, greedy, balanced);
    for (index_t leaf = 1; leaf <= 3; ++leaf) EXPECT_NE(balanced.color[0], balanced.color[leaf]);
  }
}

TEST(BalanceColoring, HandBuiltUnevenColoring) {
  // A path 0-1-2-3-4-5 colored 0,1,0,2,0,2 (sizes 3, 1, 2): row 4 can join color 1
  // (neighbours 3 and 5 are color 2), giving sizes 2, 2, 2.
  const CsrMatrix<double> a = csr_from_triplets(6, 6,
                                                {{0, 0, 2.0},
                                                 {1, 1, 2.0},
                                                 {2, 2, 2.0},
                                                 {3, 3, 2.0},
                                                 {4, 4, 2.0},
                                                 {5, 5, 2.0},
                                                 {0, 1, -1.0},
                                                 {1, 0, -1.0},
                                                 {1, 2, -1.0},
                                                 {2, 1, -1.0},
                                                 {2, 3, -1.0},
                                                 {3, 2, -1.0},
                                                 {3, 4, -1.0},
                                                 {4, 3, -1.0},
                                                 {4, 5, -1.0},
                                                 {5, 4, -1.0}});
  Coloring c;
  c.num_colors = 3;
  c.color = {0, 1, 0, 2, 0, 2};
  c.color_ptr = {0, 3, 4, 6};
  c.permutation = {0, 2, 4, 1, 3, 5};
  ASSERT_TRUE(is_valid_coloring(a, c.color));
  balance_coloring(a, c);
  expect_consistent(a, c);
  EXPECT_EQ(c.num_colors, 3);
  EXPECT_EQ(c.color_ptr, (std::vector<index_t>{0, 2, 4, 6}));
}

TEST(BalanceColoring, SingleRowAndDiagonalOnly) {
  for (const index_t n : {1, 33}) {
    const CsrMatrix<double> a = diagonal_only(n);
    for (const VertexOrder order : kOrders) {
      const Coloring greedy = color_matrix(a, order);
      Coloring balanced = greedy;
      balance_coloring(a, balanced);
      EXPECT_EQ(balanced.num_colors, 1);
      expect_consistent(a, balanced);
      EXPECT_EQ(balanced.permutation, greedy.permutation);
    }
  }
}

TEST(BalanceColoring, EmptyMatrix) {
  const CsrMatrix<double> a;
  Coloring c = color_matrix(a, VertexOrder::natural);
  balance_coloring(a, c);
  EXPECT_EQ(c.num_colors, 0);
  EXPECT_EQ(c.color_ptr, std::vector<index_t>{0});
}

TEST(BalanceColoring, RejectsAColoringOfAnotherMatrix) {
  const CsrMatrix<double> a = poisson2d(4, 4);
  Coloring other = color_matrix(poisson2d(3, 3), VertexOrder::natural);
  EXPECT_THROW(balance_coloring(a, other), InvalidMatrixError);
  Coloring out_of_range = color_matrix(a, VertexOrder::natural);
  out_of_range.color[5] = out_of_range.num_colors;
  EXPECT_THROW(balance_coloring(a, out_of_range), InvalidMatrixError);
  CsrMatrix<double> rectangular;
  rectangular.rows = 1;
  rectangular.cols = 2;
  rectangular.row_ptr = {0, 0};
  Coloring none;
  EXPECT_THROW(balance_coloring(rectangular, none), InvalidMatrixError);
}

class RealMatrixBalance : public ::testing::TestWithParam<const char*> {};

TEST_P(RealMatrixBalance, AllOrdersStayValidAndEvenOut) {
  const std::string path = test::shared_matrix(GetParam());
  if (path.empty()) GTEST_SKIP() << GetParam() << " not found in shared/matrices";
  const CsrMatrix<double> a = read_matrix_market(path);
  check_all_orders(a);
}

INSTANTIATE_TEST_SUITE_P(SharedMatrices, RealMatrixBalance,
                         ::testing::Values("bcsstk08.mtx", "1138_bus.mtx", "bcsstk13.mtx.gz"),
                         test::FileStemName());

}  // namespace
}  // namespace prism
