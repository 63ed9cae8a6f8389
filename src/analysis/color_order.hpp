#pragma once
// Shared by the greedy coloring and the balancing pass.

#include <prism/analysis.hpp>

#include <vector>

namespace prism::analysis {

/// Renumbers c.color by decreasing color size (ties keep their order) and rebuilds
/// c.color_ptr and c.permutation, rows in increasing index within each color. The
/// color-set solve launches one kernel per color; the big colors carry the work.
void renumber_colors_by_size(Coloring& c);

/// The position of every row in color_matrix's visiting order `order` (rank[row]), for the
/// ordered greedy coloring (kernels/parallel_coloring.hpp); empty for the natural order.
std::vector<index_t> greedy_rank(const CsrMatrix<double>& a, VertexOrder order);

/// Rebuilds c.color_ptr and c.permutation from c.color with the colors in index order
/// (rows in increasing index within each color).
void order_by_color(Coloring& c);

}  // namespace prism::analysis
