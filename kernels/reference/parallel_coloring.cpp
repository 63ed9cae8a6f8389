#include "kernels/parallel_coloring.hpp"

#include <algorithm>
#include <vector>

namespace prism::kernels::reference {
namespace {

// The smallest color c >= 0 that no neighbour u of v with color[u] >= 0 has.
int first_free_color(const CsrView<double>& a, index_t v, const int* color) {
  std::vector<bool> taken(static_cast<std::size_t>(a.row_ptr[v + 1] - a.row_ptr[v]) + 1);
  for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
    const index_t u = a.col_idx[k];
    const int c = color[u];
    if (u != v && c >= 0 && static_cast<std::size_t>(c) < taken.size()) taken[c] = true;
  }
  return static_cast<int>(std::find(taken.begin(), taken.end(), false) - taken.begin());
}

}  // namespace

int jones_plassmann_coloring(const CsrView<double>& a, int* colors) {
  const index_t n = a.rows;
  std::fill(colors, colors + n, -1);
  // Rounds over the uncoloured vertices: first who is a local maximum (against the colors
  // at the round's start), then their colors.
  std::vector<index_t> left(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v) left[v] = v;
  std::vector<index_t> chosen, rest;
  while (!left.empty()) {
    chosen.clear();
    rest.clear();
    for (const index_t v : left) {
      bool maximum = true;
      for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1] && maximum; ++k) {
        const index_t u = a.col_idx[k];
        maximum = u == v || colors[u] >= 0 || outranks(v, u);
      }
      (maximum ? chosen : rest).push_back(v);
    }
    for (const index_t v : chosen) colors[v] = first_free_color(a, v, colors);
    left.swap(rest);
  }
  int count = n == 0 ? 0 : *std::max_element(colors, colors + n) + 1;

  // Recoloring passes: the classes from the last to the first, first fit among the
  // neighbours recolored before.
  std::vector<int> recolored(static_cast<std::size_t>(n));
  std::vector<std::vector<index_t>> classes;
  for (int pass = 0; pass < kRecolorPasses && count > 1; ++pass) {
    classes.assign(static_cast<std::size_t>(count), {});
    for (index_t v = 0; v < n; ++v) classes[colors[v]].push_back(v);
    std::fill(recolored.begin(), recolored.end(), -1);
    for (int c = count - 1; c >= 0; --c) {
      for (const index_t v : classes[c]) recolored[v] = first_free_color(a, v, recolored.data());
    }
    std::copy(recolored.begin(), recolored.end(), colors);
    const int now = *std::max_element(recolored.begin(), recolored.end()) + 1;
    const bool saved = now < count;
    count = now;
    if (!saved) break;
  }
  return count;
}

}  // namespace prism::kernels::reference
