#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>

#include <gtest/gtest.h>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

using Entries = std::map<std::pair<index_t, index_t>, double>;

// The oracle: an ordered map summing duplicates in input order.
Entries sum_triplets(const std::vector<Triplet>& triplets) {
  Entries entries;
  for (const Triplet& t : triplets) entries[{t.row, t.col}] += t.value;
  return entries;
}

Entries entries_of(const CsrMatrix<double>& a) {
  Entries entries;
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      entries[{r, a.col_idx[k]}] = a.values[k];
    }
  }
  return entries;
}

// The invariants every prism builder promises.
void expect_valid_csr(const CsrMatrix<double>& a) {
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1);
  EXPECT_EQ(a.row_ptr.front(), 0);
  EXPECT_EQ(a.row_ptr.back(), a.nnz());
  EXPECT_EQ(a.col_idx.size(), a.values.size());
  for (index_t r = 0; r < a.rows; ++r) {
    ASSERT_LE(a.row_ptr[r], a.row_ptr[r + 1]) << "row " << r;
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      ASSERT_GE(a.col_idx[k], 0);
      ASSERT_LT(a.col_idx[k], a.cols);
      if (k > a.row_ptr[r]) ASSERT_LT(a.col_idx[k - 1], a.col_idx[k]) << "row " << r;
    }
  }
}

std::vector<Triplet> random_triplets(index_t rows, index_t cols, std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<index_t> row(0, rows - 1);
  std::uniform_int_distribution<index_t> col(0, cols - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Triplet> triplets(count);
  for (Triplet& t : triplets) t = {row(rng), col(rng), value(rng)};
  return triplets;
}

TEST(CsrFromTriplets, EmptyInputGivesEmptyRows) {
  const CsrMatrix<double> a = csr_from_triplets(4, 3, {});
  expect_valid_csr(a);
  EXPECT_EQ(a.rows, 4);
  EXPECT_EQ(a.cols, 3);
  EXPECT_EQ(a.nnz(), 0);
  EXPECT_EQ(a.row_ptr, std::vector<index_t>(5, 0));
}

TEST(CsrFromTriplets, ZeroByZero) {
  const CsrMatrix<double> a = csr_from_triplets(0, 0, {});
  expect_valid_csr(a);
  EXPECT_EQ(a.row_ptr, std::vector<index_t>{0});
}

TEST(CsrFromTriplets, OneByOne) {
  const CsrMatrix<double> a = csr_from_triplets(1, 1, {{0, 0, 2.0}, {0, 0, 3.0}});
  expect_valid_csr(a);
  ASSERT_EQ(a.nnz(), 1);
  EXPECT_EQ(a.values[0], 5.0);
}

TEST(CsrFromTriplets, SortsAndSumsDuplicates) {
  const std::vector<Triplet> triplets{{2, 3, 1.0}, {0, 2, 2.0}, {2, 0, 3.0}, {0, 0, 4.0},
                                      {2, 3, 5.0}, {0, 2, 6.0}, {1, 1, 7.0}};
  const CsrMatrix<double> a = csr_from_triplets(3, 4, triplets);
  expect_valid_csr(a);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 2, 3, 5}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{0, 2, 1, 0, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{4.0, 8.0, 7.0, 3.0, 6.0}));
}

TEST(CsrFromTriplets, KeepsDuplicatesThatCancelAsStoredZeros) {
  // The sparsity pattern matters to IC(0): an entry that sums to zero stays in it.
  const CsrMatrix<double> a = csr_from_triplets(2, 2, {{1, 0, 1.5}, {1, 0, -1.5}, {0, 0, 1.0}});
  expect_valid_csr(a);
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_EQ(entries_of(a), (Entries{{{0, 0}, 1.0}, {{1, 0}, 0.0}}));
}

TEST(CsrFromTriplets, EmptyRowsAtStartMiddleAndEnd) {
  const CsrMatrix<double> a = csr_from_triplets(6, 6, {{4, 1, 1.0}, {2, 5, 2.0}});
  expect_valid_csr(a);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 0, 0, 1, 1, 2, 2}));
}

