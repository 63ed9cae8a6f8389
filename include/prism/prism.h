/* prism's C API: a sparse SPD solver (preconditioned conjugate gradients) for C, Fortran
 * (through iso_c_binding) and any language with a C foreign-function interface.
 *
 * Every function returns a prism_status; on failure prism_last_error() gives the message
 * (one line, as the C++ exception said it) until the next call on the same thread. No
 * exception crosses this interface and nothing here prints or exits. A prism_solver is
 * used by one thread at a time; several solvers may run on several threads.
 *
 * Matrices are CSR with 0-based int32 indices, full storage (both triangles), sorted
 * columns, the diagonal stored: row i holds entries row_ptr[i] .. row_ptr[i + 1] - 1;
 * prism_solver_setup_view also takes int64 indices and one triangle. */
#ifndef PRISM_PRISM_H
#define PRISM_PRISM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum prism_status {
  PRISM_OK = 0,
  PRISM_ERROR_INPUT = 1,         /* a file or text that cannot be read as given */
  PRISM_ERROR_CONFIG = 2,        /* an option out of range or options that do not go together */
  PRISM_ERROR_MATRIX = 3,        /* a matrix or vector that does not fit, or is not SPD-like */
  PRISM_ERROR_NUMERICAL = 4,     /* the factorization broke down at every allowed shift */
  PRISM_ERROR_BACKEND = 5,       /* a failing CUDA call, or backend cuda without a usable GPU */
  PRISM_ERROR_DEVICE_MEMORY = 6, /* the GPU ran out of memory */
  PRISM_ERROR_IO = 7,            /* a file that cannot be opened or written */
  PRISM_ERROR_ARGUMENT = 8,      /* a null pointer, a bad size or a call out of order */
  PRISM_ERROR_OTHER = 9          /* anything else, out of host memory included */
} prism_status;

/* Why a solve stopped (prism_solve_info.status). */
typedef enum prism_solve_status {
  PRISM_SOLVE_CONVERGED = 0,      /* the true residual meets the tolerance */
  PRISM_SOLVE_MAX_ITERATIONS = 1, /* the iteration limit came first */
  PRISM_SOLVE_BREAKDOWN = 2,      /* A or the preconditioner is not positive definite */
  PRISM_SOLVE_STAGNATED = 3,      /* the true residual stays above the tolerance */
  PRISM_SOLVE_STOPPED = 4         /* stopped by a monitor (prism_mpi.h's; prism_solver has none) */
} prism_solve_status;

typedef struct prism_solve_info {
  int status; /* a prism_solve_status */
  int iterations;
  double relative_residual;      /* the recursive ||r|| / ||b|| at the end */
  double true_relative_residual; /* ||b - A x|| / ||b|| of the returned x */
  double solve_seconds;          /* wall time of the iterations */
} prism_solve_info;

typedef struct prism_solver prism_solver;

/* The message of the last failing call on this thread; "" after a successful one. */
const char* prism_last_error(void);

/* "ok", "config error", ... for a prism_status; "converged", ... never: see
 * prism_solve_status_name. */
const char* prism_status_name(int status);
const char* prism_solve_status_name(int status);

/* A solver configured by a YAML text with the problem file's solver, preconditioner,
 * backend and cpu_kernels keys (docs/problem-file.md), e.g. "solver: {tolerance: 1.0e-10}\nbackend:
 * cpu"; NULL or "" for the defaults. */
prism_status prism_solver_create(const char* config_yaml, prism_solver** solver);

/* Checks, orders, analyzes and factors A (n rows, row_ptr[n] stored entries) and moves it
 * to the backend. The arrays are copied; the caller keeps them. After a failed setup the
 * solver has no matrix: solve and refactor need a successful setup again. */
prism_status prism_solver_setup(prism_solver* solver, int32_t n, const int32_t* row_ptr,
                                const int32_t* col_idx, const double* values);

/* New values (row_ptr[n] of them, in the order given to setup) on the same pattern. */
prism_status prism_solver_refactor(prism_solver* solver, const double* values);

/* Which part of a symmetric matrix prism_solver_setup_view's arrays hold. */
typedef enum prism_storage {
  PRISM_STORAGE_FULL = 0,  /* both triangles */
  PRISM_STORAGE_LOWER = 1, /* the entries with column <= row */
  PRISM_STORAGE_UPPER = 2  /* the entries with column >= row */
} prism_storage;

