#pragma once
// Shared by the greedy coloring and the balancing pass.

#include <prism/analysis.hpp>

namespace prism::analysis {

/// Renumbers c.color by decreasing color size (ties keep their order) and rebuilds
/// c.color_ptr and c.permutation, rows in increasing index within each color. The
/// color-set solve launches one kernel per color; the big colors carry the work.
void renumber_colors_by_size(Coloring& c);

/// Rebuilds c.color_ptr and c.permutation from c.color with the colors in index order
/// (rows in increasing index within each color).
void order_by_color(Coloring& c);

}  // namespace prism::analysis
