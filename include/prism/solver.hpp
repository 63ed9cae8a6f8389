#pragma once
/// @file
/// The Solver facade: what an FEM code uses. Set up once per sparsity pattern,
/// refactor when values change, solve many right-hand sides.

#include <prism/capabilities.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/csr_view.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include <cstddef>
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
/// On a GPU, solve_on_backend() takes b and x in device memory, and
/// apply_preconditioner_on_backend() gives the preconditioner alone, for a Krylov method of
/// the caller's own; set_preconditioner_callback() plugs the caller's preconditioner into
/// prism's PCG (`preconditioner.type: user`).
/// One thread at a time may call a Solver; Solvers of their own may run on several threads
/// at once (docs/embedding.md, "Threads and solvers").
class Solver {
 public:
  explicit Solver(SolverConfig config);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Checks A as solver.check says (full, the default: square, symmetric to
  /// solver.symmetry_tolerance, finite, positive diagonal; pattern: the pattern alone;
  /// none: the storage alone), orders it, analyzes and factorizes the preconditioner,
  /// and moves everything to the backend.
  /// Throws InvalidMatrixError, ConfigError, NumericalError or BackendError.
  void setup(const CsrMatrix<double>& a);

  /// setup() on a view of the caller's arrays (int32 or int64 indices, full storage or one
  /// triangle): builds the one full copy in prism's storage that setup() works from
  /// (to_csr_matrix(): the view checked, indices narrowed, a triangle mirrored), frees it on
  /// return and keeps no pointer into the caller's arrays. Throws InvalidMatrixError naming
  /// the first break of the view's contract (counted from 0, with the fix), then as setup().
  void setup(const CsrView32& a);
  void setup(const CsrView64& a);

  /// setup() on a matrix whose arrays are in memory the backend reads (cuda: device memory
  /// of the solver's device or managed memory, e.g. what a GPU assembly wrote; cpu: host
  /// memory), full storage, 32-bit indices, the arrays valid for the call only; whatever
  /// writes them must have finished (cuda: synchronize the writer's stream first). The set-up's
  /// steps on the GPU copy the arrays from there instead of uploading them; the host keeps
  /// the one copy its own steps read (the pattern refactor() compares against, the naming of
  /// a defect, the line report), downloaded once. The same ordering, factor and solves as
  /// setup() on a host copy of the matrix. Throws InvalidMatrixError where an array is not in
  /// such memory or the view is not square or its row pointers break the contract,
  /// ConfigError for a view of one triangle, then as setup().
  void setup_on_backend(const CsrView32& a);

  /// refactor() on a view with the pattern given to setup() (a triangle compares as the full
  /// matrix it stands for, so either triangle of one pattern will do); builds the full matrix
  /// once per call, as setup(view) does.
  void refactor(const CsrView32& a);
  void refactor(const CsrView64& a);

  /// New values on the sparsity pattern given to setup(): reuses the ordering,
  /// the analysis and every buffer. Throws InvalidMatrixError on a different pattern.
  /// Where the IC(0) factorization runs in the backend (the GPU default), the values are
  /// copied there and take refactor_on_backend()'s path (checks on the device, the host
  /// check only to name a failure), so setup_report() reads as after that call.
  void refactor(const CsrMatrix<double>& a);

  /// refactor() with the new values already in the backend's memory: `values` holds
  /// `count` (= nnz) doubles in the entry order of the matrix given to setup() (after
  /// setup(view) with one triangle: of the full matrix, in expand_triangle()'s order; the
  /// triangle's own count is a ConfigError, as mapping it would need a map in the backend),
  /// in
  /// memory the backend reads (cuda: device or managed memory on the solver's device,
  /// e.g. what a GPU assembly wrote; cpu: host memory). The values check (finite,
  /// symmetric to solver.symmetry_tolerance, positive diagonal; solver.check full), the
  /// reordering, the SpMV copy and the factorization run there, with no host copy, when the
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

  /// solve() on vectors in the backend's memory, with no host copy: `b` and `x` each hold
  /// `count` (= rows) doubles in the caller's ordering, in memory the backend reads (cuda:
  /// device or managed memory on the solver's device, e.g. what a GPU assembly wrote; cpu:
  /// host memory). x is the initial guess on entry and the solution on return; b is only
  /// read; the two must not overlap. The result (x, iterations, report) is the same, bit for
  /// bit, as solve() with the same values in host vectors. Any reordering runs in the
  /// backend's memory. The solver works on its own stream: whatever writes b and x must
  /// have finished (cuda: synchronize the writer's stream first); x is complete on return.
  /// Throws InvalidMatrixError naming the cause: a wrong count, a null pointer, memory the
  /// backend cannot read, b and x overlapping.
  SolveReport solve_on_backend(const double* b, double* x, std::size_t count);

  /// Solves A X = B for `columns` right-hand sides at once: b and x hold `columns` columns
  /// of `rows` (= the matrix's rows) doubles each, column-major (column j at b + j * rows),
  /// in host memory and the caller's ordering; x is the initial guesses on entry and the
  /// solutions on return, b is only read, and the two must not overlap. The columns are
  /// independent PCG recurrences advanced together (each its own alpha, beta and the
  /// stopping test of solve(), its own scaling into range); a column that converges, breaks
  /// down or stagnates drops out and the iterations go on with the others. SpMV reads the
  /// matrix once per iteration for all the active columns, and so do the preconditioners
  /// none, jacobi and ic0 with color-set solves their factor (block_ic, line_jacobi, line_ic,
  /// user and ic0 with other triangular solves apply column by column:
  /// MultiSolveReport::preconditioner_reads_once). Column j's result is that of solve() on
  /// column j with timing: phases (the same iterations; on the cpu backend the same bits,
  /// on cuda equal to rounding). With timing: total and graph not off, cuda runs the
  /// iterations as a device-side loop (a CUDA graph while node) that checks every column
  /// every check_every iterations on the device and returns to the host only where a column
  /// stops (MultiSolveReport::device_loop); otherwise they run launch by launch with the
  /// host checking every check_every iterations. The monitor is not called. Throws
  /// InvalidMatrixError on a wrong size or columns outside 1 to 65535 (or rows * columns
  /// of 2^31 or more), as solve() otherwise.
  MultiSolveReport solve(const double* b, double* x, std::size_t rows, int columns);
  /// The same on vectors of rows * columns entries; an empty x starts from zeros.
  MultiSolveReport solve(const std::vector<double>& b, std::vector<double>& x, int columns);
  /// The multi-column solve on memory the backend reads, as solve_on_backend() takes it
  /// (cuda: device or managed memory): b and x each rows * columns doubles, column-major.
  /// Each column's result equals solve() of that column with the same values in host memory,
  /// bit for bit. Throws as solve_on_backend() does, and on columns as solve().
  MultiSolveReport solve_on_backend(const double* b, double* x, std::size_t rows, int columns);

  /// z = M^{-1} r with the preconditioner the solves iterate with (the one of the last
  /// setup() or refactor()), on host vectors in the caller's ordering: for a Krylov method
  /// of the caller's own. z is resized to r's size. On the cuda backend r and z pass
  /// through the device; apply_preconditioner_on_backend() avoids that.
  /// Throws InvalidMatrixError on a wrong size.
  void apply_preconditioner(const std::vector<double>& r, std::vector<double>& z);

  /// apply_preconditioner() on backend memory, as solve_on_backend() takes it: `r` and `z`
  /// each hold `count` (= rows) doubles, in the caller's ordering, and must not overlap;
  /// z is complete on return. Throws as solve_on_backend() does.
  void apply_preconditioner_on_backend(const double* r, double* z, std::size_t count);
  /// The same, queued on the solver's stream (SolverConfig::stream on cuda) without waiting:
  /// z is complete when that stream reaches this point, so a caller's Krylov loop on the
  /// same stream goes on without a host round trip. r must stay unchanged, and z untouched,
  /// until then. On the cpu backend it is apply_preconditioner_on_backend().
  void queue_preconditioner_on_backend(const double* r, double* z, std::size_t count);

  /// The caller's preconditioner, z = M^{-1} r, for `preconditioner.type: user`. It gets
  /// `n` (= rows) doubles of r and of z in the backend's memory (cuda: device pointers;
  /// cpu: host pointers) in the caller's ordering (type user takes the natural ordering),
  /// must write all of z and must not keep the pointers. It is called with the solver's
  /// queued work done; on cuda, whatever it queues on other streams must have finished when
  /// it returns (synchronize them). What it throws passes through solve(). It is never
  /// recorded into a CUDA graph, so a solve with it runs its operations one by one
  /// (`graph: on` or `loop` is a ConfigError). M must be symmetric positive definite for PCG
  /// to converge.
  using PreconditionerCallback = std::function<void(const double* r, double* z, std::size_t n)>;
  /// Sets (or, with an empty function, removes) the callback for type user; it applies
  /// from the next call on. setup() with type user and no callback throws ConfigError, as
  /// does a solve after the callback was removed.
  void set_preconditioner_callback(PreconditionerCallback apply);

  /// Replaces the stopping rule and timing options for the next solves (the
  /// preconditioner and backend stay as constructed).
  void set_solver_options(const SolverOptions& options);

  /// Called during solve(), on the calling thread, with each residual the solver reads:
  /// the initial one (iteration 0), then every check_every iterations and at the last; the
  /// record's phase times are not known yet (zero). Returning false stops the solve with
  /// status `stopped`: where the host checks the iterations (and on the cpu backend), after
  /// that iteration, with x its iterate; where the GPU runs the loop by itself (`graph:
  /// loop`, or auto with timing total), the host watches the residuals the loop publishes
  /// (polled every 0.1 ms) and the loop stops at its first check after it sees the request,
  /// a few iterations later: the report's iterations and x are those of the iteration it
  /// stopped at. An empty function removes it.
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
