#include "solver/line_order.hpp"

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/lines.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace prism::solver {

Lines find_lines_with(const CsrMatrix<double>& a, const LineOptions& options,
                      backend::SetupSession* device) {
  Lines lines;
  if (device != nullptr && device->find_lines(options, lines)) return lines;
  return find_lines(a, options);
}

LineOrder order_by_lines(const CsrMatrix<double>& a, const LineOptions& options,
                         backend::SetupSession* device) {
  return order_lines(find_lines_with(a, options, device));
}

LineOrder order_lines(const Lines& found) {
  const BlockPartition& l = found.lines;
  std::vector<index_t> by_length(static_cast<std::size_t>(l.count()));
  std::iota(by_length.begin(), by_length.end(), index_t{0});
  // Stable: lines of one length keep find_lines' order (by their smallest row).
  std::stable_sort(by_length.begin(), by_length.end(), [&](index_t x, index_t y) {
    return l.ptr[x + 1] - l.ptr[x] > l.ptr[y + 1] - l.ptr[y];
  });
  LineOrder out;
  out.permutation.reserve(found.permutation.size());
  for (const index_t line : by_length) {
    for (index_t k = l.ptr[line]; k < l.ptr[line + 1]; ++k) {
      out.permutation.push_back(found.permutation[k]);
    }
    out.lines.ptr.push_back(static_cast<index_t>(out.permutation.size()));
  }
  const LineReport& r = found.report;
  char text[200];
  std::snprintf(text, sizeof text,
                "lines: %lld of %.3g rows (%lld to %lld), %.1f%% of the off-diagonal sum |a_ij| "
                "inside them",
                static_cast<long long>(r.lengths.count), r.lengths.mean_size,
                static_cast<long long>(r.lengths.min_size),
                static_cast<long long>(r.lengths.max_size), 100.0 * r.inside_weight);
  out.description = text;
  return out;
}

void color_lines(const CsrMatrix<double>& a, LineOrder& order, VertexOrder vertex_order,
                 backend::SetupSession* device) {
  // color_blocks keeps the blocks of a color in increasing index: here by decreasing length.
  BlockColoring coloring;
  if (device == nullptr ||
      !device->color_blocks(order.permutation, order.lines, vertex_order, coloring)) {
    coloring = color_blocks(permute_symmetric(a, order.permutation), order.lines, vertex_order);
    for (index_t& row : coloring.permutation) row = order.permutation[row];
  }
  order.permutation = std::move(coloring.permutation);
  order.lines = std::move(coloring.blocks);
  order.color_ptr = std::move(coloring.color_ptr);
  order.color_rows = std::move(coloring.color_rows);
  const SetStats per_color = set_stats(order.color_ptr);
  char text[120];
  std::snprintf(text, sizeof text, "; %lld colors of lines, %lld to %lld lines each",
                static_cast<long long>(per_color.count), static_cast<long long>(per_color.min_size),
                static_cast<long long>(per_color.max_size));
  order.description += text;
}

}  // namespace prism::solver
