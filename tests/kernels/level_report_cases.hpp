#pragma once
// The orders the level report (kernels/level_report.hpp) is tested on: the set-up test
// matrices (setup_test_matrices.hpp: one row, an empty row, more than 64 colors, sizes not
// a multiple of 32, hubs) in greedy and level-cyclic color orders (ranges: the colors,
// empty ones planted), and uncolored in their natural order with a range a row
// (independent, the natural level sets) or one range (coupled unless diagonal); and the
// orders the dataflow (reference::dataflow_level_ptr) levels without ranges: those
// matrices, block_ic's block-colored and line_ic's line orders, natural orders with
// hundreds of levels, and patterns with an entry whose mirror is missing.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/generators.hpp>
#include <prism/lines.hpp>

#include "solver/line_order.hpp"

#include "kernels/setup_test_matrices.hpp"

#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {

struct LevelCase {
  std::string name;
  CsrMatrix<double> a;          // the matrix in the order levelled
  std::vector<index_t> ranges;  // covering the rows
  bool independent = true;      // no range couples inside
};

/// Whether `a` stores an entry below its diagonal.
inline bool has_lower_entry(const CsrMatrix<double>& a) {
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] < i) return true;
    }
  }
  return false;
}

/// color_ptr with empty ranges at the front, after the first color and at the back.
inline std::vector<index_t> with_empty_ranges(const std::vector<index_t>& color_ptr) {
  std::vector<index_t> out{0, 0};
  out.insert(out.end(), color_ptr.begin() + 1, color_ptr.begin() + 2);
  out.insert(out.end(), color_ptr.begin() + 1, color_ptr.end());
  out.push_back(color_ptr.back());
  return out;
}

inline std::vector<LevelCase> level_report_cases() {
  std::vector<LevelCase> out;
  for (const auto& [name, a] : coloring_cases()) {
    const Coloring greedy = color_matrix(a, VertexOrder::natural);
    const CsrMatrix<double> g = permute_symmetric(a, greedy.permutation);
    out.push_back({name + ", greedy colors", g, greedy.color_ptr});
    out.push_back(
        {name + ", greedy colors and empty ranges", g, with_empty_ranges(greedy.color_ptr)});
    const Coloring cyclic = level_cyclic_coloring(a, 8);
    out.push_back({name + ", level-cyclic 8 colors", permute_symmetric(a, cyclic.permutation),
                   cyclic.color_ptr});
    std::vector<index_t> every_row(static_cast<std::size_t>(a.rows) + 1);
    std::iota(every_row.begin(), every_row.end(), 0);
    out.push_back({name + ", natural order, a range a row", a, every_row});
    out.push_back({name + ", natural order, one range", a, {0, a.rows}, !has_lower_entry(a)});
  }
  return out;
}

struct DataflowCase {
  std::string name;
  CsrMatrix<double> a;   // the matrix in the order levelled
  bool mirrored = true;  // every entry below the diagonal has its mirror
};

/// `a` with one more entry (i, j), value -0.5 (its mirror left out).
inline CsrMatrix<double> with_entry(const CsrMatrix<double>& a, index_t i, index_t j) {
  std::vector<Triplet> t;
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      t.push_back({r, a.col_idx[k], a.values[k]});
    }
  }
  t.push_back({i, j, -0.5});
  return csr_from_triplets(a.rows, a.cols, std::move(t));
}

/// block_ic's order: node blocks colored on their quotient graph.
inline CsrMatrix<double> block_colored(const CsrMatrix<double>& a) {
  return permute_symmetric(a,
                           color_blocks(a, find_node_blocks(a), VertexOrder::natural).permutation);
}

/// line_ic's order: find_lines, order_lines, color_lines.
inline CsrMatrix<double> line_colored(const CsrMatrix<double>& a) {
  solver::LineOrder order = solver::order_lines(find_lines(a));
  solver::color_lines(a, order, VertexOrder::natural);
  return permute_symmetric(a, order.permutation);
}

inline std::vector<DataflowCase> dataflow_level_cases() {
  std::vector<DataflowCase> out;
  for (LevelCase& c : level_report_cases()) {
    // The same matrices with other ranges add nothing without ranges.
    if (c.name.find("empty ranges") != std::string::npos) continue;
    if (c.name.find("one range") != std::string::npos) continue;
    out.push_back({c.name, std::move(c.a)});
  }
  const CsrMatrix<double> e = elasticity3d(4, 3, 3, 2, {1.0, 20.0});
  out.push_back({"elasticity3d 4x3x3, block-colored", block_colored(e)});
  out.push_back(
      {"elasticity3d 7x5x4, block-colored", block_colored(elasticity3d(7, 5, 4, 1, {1.0}))});
  out.push_back({"elasticity3d 4x3x3, natural order", e});
  out.push_back({"anisotropic3d along x, lines colored",
                 line_colored(anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-2))});
  out.push_back({"anisotropic3d along z, lines colored",
                 line_colored(anisotropic3d(5, 6, 33, 1e-2, 1e-3, 1.0))});
  out.push_back({"stretched3d 7x5x40, lines colored", line_colored(stretched3d(7, 5, 40, 100.0))});
  out.push_back({"poisson3d 20^3, natural order", poisson3d(20, 20, 20)});
  out.push_back({"poisson2d 200x150, natural order", poisson2d(200, 150)});
  out.push_back({"diagonal 1000", diagonal_only(1000)});
  out.push_back({"random 20000", random_symmetric(20000, 100000, 5)});
  // An upper entry without its mirror only makes a row wait longer: still exact.
  out.push_back({"poisson2d 9x7, an upper entry alone", with_entry(poisson2d(9, 7), 3, 40)});
  out.push_back({"poisson2d 9x7, a lower entry alone", with_entry(poisson2d(9, 7), 40, 3), false});
  out.push_back({"two rows, a lower entry alone", with_entry(diagonal_only(2), 1, 0), false});
  return out;
}

}  // namespace prism::test
