#pragma once
// Set-up steps a backend runs in its own memory on one matrix (Backend::begin_setup): the
// checks, the parallel colorings and the symmetric permutation, on the matrix uploaded
// once for all of them. A backend without one (cpu) leaves every step to the host.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/lines.hpp>
#include <prism/options.hpp>

#include "backend/ordered_matrix.hpp"

#include "kernels/parallel_coloring.hpp"

#include <memory>
#include <vector>

namespace prism::backend {

class SetupSession {
 public:
  virtual ~SetupSession() = default;
  /// The checks of solver.check `level` (kernels/setup_checks.hpp; for full also the values
  /// check of kernels/matrix_values.hpp with `symmetry_tolerance`): true when they found no
  /// defect. False: the caller runs the host check (prism::check_spd_candidate and
  /// friends), which names the defect.
  virtual bool check(MatrixCheck level, double symmetry_tolerance) = 0;
  /// kernels' Jones-Plassmann coloring of the rows (kernels/parallel_coloring.hpp) on a
  /// matrix whose storage passed check(): colors[i] per row; returns the number of colors.
  virtual int color_rows(std::vector<int>& colors) = 0;
  /// kernels' ordered greedy coloring (first fit in the order rank[row]; empty: natural),
  /// on a matrix whose storage passed check(): colors[i] per row.
  virtual kernels::GreedyColoring color_rows_in_order(const std::vector<index_t>& rank,
                                                      std::vector<int>& colors) = 0;
  /// coloring_of(colors, count) of color_rows() (`method` jones_plassmann) or of
  /// color_rows_in_order(rank) (parallel_greedy; `result` says what it did), with the
  /// renumbering by size and the permutation made in the backend's memory: the
  /// permutation and color_ptr come back, coloring.color only when `with_colors`. The
  /// session keeps an exact coloring's permutation: a later permute() or permute_kept()
  /// given this very vector (the same data and size: coloring.permutation or a vector
  /// moved from it, its entries unchanged) uses it without uploading it again. False where
  /// the backend leaves this to the host (then the caller colors with the calls above and
  /// coloring_of).
  virtual bool ordered_coloring(ColoringMethod method, const std::vector<index_t>& rank,
                                bool with_colors, Coloring& coloring,
                                kernels::GreedyColoring& result) {
    static_cast<void>(method);
    static_cast<void>(rank);
    static_cast<void>(with_colors);
    static_cast<void>(coloring);
    static_cast<void>(result);
    return false;
  }
  /// prism::color_blocks(G A G^T, blocks, order) on a matrix whose storage passed check(),
  /// with its permutation composed back to A's rows: G the rows of A in group order
  /// (grouping[new] = old, a permutation of the rows, not checked; empty: the identity),
  /// `blocks` a partition of G A G^T's rows, and out.permutation[k] = grouping[that
  /// permutation[k]]; num_colors, color_ptr, blocks and color_rows as color_blocks gives
  /// them. The session keeps out.permutation as ordered_coloring() keeps its own, for a
  /// later permute() or permute_kept() given this very vector. False where the backend
  /// cannot give color_blocks' answer exactly (before check(), a vertex order it does not
  /// run, more rounds than its limit, blocks that do not fit A, memory): then the caller
  /// colors on the host.
  virtual bool color_blocks(const std::vector<index_t>& grouping, const BlockPartition& blocks,
                            VertexOrder order, BlockColoring& out) {
    static_cast<void>(grouping);
    static_cast<void>(blocks);
    static_cast<void>(order);
    static_cast<void>(out);
    return false;
  }
  /// prism::permute_symmetric(a, permutation, &source) (`permutation` a permutation of the
  /// rows, not checked) on a matrix whose storage passed check(): true with `ordered` and
  /// `source` equal to the host's; false where the backend's memory cannot hold the work
  /// (then the caller permutes on the host).
  virtual bool permute(const std::vector<index_t>& permutation, CsrMatrix<double>& ordered,
                       std::vector<index_t>& source) = 0;
  /// permute() that keeps P A P^T in the backend's memory instead of copying it to the
  /// host (backend/ordered_matrix.hpp; the session's copy of A's values goes with it):
  /// nothing comes back, not even the map of its entries to A's, which the consumers built
  /// from it take there. Null where the backend cannot (then the caller permutes with
  /// permute()).
  virtual std::unique_ptr<OrderedMatrix> permute_kept(const std::vector<index_t>& permutation) {
    static_cast<void>(permutation);
    return nullptr;
  }

  // The scans of `preconditioner: auto`'s choice (src/solver/preconditioner_choice.cpp) on
  // the matrix this session holds: each answers exactly as its host function, or leaves
  // it to the host (false, -1) where the backend cannot, or where check() did not pass.

  /// prism::find_node_blocks(A, max_size): true with `blocks` equal to the host's.
  virtual bool find_node_blocks(index_t max_size, BlockPartition& blocks) {
    static_cast<void>(max_size);
    static_cast<void>(blocks);
    return false;
  }
  /// The first row whose diagonal entry (0 where none is stored) is not positive and
  /// finite, by a scan in row order: true with `row` that row, or -1 where every one is.
  /// After check() at level full no scan is needed: the values check proved them all.
  virtual bool first_bad_diagonal(index_t& row) {
    static_cast<void>(row);
    return false;
  }
  /// prism::rows_choosing_links(A, options), or -1 where the host counts (also where that
  /// throws: bad options, a diagonal first_bad_diagonal() names).
  virtual index_t rows_choosing_links(const LineOptions& options) {
    static_cast<void>(options);
    return -1;
  }
  /// prism::find_lines(A, options): true with `out` equal to the host's field by field
  /// (each row's choice and the mutual links in the backend's memory, the chains, their
  /// order and the report on the host); false where the host finds them (also where
  /// find_lines throws).
  virtual bool find_lines(const LineOptions& options, Lines& out) {
    static_cast<void>(options);
    static_cast<void>(out);
    return false;
  }
};

}  // namespace prism::backend
