#pragma once
// The multi-column Solver::solve and solve_on_backend: the columns into the solver's order
// and scaling, pcg_columns(), and back, with the report.

#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "precond/preconditioner.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace prism::solver {

/// What a multi-column solve takes from the Solver's set-up.
struct ColumnsSetup {
  backend::Backend& backend;
  const backend::Matrix& matrix;
  precond::Preconditioner& preconditioner;
  /// permutation[new] = old, or null in the natural order.
  const std::vector<index_t>* permutation;
  const SolverOptions& options;
  /// dst = factor * src from the caller's order to the solver's, and back; one column each,
  /// in the backend's memory.
  std::function<void(const backend::Vector&src, backend::Vector&dst, double factor)> to_solver,
      to_caller;
};

/// Solver::solve(b, x, rows, columns) on host memory.
MultiSolveReport solve_columns(const ColumnsSetup& setup, const double* b, double* x,
                               std::size_t rows, int columns);

/// Solver::solve_on_backend(b, x, rows, columns).
MultiSolveReport solve_columns_on_backend(const ColumnsSetup& setup, const double* b, double* x,
                                          std::size_t rows, int columns);

}  // namespace prism::solver
