#pragma once
// The one preconditioned conjugate gradient loop, written against the backend
// interface (Hestenes-Stiefel with the fused x/r update).

#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "precond/preconditioner.hpp"
#include "solver/plan.hpp"

#include <functional>
#include <string>
#include <vector>

namespace prism::solver {

/// What the loop itself measures; the Solver adds setup and ordering information.
struct PcgResult {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double rhs_norm = 0.0;
  double initial_residual_norm = 0.0;
  double residual_norm = 0.0;       ///< the recursive ||r_k|| at the end
  double true_residual_norm = 0.0;  ///< ||b - A x|| of the returned x
  int residual_replacements = 0;
  std::string diagnosis;  ///< see SolveReport::diagnosis
  double seconds = 0.0;
  RunMode mode = RunMode::launches;
  PhaseArray phase_bytes{};
  /// Entry 0 is the initial residual (iteration 0), then every checked iteration (all of
  /// them with check_every = 1 or a device-side loop); each entry's times cover the
  /// iterations since the previous one.
  std::vector<IterationRecord> history;
  PhaseArray unrecorded_seconds{};  ///< times after the last checked iteration
};

/// The numbers a diagnosis is worded from: the one-process and the distributed PCG fill
/// them from their own state, so both say the same thing the same way.
struct StopFacts {
  SolveStatus status = SolveStatus::converged;
  int iterations = 0;
  double residual_norm = 0.0;       ///< recursive ||r|| at the end
  double rhs_norm = 0.0;            ///< ||b||
  double true_residual_norm = 0.0;  ///< ||b - A x||
  int residual_replacements = 0;
  double tolerance = 0.0;
  bool overflowed = false;    ///< a norm is not finite, or the first residual already failed
  double pq = 0.0, rz = 0.0;  ///< (p, Ap) and (r, M^-1 r) of the last iteration
};

/// Why the iterations stopped without converging (empty when converged), in words.
std::string diagnose(const StopFacts& f);

/// diagnose() from r's status, norms and iterations and the scalars of its last iteration.
std::string diagnose(const PcgResult& r, const backend::ScalarValues& s,
                     const SolverOptions& options);

/// Restarts from the true residual when the recursive one claims convergence and the
/// true one does not: at most this many, then the status is `stagnated`.
inline constexpr int kMaxResidualReplacements = 3;

/// Solves A x = b; x holds the initial guess on entry. Converged when the recursive
/// ||r_k|| <= tol ||b|| and then the true ||b - A x|| <= tol ||b|| as well. The options
/// are valid (validate()) and `mode` is resolve_run_mode()'s.
/// `monitor` (may be null) sees each record of the history as it is added; false stops
/// the solve with status stopped.
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options, RunMode mode,
              const std::function<bool(const IterationRecord&)>* monitor = nullptr);

}  // namespace prism::solver
