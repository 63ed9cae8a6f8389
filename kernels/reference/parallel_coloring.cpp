#include "kernels/parallel_coloring.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace prism::kernels::reference {
namespace {

// The smallest color c >= 0 that no neighbour u != v with color[u] >= 0 has, 64 colors a
// window (no allocation per vertex: the host runs it once per row and pass).
int first_free_color(const CsrView<double>& a, index_t v, const int* color) {
  for (int base = 0;; base += 64) {
    std::uint64_t taken = 0;
    for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
      const index_t u = a.col_idx[k];
      const int c = color[u] - base;
      if (u != v && c >= 0 && c < 64) taken |= std::uint64_t{1} << c;
    }
    if (~taken != 0) {
      int c = 0;
      while ((taken >> c) & 1U) ++c;
      return base + c;
    }
  }
}

// Jones-Plassmann rounds over the uncoloured vertices (colors[v] < 0) until none is left:
// first who is a local maximum (against the colors at the round's start), then their
// colors.
void hash_rounds(const CsrView<double>& a, int* colors) {
  std::vector<index_t> left, chosen, rest;
  for (index_t v = 0; v < a.rows; ++v) {
    if (colors[v] < 0) left.push_back(v);
  }
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
}

// Recoloring passes: the classes from the last to the first, first fit among the
// neighbours recolored before. Returns the number of colors after.
int recolor(const CsrView<double>& a, int* colors) {
  const index_t n = a.rows;
  int count = n == 0 ? 0 : *std::max_element(colors, colors + n) + 1;
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

}  // namespace

int jones_plassmann_coloring(const CsrView<double>& a, int* colors) {
  std::fill(colors, colors + a.rows, -1);
  hash_rounds(a, colors);
  return recolor(a, colors);
}

GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors) {
  const index_t n = a.rows;
  std::fill(colors, colors + n, -1);
  // waiting[v]: v's neighbours earlier in the order not yet colored; a round colors the
  // front (waiting 0), whose later neighbours then wait for one fewer.
  std::vector<index_t> waiting(static_cast<std::size_t>(n), 0), front, next;
  for (index_t v = 0; v < n; ++v) {
    for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
      const index_t u = a.col_idx[k];
      if (u != v && earlier(u, v, rank)) ++waiting[v];
    }
    if (waiting[v] == 0) front.push_back(v);
  }
  GreedyColoring result;
  for (; !front.empty() && result.rounds < round_limit; ++result.rounds) {
    next.clear();
    for (const index_t v : front) {
      colors[v] = first_free_color(a, v, colors);
      for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
        const index_t u = a.col_idx[k];
        if (u != v && earlier(v, u, rank) && --waiting[u] == 0) next.push_back(u);
      }
    }
    front.swap(next);
  }
  if (front.empty()) {
    result.colors = n == 0 ? 0 : *std::max_element(colors, colors + n) + 1;
    return result;
  }
  result.exact = false;
  hash_rounds(a, colors);
  result.colors = recolor(a, colors);
  return result;
}

}  // namespace prism::kernels::reference
