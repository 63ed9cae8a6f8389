// Block partitions for the block preconditioners: node blocks found from the pattern,
// uniform blocks, the quotient matrix and the block coloring, on awkward cases (blocks
// of 1, a size that does not divide n, runs longer than the cap, one block, no blocks of
// equal patterns) and on 3D elasticity, whose nodes are 3 x 3 blocks.

#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <gtest/gtest.h>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace prism {
namespace {

/// A dense symmetric matrix of n rows with positive entries: one pattern for all rows.
CsrMatrix<double> dense(index_t n) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) t.push_back({i, j, i == j ? 2.0 * n : 1.0});
  }
  return csr_from_triplets(n, n, t);
}

/// Block sizes of a partition.
std::vector<index_t> sizes(const BlockPartition& p) {
  std::vector<index_t> out;
  for (index_t b = 0; b < p.count(); ++b) out.push_back(p.ptr[b + 1] - p.ptr[b]);
  return out;
}

/// find_node_blocks as one sequential scan comparing each row with its block's first: the
/// reference the threaded version must match.
BlockPartition node_blocks_in_one_scan(const CsrMatrix<double>& a, index_t max_size) {
  const auto same = [&](index_t i, index_t j) {
    const index_t length = a.row_ptr[i + 1] - a.row_ptr[i];
    return a.row_ptr[j + 1] - a.row_ptr[j] == length &&
           std::equal(a.col_idx.begin() + a.row_ptr[i], a.col_idx.begin() + a.row_ptr[i + 1],
                      a.col_idx.begin() + a.row_ptr[j]);
  };
  BlockPartition blocks;
  for (index_t i = 0; i < a.rows;) {
    index_t end = i + 1;
    while (end < a.rows && end - i < max_size && same(i, end)) ++end;
    blocks.ptr.push_back(end);
    i = end;
  }
  return blocks;
}

/// Dense diagonal blocks of the given sizes: a block's rows share their pattern, and
/// neighbouring blocks differ (in length, or in columns where the sizes are equal).
CsrMatrix<double> dense_blocks(const std::vector<index_t>& block_sizes) {
  std::vector<Triplet> t;
  index_t start = 0;
  for (const index_t size : block_sizes) {
    for (index_t i = start; i < start + size; ++i) {
      for (index_t j = start; j < start + size; ++j) t.push_back({i, j, i == j ? 8.0 : -1.0});
    }
    start += size;
  }
  return csr_from_triplets(start, start, std::move(t));
}

TEST(NodeBlocks, ThreadedMatchesOneScan) {
  // Over 4 parts of common::kRowsPerPart rows, so that part boundaries cut blocks; runs
  // longer than every max_size tried; the last block cut short by the matrix's end.
  std::mt19937 random(5);
  const index_t choices[] = {1, 2, 3, 3, 3, 5, 7, 12, 40};
  std::vector<index_t> block_sizes;
  index_t rows = 0;
  while (rows < 70000) {
    block_sizes.push_back(choices[random() % std::size(choices)]);
    rows += block_sizes.back();
  }
  block_sizes.push_back(2);
  const CsrMatrix<double> blocky = dense_blocks(block_sizes);
  const CsrMatrix<double> elasticity = elasticity3d(30, 30, 26, 1, {1.0});  // 70200 rows
  const CsrMatrix<double> grid = poisson2d(280, 250);                       // no blocks
  const std::pair<const char*, const CsrMatrix<double>*> cases[] = {
      {"blocky", &blocky}, {"elasticity", &elasticity}, {"poisson2d", &grid}};
  for (const int threads : {1, 2, 4}) {
    const test::ScopedHostThreads scoped(threads);
    for (const auto& [name, a] : cases) {
      for (const index_t max_size : {1, 2, 3, 4, 7, 41, 1000}) {
        EXPECT_EQ(find_node_blocks(*a, max_size).ptr, node_blocks_in_one_scan(*a, max_size).ptr)
            << name << ", max_size " << max_size << ", " << threads << " threads";
      }
    }
    EXPECT_EQ(find_node_blocks(CsrMatrix<double>{}).ptr, std::vector<index_t>{0});
    EXPECT_EQ(find_node_blocks(test::diagonal_only(1)).ptr, (std::vector<index_t>{0, 1}));
    EXPECT_EQ(find_node_blocks(dense_blocks({3, 3, 2}), 2).ptr,
              (std::vector<index_t>{0, 2, 3, 5, 6, 8}));
  }
}

TEST(NodeBlocks, ElasticityNodesAreThreeByThree) {
  const CsrMatrix<double> a = elasticity3d(3, 2, 4, 1, {1.0});
  const BlockPartition blocks = find_node_blocks(a);
  ASSERT_EQ(a.rows % 3, 0);
  EXPECT_EQ(blocks.count(), a.rows / 3);
  for (const index_t size : sizes(blocks)) EXPECT_EQ(size, 3);
}

