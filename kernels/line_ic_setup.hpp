#pragma once
/// @file
/// Line IC's set-up (precond/line_ic.cpp) on A in its line-multicolor order (the rows of a
/// line consecutive, the lines of a color consecutive): the split of A's entries into the
/// solves' operators (kernels/line_ic.hpp), and one attempt of the block factorization
/// BIC(0) of Concus, Golub and Meurant on the lines. The reference is what the host set-up
/// runs; the CUDA twins (kernels/cuda/line_ic_setup.hpp) give the same arrays and the same
/// factor, bit for bit (the same operations in the same order, no contracted FMA).

#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::kernels {

/// Where line IC's operators take their values: entries of A (indices into its CSR).
struct LineIcSplit {
  /// L: row i's entries a_ij with j in a line of an earlier color; U (L^T's pattern): those
  /// with j in a line of a later color. Columns in A's order; source = A's entry.
  std::vector<index_t> lower_ptr{0}, lower_col, lower_source;
  std::vector<index_t> upper_ptr{0}, upper_col, upper_source;
  /// Row i's diagonal entry, and its coupling to row i - 1 where that row is in i's line
  /// (-1: none).
  std::vector<index_t> diagonal_source, sub_source;
  /// The first entry (rows in order, columns in order) that couples two lines of one color,
  /// -1 when none: then the arrays above are left empty (not a line coloring).
  index_t coupled_row = -1, coupled_col = -1;
};

/// One attempt's operands (read) and the factor it writes; host arrays for the reference,
/// device arrays for the CUDA kernel.
struct LineIcAttemptView {
  index_t rows = 0;
  const index_t* line_ptr = nullptr;  ///< line l: rows [line_ptr[l], line_ptr[l + 1])
  const index_t* line_of = nullptr;   ///< the line of each row
  CsrView<double> lower;              ///< L (LineIcSplit's) with A's values
  const double* diagonal = nullptr;   ///< a_ii (0 where not stored)
  const double* below = nullptr;      ///< a_{i,i-1} inside i's line (0: none)
  /// The factor L_D of the lines' blocks (kernels::LineIcView's sub and inverse_diagonal).
  double* sub = nullptr;
  double* inverse_diagonal = nullptr;
  /// Sigma, the band of the lines' Delta^{-1}: band_diagonal[i] = Sigma(i, i), band_off[i] =
  /// Sigma(i, i + 1) inside a line; written for each line done, read by the later colors.
  double* band_diagonal = nullptr;
  double* band_off = nullptr;
};

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// The split of `a` (sorted columns not needed; values not read) for the lines of line_ptr
/// and their colors (color c: lines [color_ptr[c], color_ptr[c + 1])): each entry off the
/// diagonal couples row i to an earlier color (L), a later one (U), the row before it in its
/// line (sub_source), or another row of its line (left out: D stays tridiagonal).
LineIcSplit line_ic_split(CsrView<double> a, const std::vector<index_t>& line_ptr,
                          const std::vector<index_t>& color_ptr);

/// The line of each row.
std::vector<index_t> line_ic_line_of(const std::vector<index_t>& line_ptr);

/// Lines [first, last) of one attempt of BIC(0) with diagonal `shift` (lines of one color,
/// after those of every earlier color; the lines in order, each line's rows in order): for
/// row i, Delta(i, i) = d + shift |d| - (L Sigma L^T)(i, i), d = a_ii, and (from the line's
/// second row) l_{i,i-1} = (a_{i,i-1} - (L Sigma L^T)(i, i-1)) / l_{i-1,i-1}, l_ii^2 =
/// Delta(i, i) - l_{i,i-1}^2, the products over the band of Sigma (entries of rows i and m
/// of L at most one row apart in one line); then Sigma's band on the line from its end
/// (Takahashi). Returns the first row whose pivot l_ii^2 is not positive and finite (and
/// the pivot in `pivot`), -1 when none.
index_t line_ic_attempt_lines(const LineIcAttemptView& f, index_t first, index_t last, double shift,
                              double& pivot);

}  // namespace prism::kernels::reference
