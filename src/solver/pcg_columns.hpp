#pragma once
// PCG on k right-hand sides at once: k independent recurrences advanced together, each
// column with its own alpha, beta and stopping test, the matrix and (where the
// preconditioner can, Preconditioner::applies_columns_at_once) the factor read once per
// iteration for all the columns still iterating.

#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "precond/preconditioner.hpp"
#include "solver/pcg.hpp"

#include <vector>

namespace prism::solver {

/// What pcg_columns() measures: each column as pcg() reports one solve (its history holds
/// the residuals alone; the phase times are the whole solve's), and the whole solve's times.
struct ColumnsResult {
  std::vector<PcgResult> columns;
  double seconds = 0.0;
  PhaseArray phase_seconds{};  ///< the solve's phase times, all columns together
  int iterations = 0;          ///< iterations of the recurrences (the most of any column)
  bool device_loop = false;    ///< iterations ran as device-side loops (ColumnLoop)
};

/// Solves A X = B for the k columns of b and x (blocks of k columns of a.rows() rows,
/// backend/columns.hpp); x holds the initial guesses on entry. Column j stops by pcg()'s
/// rules with its own target max(options.tolerance ||b_j||, absolute_tolerance[j]) (the
/// caller scales the absolute tolerance with the column), the residual replacements
/// included, and its arithmetic is that of pcg() with timing: phases on that column: the
/// same operations in the same order, so the same iterations and, where the backend's
/// multi-column kernels sum as its one-column ones (cpu), the same bits. A converged,
/// broken-down or exhausted column leaves the set the operations work on (the set is
/// compacted: a list of the active columns, the blocks stay where they are). With
/// timing: phases, graph: off, a preconditioner that goes through the host or a backend
/// without loops over columns, the iterations run launch by launch with a host check every
/// options.check_every iterations; otherwise (cuda) the iterations between two starts of a
/// column's direction run as one device-side loop (backend::ColumnLoop) that checks every
/// column at the same check points and hands back to the host where one stops, the same
/// operations in the same order as the launches.
ColumnsResult pcg_columns(backend::Backend& backend, const backend::Matrix& a,
                          precond::Preconditioner& preconditioner, const backend::Vector& b,
                          backend::Vector& x, int k, const std::vector<double>& absolute_tolerance,
                          const SolverOptions& options);

}  // namespace prism::solver