TEST(NodeBlocks, PoissonHasBlocksOfOne) {
  const CsrMatrix<double> a = poisson2d(7, 5);
  const BlockPartition blocks = find_node_blocks(a);
  EXPECT_EQ(blocks.count(), a.rows);
}

TEST(NodeBlocks, RunsLongerThanTheCapAreCut) {
  const BlockPartition blocks = find_node_blocks(dense(10), 4);
  EXPECT_EQ(sizes(blocks), (std::vector<index_t>{4, 4, 2}));
  EXPECT_EQ(find_node_blocks(dense(10)).count(), 1);
  EXPECT_EQ(find_node_blocks(dense(10), 1).count(), 10);
  EXPECT_THROW(find_node_blocks(dense(3), 0), ConfigError);
}

// Mixed sizes: rows 0-1 share a pattern, row 2 differs, rows 3-5 share another.
TEST(NodeBlocks, MixedSizesAndLoneRows) {
  std::vector<Triplet> t;
  const auto couple = [&](index_t i, index_t j, double v) {
    t.push_back({i, j, v});
    if (i != j) t.push_back({j, i, v});
  };
  for (index_t i = 0; i < 6; ++i) couple(i, i, 10.0);
  couple(0, 1, -1.0);
  couple(1, 2, -1.0);
  couple(0, 2, -1.0);  // rows 0, 1 and 2: pattern {0, 1, 2} for 0 and 1, row 2 too ...
  couple(2, 3, -1.0);  // ... until row 2 couples row 3
  couple(3, 4, -1.0);
  couple(3, 5, -1.0);
  couple(4, 5, -1.0);
  const CsrMatrix<double> a = csr_from_triplets(6, 6, t);
  EXPECT_EQ(sizes(find_node_blocks(a)), (std::vector<index_t>{2, 1, 1, 2}));
}

TEST(UniformBlocks, LastBlockIsShorterWhereTheSizeDoesNotDivide) {
  EXPECT_EQ(sizes(uniform_blocks(10, 3)), (std::vector<index_t>{3, 3, 3, 1}));
  EXPECT_EQ(sizes(uniform_blocks(9, 3)), (std::vector<index_t>{3, 3, 3}));
  EXPECT_EQ(sizes(uniform_blocks(2, 7)), (std::vector<index_t>{2}));
  EXPECT_EQ(uniform_blocks(0, 3).count(), 0);
  EXPECT_THROW(uniform_blocks(4, 0), ConfigError);
  const std::vector<index_t> of = uniform_blocks(7, 3).block_of();
  EXPECT_EQ(of, (std::vector<index_t>{0, 0, 0, 1, 1, 1, 2}));
}

// The quotient matrix sums |a_ij| per pair of blocks; checked against a dense sum.
TEST(QuotientMatrix, SumsTheCouplingsOfEachPairOfBlocks) {
  const CsrMatrix<double> a = test::random_symmetric(37, 4, 7);
  for (const index_t size : {1, 2, 3, 5, 37}) {
    SCOPED_TRACE(size);
    const BlockPartition blocks = uniform_blocks(a.rows, size);
    const std::vector<index_t> of = blocks.block_of();
    const index_t n = blocks.count();
    std::vector<double> expected(static_cast<std::size_t>(n * n), 0.0);
    for (index_t i = 0; i < a.rows; ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        expected[of[i] * n + of[a.col_idx[k]]] += std::abs(a.values[k]);
      }
    }
    const CsrMatrix<double> q = quotient_matrix(a, blocks);
    ASSERT_EQ(q.rows, n);
    std::vector<double> got(expected.size(), 0.0);
    for (index_t i = 0; i < n; ++i) {
      EXPECT_TRUE(
          std::is_sorted(q.col_idx.begin() + q.row_ptr[i], q.col_idx.begin() + q.row_ptr[i + 1]));
      for (index_t k = q.row_ptr[i]; k < q.row_ptr[i + 1]; ++k) {
        EXPECT_GT(q.values[k], 0.0);
        got[i * n + q.col_idx[k]] = q.values[k];
      }
    }
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-12);
  }
}

TEST(QuotientMatrix, RejectsAPartitionThatDoesNotFit) {
  const CsrMatrix<double> a = poisson2d(3, 3);
  EXPECT_THROW(quotient_matrix(a, uniform_blocks(8, 2)), InvalidMatrixError);
  BlockPartition empty_block;
  empty_block.ptr = {0, 4, 4, 9};
  EXPECT_THROW(quotient_matrix(a, empty_block), InvalidMatrixError);
}

