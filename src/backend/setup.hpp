#pragma once
// Set-up steps a backend runs in its own memory on one matrix (Backend::begin_setup): the
// checks, the parallel colorings and the symmetric permutation, on the matrix uploaded
// once for all of them. A backend without one (cpu) leaves every step to the host.

#include <prism/analysis.hpp>
#include <prism/csr_matrix.hpp>
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
};

}  // namespace prism::backend
