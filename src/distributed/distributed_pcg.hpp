#pragma once
// The PCG iterations over the ranks: the classic recurrences (two all-reduces per
// iteration) and Chronopoulos and Gear's single-reduction form (one), with the one-process
// solver's stopping rule, true-residual check and residual replacement
// (src/solver/pcg.hpp).

#include <prism/distributed.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "distributed/rank_engine.hpp"

#include <functional>
#include <string>
#include <vector>

namespace prism::distributed {

/// What the iterations need besides the vectors.
struct PcgContext {
  RankEngine* engine = nullptr;  ///< the rank's vectors, SpMV, preconditioner, all-reduce
  index_t rows = 0;              ///< the rank's rows
  index_t extended_rows = 0;     ///< rows + ghosts: the SpMV input's length
  SolverOptions options;
  CgVariant variant = CgVariant::single_reduction;  ///< classic or single_reduction
  /// The caller's monitor (null or empty: none) and the communicator its answers are
  /// agreed over.
  const std::function<bool(const IterationRecord&)>* monitor = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
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

/// Solves A x = b on the rank's rows in the rank's order; x holds the initial guess. b and
/// x are the engine's vectors (rows values each). Collective.
PcgOutcome distributed_pcg(const PcgContext& c, const RankVector& b, RankVector& x);

}  // namespace prism::distributed
