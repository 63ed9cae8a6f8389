#pragma once
// The order of a coloring's rows (prism::coloring_of): the colors renumbered by decreasing
// size, ties in their old order, and the permutation that lists the rows color by color,
// in increasing index within each color. The color-set solve launches one kernel per
// color, so the big colors come first. The CUDA twin of the per-row passes is
// kernels/cuda/color_order.hpp; the renumbering itself is a few numbers, always here.

#include <prism/types.hpp>

#include <vector>

namespace prism::kernels {

/// new_id[c] of every color c: the colors by decreasing sizes[c], ties by increasing c
/// (a stable sort).
std::vector<int> colors_by_size(const std::vector<index_t>& sizes);

/// The first row of every renumbered color (sizes.size() + 1 entries): the sums of the
/// sizes in the order of new_id.
std::vector<index_t> renumbered_color_ptr(const std::vector<index_t>& sizes,
                                          const std::vector<int>& new_id);

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// sizes[c] = the rows i < n with colors[i] == c, for every c < count (colors in [0, count)).
void color_sizes(index_t n, const int* colors, int count, index_t* sizes);

/// colors[i] = new_id[colors[i]] for every row i < n, and perm[new] = old: the rows by
/// their new color, in increasing index within each color (a stable counting sort).
void order_by_color(index_t n, int* colors, const int* new_id, int count, index_t* perm);

}  // namespace prism::kernels::reference
