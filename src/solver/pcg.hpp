#pragma once
// The one preconditioned conjugate gradient loop, written against the backend
// interface (Hestenes-Stiefel with the fused x/r update).

#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "precond/preconditioner.hpp"

namespace prism::solver {

/// What the loop itself measures; the Solver adds setup and ordering information.
struct PcgResult {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double rhs_norm = 0.0;
  double initial_residual_norm = 0.0;
  double residual_norm = 0.0;
  double seconds = 0.0;
  bool graph = false;        ///< the iterations ran as replays of one recorded graph
  bool device_loop = false;  ///< ... inside a device-side loop that tested convergence
  PhaseArray phase_bytes{};
  /// Entry 0 is the initial residual, then every checked iteration (all of them with
  /// check_every = 1 or a device-side loop); each entry's times cover the iterations since the
  /// previous one.
  std::vector<IterationRecord> history;
  PhaseArray unrecorded_seconds{};  ///< times after the last checked iteration
};

/// Solves A x = b; x holds the initial guess on entry. Stops when ||r_k|| <= tol ||b||.
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options);

}  // namespace prism::solver
