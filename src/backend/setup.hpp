#pragma once
// Set-up steps a backend runs in its own memory on one matrix (Backend::begin_setup): the
// checks and the parallel coloring, on the matrix uploaded once for both. A backend
// without one (cpu) leaves every step to the host.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

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
};

}  // namespace prism::backend
