#pragma once
/// @file
/// The solves of line IC (precond/line_ic.cpp), block IC(0) on lines in a line-multicolor
/// order (the rows of a line consecutive, the lines of a color consecutive, no two lines of
/// one color coupled): M = (D + L) D^{-1} (D + L)^T, where D is block diagonal with a
/// tridiagonal block per line (the factorization's Delta) and L is A's couplings between
/// lines, each to a line of an earlier color. So each color is one parallel step over its
/// lines: a line subtracts its couplings to the lines already solved (a sparse product over
/// its rows, A's own entries) and solves its tridiagonal block by the block's Cholesky
/// factor D = L_D L_D^T, bidiagonal: one sweep down the line and one back. The forward half
/// is
///   w_c = D_c^{-1} (r_c - L_c w),        colors in order,
/// the backward half, (D + L^T) z = D w,
///   z_c = w_c + D_c^{-1} (-L^T_c z),     colors in reverse.
/// The sweeps are not the batched tridiagonal solver's call: they come between the
/// products of each color, on the lines of that color alone.
///
/// Each row is computed as the reference computes it (the same sums in the same order),
/// so the threaded host kernels give the reference's bits for any thread count.

#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::kernels {

/// Line IC's operators; host arrays for the host kernels, device arrays for the CUDA kernels.
struct LineIcView {
  index_t rows = 0;
  int colors = 0;
  const index_t* line_ptr = nullptr;   ///< line l: rows [line_ptr[l], line_ptr[l + 1])
  const index_t* color_ptr = nullptr;  ///< color c: lines [color_ptr[c], color_ptr[c + 1])
  /// Row i of L: A's entries a_ij with j in a line of an earlier color.
  CsrView<double> lower;
  /// Row i of L^T: A's entries a_ij with j in a line of a later color.
  CsrView<double> upper;
  /// The Cholesky factor L_D of the lines' blocks: sub[i] = its entry (i, i - 1) when rows
  /// i - 1 and i are in one line, else 0, and inverse_diagonal[i] = 1 / its entry (i, i).
  const double* sub = nullptr;
  const double* inverse_diagonal = nullptr;
};

/// The launches of line IC's CUDA solves, planned on the host (built and tested without
/// CUDA). Each color's rows are two ranges: its lines part, and its points part, the
/// longest run of lines of one row that ends the color (the solver orders a color's lines
/// by decreasing length, so that is every line of one row). A thread block takes a tile of
/// consecutive whole lines of a lines part and runs its two sweeps as parallel scans; the
/// points part is a thread a row, as ic0's color-set solves in SELL.
struct LineIcPlan {
  /// SELL ranges: color c's lines part is rows [range_ptr[2c], range_ptr[2c + 1]), its
  /// points part rows [range_ptr[2c + 1], range_ptr[2c + 2]).
  std::vector<index_t> range_ptr{0};
  std::vector<index_t> tile_begin;  ///< tile t: rows [tile_begin[t], tile_end[t])
  std::vector<index_t> tile_end;
  std::vector<index_t> color_tile{0};  ///< color c: tiles [color_tile[c], color_tile[c + 1])
};

/// The plan for tiles of at most `tile_rows` rows: each lines part's lines in order, a tile
/// closed before the line that would take it past tile_rows. A line longer than tile_rows
/// is a tile of its own (the CUDA kernel runs it in chunks of tile_rows). Throws
/// prism::Error when tile_rows < 1.
LineIcPlan line_ic_plan(const std::vector<index_t>& line_ptr, const std::vector<index_t>& color_ptr,
                        index_t tile_rows);

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// Lines [first, last) of the forward half (lines of one color): for each line, its rows i
/// in order t_i = r_i - sum_j l_ij w_j (the sum in the order of the row's entries, w of
/// earlier colors only), then w = L_D^{-T} L_D^{-1} t on the line by its two sweeps,
///   w_i = (t_i - sub_i w_{i-1}) / l_ii down the line,  w_i = (w_i - sub_{i+1} w_{i+1}) / l_ii
/// back (without the sub term at the line's last row).
void line_ic_forward_lines(const LineIcView& f, index_t first, index_t last, const double* r,
                           double* w);

/// Lines [first, last) of the backward half: t_i = 0 - sum_j u_ij z_j (z of later colors
/// only), the two sweeps on t, then z_i = w_i + t_i.
void line_ic_backward_lines(const LineIcView& f, index_t first, index_t last, const double* w,
                            double* z);

/// w = (D + L)^{-1} r, the colors in order (w must not alias r).
void line_ic_forward(const LineIcView& f, const double* r, double* w);

/// z = (D + L^T)^{-1} D w, the colors in reverse (z must not alias w).
void line_ic_backward(const LineIcView& f, const double* w, double* z);

}  // namespace prism::kernels::reference

namespace prism::kernels::host {

/// reference::line_ic_forward on `threads` threads, the lines of each color in parallel
/// (the reference's rows, so its bits).
void line_ic_forward(int threads, const LineIcView& f, const double* r, double* w);

/// reference::line_ic_backward likewise.
void line_ic_backward(int threads, const LineIcView& f, const double* w, double* z);

}  // namespace prism::kernels::host
