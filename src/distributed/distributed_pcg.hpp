#pragma once
// The PCG iterations over the ranks: the classic recurrences (two all-reduces per
// iteration) and Chronopoulos and Gear's single-reduction form (one), with the one-process
// solver's stopping rule, true-residual check and residual replacement
// (src/solver/pcg.hpp).

#include <prism/distributed.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "distributed/local_operations.hpp"

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace prism::distributed {

/// What the iterations need besides the vectors.
struct PcgContext {
  MPI_Comm comm = MPI_COMM_NULL;
  DistributedMatrix* a = nullptr;
  const LocalOps* ops = nullptr;
  /// z = M^{-1} r on the rank's rows (its block of the block Jacobi preconditioner).
  std::function<void(const double* r, double* z)> precondition;
  SolverOptions options;
  CgVariant variant = CgVariant::single_reduction;  ///< classic or single_reduction
};

/// What the iterations measured; the residual norms are global, the same on every rank.
struct PcgOutcome {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double rhs_norm = 0.0;
  double initial_residual_norm = 0.0;
  double residual_norm = 0.0;       ///< recursive, at the end
  double true_residual_norm = 0.0;  ///< ||b - A x|| of the returned x
  int residual_replacements = 0;
  std::string diagnosis;
  std::vector<IterationRecord> history;  ///< iteration 0, then every iteration
  DistributedPhases phases;              ///< this rank's
  double seconds = 0.0;
};

/// Solves A x = b on the rank's rows in the rank's order; x holds the initial guess.
/// Collective.
PcgOutcome distributed_pcg(const PcgContext& c, const std::vector<double>& b,
                           std::vector<double>& x);

}  // namespace prism::distributed
