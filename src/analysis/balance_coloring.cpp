// Balancing pass over a greedy coloring: vertices move from colors above the mean size
// N / colors into the smallest color below the mean that none of their neighbours has
// (the vertex-centric "shuffling" of Lu et al., IEEE TPDS 2017). Suchoski 2012 names the
// goal in its future work: the color-set solve runs one parallel step per color, so the
// smallest color bounds the parallel workload of a step.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace prism {
namespace {

// Sizes count as balanced within this fraction of the mean N / colors; closer balance
// buys little and every move perturbs the ordering the factorization sees.
constexpr double kTolerance = 0.02;

// Each pass visits every vertex once (O(nnz + N * colors)); in practice a pass or two
// reaches the tolerance or a fixed point, the limit only bounds the worst case.
constexpr int kMaxPasses = 8;

// Off-diagonal pattern of A + A^T as CSR, duplicates kept: the pass only marks the
// colors of the neighbours, so a neighbour seen twice costs a read and nothing else.
struct Adjacency {
  std::vector<std::size_t> ptr;
  std::vector<index_t> idx;
};

Adjacency symmetric_adjacency(const CsrMatrix<double>& a) {
  const index_t n = a.rows;
  Adjacency g;
  g.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j == i) continue;
      ++g.ptr[i + 1];
      ++g.ptr[j + 1];
    }
  }
  std::partial_sum(g.ptr.begin(), g.ptr.end(), g.ptr.begin());
  g.idx.resize(g.ptr[n]);
  std::vector<std::size_t> fill(g.ptr.begin(), g.ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j == i) continue;
      g.idx[fill[i]++] = j;
      g.idx[fill[j]++] = i;
    }
  }
  return g;
}

void check_input(const CsrMatrix<double>& a, const Coloring& c) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot balance the coloring of a matrix that is not square (" +
                             std::to_string(a.rows) + " x " + std::to_string(a.cols) + ")");
  }
  const bool sizes_match = c.color.size() == static_cast<std::size_t>(a.rows) &&
                           c.num_colors >= 0 &&
                           c.color_ptr.size() == static_cast<std::size_t>(c.num_colors) + 1;
  const bool in_range = std::all_of(c.color.begin(), c.color.end(),
                                    [&c](int color) { return color >= 0 && color < c.num_colors; });
  if (!sizes_match || !in_range) {
    throw InvalidMatrixError("balance_coloring: the coloring does not belong to this " +
                             std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix (" +
                             std::to_string(c.color.size()) + " rows colored with " +
                             std::to_string(c.num_colors) + " colors)");
  }
}

}  // namespace

void balance_coloring(const CsrMatrix<double>& a, Coloring& coloring) {
  check_input(a, coloring);
  const index_t n = a.rows;
  const int num_colors = coloring.num_colors;
  if (num_colors < 2) return;

  std::vector<index_t> size(num_colors, 0);
  for (const int c : coloring.color) ++size[c];

  // A move from color `from` to `to` needs from above the mean, to below it, and
  // size[to] + 1 < size[from]: the sum of squared sizes then drops by at least 2, so
  // the pass terminates, no color empties, the largest never grows and the smallest
  // never shrinks. At least one of the two must lie outside the tolerance band.
  const double mean = static_cast<double>(n) / num_colors;
  const auto high = static_cast<index_t>(mean * (1.0 + kTolerance));  // over when > high
  const auto low = static_cast<index_t>(mean * (1.0 - kTolerance));   // under when < low
  const auto outside = [&](int c) { return size[c] > high || size[c] < low; };
  int num_outside = 0;
  for (int c = 0; c < num_colors; ++c) num_outside += outside(c) ? 1 : 0;

  if (num_outside == 0) {
    analysis::renumber_colors_by_size(coloring);
    return;
  }

  const Adjacency g = symmetric_adjacency(a);
  std::vector<index_t> marked_by(num_colors, -1);  // marked_by[c] == v: a neighbour of v has c
  std::vector<int>& color = coloring.color;
  for (int pass = 0; pass < kMaxPasses && num_outside > 0; ++pass) {
    bool moved = false;
    for (index_t v = 0; v < n && num_outside > 0; ++v) {
      const int from = color[v];
      if (!(static_cast<double>(size[from]) > mean)) continue;
      const bool from_outside = size[from] > high;
      for (std::size_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k) marked_by[color[g.idx[k]]] = v;
      int to = -1;
      for (int c = 0; c < num_colors; ++c) {
        if (marked_by[c] == v || !(static_cast<double>(size[c]) < mean)) continue;
        if (size[c] + 1 >= size[from] || !(from_outside || size[c] < low)) continue;
        if (to < 0 || size[c] < size[to]) to = c;
      }
      if (to < 0) continue;
      num_outside -= (outside(from) ? 1 : 0) + (outside(to) ? 1 : 0);
      --size[from];
      ++size[to];
      num_outside += (outside(from) ? 1 : 0) + (outside(to) ? 1 : 0);
      color[v] = to;
      moved = true;
    }
    if (!moved) break;
  }
  analysis::renumber_colors_by_size(coloring);
}

}  // namespace prism
