#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "analysis/level_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace prism {
namespace {

CsrMatrix<double> tridiagonal(index_t n) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    t.push_back({i, i, 2.0});
    if (i + 1 < n) {
      t.push_back({i, i + 1, -1.0});
      t.push_back({i + 1, i, -1.0});
    }
  }
  return csr_from_triplets(n, n, std::move(t));
}

// Levels respect every dependency, the grouping is stable, and level_ptr matches.
void expect_valid(const CsrMatrix<double>& a, const LevelSets& s) {
  const auto n = static_cast<std::size_t>(a.rows);
  ASSERT_EQ(s.level.size(), n);
  ASSERT_EQ(s.permutation.size(), n);
  ASSERT_EQ(s.level_ptr.size(), static_cast<std::size_t>(s.num_levels) + 1);
  EXPECT_EQ(s.level_ptr.front(), 0);
  EXPECT_EQ(s.level_ptr.back(), a.rows);
  for (index_t i = 0; i < a.rows; ++i) {
    bool has_dependency = false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j >= i) continue;
      EXPECT_LT(s.level[j], s.level[i]) << "row " << i << " depends on " << j;
      // Tight: some dependency sits exactly one level lower.
      has_dependency = has_dependency || s.level[j] + 1 == s.level[i];
    }
    EXPECT_TRUE(s.level[i] == 0 || has_dependency) << "row " << i;
  }
  for (int l = 0; l < s.num_levels; ++l) {
    EXPECT_GT(s.level_ptr[l + 1], s.level_ptr[l]) << "level " << l << " is empty";
    for (index_t p = s.level_ptr[l]; p < s.level_ptr[l + 1]; ++p) {
      EXPECT_EQ(s.level[s.permutation[p]], l);
      if (p > s.level_ptr[l]) EXPECT_LT(s.permutation[p - 1], s.permutation[p]);
    }
  }
}

TEST(LevelSets, TridiagonalIsFullySequential) {
  for (const index_t n : {1, 2, 33}) {
    const CsrMatrix<double> a = tridiagonal(n);
    const LevelSets s = level_sets(a);
    EXPECT_EQ(s.num_levels, n);
    expect_valid(a, s);
  }
}

TEST(LevelSets, DiagonalIsOneLevel) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < 10; ++i) t.push_back({i, i, 1.0});
  const CsrMatrix<double> a = csr_from_triplets(10, 10, std::move(t));
  const LevelSets s = level_sets(a);
  EXPECT_EQ(s.num_levels, 1);
  std::vector<index_t> identity(10);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(s.permutation, identity);
  expect_valid(a, s);
}

TEST(LevelSets, Grid2dLevelsAreAntiDiagonals) {
  const index_t nx = 13, ny = 7;
  const CsrMatrix<double> a = poisson2d(nx, ny);
  const LevelSets s = level_sets(a);
  EXPECT_EQ(s.num_levels, nx + ny - 1);
  for (index_t y = 0; y < ny; ++y) {
    for (index_t x = 0; x < nx; ++x) EXPECT_EQ(s.level[x + nx * y], x + y);
  }
  expect_valid(a, s);
}

TEST(LevelSets, Grid3dAndColoredOrder) {
  const CsrMatrix<double> a = poisson3d(5, 4, 3, 7);
  const LevelSets natural = level_sets(a);
  EXPECT_EQ(natural.num_levels, 5 + 4 + 3 - 2);
  expect_valid(a, natural);
  // After a red-black reordering the forward solve takes two steps.
  const Coloring c = color_matrix(a, VertexOrder::natural);
  const CsrMatrix<double> b = permute_symmetric(a, c.permutation);
  const LevelSets colored = level_sets(b);
  EXPECT_EQ(colored.num_levels, 2);
  expect_valid(b, colored);
}

// analysis::level_ptr levels a coloring's colors on threads at once: the sizes of
// level_sets, on colorings of awkward sizes (rows past one thread's part, several colors);
// ranges that are not independent, or do not cover the rows, fall back to level_sets.
TEST(LevelSets, LevelPtrOfColorsIsLevelSets) {
  const std::vector<CsrMatrix<double>> cases{poisson3d(5, 4, 3, 7), poisson3d(41, 37, 23, 7),
                                             poisson3d(17, 19, 13, 27), tridiagonal(70001)};
  for (const CsrMatrix<double>& a : cases) {
    SCOPED_TRACE(a.rows);
    for (const Coloring& c : {color_matrix(a, VertexOrder::natural), jones_plassmann_coloring(a)}) {
      const CsrMatrix<double> b = permute_symmetric(a, c.permutation);
      const std::vector<index_t> want = level_sets(b).level_ptr;
      EXPECT_EQ(analysis::level_ptr(b, c.color_ptr), want);
      EXPECT_EQ(analysis::level_ptr(b, {}), want);
    }
    // Natural order: one range of coupled rows, ranges that miss rows.
    const std::vector<index_t> want = level_sets(a).level_ptr;
    EXPECT_EQ(analysis::level_ptr(a, {0, a.rows}), want);
    EXPECT_EQ(analysis::level_ptr(a, {0, a.rows / 2}), want);
  }
}

TEST(LevelSets, EmptyMatrix) {
  const LevelSets s = level_sets(CsrMatrix<double>{});
  EXPECT_EQ(s.num_levels, 0);
  EXPECT_EQ(s.level_ptr, std::vector<index_t>{0});
}

}  // namespace
}  // namespace prism
