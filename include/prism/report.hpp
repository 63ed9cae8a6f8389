#pragma once
/// @file
/// What a solve reports: per-iteration records, setup statistics and the summary.

#include <prism/types.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace prism {

/// Phases of one PCG iteration, timed separately; together they are the iteration.
/// An IC(0) preconditioner is timed as its two triangular solves, the others as
/// `precond`.
enum class Phase { spmv = 0, precond = 1, lower_solve = 2, upper_solve = 3, dot = 4, update = 5 };
inline constexpr int kNumPhases = 6;
/// "spmv", "precond", "lower_solve", "upper_solve", "dot", "update".
const char* phase_name(Phase phase);

using PhaseArray = std::array<double, kNumPhases>;

/// One PCG iteration.
struct IterationRecord {
  int iteration = 0;               ///< 0 for the initial residual, then 1, 2, ...
  double residual_norm = 0.0;      ///< ||r_k|| of the recursively updated residual
  double relative_residual = 0.0;  ///< ||r_k|| / ||b||
  PhaseArray seconds{};            ///< time spent in each phase during this iteration
};

/// Sizes of a partition into sets (colors or levels).
struct SetStats {
  int count = 0;  ///< number of sets
  index_t min_size = 0;
  index_t max_size = 0;
  double mean_size = 0.0;
  double phi = 0.0;  ///< average parallel workload N / count (color-set paper, Table 4.1)
};

/// How the unknowns were ordered for the preconditioner.
struct OrderingReport {
  std::string ordering = "natural";  ///< "natural" or "color"
  std::string method;                ///< coloring method ("greedy", "level_cyclic")
  std::string vertex_order;          ///< coloring vertex order, when colored
  bool balanced = false;             ///< the balancing pass ran (coloring.balance)
  SetStats colors;                   ///< colors (empty when natural)
  SetStats levels;                   ///< level sets of the lower triangle in the used order
};

/// Outcome of the incomplete factorization.
struct FactorizationReport {
  bool performed = false;
  double shift = 0.0;  ///< diagonal shift of the unit-diagonal-scaled matrix that succeeded
  int retries = 0;     ///< factorizations that broke down before the successful one
};

/// Memory after setup(), against the matrix it was given: what prism keeps for the solves
/// and refactors. Measured at the end of setup(); a refactor keeps these figures.
struct MemoryReport {
  std::size_t input_bytes = 0;  ///< the matrix given to setup(): row_ptr, col_idx, values
  /// Host memory the solver keeps, as its objects count the vectors they own (the
  /// solver's maps and pattern, the preconditioner's, the backend objects'); on the cpu
  /// backend this includes the matrix and factor the solves read.
  std::size_t host_bytes = 0;
  /// Device memory held by prism's allocations in the process when setup() ended (every
  /// solver's, not cuSPARSE's or the CUDA context's own); 0 on the cpu backend.
  std::size_t device_bytes = 0;
  /// The process's resident set when setup() began and ended (Linux: /proc/self/statm;
  /// 0 where the OS does not say): the difference includes what the allocator keeps.
  std::size_t resident_before_bytes = 0;
  std::size_t resident_after_bytes = 0;
};

/// One step of setup() timed apart, finer than SetupReport's groups (the permutation, the
/// level sets, the IC(0) pattern, the triangle split, the color-set layouts, ...).
struct SetupStep {
  /// "<group>: <what>": "permutation: pattern and values", "analysis: ic0 pattern (L, U =
  /// L^T)", ...
  std::string name;
  double seconds = 0.0;  ///< host wall time, a device step's wait for its work included
  bool device = false;   ///< the step's work ran (partly) in the backend's device memory
};

/// Setup cost, split the way it is reused: analysis once per sparsity pattern,
/// factorization once per set of values.
struct SetupReport {
  /// How `backend: auto` chose, with the reason ("backend: auto chose cuda (<the device>)",
  /// "backend: auto fell back to cpu: out of device memory ..."); empty for an explicit
  /// backend.
  std::string backend_choice;
  double check_seconds = 0.0;          ///< symmetry and diagonal checks, keeping the pattern
  double coloring_seconds = 0.0;       ///< preconditioner type choice and graph coloring
  double permutation_seconds = 0.0;    ///< building the permuted matrix, gathering its values
  double analysis_seconds = 0.0;       ///< the plan, preconditioner symbolic analysis
  double factorization_seconds = 0.0;  ///< numeric factorization (all retries)
  double upload_seconds = 0.0;         ///< copying matrices to the backend
  /// The whole setup() call: the steps above and what lies between them (a backend: auto
  /// fallback, memory bookkeeping); 0 after a refactor.
  double total_seconds = 0.0;
  /// The steps inside the groups above, in the order they ran (each inside one group;
  /// steps need not cover a group whole); empty after a refactor.
  std::vector<SetupStep> steps;
  MemoryReport memory;  ///< memory kept after setup()
};

/// Why the iteration stopped.
enum class SolveStatus {
  converged,       ///< relative residual reached the tolerance
  max_iterations,  ///< iteration limit reached first
  breakdown,       ///< p'Ap <= 0 or a non-finite value: matrix or preconditioner not SPD
  /// The recursive residual reached the tolerance but the true residual ||b - A x|| did
  /// not, even after restarting from it: A is singular, or too ill-conditioned for the
  /// tolerance.
  stagnated,
  stopped,  ///< the monitor (Solver::set_monitor) asked to stop
};
const char* status_name(SolveStatus status);

