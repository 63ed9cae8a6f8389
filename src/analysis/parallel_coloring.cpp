#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"
#include "kernels/parallel_coloring.hpp"

#include <string>
#include <utility>
#include <vector>

namespace prism {

Coloring coloring_of(std::vector<int> color, int count) {
  Coloring result;
  result.num_colors = count;
  result.color = std::move(color);
  analysis::renumber_colors_by_size(result);
  return result;
}

Coloring jones_plassmann_coloring(const CsrMatrix<double>& a) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot color a matrix that is not square (" + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ")");
  }
  std::vector<int> color(static_cast<std::size_t>(a.rows));
  const kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                      a.values.data()};
  const int count = kernels::reference::jones_plassmann_coloring(view, color.data());
  return coloring_of(std::move(color), count);
}

Coloring parallel_greedy_coloring(const CsrMatrix<double>& a, VertexOrder order) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot color a matrix that is not square (" + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ")");
  }
  std::vector<int> color(static_cast<std::size_t>(a.rows));
  const kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                      a.values.data()};
  const std::vector<index_t> rank = analysis::greedy_rank(a, order);
  const kernels::GreedyColoring result = kernels::reference::ordered_greedy_coloring(
      view, rank.empty() ? nullptr : rank.data(), kernels::kGreedyRoundLimit, color.data());
  return coloring_of(std::move(color), result.colors);
}

}  // namespace prism
