#pragma once
/// @file
/// Lines: chains of strongly coupled unknowns, found from the matrix alone, for line
/// smoothers and line-block preconditioners whose diagonal blocks are tridiagonal. The
/// construction follows Mavriplis' implicit lines for stretched unstructured meshes (each
/// vertex joins its strongest edges where they dominate the others; J. Comput. Phys. 145,
/// 1998), with the symmetric strength of smoothed aggregation (|a_ij| / sqrt(a_ii a_jj),
/// Vanek, Mandel and Brezina, Computing 56, 1996) in place of edge weights, and links kept
/// only where both rows choose each other, so that the result does not depend on the
/// numbering of the unknowns.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/report.hpp>

#include <vector>

namespace prism {

/// What find_lines() found.
struct LineReport {
  SetStats lengths;            ///< number of lines and their lengths (min, mean, max)
  index_t linked_rows = 0;     ///< rows in lines of length >= 2
  double inside_weight = 0.0;  ///< share of sum_{i != j} |a_ij| between consecutive rows
                               ///< of a line (0 when A has no off-diagonal weight)
};

/// A partition of the unknowns into lines.
struct Lines {
  std::vector<index_t> permutation;  ///< rows: permutation[new] = old; each line's rows
                                     ///< consecutive and in chain order
  BlockPartition lines;              ///< the lines, in the new row order
  LineReport report;
};

/// Lines of strong couplings. Row i chooses its k strongest off-diagonal couplings
/// (strength s_ij = |a_ij| / sqrt(a_ii a_jj)), k <= 2 the largest for which each chosen
/// one is >= min_strength and >= dominance times every coupling not chosen; rows i and j
/// are linked when each chooses the other. Every row then has at most two links, so the
/// links form chains and cycles; a cycle is cut at its weakest link. A chain longer than
/// max_length is cut into pieces; rows without links are lines of length 1. Lines are
/// ordered by their smallest row, each read from its end with the smaller row index.
///
/// Numbering: choices are made by strength thresholds, never by picking among equals, so
/// permuting A symmetrically permutes the lines (same rows, same chain order up to
/// reversal). Exact ties matter in two places only: a cycle whose weakest links tie is cut
/// at the tied link with the smallest row index, and a chain cut by max_length whose
/// strengths read the same from both ends, where equal pieces cannot fall symmetrically,
/// is cut starting from the end with the smaller row index.
///
/// On the 7-point anisotropic Laplacian with one strong axis the lines are the grid lines
/// of that axis; on the isotropic Laplacian every row has at least three equal couplings,
/// so every line has length 1; with two equally strong axes (planes) likewise. O(nnz +
/// rows). Throws InvalidMatrixError if A is not square or a diagonal entry is not
/// positive and finite, ConfigError on bad options.
Lines find_lines(const CsrMatrix<double>& a, const LineOptions& options = {});

/// The rows that choose at least one coupling (find_lines' first step alone, one pass over
/// A on the host threads, no lines built): an upper bound of LineReport::linked_rows, so
/// that a caller can tell cheaply where lines cannot hold many rows. Throws as find_lines.
index_t rows_choosing_links(const CsrMatrix<double>& a, const LineOptions& options = {});

/// The share of sum_{i != j} |a_ij| that couples consecutive rows of a line (the part a
/// tridiagonal line solve takes in), 0 when A has none. `a` and `lines` in the same
/// order. Throws InvalidMatrixError if the lines do not fit A.
double line_weight(const CsrMatrix<double>& a, const BlockPartition& lines);

}  // namespace prism