/// Everything one solve measured.
struct SolveReport {
  std::string backend;          ///< "cpu" or "cuda"
  std::string device;           ///< the device, in words
  std::string preconditioner;   ///< registered name (for type auto: the type it chose)
  std::string trisolve;         ///< triangular solve algorithm used by ic0 ("" otherwise)
  std::string trisolve_layout;  ///< storage of the factor in the solves, "csr" or "sell"
  std::string spmv;             ///< SpMV algorithm used ("reference", "cusparse", "sell", ...)
  std::string precision;        ///< ic0 factor precision, "double" or "mixed" ("" otherwise)
  /// Every `auto` choice the solver resolved, with its reason ("spmv: sell (...)"): the
  /// preconditioner type, the ordering, the SpMV, ic0's triangular solve and factorization
  /// place, how the iterations run.
  std::vector<std::string> plan;
  index_t rows = 0;
  index_t nnz = 0;
  double tolerance = 0.0;           ///< the stopping tolerance used (relative to ||b||)
  double absolute_tolerance = 0.0;  ///< and the absolute one (0: none)
  int max_iterations = 0;           ///< the iteration limit used

  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double rhs_norm = 0.0;
  double initial_residual_norm = 0.0;
  double relative_residual = 0.0;       ///< recursive ||r_k|| / ||b|| at the end
  double true_relative_residual = 0.0;  ///< ||b - A x|| / ||b|| recomputed at the end
  /// Restarts from the true residual after the recursive one claimed convergence and the
  /// true one disagreed (at most 3).
  int residual_replacements = 0;
  /// Why a solve that did not converge stopped, in words, with the iteration ("p'Ap =
  /// -2.1e-05 <= 0 at iteration 61: A looks singular or indefinite"); empty otherwise.
  std::string diagnosis;

  double solve_seconds = 0.0;  ///< wall time of the iteration loop
  PhaseArray phase_seconds{};  ///< totals over all iterations
  PhaseArray phase_bytes{};    ///< modeled bytes moved, totals over all iterations
  /// Measured device-to-device copy bandwidth in bytes/s (0: not measured, as on the
  /// CPU); the bandwidth bound of the solve is sum(phase_bytes) / reference_bandwidth.
  double reference_bandwidth = 0.0;
  int check_every = 1;       ///< residual read back every this many iterations
  bool graph = false;        ///< the iteration ran as a replayed graph (solver.graph)
  bool device_loop = false;  ///< the convergence test ran on the device (graph: loop)

  SetupReport setup;
  FactorizationReport factorization;
  OrderingReport ordering;
  std::vector<IterationRecord> history;

  bool converged() const noexcept { return status == SolveStatus::converged; }
};

/// One column of a multi-column solve (Solver::solve with `columns`): what SolveReport says
/// of a one-column solve's outcome.
struct ColumnReport {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double rhs_norm = 0.0;
  double initial_residual_norm = 0.0;
  double relative_residual = 0.0;       ///< recursive ||r_k|| / ||b|| at the end
  double true_relative_residual = 0.0;  ///< ||b - A x|| / ||b|| recomputed at the end
  int residual_replacements = 0;
  std::string diagnosis;  ///< as SolveReport::diagnosis
  /// The residuals read (iteration 0, then every check_every iterations); no phase times
  /// (the columns share the iterations: MultiSolveReport::phase_seconds).
  std::vector<IterationRecord> history;

  bool converged() const noexcept { return status == SolveStatus::converged; }
};

/// A multi-column solve: each column's outcome and the whole solve's times.
struct MultiSolveReport {
  std::string backend;         ///< "cpu" or "cuda"
  std::string device;          ///< the device, in words
  std::string preconditioner;  ///< registered name
  /// The matrix's SpMV algorithm (of one-column solves). The multi-column SpMM reads the
  /// SELL-32 copy where that is cuda's `sell`, column by column where it is `bsr`, else the
  /// CSR copy (the cpu backend's SELL-8 SpMV included).
  std::string spmv;
  /// Whether the preconditioner's apply read its factor once per iteration for all the
  /// columns (none, jacobi, ic0 with color-set solves), or went column by column (block_ic,
  /// line_jacobi, line_ic, user, ic0 with another triangular solve).
  bool preconditioner_reads_once = false;
  index_t rows = 0;
  index_t nnz = 0;
  int columns = 0;
  double tolerance = 0.0;
  double absolute_tolerance = 0.0;
  int max_iterations = 0;
  int check_every = 1;
  int iterations = 0;                ///< iterations run: the most of any column
  double solve_seconds = 0.0;        ///< wall time of the iterations, all columns
  PhaseArray phase_seconds{};        ///< phase totals over all iterations and columns
  std::vector<ColumnReport> column;  ///< one per column, in the caller's order
  /// The iterations between host checks ran as one device-side loop (cuda with solver.graph
  /// not off, timing: total and a preconditioner that only queues backend work).
  bool device_loop = false;

  bool converged() const noexcept {
    for (const ColumnReport& c : column) {
      if (!c.converged()) return false;
    }
    return true;
  }
};

}  // namespace prism