TEST(CsrFromTriplets, MatchesOracleOnRandomDataWithManyDuplicates) {
  // 37 x 53: sizes not a multiple of anything; 4000 triplets over 1961 cells forces repeats.
  const std::vector<Triplet> triplets = random_triplets(37, 53, 4000, 1);
  const CsrMatrix<double> a = csr_from_triplets(37, 53, triplets);
  expect_valid_csr(a);
  const Entries expected = sum_triplets(triplets);
  const Entries actual = entries_of(a);
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [key, value] : expected) EXPECT_DOUBLE_EQ(actual.at(key), value);
}

// Rows in parts on several host threads: the oracle's entries, summed in input order
// (exactly), with duplicates in most rows so the rows move down after summing.
TEST(CsrFromTriplets, HostThreadsMatchTheOracleExactly) {
  const std::vector<Triplet> triplets = random_triplets(70000, 60, 300000, 2);
  const test::ScopedHostThreads threads(4);
  const CsrMatrix<double> a = csr_from_triplets(70000, 60, triplets);
  expect_valid_csr(a);
  Entries expected;
  for (const Triplet& t : triplets) {
    const auto [it, fresh] = expected.try_emplace({t.row, t.col}, t.value);
    if (!fresh) it->second += t.value;
  }
  EXPECT_LT(static_cast<std::size_t>(a.nnz()), triplets.size());
  EXPECT_EQ(entries_of(a), expected);
}

TEST(CsrFromTriplets, LongUnsortedRowsAreSorted) {
  // Rows longer than the insertion-sort cut-off take the other sorting path.
  std::vector<Triplet> triplets;
  for (index_t c = 999; c >= 0; --c) triplets.push_back({0, c, static_cast<double>(c)});
  for (index_t c = 0; c < 1000; c += 2) triplets.push_back({1, c, 1.0});
  for (index_t c = 999; c >= 0; c -= 3) triplets.push_back({1, c, 1.0});
  const CsrMatrix<double> a = csr_from_triplets(2, 1000, triplets);
  expect_valid_csr(a);
  const Entries expected = sum_triplets(triplets);
  EXPECT_EQ(entries_of(a), expected);
}

TEST(CsrFromTriplets, SumsDuplicatesInInputOrder) {
  // 1e16 + 1 - 1e16 is 0 in that order and 1 in others: the order is part of the contract
  // that equal inputs give bit-identical matrices.
  const CsrMatrix<double> a = csr_from_triplets(1, 1, {{0, 0, 1e16}, {0, 0, 1.0}, {0, 0, -1e16}});
  EXPECT_EQ(a.values[0], (1e16 + 1.0) - 1e16);
}

TEST(CsrFromTriplets, RejectsIndicesOutsideTheMatrix) {
  const std::vector<std::vector<Triplet>> bad{
      {{3, 0, 1.0}}, {{0, 4, 1.0}}, {{-1, 0, 1.0}}, {{0, -1, 1.0}}};
  for (const auto& triplets : bad) {
    try {
      csr_from_triplets(3, 4, triplets);
      ADD_FAILURE() << "no exception for (" << triplets[0].row << ", " << triplets[0].col << ")";
    } catch (const InvalidMatrixError& e) {
      EXPECT_NE(std::string(e.what()).find("outside the 3 x 4 matrix"), std::string::npos)
          << e.what();
    }
  }
}

TEST(CsrFromTriplets, NamesTheOffendingTriplet) {
  try {
    csr_from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, 1.0}, {1, 2, 1.0}});
    FAIL() << "no exception";
  } catch (const InvalidMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("triplet 2 at (1, 2)"), std::string::npos) << e.what();
  }
}

TEST(CsrFromTriplets, RejectsNegativeDimensions) {
  EXPECT_THROW(csr_from_triplets(-1, 3, {}), InvalidMatrixError);
}

TEST(CsrTranspose, MatchesOracleOnRectangularMatrix) {
  const std::vector<Triplet> triplets = random_triplets(29, 41, 300, 2);
  const CsrMatrix<double> a = csr_from_triplets(29, 41, triplets);
  const CsrMatrix<double> t = transpose(a);
  expect_valid_csr(t);
  EXPECT_EQ(t.rows, 41);
  EXPECT_EQ(t.cols, 29);
  Entries expected;
  for (const auto& [key, value] : entries_of(a)) expected[{key.second, key.first}] = value;
  EXPECT_EQ(entries_of(t), expected);
}

TEST(CsrTranspose, TwiceIsIdentity) {
  const CsrMatrix<double> a = csr_from_triplets(17, 17, random_triplets(17, 17, 100, 3));
  const CsrMatrix<double> tt = transpose(transpose(a));
  EXPECT_EQ(tt.rows, a.rows);
  EXPECT_EQ(tt.cols, a.cols);
  EXPECT_EQ(tt.row_ptr, a.row_ptr);
  EXPECT_EQ(tt.col_idx, a.col_idx);
  EXPECT_EQ(tt.values, a.values);
}

TEST(CsrTranspose, EmptyColumnsBecomeEmptyRows) {
  const CsrMatrix<double> t = transpose(csr_from_triplets(2, 5, {{0, 3, 1.0}, {1, 3, 2.0}}));
  expect_valid_csr(t);
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>{0, 0, 0, 0, 2, 2}));
  EXPECT_EQ(t.col_idx, (std::vector<index_t>{0, 1}));
}

TEST(CsrLowerTriangle, KeepsDiagonalAndBelow) {
  const CsrMatrix<double> a = csr_from_triplets(23, 23, random_triplets(23, 23, 200, 4));
  const CsrMatrix<double> l = lower_triangle(a);
  expect_valid_csr(l);
  Entries expected;
  for (const auto& [key, value] : entries_of(a)) {
    if (key.second <= key.first) expected[key] = value;
  }
  EXPECT_EQ(entries_of(l), expected);
}

TEST(CsrLowerTriangle, RejectsNonSquare) {
  EXPECT_THROW(lower_triangle(csr_from_triplets(2, 3, {})), InvalidMatrixError);
}

// One triangle (either) expands to the full matrix the solver takes; both sides refused.
TEST(CsrSymmetricFromTriangle, LowerAndUpperGiveTheFullMatrix) {
  const CsrMatrix<double> full = prism::test::random_symmetric(31, 60, 5);
  EXPECT_EQ(prism::symmetric_from_triangle(prism::lower_triangle(full)).values, full.values);
  EXPECT_EQ(prism::symmetric_from_triangle(prism::lower_triangle(full)).col_idx, full.col_idx);
  const CsrMatrix<double> upper = prism::transpose(prism::lower_triangle(full));
  const CsrMatrix<double> from_upper = prism::symmetric_from_triangle(upper);
  EXPECT_EQ(from_upper.row_ptr, full.row_ptr);
  EXPECT_EQ(from_upper.col_idx, full.col_idx);
  EXPECT_EQ(from_upper.values, full.values);
  EXPECT_THROW(prism::symmetric_from_triangle(full), prism::InvalidMatrixError);
}

TEST(CsrDiagonal, ZeroWhereNoEntryIsStored) {
  const CsrMatrix<double> a =
      csr_from_triplets(4, 4, {{0, 0, 2.0}, {1, 0, 5.0}, {1, 2, 6.0}, {3, 3, -1.0}, {3, 0, 7.0}});
  EXPECT_EQ(diagonal(a), (std::vector<double>{2.0, 0.0, 0.0, -1.0}));
}

TEST(CsrDiagonal, RejectsNonSquare) {
  try {
    diagonal(csr_from_triplets(3, 2, {}));
    FAIL() << "no exception";
  } catch (const InvalidMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("3 x 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace prism
