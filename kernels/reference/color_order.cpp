#include "kernels/color_order.hpp"

#include <algorithm>
#include <numeric>

namespace prism::kernels {

std::vector<int> colors_by_size(const std::vector<index_t>& sizes) {
  std::vector<int> by_size(sizes.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&sizes](int x, int y) { return sizes[x] > sizes[y]; });
  std::vector<int> new_id(sizes.size());
  for (std::size_t k = 0; k < by_size.size(); ++k) new_id[by_size[k]] = static_cast<int>(k);
  return new_id;
}

std::vector<index_t> renumbered_color_ptr(const std::vector<index_t>& sizes,
                                          const std::vector<int>& new_id) {
  std::vector<index_t> ptr(sizes.size() + 1, 0);
  for (std::size_t c = 0; c < sizes.size(); ++c) ptr[new_id[c] + 1] = sizes[c];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  return ptr;
}

}  // namespace prism::kernels

namespace prism::kernels::reference {

void color_sizes(index_t n, const int* colors, int count, index_t* sizes) {
  std::fill(sizes, sizes + count, 0);
  for (index_t i = 0; i < n; ++i) ++sizes[colors[i]];
}

void order_by_color(index_t n, int* colors, const int* new_id, int count, index_t* perm) {
  std::vector<index_t> next(static_cast<std::size_t>(count) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    colors[i] = new_id[colors[i]];
    ++next[colors[i] + 1];
  }
  std::partial_sum(next.begin(), next.end(), next.begin());
  for (index_t i = 0; i < n; ++i) perm[next[colors[i]]++] = i;
}

}  // namespace prism::kernels::reference