/* prism_solver_setup on 64-bit indices, the full matrix or one triangle (storage: a
 * prism_storage): row_ptr has n + 1 entries, col_idx and values row_ptr[n]; 0-based,
 * the columns of each row sorted and unique. prism copies what it needs (a triangle
 * mirrored, the indices narrowed to 32 bits: n and the full matrix's entries must stay
 * below 2^31) and keeps no pointer into the arrays. A broken contract is
 * PRISM_ERROR_MATRIX with the first problem named, rows and entries counted from 0. */
prism_status prism_solver_setup_view(prism_solver* solver, int64_t n, const int64_t* row_ptr,
                                     const int64_t* col_idx, const double* values, int storage);

/* New values on the pattern given to setup, passed as to prism_solver_setup_view (the
 * pattern is compared, not kept; a triangle's values are mirrored). */
prism_status prism_solver_refactor_view(prism_solver* solver, int64_t n, const int64_t* row_ptr,
                                        const int64_t* col_idx, const double* values, int storage);

/* Solves A x = b; x (n entries) holds the initial guess on entry and the solution on
 * return. A solve that does not converge returns PRISM_OK with info->status saying why.
 * info may be NULL. */
prism_status prism_solver_solve(prism_solver* solver, const double* b, double* x,
                                prism_solve_info* info);

/* prism_solver_solve with b and x (n entries each, not overlapping) in memory the backend
 * reads: device or managed memory on the solver's GPU for "cuda" (e.g. what a GPU assembly
 * wrote; synchronize its stream first), host memory for "cpu". Nothing is copied through
 * the host; the result equals prism_solver_solve's bit for bit. Host memory on "cuda" is
 * PRISM_ERROR_MATRIX with the vector named. */
prism_status prism_solver_solve_on_backend(prism_solver* solver, const double* b, double* x,
                                           prism_solve_info* info);

/* Solves A X = B for `columns` right-hand sides at once: b and x hold `columns` columns of n
 * entries each, column-major (column j at b + j * n), in host memory, not overlapping; x the
 * initial guesses on entry and the solutions on return. Each column iterates as its own
 * solve (its own stopping test, dropping out when it stops) while the matrix, and the
 * factor of none, jacobi and ic0, is read once per iteration for all the columns; each
 * column's result equals prism_solver_solve's on it (with timing: phases). info: NULL or
 * `columns` records, one per column (solve_seconds: the whole solve's). columns outside
 * 1 to 65535 is PRISM_ERROR_MATRIX. */
prism_status prism_solver_solve_columns(prism_solver* solver, const double* b, double* x,
                                        int32_t columns, prism_solve_info* info);

/* prism_solver_solve_columns with b and x in memory the backend reads, as
 * prism_solver_solve_on_backend takes them; the same results bit for bit. */
prism_status prism_solver_solve_columns_on_backend(prism_solver* solver, const double* b, double* x,
                                                   int32_t columns, prism_solve_info* info);

/* z = M^{-1} r (n entries each, host memory, not overlapping) with the preconditioner the
 * solves iterate with: for a Krylov method of the caller's own. */
prism_status prism_solver_apply_preconditioner(prism_solver* solver, const double* r, double* z);

/* The same with r and z in memory the backend reads, as prism_solver_solve_on_backend. */
prism_status prism_solver_apply_preconditioner_on_backend(prism_solver* solver, const double* r,
                                                          double* z);

/* A caller's preconditioner: writes z = M^{-1} r for r and z of n entries in the backend's
 * memory (device pointers on "cuda", host pointers on "cpu"), in the caller's ordering;
 * returns 0, or non-zero to stop the solve (it then fails with PRISM_ERROR_OTHER and a
 * message giving the value). On "cuda" the solver's work is done before the call, and the
 * callback's own GPU work must be done when it returns. */
typedef int (*prism_preconditioner_fn)(const double* r, double* z, int32_t n, void* context);

/* Makes `apply` (with `context` passed through) the preconditioner of a solver created with
 * "preconditioner: {type: user}"; call it before prism_solver_setup, which fails with
 * PRISM_ERROR_CONFIG for type user without one. NULL removes it. */
prism_status prism_solver_set_preconditioner(prism_solver* solver, prism_preconditioner_fn apply,
                                             void* context);

/* "cpu" or "cuda": where the solver computes. */
const char* prism_solver_backend(const prism_solver* solver);

/* Frees the solver; NULL is ignored. */
void prism_solver_destroy(prism_solver* solver);

#ifdef __cplusplus
}
#endif

#endif /* PRISM_PRISM_H */
