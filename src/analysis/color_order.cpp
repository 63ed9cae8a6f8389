#include "analysis/color_order.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace prism::analysis {

void renumber_colors_by_size(Coloring& c) {
  const int num_colors = c.num_colors;
  const auto n = static_cast<index_t>(c.color.size());
  std::vector<index_t> size(static_cast<std::size_t>(num_colors), 0);
  for (index_t i = 0; i < n; ++i) ++size[c.color[i]];
  std::vector<int> by_size(num_colors);
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&size](int x, int y) { return size[x] > size[y]; });
  std::vector<int> new_id(num_colors);
  for (int k = 0; k < num_colors; ++k) new_id[by_size[k]] = k;
  for (index_t i = 0; i < n; ++i) c.color[i] = new_id[c.color[i]];
  order_by_color(c);
}

void order_by_color(Coloring& c) {
  const auto n = static_cast<index_t>(c.color.size());
  c.color_ptr.assign(static_cast<std::size_t>(c.num_colors) + 1, 0);
  for (index_t i = 0; i < n; ++i) ++c.color_ptr[c.color[i] + 1];
  std::partial_sum(c.color_ptr.begin(), c.color_ptr.end(), c.color_ptr.begin());
  c.permutation.resize(n);
  std::vector<index_t> next(c.color_ptr.begin(), c.color_ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) c.permutation[next[c.color[i]]++] = i;
}

}  // namespace prism::analysis
