#pragma once
// The matrices `preconditioner: auto`'s scans (kernels/choice_scans.hpp) are tested on: the
// suite's generators; awkward shapes for the node blocks (one row, runs of equal patterns
// longer than a block, blocks cut by the matrix's end, rows of differing length); strengths
// tied or exactly at the thresholds (min_strength, dominance), and within an ulp of them
// with irrational 1 / sqrt(a_ii), for the rows choosing links; diagonals that only the
// pattern-level checks let through.

#include <prism/csr_matrix.hpp>
#include <prism/generators.hpp>
#include <prism/options.hpp>

#include "common/test_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {

struct ChoiceCase {
  std::string name;
  CsrMatrix<double> a;
};

/// Dense blocks of the given sizes on the diagonal (every row of a block has its pattern),
/// diagonal 2 size, off-diagonal -1.
inline CsrMatrix<double> dense_blocks(const std::vector<index_t>& sizes) {
  std::vector<Triplet> t;
  index_t first = 0;
  for (const index_t size : sizes) {
    for (index_t i = first; i < first + size; ++i) {
      for (index_t j = first; j < first + size; ++j) {
        t.push_back({i, j, i == j ? 2.0 * size : -1.0});
      }
    }
    first += size;
  }
  return csr_from_triplets(first, first, std::move(t));
}

/// A chain of nodes of `per_node` rows, `rows` rows in all (the last node cut short where
/// per_node does not divide rows); every row of node b couples to every row of nodes
/// b - 1, b and b + 1, so the rows of a node share their pattern but the last node's.
inline CsrMatrix<double> node_chain(index_t rows, index_t per_node) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < rows; ++i) {
    const index_t node = i / per_node;
    const index_t lo = std::max<index_t>(0, (node - 1) * per_node);
    const index_t hi = std::min(rows, (node + 2) * per_node);
    for (index_t j = lo; j < hi; ++j) t.push_back({i, j, i == j ? 10.0 * per_node : -1.0});
  }
  return csr_from_triplets(rows, rows, std::move(t));
}

/// An nx x ny grid, diagonal d, x-couplings -cx, y-couplings -cy: with d = 1 the
/// strengths are cx and cy exactly, so a row with two x-couplings chooses them where
/// cx >= dominance cy and cx >= min_strength, ties included.
inline CsrMatrix<double> threshold_grid(index_t nx, index_t ny, double d, double cx, double cy) {
  std::vector<Triplet> t;
  const auto id = [&](index_t x, index_t y) { return x + nx * y; };
  for (index_t y = 0; y < ny; ++y) {
    for (index_t x = 0; x < nx; ++x) {
      t.push_back({id(x, y), id(x, y), d});
      if (x + 1 < nx) couple(t, id(x, y), id(x + 1, y), -cx);
      if (y + 1 < ny) couple(t, id(x, y), id(x, y + 1), -cy);
    }
  }
  return csr_from_triplets(nx * ny, nx * ny, std::move(t));
}

/// A grid whose strengths fall within a few ulps of the default thresholds: random
/// diagonals in [2, 3) (1 / sqrt(a_ii) irrational), x-couplings of strength about
/// min_strength 0.1 and y-couplings about a quarter of the x ones (dominance 4), each
/// moved by up to 4 ulps, so that the host's roundings decide every row.
inline CsrMatrix<double> near_threshold_grid(index_t nx, index_t ny, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> diagonal(2.0, 3.0);
  std::uniform_int_distribution<int> ulps(-4, 4);
  const auto nudge = [&](double v) {
    for (int u = ulps(gen); u != 0; u += u > 0 ? -1 : 1) {
      v = std::nextafter(v, u > 0 ? 2.0 * v : 0.0);
    }
    return v;
  };
  std::vector<double> d(static_cast<std::size_t>(nx * ny));
  for (double& v : d) v = diagonal(gen);
  std::vector<Triplet> t;
  const auto id = [&](index_t x, index_t y) { return x + nx * y; };
  for (index_t y = 0; y < ny; ++y) {
    for (index_t x = 0; x < nx; ++x) {
      const index_t i = id(x, y);
      t.push_back({i, i, d[i]});
      if (x + 1 < nx) {
        const index_t j = id(x + 1, y);
        couple(t, i, j, -nudge(0.1 * std::sqrt(d[i] * d[j])));
      }
      if (y + 1 < ny) {
        const index_t j = id(x, y + 1);
        couple(t, i, j, -nudge(0.1 / 4.0 * std::sqrt(d[i] * d[j])));
      }
    }
  }
  return csr_from_triplets(nx * ny, nx * ny, std::move(t));
}

/// `a` with the diagonal entry of each row in `rows` set to `value`.
inline CsrMatrix<double> with_diagonal(CsrMatrix<double> a, const std::vector<index_t>& rows,
                                       double value) {
  for (const index_t i : rows) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) a.values[k] = value;
    }
  }
  return a;
}

/// `a` without its diagonal entry in row `row`.
inline CsrMatrix<double> without_diagonal(const CsrMatrix<double>& a, index_t row) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (i != row || a.col_idx[k] != row) t.push_back({i, a.col_idx[k], a.values[k]});
    }
  }
  return csr_from_triplets(a.rows, a.cols, std::move(t));
}

