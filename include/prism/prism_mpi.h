/* prism's distributed solver (prism::DistributedSolver) for C and Fortran: one matrix whose
 * rows are shared out over the ranks of an MPI communicator, each rank holding a contiguous
 * block of rows with global column numbers (the PETSc/hypre "IJ" input). Built with MPI
 * only (link prism::distributed); the status codes, prism_last_error() and
 * prism_solve_info are prism.h's.
 *
 * Every call taking a prism_distributed_solver is collective: every rank of the
 * communicator makes it, in the same order. Its status and message are the same on every
 * rank: a bad argument or input on one rank (a NULL vector, a partition that does not tile
 * the rows, a value that is not finite) fails the call on every rank, the message naming
 * the lowest failing rank ("rank 1: ..."). A NULL solver alone cannot be agreed on: it
 * returns PRISM_ERROR_ARGUMENT at once on the ranks that pass it. */
#ifndef PRISM_PRISM_MPI_H
#define PRISM_PRISM_MPI_H

#include <prism/prism.h>

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct prism_distributed_solver prism_distributed_solver;

/* What the last solve measured over the ranks (the same on every rank). */
typedef struct prism_distributed_info {
  int ranks;
  int64_t global_rows;
  int64_t global_nnz;
  int status; /* a prism_solve_status */
  int iterations;
  double relative_residual;      /* the recursive ||r|| / ||b|| at the end */
  double true_relative_residual; /* ||b - A x|| / ||b|| of the returned x */
  double solve_seconds;          /* the slowest rank's wall time of the iterations */
  int reductions_per_iteration;  /* all-reduces of the dot products per iteration */
  double halo_seconds;           /* the slowest rank's halo exchange */
  double reduction_seconds;      /* the slowest rank's all-reduces, waits included */
  double communication_share;    /* (halo + reductions) / solve time, the largest rank's */
} prism_distributed_info;

/* A solver on `comm` (duplicated: prism's messages never meet the caller's), configured by
 * a YAML text as prism_solver_create's (solver, preconditioner, backend, cpu_kernels keys;
 * solver.cg_variant and solver.transport apply here). */
prism_status prism_distributed_solver_create(MPI_Comm comm, const char* config_yaml,
                                             prism_distributed_solver** solver);
/* The same for a Fortran communicator handle (MPI_Comm_f2c). */
prism_status prism_distributed_solver_create_f(MPI_Fint comm, const char* config_yaml,
                                               prism_distributed_solver** solver);

/* This rank's rows [row_begin, row_end) of the global_rows x global_rows matrix, in CSR with
 * global column numbers: row_ptr has row_end - row_begin + 1 entries from 0, col_idx and
 * values row_ptr[row_end - row_begin] (NULL where that is 0); the columns of a row
 * increasing. The ranks' ranges tile [0, global_rows) in rank order; a range may be empty.
 * The arrays are copied. Finds the halo and sets up each rank's block of the
 * preconditioner (block Jacobi across the ranks). */
prism_status prism_distributed_solver_setup(prism_distributed_solver* solver, int64_t global_rows,
                                            int64_t row_begin, int64_t row_end,
                                            const int64_t* row_ptr, const int64_t* col_idx,
                                            const double* values);

/* New values on the rows and pattern given to setup (the arrays as then; the pattern is
 * compared): keeps the halo and each block's ordering and analysis. A rejected input
 * leaves the solver as it was. */
prism_status prism_distributed_solver_refactor(prism_distributed_solver* solver,
                                               int64_t global_rows, int64_t row_begin,
                                               int64_t row_end, const int64_t* row_ptr,
                                               const int64_t* col_idx, const double* values);

/* Solves A x = b; b and x hold this rank's row_end - row_begin values (NULL where that is
 * 0); x the initial guess on entry and this rank's part of the solution on return. A solve
 * that does not converge returns PRISM_OK with info->status saying why. info may be NULL. */
prism_status prism_distributed_solver_solve(prism_distributed_solver* solver, const double* b,
                                            double* x, prism_solve_info* info);

/* Solves for `columns` right-hand sides: b and x hold `columns` columns of this rank's rows,
 * column-major. The columns are solved one after the other, each as
 * prism_distributed_solver_solve on it. info: NULL or `columns` records. */
prism_status prism_distributed_solver_solve_columns(prism_distributed_solver* solver,
                                                    const double* b, double* x, int32_t columns,
                                                    prism_solve_info* info);

/* Called on every rank during a solve with the global residual: iteration 0, then every
 * iteration. Returns 0 to go on; non-zero on any rank stops every rank after that
 * iteration, with status PRISM_SOLVE_STOPPED. */
typedef int (*prism_monitor_fn)(int32_t iteration, double residual_norm, double relative_residual,
                                void* context);
/* Sets the monitor (with `context` passed through) for the next solves; NULL removes it. */
prism_status prism_distributed_solver_set_monitor(prism_distributed_solver* solver,
                                                  prism_monitor_fn monitor, void* context);

/* The figures of the last solve (of a solve_columns: its last column). Not collective.
 * PRISM_ERROR_ARGUMENT before the first solve. */
prism_status prism_distributed_solver_report(const prism_distributed_solver* solver,
                                             prism_distributed_info* info);

/* Frees the solver (collective: it frees a communicator); NULL is ignored. */
void prism_distributed_solver_destroy(prism_distributed_solver* solver);

#ifdef __cplusplus
}
#endif

#endif /* PRISM_PRISM_MPI_H */
