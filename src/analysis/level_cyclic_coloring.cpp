#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace prism {

Coloring level_cyclic_coloring(const CsrMatrix<double>& a, int colors) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot color a matrix that is not square (" + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ")");
  }
  if (colors < 1) throw ConfigError("coloring: colors must be >= 1");
  const index_t n = a.rows;
  Coloring result;
  result.color_ptr.assign(1, 0);
  if (n == 0) return result;

  // For every row, its neighbours of smaller index in the graph of A + A^T, once each.
  std::vector<std::size_t> ptr(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j != i) ++ptr[std::max(i, j) + 1];
    }
  }
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  std::vector<index_t> earlier(ptr[n]);
  std::vector<std::size_t> fill(ptr.begin(), ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j != i) earlier[fill[std::max(i, j)]++] = std::min(i, j);
    }
  }
  std::vector<std::size_t> end(static_cast<std::size_t>(n));
  std::vector<index_t> degree(static_cast<std::size_t>(n), 0);
  for (index_t v = 0; v < n; ++v) {
    auto first = earlier.begin() + static_cast<std::ptrdiff_t>(ptr[v]);
    auto last = earlier.begin() + static_cast<std::ptrdiff_t>(ptr[v + 1]);
    std::sort(first, last);
    last = std::unique(first, last);
    end[v] = static_cast<std::size_t>(last - earlier.begin());
    for (auto it = first; it != last; ++it) {
      ++degree[v];
      ++degree[*it];
    }
  }
  // With more colors than any row has neighbours, a free color always exists.
  const index_t max_degree = *std::max_element(degree.begin(), degree.end());
  const int nc = std::max(colors, static_cast<int>(max_degree) + 1);

  std::vector<int> color(static_cast<std::size_t>(n), -1);
  std::vector<long long> level(static_cast<std::size_t>(n), 0);
  std::vector<index_t> taken_by(static_cast<std::size_t>(nc), -1);  // color c used next to v
  for (index_t v = 0; v < n; ++v) {
    long long first_level = 0;
    for (std::size_t k = ptr[v]; k < end[v]; ++k) {
      const index_t u = earlier[k];
      taken_by[color[u]] = v;
      first_level = std::max(first_level, level[u] + 1);
    }
    for (int t = 0; t < nc; ++t) {
      const long long l = first_level + t;
      const int c = static_cast<int>(l % nc);
      if (taken_by[c] != v) {
        color[v] = c;
        level[v] = l;
        break;
      }
    }
  }

  // Drop empty colors, keeping the cyclic order of the others.
  std::vector<index_t> size(static_cast<std::size_t>(nc), 0);
  for (int c : color) ++size[c];
  std::vector<int> new_id(static_cast<std::size_t>(nc), -1);
  int used = 0;
  for (int c = 0; c < nc; ++c) {
    if (size[c] > 0) new_id[c] = used++;
  }
  for (int& c : color) c = new_id[c];
  result.num_colors = used;
  result.color = std::move(color);
  analysis::order_by_color(result);
  return result;
}

}  // namespace prism
