#pragma once
// The block colorings the block coloring's kernels (kernels/block_coloring.hpp) and the
// set-up session's color_blocks (backend/setup.hpp) are tested on: node blocks and
// supernodes of elasticity, uniform blocks with a short last one, the lines of
// anisotropic and stretched grids in their line order (a grouping), one row, one block,
// an empty row, no rows, a chain past the ordered rounds' limit, and a random pattern of 100000
// rows under a random grouping; and the host's answer they must give.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/generators.hpp>
#include <prism/lines.hpp>

#include "common/test_matrices.hpp"
#include "kernels/setup_test_matrices.hpp"
#include "solver/line_order.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {

struct BlockCase {
  std::string name;
  CsrMatrix<double> a;
  std::vector<index_t> grouping;  ///< rows of a in group order; empty: the identity
  BlockPartition blocks;          ///< of the grouped matrix's rows
};

/// color_blocks(G A G^T, blocks, order) with its permutation composed back to A's rows.
inline BlockColoring host_block_coloring(const BlockCase& c, VertexOrder order) {
  BlockColoring out =
      color_blocks(c.grouping.empty() ? c.a : permute_symmetric(c.a, c.grouping), c.blocks, order);
  if (!c.grouping.empty()) {
    for (index_t& row : out.permutation) row = c.grouping[row];
  }
  return out;
}

inline std::vector<index_t> random_permutation(index_t n, unsigned seed) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), index_t{0});
  std::shuffle(p.begin(), p.end(), std::mt19937(seed));
  return p;
}

/// A's lines in solver::order_lines' order: the grouping and blocks of line_ic's coloring.
inline BlockCase line_case(std::string name, CsrMatrix<double> a) {
  solver::LineOrder order = solver::order_lines(find_lines(a));
  return {std::move(name), std::move(a), std::move(order.permutation), std::move(order.lines)};
}

inline std::vector<BlockCase> block_coloring_cases() {
  std::vector<BlockCase> cases;
  for (const int layers : {1, 3}) {
    CsrMatrix<double> a = elasticity3d(3, 2, 4, layers, {1.0, 1000.0});
    const BlockPartition nodes = find_node_blocks(a);
    Aggregation super = aggregate_blocks(a, nodes, 12);
    const std::string tag = "elasticity3d 3x2x4, " + std::to_string(layers) + " layers";
    cases.push_back({tag + ", node blocks", a, {}, nodes});
    cases.push_back({tag + ", supernodes", std::move(a), std::move(super.permutation),
                     std::move(super.blocks)});
  }
  CsrMatrix<double> grid = poisson3d(7, 6, 5);  // 210 rows: blocks of 4, the last of 2
  cases.push_back({"poisson3d 7x6x5, blocks of 4", grid, {}, uniform_blocks(grid.rows, 4)});
  cases.push_back({"poisson3d 7x6x5, one block", grid, random_permutation(grid.rows, 5),
                   uniform_blocks(grid.rows, grid.rows)});
  cases.push_back({"poisson3d 7x6x5, blocks of 1", grid, {}, uniform_blocks(grid.rows, 1)});
  cases.push_back(
      line_case("anisotropic3d 9x6x5 lines along x", anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-2)));
  cases.push_back(
      line_case("anisotropic3d 5x6x33 lines along z", anisotropic3d(5, 6, 33, 1e-2, 1e-3, 1.0)));
  cases.push_back(line_case("stretched3d 6x5x20", stretched3d(6, 5, 20, 200.0)));
  // A path of 4501 blocks: more ordered rounds than kGreedyRoundLimit in either order.
  cases.push_back(
      {"chain of 9001 rows, blocks of 2", poisson2d(9001, 1), {}, uniform_blocks(9001, 2)});
  // 14 blocks of a clique, the path's blocks, and the empty row's block of its own.
  cases.push_back({"clique 70 + path + empty row, blocks of 5",
                   clique_path_and_empty_row(70),
                   {},
                   uniform_blocks(111, 5)});
  cases.push_back({"one row", diagonal_only(1), {}, uniform_blocks(1, 1)});
  cases.push_back({"no rows", diagonal_only(0), {}, BlockPartition{}});
  CsrMatrix<double> random = random_symmetric(100000, 250000, 17);
  std::vector<index_t> shuffled = random_permutation(random.rows, 23);
  cases.push_back({"random 100000, blocks of 3 under a random grouping", random,
                   std::move(shuffled), uniform_blocks(random.rows, 3)});
  cases.push_back({"random 100000, node blocks", random, {}, find_node_blocks(random)});
  return cases;
}

}  // namespace prism::test
