#pragma once
/// @file
/// The Solver facade: what an FEM code uses. Set up once per sparsity pattern,
/// refactor when values change, solve many right-hand sides.

#include <prism/capabilities.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace prism {

/// Solves A x = b for symmetric positive definite A with preconditioned conjugate
/// gradients. Vectors are passed and returned in the caller's ordering; any
/// reordering (multicolor) is internal.
///
/// @code
///   prism::Solver solver(config);
///   solver.setup(A);                 // checks, coloring, factorization
///   prism::SolveReport r = solver.solve(b, x);   // x: initial guess in, solution out
///   solver.refactor(A_new);          // same pattern, new values
/// @endcode
class Solver {
 public:
  explicit Solver(SolverConfig config);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Checks A (square, symmetric, positive diagonal), orders it, analyzes and
  /// factorizes the preconditioner, and moves everything to the backend.
  /// Throws InvalidMatrixError, ConfigError, NumericalError or BackendError.
  void setup(const CsrMatrix<double>& a);

  /// New values on the sparsity pattern given to setup(): reuses the ordering,
  /// the analysis and every buffer. Throws InvalidMatrixError on a different pattern.
  /// Where the IC(0) factorization runs in the backend (the GPU default), the values are
  /// copied there and take refactor_on_backend()'s path (checks on the device, the host
  /// check only to name a failure), so setup_report() reads as after that call.
  void refactor(const CsrMatrix<double>& a);

  /// refactor() with the new values already in the backend's memory: `values` holds
  /// `count` (= nnz) doubles in the entry order of the matrix given to setup(), in
  /// memory the backend reads (cuda: device or managed memory on the solver's device,
  /// e.g. what a GPU assembly wrote; cpu: host memory). The values check (finite,
  /// symmetric to 1e-12 of the largest entry, positive diagonal), the reordering, the
  /// SpMV copy and the factorization run there, with no host copy, when the
  /// preconditioner factors in the backend (none, jacobi, and ic0 with its
  /// factorization in the backend: the default on the GPU for a color order);
  /// otherwise the values pass through the host once. The values are read before
  /// this returns. The solver works on its own stream: whatever writes `values` must
  /// have finished (cuda: synchronize the writer's stream first). Throws
  /// InvalidMatrixError (wrong count, memory the backend cannot read, a bad value: the
  /// message names it as refactor() would). Repeated calls with the same `values`
  /// pointer (a time loop reassembling into one buffer) cost less: on a backend that
  /// records (cuda) with ic0 factored there, the second successful call in a row with one
  /// pointer records its queued work and the later calls with that pointer replay it as
  /// one launch.
  void refactor_on_backend(const double* values, std::size_t count);

  /// Solves with x as the initial guess; x holds the solution on return. b is not
  /// modified. Non-convergence is reported in the status, not thrown.
  SolveReport solve(const std::vector<double>& b, std::vector<double>& x);

  /// Replaces the stopping rule and timing options for the next solves (the
  /// preconditioner and backend stay as constructed).
  void set_solver_options(const SolverOptions& options);

  /// Called during solve() with each residual the solver reads: the initial one
  /// (iteration 0), then every check_every iterations and at the last; the record's phase
  /// times are not known yet (zero). Returning false stops the solve after that iteration
  /// with status `stopped` and x the iterate of that iteration. A monitor needs the
  /// host to read the residuals: with one, `graph: auto` never runs the device-side loop
  /// and `graph: loop` is a ConfigError at solve(). An empty function removes it.
  using Monitor = std::function<bool(const IterationRecord&)>;
  void set_monitor(Monitor monitor);

  /// The backend in use ("cpu" or "cuda"), known after construction.
  std::string backend_name() const;

  /// Setup statistics of the last setup() or refactor().
  const SetupReport& setup_report() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism
