#pragma once
// The orders the level report (kernels/level_report.hpp) is tested on: the set-up test
// matrices (setup_test_matrices.hpp: one row, an empty row, more than 64 colors, sizes not
// a multiple of 32, hubs) in greedy and level-cyclic color orders (ranges: the colors,
// empty ones planted), and uncolored in their natural order with a range a row
// (independent, the natural level sets) or one range (coupled unless diagonal).

#include <prism/analysis.hpp>

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

}  // namespace prism::test