/// A ring of n >= 3 rows, diagonal 3, the coupling of rows i and i + 1 (mod n) -w[i mod
/// w.size()]: every row chooses both neighbours, so the links form one cycle (find_lines
/// cuts it at its weakest link, among tied ones at the smallest row).
inline CsrMatrix<double> ring(index_t n, const std::vector<double>& w) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    const index_t next = (i + 1) % n;
    const double c = -w[static_cast<std::size_t>(i) % w.size()];
    t.push_back({i, i, 3.0});
    t.push_back({i, next, c});
    t.push_back({next, i, c});
  }
  return csr_from_triplets(n, n, std::move(t));
}

/// Rings whose cut is decided by a weakest link, by tied weakest links, by all links equal.
inline std::vector<ChoiceCase> ring_cases() {
  return {{"ring of equal links", ring(12, {1.0})},
          {"ring with a weak link", ring(31, {1.0, 0.9, 1.1, 1.0, 0.95})},
          {"ring of tied weakest links", ring(40, {1.0, 1.2, 1.2, 1.0})}};
}

/// The suite's generators, small.
inline std::vector<ChoiceCase> generator_choice_cases() {
  return {{"poisson2d 31x33", poisson2d(31, 33)},
          {"poisson3d 13x9x7", poisson3d(13, 9, 7)},
          {"poisson3d 27-point 9^3", poisson3d(9, 9, 9, 27)},
          {"elasticity3d 4x3x3", elasticity3d(4, 3, 3, 2, {1.0, 100.0})},
          {"anisotropic2d x", anisotropic2d(40, 7, 1.0, 1e-4)},
          {"anisotropic3d x", anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3)},
          {"anisotropic3d z", anisotropic3d(5, 6, 9, 1e-3, 1e-3, 1.0)},
          {"anisotropic3d planes", anisotropic3d(8, 7, 6, 1.0, 1.0, 1e-3)},
          {"layered", layered(8, 8, 8, 4, {1.0, 1e6})},
          {"stretched3d", stretched3d(10, 9, 16, 1000.0)},
          {"rotated3d diagonal", rotated3d(10, 10, 3, 1.0, 1e-3, 1e-3)},
          {"rotated3d antidiagonal", rotated3d(10, 10, 3, 1e-4, 1.0, 1e-2)}};
}

/// Awkward shapes and values, every diagonal entry positive and finite.
inline std::vector<ChoiceCase> awkward_choice_cases() {
  const double up = std::nextafter(0.1, 1.0), down = std::nextafter(0.1, 0.0);
  return {{"one row", diagonal_only(1)},
          {"diagonal 33", diagonal_only(33)},
          {"dense 150 (a run past 64 rows)", dense_blocks({150})},
          {"dense blocks 64, 65, 1, 128, 3", dense_blocks({64, 65, 1, 128, 3})},
          {"nodes of 3, the last cut by the end", node_chain(3 * 11 + 2, 3)},
          {"nodes of 3, 301 rows", node_chain(301, 3)},
          {"nodes of 5, 4099 rows", node_chain(4099, 5)},
          {"rows of differing length", random_symmetric(1000, 3000, 7)},
          {"band of differing rows", random_band(300, 20, 1.0, 8)},
          {"all couplings equal", threshold_grid(17, 9, 1.0, 0.25, 0.25)},
          {"lines: one strong axis", threshold_grid(33, 5, 1.0, 1.0, 1e-3)},
          {"chain", threshold_grid(70, 1, 1.0, 0.5, 0.0)},
          {"dominance exactly 4", threshold_grid(19, 6, 1.0, 0.4, 0.1)},
          {"dominance just below 4", threshold_grid(19, 6, 1.0, 0.4, up)},
          {"dominance just above 4", threshold_grid(19, 6, 1.0, 0.4, down)},
          {"strength exactly min_strength", threshold_grid(19, 6, 1.0, 0.1, 0.01)},
          {"strength just below min_strength", threshold_grid(19, 6, 1.0, down, 0.01)},
          {"strength near min_strength, diagonal 3", threshold_grid(19, 6, 3.0, 0.3, 0.03)},
          {"near the thresholds 1", near_threshold_grid(37, 29, 1)},
          {"near the thresholds 2", near_threshold_grid(64, 65, 2)}};
}

/// Matrices whose diagonal the values check rejects (zero, negative, NaN, infinite,
/// several bad rows) but the pattern check lets through, and one without a stored diagonal
/// entry, which only the storage check (level none) lets through.
inline std::vector<ChoiceCase> bad_diagonal_cases() {
  const CsrMatrix<double> a = anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3);
  const index_t last = a.rows - 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  return {{"zero diagonal in row 0", with_diagonal(a, {0}, 0.0)},
          {"negative diagonal in the last row", with_diagonal(a, {last}, -1.0)},
          {"NaN diagonal in rows 200 and 17", with_diagonal(a, {200, 17}, nan)},
          {"infinite diagonal in row 129", with_diagonal(a, {129}, inf)},
          {"no diagonal entry in row 40", without_diagonal(a, 40)}};
}

}  // namespace prism::test
