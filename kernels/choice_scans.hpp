#pragma once
// The passes over a whole matrix that `preconditioner: auto` makes before any ordering
// (src/solver/preconditioner_choice.cpp), as kernels, so that a backend runs them where the
// matrix already is: the comparison of adjacent rows' patterns behind prism::find_node_blocks,
// the diagonal scan (1 / sqrt(a_ii) and the first row whose diagonal is not positive and
// finite), the count of prism::rows_choosing_links and find_lines' links (each row's
// choice and the mutual ones). Each result equals the host
// function's exactly, on a matrix whose columns are sorted and unique in every row. The
// CUDA twins are in kernels/cuda/choice_scans.hpp.

#include "kernels/csr_view.hpp"

#include <prism/types.hpp>

namespace prism::kernels::reference {

/// The block pointers of prism::find_node_blocks(a, max_size) (max_size >= 1): maximal runs
/// of consecutive rows with the same column pattern, each cut into pieces of max_size rows
/// from its first row. Writes ptr[0 .. count] (`ptr`: rows + 1 entries) and returns count.
index_t node_block_ptr(const CsrView<double>& a, index_t max_size, index_t* ptr);

/// r[i] = 1 / sqrt(a_ii) in every row whose diagonal entry (0 where none is stored) is
/// positive and finite; returns the first row where it is not (r there unspecified), -1
/// when none. The scan of prism::rows_choosing_links' strengths and of auto's verdict on
/// lines ("row i has no positive diagonal entry").
index_t inverse_sqrt_diagonal(const CsrView<double>& a, double* r);

/// prism::rows_choosing_links(a, {dominance, min_strength}) with r from
/// inverse_sqrt_diagonal(): the rows i whose three strongest off-diagonal strengths
/// s_ij = |a_ij| (r_i r_j), t0 >= t1 >= t2 (0 where fewer), have t_k > 0, t_k >= min_strength
/// and t_k >= dominance t_{k+1} for k = 1 or k = 0, in the host's operations exactly (no
/// fused multiply-add), so that strengths at the thresholds fall the same way.
index_t rows_choosing_links(const CsrView<double>& a, const double* r, double dominance,
                            double min_strength);

/// Row i's choice (prism::find_lines' and rows_choosing_links()'): the number k <= 2 of
/// couplings it chooses, as rows_choosing_links() decides it, and their columns
/// col[0 .. k), the strongest first (col[k ..] -1). r as for rows_choosing_links().
int choose_links(const CsrView<double>& a, const double* r, index_t i, double dominance,
                 double min_strength, index_t col[2]);

/// prism::find_lines' choice: chosen[2 i], chosen[2 i + 1] (`chosen`: 2 rows entries) the
/// k <= 2 columns row i chooses, k as rows_choosing_links() decides it (0 where the row
/// chooses none), the strongest first, among equal strengths the one met first in the row;
/// -1 after the last.
void chosen_links(const CsrView<double>& a, const double* r, double dominance, double min_strength,
                  index_t* chosen);

/// find_lines' links from chosen_links(): links[2 i], links[2 i + 1] the rows j of
/// chosen[2 i], chosen[2 i + 1] that chose i back, in that order, -1 after the last.
void mutual_links(index_t rows, const index_t* chosen, index_t* links);

}  // namespace prism::kernels::reference
