// The block coloring's references (kernels/block_coloring.hpp) against the host code they
// stand for: the largest-first rank is analysis::greedy_rank's on the quotient matrix, and
// the blocks of color_matrix's order expanded to rows (through the grouping) are
// color_blocks' permutation and blocks, composed back to A's rows.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>

#include "analysis/color_order.hpp"
#include "kernels/block_coloring.hpp"
#include "kernels/block_coloring_cases.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace ref = prism::kernels::reference;

CsrMatrix<double> quotient_of(const prism::test::BlockCase& c) {
  return prism::quotient_matrix(
      c.grouping.empty() ? c.a : prism::permute_symmetric(c.a, c.grouping), c.blocks);
}

std::vector<index_t> reference_rank(const CsrMatrix<double>& q) {
  std::vector<index_t> rank(static_cast<std::size_t>(q.rows));
  ref::largest_first_rank(q.rows, q.row_ptr.data(), q.col_idx.data(), rank.data());
  return rank;
}

TEST(BlockColoringReference, LargestFirstRankIsGreedyRanks) {
  for (const auto& c : prism::test::block_coloring_cases()) {
    SCOPED_TRACE(c.name);
    const CsrMatrix<double> q = quotient_of(c);
    if (q.rows == 0) continue;  // greedy_rank gives no rank: nothing to compare
    EXPECT_EQ(reference_rank(q),
              prism::analysis::greedy_rank(q, prism::VertexOrder::largest_first));
  }
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(reference_rank(a),
              prism::analysis::greedy_rank(a, prism::VertexOrder::largest_first));
  }
}

TEST(BlockColoringReference, RowsInBlockOrderAreColorBlocksRows) {
  for (const auto& c : prism::test::block_coloring_cases()) {
    for (const auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first}) {
      SCOPED_TRACE(c.name + ", " + std::string(prism::to_string(order)));
      const prism::BlockColoring host = prism::test::host_block_coloring(c, order);
      const prism::Coloring by_block = prism::color_matrix(quotient_of(c), order);
      std::vector<index_t> new_ptr(c.blocks.ptr.size()), perm(static_cast<std::size_t>(c.a.rows));
      ref::rows_in_block_order(c.blocks.count(), c.blocks.ptr.data(),
                               c.grouping.empty() ? nullptr : c.grouping.data(),
                               by_block.permutation.data(), new_ptr.data(), perm.data());
      EXPECT_EQ(perm, host.permutation);
      EXPECT_EQ(new_ptr, host.blocks.ptr);
    }
  }
}

}  // namespace