// A valid block coloring: blocks stay whole and in order, no two blocks of one color are
// coupled, and elasticity's nodes need fewer colors than its unknowns.
TEST(BlockColoring, KeepsBlocksWholeAndSeparatesCoupledBlocks) {
  const CsrMatrix<double> a = elasticity3d(4, 3, 3, 1, {1.0});
  const BlockPartition blocks = find_node_blocks(a);
  for (const VertexOrder order :
       {VertexOrder::natural, VertexOrder::largest_first, VertexOrder::smallest_last}) {
    const BlockColoring c = color_blocks(a, blocks, order);
    ASSERT_EQ(c.blocks.count(), blocks.count());
    ASSERT_EQ(c.color_ptr.size(), static_cast<std::size_t>(c.num_colors) + 1);
    std::vector<index_t> sorted = c.permutation;
    std::sort(sorted.begin(), sorted.end());
    std::vector<index_t> identity(static_cast<std::size_t>(a.rows));
    std::iota(identity.begin(), identity.end(), 0);
    ASSERT_EQ(sorted, identity);
    // Each new block is an old block, whole and in order.
    for (index_t b = 0; b < c.blocks.count(); ++b) {
      for (index_t i = c.blocks.ptr[b] + 1; i < c.blocks.ptr[b + 1]; ++i) {
        EXPECT_EQ(c.permutation[i], c.permutation[i - 1] + 1);
      }
    }
    // No coupling inside a color, in the permuted matrix.
    const CsrMatrix<double> p = permute_symmetric(a, c.permutation);
    const std::vector<index_t> of = c.blocks.block_of();
    std::vector<int> color_of_block(static_cast<std::size_t>(c.blocks.count()));
    for (int col = 0; col < c.num_colors; ++col) {
      for (index_t b = c.color_ptr[col]; b < c.color_ptr[col + 1]; ++b) color_of_block[b] = col;
    }
    for (index_t i = 0; i < p.rows; ++i) {
      for (index_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
        const index_t bi = of[i], bj = of[p.col_idx[k]];
        if (bi != bj) EXPECT_NE(color_of_block[bi], color_of_block[bj]);
      }
    }
    EXPECT_LT(c.num_colors, color_matrix(a, order).num_colors);
  }
}

// Supernodes: a partition into groups of whole blocks of at most max_rows rows, each
// consecutive in the new order, more weight inside the blocks than before, and the
// blocks unchanged where max_rows admits no pair.
TEST(AggregateBlocks, GroupsWholeBlocksUpToTheLimit) {
  const CsrMatrix<double> a = elasticity3d(4, 3, 3, 2, {1.0, 30.0});
  const BlockPartition nodes = find_node_blocks(a);
  const std::vector<index_t> node_of = nodes.block_of();
  for (const index_t max_rows : {3, 5, 6, 12, 48}) {
    SCOPED_TRACE(max_rows);
    const Aggregation s = aggregate_blocks(a, nodes, max_rows);
    ASSERT_EQ(s.blocks.rows(), a.rows);
    std::vector<index_t> sorted = s.permutation;
    std::sort(sorted.begin(), sorted.end());
    for (index_t i = 0; i < a.rows; ++i) ASSERT_EQ(sorted[i], i);
    for (index_t b = 0; b < s.blocks.count(); ++b) {
      EXPECT_LE(s.blocks.ptr[b + 1] - s.blocks.ptr[b], std::max<index_t>(max_rows, 3));
      // Whole node blocks: a supernode holds all three unknowns of each node it has.
      std::multiset<index_t> members;
      for (index_t i = s.blocks.ptr[b]; i < s.blocks.ptr[b + 1]; ++i) {
        members.insert(node_of[s.permutation[i]]);
      }
      for (const index_t node : members) EXPECT_EQ(members.count(node), 3u);
    }
    const CsrMatrix<double> p = permute_symmetric(a, s.permutation);
    if (max_rows < 6) {
      EXPECT_EQ(s.blocks.count(), nodes.count());
    } else {
      EXPECT_LT(s.blocks.count(), nodes.count());
      EXPECT_GT(diagonal_block_weight(p, s.blocks), diagonal_block_weight(a, nodes));
    }
  }
  EXPECT_THROW(aggregate_blocks(a, nodes, 0), ConfigError);
}

TEST(DiagonalBlockWeight, FromDiagonalShareToOne) {
  const CsrMatrix<double> a = poisson2d(4, 4);
  const double diagonal = 4.0 * 16;
  double total = 0.0;
  for (const double v : a.values) total += std::abs(v);
  EXPECT_NEAR(diagonal_block_weight(a, uniform_blocks(16, 1)), diagonal / total, 1e-15);
  EXPECT_DOUBLE_EQ(diagonal_block_weight(a, uniform_blocks(16, 16)), 1.0);
  const CsrMatrix<double> e = elasticity3d(3, 3, 3, 1, {1.0});
  EXPECT_GT(diagonal_block_weight(e, find_node_blocks(e)),
            diagonal_block_weight(e, uniform_blocks(e.rows, 1)));
}

}  // namespace
}  // namespace prism
