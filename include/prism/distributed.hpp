#pragma once
/// @file
/// The distributed PCG: one matrix whose rows are shared out over the ranks of an MPI
/// communicator, each rank holding a contiguous block of rows with their global column
/// numbers (the PETSc/hypre "IJ" input). Built only with MPI (CMake PRISM_WITH_MPI; link
/// prism::distributed). cpu ranks solve their part with the threaded (or reference) host
/// kernels and talk over MPI; GPU ranks (backend cuda, one GPU per rank) keep their vectors
/// on the device, run the cuda backend's SpMV and preconditioners, and send the halo and the
/// all-reduce over NCCL (built with PRISM_WITH_NCCL) or over MPI through host buffers
/// (solver.transport).

#include <prism/options.hpp>
#include <prism/report.hpp>

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace prism {

/// One rank's rows of the global n x n matrix: rows [row_begin, row_end), in CSR with
/// global column numbers. row_ptr has row_end - row_begin + 1 entries starting at 0; the
/// columns of a row are strictly increasing (sort_and_merge_duplicates() in csr_view.hpp
/// makes them so) and lie in [0, global_rows). The ranks' ranges tile [0, global_rows) in
/// rank order (rank 0 first); a range may be empty. Non-owning: the arrays are read by
/// DistributedSolver::setup() and not kept.
struct DistributedRowsView {
  std::int64_t global_rows = 0;
  std::int64_t row_begin = 0;
  std::int64_t row_end = 0;
  const std::int64_t* row_ptr = nullptr;
  const std::int64_t* col_idx = nullptr;
  const double* values = nullptr;
};

/// DistributedRowsView's arrays, owned.
struct DistributedRows {
  std::int64_t global_rows = 0;
  std::int64_t row_begin = 0;
  std::int64_t row_end = 0;
  std::vector<std::int64_t> row_ptr{0};
  std::vector<std::int64_t> col_idx;
  std::vector<double> values;

  DistributedRowsView view() const {
    return {global_rows, row_begin, row_end, row_ptr.data(), col_idx.data(), values.data()};
  }
};

/// Row boundaries that split a matrix's rows into `parts` contiguous blocks of about equal
/// nonzeros: parts + 1 entries from 0 to rows, every block non-empty where rows >= parts.
/// `row_ptr` has rows + 1 entries. Throws ConfigError when parts < 1.
std::vector<std::int64_t> partition_rows_by_nonzeros(const std::int64_t* row_ptr, std::int64_t rows,
                                                     int parts);

/// Times of the distributed iterations, in seconds, by what they wait on.
struct DistributedPhases {
  double spmv_interior = 0.0;  ///< rows coupled to this rank's unknowns only (overlaps the halo)
  double halo = 0.0;           ///< packing, posting and waiting for the halo exchange
  double spmv_boundary = 0.0;  ///< rows coupled to other ranks' unknowns, after the halo
  double reductions = 0.0;     ///< the all-reduces of the dot products (the wait included)
  double precond = 0.0;        ///< the rank's block of the preconditioner
  double vector_ops = 0.0;     ///< local dots, axpys, copies
};

/// What a distributed solve measured. `solve` is the one-process SolveReport of the whole
/// system (status, iterations and residuals identical on every rank; rows and nnz global,
/// saturated at 2^31 - 1, global_rows and global_nnz exact); its phase_seconds are the
/// slowest rank's, spmv holding both products and the halo, dot the all-reduces, update
/// the local vector operations. The setup report is this rank's block's.
struct DistributedSolveReport {
  SolveReport solve;
  int ranks = 1;
  std::int64_t global_rows = 0;
  std::int64_t global_nnz = 0;
  std::string cg_variant;  ///< "classic" or "single_reduction"
  std::string backend;     ///< "cpu" or "cuda": where the ranks compute
  std::string transport;   ///< "mpi", "mpi (host-staged)", "mpi (CUDA-aware)" or "nccl"
  /// Whether the phase times were measured (GPU ranks with solver.timing total do not wait
  /// for their queued work at each phase's end, and report no phase times).
  bool phases_timed = true;
  int reductions_per_iteration = 0;  ///< all-reduces per iteration
  DistributedPhases local;           ///< this rank's times
  DistributedPhases slowest;         ///< each phase's largest time over the ranks
  /// (halo + reductions) / solve time, the largest over the ranks. The reductions include
  /// waiting for slower ranks, so load imbalance counts as communication.
  double communication_share = 0.0;
  std::int64_t min_rows = 0, max_rows = 0;  ///< rows per rank
  std::int64_t max_ghosts = 0;              ///< most halo values a rank receives
  int max_neighbors = 0;                    ///< most ranks one rank exchanges with
};

/// The PCG of Solver over the ranks of an MPI communicator, with block Jacobi across the
/// ranks: each rank's diagonal block (its rows and columns) goes to a prism::Solver with
/// the configured preconditioner (ic0, block_ic, line_jacobi, jacobi, none, ...), applied
/// through Solver::apply_preconditioner_on_backend(). Every member is collective: all
/// ranks call it, in the same order. Errors are agreed: a bad input on one rank throws the
/// same exception, with the same one-line message naming the rank, on every rank.
///
/// @code
///   prism::DistributedSolver solver(MPI_COMM_WORLD, config);
///   solver.setup(my_rows.view());   // halo, local blocks, preconditioner
///   auto report = solver.solve(b_local, x_local);
/// @endcode
///
/// The SpMV posts the halo exchange, multiplies the rows that need no other rank's values,
/// waits, then the rest; on cpu ranks each row is summed in its column order, so the
/// product equals the one-process SpMV bit for bit. The dot products are summed
/// per rank, then over the ranks, so they (and the iterates) vary with the rank count in
/// the last bits. solver.cg_variant picks the classic PCG (two all-reduces per iteration)
/// or Chronopoulos and Gear's (1989) single-reduction form (one all-reduce of three
/// scalars); `auto` is single_reduction here.
class DistributedSolver {
 public:
  /// backend cuda (or auto where every rank has a GPU) makes GPU ranks: each rank works on
  /// SolverConfig::device, or when that is -1 on its index among its node's ranks modulo
  /// the node's GPUs, and on a stream of its own; solver.transport picks NCCL or MPI
  /// through host buffers (auto: NCCL where built and no two ranks share a GPU, which NCCL
  /// refuses). Throws (on every rank) BackendError where a rank has no usable GPU for
  /// backend cuda, ConfigError for transport nccl without GPU ranks, without NCCL in the
  /// build, or with two ranks on one GPU. The communicator is duplicated, so prism's
  /// messages never meet the caller's.
  DistributedSolver(MPI_Comm comm, SolverConfig config);
  ~DistributedSolver();
  DistributedSolver(DistributedSolver&&) noexcept;
  DistributedSolver& operator=(DistributedSolver&&) noexcept;
  DistributedSolver(const DistributedSolver&) = delete;
  DistributedSolver& operator=(const DistributedSolver&) = delete;

  /// Checks the partition (the ranges tile [0, n) in rank order, every rank gives the same
  /// n, columns in range and increasing, finite values), finds the halo, splits the rows
  /// into those coupled to this rank only and the rest, and sets up the preconditioner on
  /// the rank's diagonal block (whose checks, solver.check, are the Solver's). Throws
  /// InvalidMatrixError, ConfigError or NumericalError, the same on every rank.
  void setup(const DistributedRowsView& rows);

  /// New values on the pattern given to setup(): every rank passes its rows with the same
  /// range, row_ptr and col_idx as then (compared, not kept by the caller). Keeps the halo
  /// plan, the rank's order and each rank's ordering and analysis of its block, and
  /// refactors the block's preconditioner (Solver::refactor); the result equals a fresh
  /// setup() on the new values. Throws InvalidMatrixError (another pattern, a value not
  /// finite) or NumericalError, the same on every rank. A rejected input leaves the solver
  /// as it was; after a NumericalError solve() needs a successful setup() or refactor().
  void refactor(const DistributedRowsView& rows);

  /// Solves with x (this rank's row_end - row_begin values) as the initial guess; x holds
  /// this rank's part of the solution on return; b is not modified. Non-convergence is a
  /// status, the same on every rank. Throws InvalidMatrixError on a wrong size.
  DistributedSolveReport solve(const std::vector<double>& b, std::vector<double>& x);

  /// Solves A X = B for `columns` right-hand sides: b and x hold `columns` columns of the
  /// rank's row_end - row_begin values each, column-major (column j at j * rows); x the
  /// initial guesses on entry and the solutions on return. The columns are solved one after
  /// the other, each as solve() on it (the same iterations and bits): one report per column.
  /// Throws InvalidMatrixError on a wrong size or columns < 1, the same on every rank.
  std::vector<DistributedSolveReport> solve(const std::vector<double>& b, std::vector<double>& x,
                                            int columns);

  /// Called during solve() on every rank with the global residual: iteration 0, then every
  /// iteration (the record's phase times are zero). The ranks agree on its answer with one
  /// more all-reduce of an int per iteration (only while a monitor is set): where it returns
  /// false on any rank, every rank stops after that iteration with status `stopped` and x
  /// its iterate. What it throws on a rank is thrown on every rank, as other errors (the
  /// message names the rank). An empty function removes it.
  using Monitor = std::function<bool(const IterationRecord&)>;
  void set_monitor(Monitor monitor);

  /// y = A x for this rank's rows (x and y: row_end - row_begin values each).
  void multiply(const std::vector<double>& x, std::vector<double>& y);

  int rank() const;
  int ranks() const;
  std::int64_t row_begin() const;
  std::int64_t row_end() const;
  std::int64_t global_rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism
