// RowBuckets (the Matrix Market reader's CSR build) against csr_from_triplets, its oracle:
// the same matrix bit for bit, duplicates summed in the order appended, whatever the
// pieces, the number of buckets and host threads.

#include <prism/csr_matrix.hpp>

#include "common/host_threads.hpp"
#include "matrix/row_buckets.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace prism {
namespace {

// Random triplets with many duplicates, values over many binades so that another order
// of summing would show.
std::vector<Triplet> random_triplets(index_t rows, index_t cols, std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<index_t> row(0, rows - 1);
  std::uniform_int_distribution<index_t> col(0, cols - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<Triplet> triplets(count);
  for (Triplet& t : triplets) t = {row(rng), col(rng) % 7, std::ldexp(value(rng), exponent(rng))};
  return triplets;
}

CsrMatrix<double> bucketed(index_t rows, index_t cols, const std::vector<Triplet>& triplets,
                           long long expected, std::size_t pieces_per_append) {
  RowBuckets buckets(rows, cols, expected);
  std::vector<std::vector<Triplet>> store;
  std::size_t k = 0;
  while (k < triplets.size()) {
    // Pieces of 0 to 99 triplets, `pieces_per_append` at a time.
    store.assign(pieces_per_append, {});
    std::vector<std::vector<Triplet>*> pieces;
    for (std::vector<Triplet>& piece : store) {
      const std::size_t size = (k * 31 + 17) % 100;
      for (std::size_t i = 0; i < size && k < triplets.size(); ++i) piece.push_back(triplets[k++]);
      pieces.push_back(&piece);
    }
    buckets.append(pieces);
    for (const std::vector<Triplet>& piece : store) EXPECT_TRUE(piece.empty());
  }
  return buckets.build();
}

void expect_same(const CsrMatrix<double>& a, const CsrMatrix<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);
}

TEST(RowBuckets, SameAsCsrFromTripletsBitForBit) {
  struct Shape {
    index_t rows, cols;
    std::size_t count;
  };
  // One row; rows not a power of two; more buckets than rows hold entries; empty.
  for (const Shape s : {Shape{1, 5, 300}, Shape{1000, 1000, 20000}, Shape{70000, 9, 50000},
                        Shape{5, 5, 0}, Shape{0, 0, 0}}) {
    const std::vector<Triplet> triplets =
        s.rows > 0 ? random_triplets(s.rows, s.cols, s.count, 7) : std::vector<Triplet>{};
    const CsrMatrix<double> want = csr_from_triplets(s.rows, s.cols, triplets);
    // Expected counts far below and above the real one: 1 to 4096 buckets.
    for (const long long expected : {0LL, 1000LL, 1LL << 26}) {
      for (const int threads : {1, 3}) {
        for (const std::size_t pieces : {std::size_t{1}, std::size_t{4}}) {
          SCOPED_TRACE(std::to_string(s.rows) + " rows, expected " + std::to_string(expected) +
                       ", threads " + std::to_string(threads) + ", pieces " +
                       std::to_string(pieces));
          const test::ScopedHostThreads scoped(threads);
          expect_same(bucketed(s.rows, s.cols, triplets, expected, pieces), want);
        }
      }
    }
  }
}

}  // namespace
}  // namespace prism
