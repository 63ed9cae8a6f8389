#pragma once
/// @file
/// Structural analysis: matrix checks, greedy multicolor ordering (Boost.Graph),
/// level sets, symmetric permutations. The color-set method (Suchoski 2012) orders
/// the unknowns color by color so that no two unknowns of one color are coupled.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include <vector>

namespace prism {

/// What inspect_matrix() found.
struct MatrixProperties {
  bool square = false;
  bool structurally_symmetric = false;
  bool numerically_symmetric = false;  ///< |a_ij - a_ji| <= 1e-12 * max |a| (the default
                                       ///< solver.symmetry_tolerance)
  bool full_diagonal = false;          ///< every diagonal entry stored
  bool positive_diagonal = false;      ///< every diagonal entry > 0
  index_t first_bad_row = -1;          ///< first row that breaks a property, or -1
  double max_asymmetry = 0.0;          ///< max |a_ij - a_ji|
};

/// Inspects a matrix without throwing.
MatrixProperties inspect_matrix(const CsrMatrix<double>& a);

/// Throws InvalidMatrixError naming the first problem (and its row) unless the
/// matrix is square, symmetric in structure and values (|a_ij - a_ji| <= symmetry_tolerance
/// * max|a|), and has finite values and a positive diagonal. The checks' messages number
/// rows and columns as `numbering` says (from 0 by default, as `a` indexes them).
void check_spd_candidate(const CsrMatrix<double>& a, double symmetry_tolerance = 1e-12,
                         Numbering numbering = Numbering::from_zero);

/// The pattern part of check_spd_candidate (solver.check: pattern): square, consistent
/// storage with sorted unique columns, symmetric structure, every diagonal entry stored;
/// the values are not read.
void check_pattern(const CsrMatrix<double>& a, Numbering numbering = Numbering::from_zero);

/// The storage part alone (solver.check: none): square, row pointers and columns in
/// range, columns sorted and unique, so that nothing prism runs reads out of bounds.
void check_storage(const CsrMatrix<double>& a, Numbering numbering = Numbering::from_zero);

/// For a structurally symmetric matrix, the entry holding a(j, i) for each entry
/// k = a(i, j). Throws InvalidMatrixError on an entry without a mirror.
std::vector<index_t> mirror_entries(const CsrMatrix<double>& a,
                                    Numbering numbering = Numbering::from_zero);

/// check_spd_candidate() for new values on a pattern it already accepted: one pass with
/// the mirror map. On a problem it runs the full check, which names it.
void check_spd_candidate_values(const CsrMatrix<double>& a, const std::vector<index_t>& mirror,
                                double symmetry_tolerance = 1e-12,
                                Numbering numbering = Numbering::from_zero);

/// A multicolor ordering. Colors are renumbered by decreasing size (color 0 is the
/// largest); within a color, rows keep their original relative order.
struct Coloring {
  int num_colors = 0;
  std::vector<int> color;            ///< color of each original row
  std::vector<index_t> permutation;  ///< permutation[new] = old
  std::vector<index_t> color_ptr;    ///< rows [color_ptr[c], color_ptr[c+1]) of the new order
};

/// Greedy coloring of the adjacency graph of A (off-diagonal pattern, symmetrized)
/// with boost::sequential_vertex_coloring in the given vertex order.
Coloring color_matrix(const CsrMatrix<double>& a, VertexOrder order);

/// Level-cyclic multicolor ordering (LMC) of the adjacency graph of A with `colors`
/// colors, raised to the largest degree + 1 so that a free color always exists. Rows
/// are visited in index order; row v takes the level L0 = 1 + the largest level of its
/// already colored neighbours (0 without any: the level-set depth of the natural order)
/// and the first color (L0 + t) mod colors, t = 0, 1, ..., that none of them has, with
/// level L0 + t. Colors stay in index order (never renumbered by size), so a coupling
/// keeps its natural-order direction unless it crosses a wrap of the cycle: with as many
/// colors as levels the factor is natural-order IC(0), with few it is a multicolor one
/// with balanced colors. Empty colors are dropped. On G3_circuit (CPU measurement,
/// IC(0)-PCG to 1e-8): 411 iterations with 8 colors, 371 with 16, 334 with 64, against
/// 549 for the greedy 4-coloring and 298 in natural order; on the 7-point Poisson grid
/// it gains 2-9% over red-black. Throws InvalidMatrixError if A is not square, or
/// ConfigError when colors < 1.
Coloring level_cyclic_coloring(const CsrMatrix<double>& a, int colors);

/// Jones-Plassmann coloring (Jones & Plassmann 1993: hash priorities, first fit) with
/// iterated greedy recoloring passes (Culberson 1992) of a structurally symmetric pattern,
/// on the host: the same coloring as the GPU's (kernels/parallel_coloring.hpp), colors then
/// renumbered by decreasing size as color_matrix's. Throws InvalidMatrixError if A is not
/// square.
Coloring jones_plassmann_coloring(const CsrMatrix<double>& a);

/// color_matrix(a, order)'s coloring computed as the GPU computes it (parallel_greedy,
/// kernels/parallel_coloring.hpp): Jones-Plassmann rounds whose priorities are the vertex
/// order, which reproduce sequential first fit exactly, on the host. Past the round limit
/// (4096) the rows left take hash priorities and recoloring passes (a valid coloring, maybe
/// with more colors). For a structurally symmetric pattern; throws InvalidMatrixError if A
/// is not square.
Coloring parallel_greedy_coloring(const CsrMatrix<double>& a, VertexOrder order);

/// The Coloring of a color per row (colors 0 .. count-1), renumbered by decreasing size.
Coloring coloring_of(std::vector<int> color, int count);

/// Evens the color sizes of a coloring of A (from color_matrix) in place: vertices of
/// colors larger than N / colors move, in index order, to the smallest color below the
/// mean that none of their neighbours has, until every size is within 2% of the mean,
/// no move is possible, or 8 passes are done; then colors are renumbered by decreasing
/// size. The result is still valid, has the same number of colors, its largest color
/// is no larger and its smallest no smaller. Deterministic; O(nnz + N * colors) per
/// pass. Suchoski 2012 (future work) suggests maximising the smallest color, which
/// bounds the parallel workload of a color-set step; the moves are the vertex-centric
/// balancing of Lu et al. (IEEE TPDS 2017). Throws InvalidMatrixError if A is not
/// square or the coloring does not fit it.
void balance_coloring(const CsrMatrix<double>& a, Coloring& coloring);

/// True when no stored off-diagonal entry couples two rows of the same color.
bool is_valid_coloring(const CsrMatrix<double>& a, const std::vector<int>& color);

/// Level sets of the lower triangular solve with L = tril(A): level(i) = 1 + max
/// level(j) over the entries j < i of row i. Rows are grouped by level.
struct LevelSets {
  int num_levels = 0;
  std::vector<int> level;            ///< level of each row
  std::vector<index_t> permutation;  ///< rows sorted by level (stable): permutation[new] = old
  std::vector<index_t> level_ptr;
};
LevelSets level_sets(const CsrMatrix<double>& a);

/// Size statistics of a partition given by its set pointers (ptr.size() = sets + 1).
SetStats set_stats(const std::vector<index_t>& ptr);

/// B = P A P^T with B(i, j) = A(perm[i], perm[j]). With `source`, also the entry of A
/// each entry of B came from (b.values[k] = a.values[(*source)[k]]), so new values on
/// the same pattern can be permuted by a gather.
CsrMatrix<double> permute_symmetric(const CsrMatrix<double>& a, const std::vector<index_t>& perm,
                                    std::vector<index_t>* source = nullptr);

/// inverse[perm[i]] = i. Throws InvalidMatrixError if perm is not a permutation.
std::vector<index_t> inverse_permutation(const std::vector<index_t>& perm);

}  // namespace prism
