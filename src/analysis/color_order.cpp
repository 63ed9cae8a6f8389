#include "analysis/color_order.hpp"

#include "kernels/color_order.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace prism::analysis {

void renumber_colors_by_size(Coloring& c) {
  // The kernels' reference passes: the cuda set-up session runs their device twins, and
  // both renumber with kernels::colors_by_size, so the two orders agree.
  const auto n = static_cast<index_t>(c.color.size());
  std::vector<index_t> sizes(static_cast<std::size_t>(c.num_colors));
  kernels::reference::color_sizes(n, c.color.data(), c.num_colors, sizes.data());
  const std::vector<int> new_id = kernels::colors_by_size(sizes);
  c.color_ptr = kernels::renumbered_color_ptr(sizes, new_id);
  c.permutation.resize(static_cast<std::size_t>(n));
  kernels::reference::order_by_color(n, c.color.data(), new_id.data(), c.num_colors,
                                     c.permutation.data());
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
