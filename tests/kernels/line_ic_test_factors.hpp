#pragma once
// Random line IC factors (kernels/line_ic.hpp) for the kernel tests: lines of given lengths
// by color, random couplings to rows of earlier colors (L^T's the transpose), random
// couplings along the lines and diagonals, and the factor as a dense matrix.

#include "backend/factors.hpp"
#include "kernels/line_ic.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <random>
#include <vector>

namespace prism::test {

/// lengths[c]: the lengths of the lines of color c, in order.
inline backend::LineIcFactor random_line_ic_factor(const std::vector<std::vector<index_t>>& lengths,
                                                   unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> coupling(-0.3, 0.3), diagonal(0.5, 2.0);
  // Couplings between lines are A's entries; sub and inverse_diagonal are any bidiagonal
  // factor of the lines' blocks.
  backend::LineIcFactor f;
  f.color_ptr.push_back(0);
  std::vector<index_t> color_row{0};  // color c: rows [color_row[c], color_row[c + 1])
  for (const auto& color : lengths) {
    for (const index_t length : color) f.line_ptr.push_back(f.line_ptr.back() + length);
    f.color_ptr.push_back(static_cast<index_t>(f.line_ptr.size()) - 1);
    color_row.push_back(f.line_ptr.back());
  }
  const index_t n = f.line_ptr.back();
  f.sub.assign(static_cast<std::size_t>(n), 0.0);
  f.inverse_diagonal.resize(static_cast<std::size_t>(n));
  for (std::size_t l = 0; l + 1 < f.line_ptr.size(); ++l) {
    for (index_t i = f.line_ptr[l] + 1; i < f.line_ptr[l + 1]; ++i) f.sub[i] = coupling(gen);
  }
  for (double& d : f.inverse_diagonal) d = diagonal(gen);
  // Up to 4 couplings a row, to random rows of earlier colors.
  std::vector<std::vector<std::pair<index_t, double>>> rows(static_cast<std::size_t>(n));
  for (std::size_t c = 1; c < lengths.size(); ++c) {
    std::uniform_int_distribution<index_t> earlier(0, color_row[c] - 1), count(0, 4);
    for (index_t i = color_row[c]; i < color_row[c + 1]; ++i) {
      std::vector<index_t> cols;
      for (index_t k = count(gen); k > 0; --k) cols.push_back(earlier(gen));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (const index_t j : cols) rows[i].emplace_back(j, coupling(gen));
    }
  }
  std::vector<std::vector<std::pair<index_t, double>>> transposed(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    for (const auto& [j, v] : rows[i]) transposed[j].emplace_back(i, v);
  }
  const auto to_csr = [n](const std::vector<std::vector<std::pair<index_t, double>>>& r,
                          CsrMatrix<double>& m) {
    m.rows = m.cols = n;
    m.row_ptr.assign(1, 0);
    for (const auto& row : r) {
      for (const auto& [j, v] : row) {
        m.col_idx.push_back(j);
        m.values.push_back(v);
      }
      m.row_ptr.push_back(static_cast<index_t>(m.col_idx.size()));
    }
  };
  to_csr(rows, f.lower);
  to_csr(transposed, f.upper);
  return f;
}

inline kernels::LineIcView line_ic_view(const backend::LineIcFactor& f) {
  const auto csr = [](const CsrMatrix<double>& m) {
    return kernels::CsrView<double>{m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(),
                                    m.values.data()};
  };
  kernels::LineIcView v;
  v.rows = f.line_ptr.back();
  v.colors = static_cast<int>(f.color_ptr.size()) - 1;
  v.line_ptr = f.line_ptr.data();
  v.color_ptr = f.color_ptr.data();
  v.lower = csr(f.lower);
  v.upper = csr(f.upper);
  v.sub = f.sub.data();
  v.inverse_diagonal = f.inverse_diagonal.data();
  return v;
}

/// The operators as dense matrices: D (the lines' blocks, L_D L_D^T) and L.
inline void dense_line_ic(const backend::LineIcFactor& f, Eigen::MatrixXd& d, Eigen::MatrixXd& l) {
  const index_t n = f.line_ptr.back();
  Eigen::MatrixXd factor = Eigen::MatrixXd::Zero(n, n);
  l = Eigen::MatrixXd::Zero(n, n);
  for (index_t i = 0; i < n; ++i) {
    factor(i, i) = 1.0 / f.inverse_diagonal[i];
    if (i > 0) factor(i, i - 1) = f.sub[i];
    for (index_t k = f.lower.row_ptr[i]; k < f.lower.row_ptr[i + 1]; ++k) {
      l(i, f.lower.col_idx[k]) = f.lower.values[k];
    }
  }
  d = factor * factor.transpose();
}

/// The awkward cases: a single row; lines of 1, 2 and 37 rows, a color each; mixed lengths
/// in three colors; many lines in four colors; lines longer than a GPU tile (1024 rows),
/// one of exactly a tile; colors of lines of one row only (several GPU blocks of them, odd
/// counts), next to one-row colors; a color whose lines of one row come before a longer
/// line as well as after it.
inline std::vector<std::vector<std::vector<index_t>>> line_ic_cases() {
  std::vector<std::vector<index_t>> many(4);
  std::mt19937 gen(3);
  std::uniform_int_distribution<index_t> length(1, 70);
  for (auto& color : many) {
    for (int l = 0; l < 300; ++l) color.push_back(length(gen));
    std::sort(color.rbegin(), color.rend());
  }
  const std::vector<index_t> points_a(517, 1), points_b(301, 1), points_c(5, 1);
  std::vector<index_t> mixed{96, 96, 95, 3, 2};
  mixed.resize(mixed.size() + 313, 1);
  return {{{1}},
          {{37}, {2}, {1}},
          {{1}, {2}, {37}},
          {{37, 37, 2, 1, 1}, {37, 2, 2, 1}, {1}},
          many,
          {{300, 5}, {1000}, {257, 256, 255, 1}},
          {{2500, 1, 1}, {1024, 1023, 2}, {1025}, {1}},
          {points_a, {1}, points_b, points_c},
          {mixed, {1}, {1, 7, 1, 1}, mixed}};
}

}  // namespace prism::test
