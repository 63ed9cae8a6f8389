/* The distributed C API from C, on every rank of MPI_COMM_WORLD: create on a communicator,
 * set up this rank's rows, solve, refactor, several right-hand sides, the monitor, the
 * report, and bad calls answered with the same status and message on every rank. */
#include <prism/prism_mpi.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
static int rank = 0, size = 1;

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s (last error: %s)\n", rank, __FILE__, \
              __LINE__, #cond, prism_last_error());                                          \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

enum { N = 90, MAX_LOCAL = N };

/* This rank's rows of the 1D Laplacian with a shifted diagonal (2.5, -1), times scale. */
static int64_t row_begin, row_end, row_ptr[MAX_LOCAL + 1], col_idx[3 * MAX_LOCAL];
static double values[3 * MAX_LOCAL];

static void laplacian_rows(double scale) {
  int64_t k = 0;
  row_begin = (int64_t)N * rank / size;
  row_end = (int64_t)N * (rank + 1) / size;
  for (int64_t i = row_begin; i < row_end; ++i) {
    row_ptr[i - row_begin] = k;
    if (i > 0) {
      col_idx[k] = i - 1;
      values[k++] = -1.0 * scale;
    }
    col_idx[k] = i;
    values[k++] = 2.5 * scale;
    if (i + 1 < N) {
      col_idx[k] = i + 1;
      values[k++] = -1.0 * scale;
    }
  }
  row_ptr[row_end - row_begin] = k;
}

/* b = A * 1 on this rank's rows (A's row sums). */
static void rhs_of_ones(double* b) {
  for (int64_t i = 0; i < row_end - row_begin; ++i) {
    b[i] = 0.0;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) b[i] += values[k];
  }
}

static double max_error(const double* x, double expected, int64_t n) {
  double worst = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (fabs(x[i] - expected) > worst) worst = fabs(x[i] - expected);
  }
  return worst;
}

static int stop_at_three(int32_t iteration, double residual_norm, double relative_residual,
                         void* context) {
  (void)residual_norm;
  (void)relative_residual;
  ++*(int*)context;
  return iteration == 3 && rank == size - 1; /* the last rank asks; every rank stops */
}

/* Every rank got `status` and the same message, holding `expected`. */
static void check_agreed(prism_status got, prism_status status, const char* expected) {
  char first[512];
  CHECK(got == status);
  CHECK(strstr(prism_last_error(), expected) != NULL);
  strncpy(first, prism_last_error(), sizeof first - 1);
  first[sizeof first - 1] = '\0';
  MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(strcmp(first, prism_last_error()) == 0);
}

static void solves_and_refactors(prism_distributed_solver* s) {
  double b[2 * MAX_LOCAL], x[2 * MAX_LOCAL];
  const int64_t n = row_end - row_begin;
  prism_solve_info info[2];
  prism_distributed_info report;

  CHECK(prism_distributed_solver_report(s, &report) == PRISM_ERROR_ARGUMENT);
  CHECK(prism_distributed_solver_setup(s, N, row_begin, row_end, row_ptr, col_idx, values) ==
        PRISM_OK);
  rhs_of_ones(b);
  memset(x, 0, sizeof x);
  CHECK(prism_distributed_solver_solve(s, b, x, &info[0]) == PRISM_OK);
  CHECK(info[0].status == PRISM_SOLVE_CONVERGED);
  CHECK(max_error(x, 1.0, n) < 1e-8);
  CHECK(prism_distributed_solver_report(s, &report) == PRISM_OK);
  CHECK(report.ranks == size && report.global_rows == N && report.global_nnz == 3 * N - 2);
  CHECK(report.iterations == info[0].iterations && report.status == PRISM_SOLVE_CONVERGED);

  /* New values 2A on the same pattern: A x = b now gives x = 1/2. */
  laplacian_rows(2.0);
  CHECK(prism_distributed_solver_refactor(s, N, row_begin, row_end, row_ptr, col_idx, values) ==
        PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_distributed_solver_solve(s, b, x, NULL) == PRISM_OK);
  CHECK(max_error(x, 0.5, n) < 1e-8);

  /* Two columns: b and 2b give 1/2 and 1. */
  for (int64_t i = 0; i < n; ++i) b[n + i] = 2.0 * b[i];
  memset(x, 0, sizeof x);
  CHECK(prism_distributed_solver_solve_columns(s, b, x, 2, info) == PRISM_OK);
  CHECK(info[0].status == PRISM_SOLVE_CONVERGED && info[1].status == PRISM_SOLVE_CONVERGED);
  CHECK(max_error(x, 0.5, n) < 1e-8);
  CHECK(max_error(x + n, 1.0, n) < 1e-8);

  /* The monitor stops every rank after iteration 3. */
  int calls = 0;
  CHECK(prism_distributed_solver_set_monitor(s, stop_at_three, &calls) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_distributed_solver_solve(s, b, x, &info[0]) == PRISM_OK);
  CHECK(info[0].status == PRISM_SOLVE_STOPPED && info[0].iterations == 3);
  CHECK(calls == 4);
  CHECK(prism_distributed_solver_set_monitor(s, NULL, NULL) == PRISM_OK);
}

static void bad_calls(prism_distributed_solver* s) {
  double b[MAX_LOCAL], x[MAX_LOCAL];
  rhs_of_ones(b);
  memset(x, 0, sizeof x);
  /* A NULL vector on rank 0 alone: every rank fails, naming rank 0. */
  check_agreed(prism_distributed_solver_solve(s, rank == 0 ? NULL : b, x, NULL),
               PRISM_ERROR_ARGUMENT, "rank 0: prism_distributed_solver_solve: b or x is NULL");
  check_agreed(prism_distributed_solver_solve_columns(s, b, x, 0, NULL), PRISM_ERROR_MATRIX,
               "columns is 0");
  /* Another pattern on the last rank. */
  const int64_t saved = col_idx[0];
  if (rank == size - 1) col_idx[0] = saved == 0 ? 1 : saved - 1;
  check_agreed(
      prism_distributed_solver_refactor(s, N, row_begin, row_end, row_ptr, col_idx, values),
      PRISM_ERROR_MATRIX, "another pattern");
  col_idx[0] = saved;
  /* A value that is not finite on rank 0. */
  const double value = values[0];
  if (rank == 0) values[0] = NAN;
  check_agreed(
      prism_distributed_solver_refactor(s, N, row_begin, row_end, row_ptr, col_idx, values),
      PRISM_ERROR_MATRIX, "rank 0: row 0");
  values[0] = value;
  /* Ranges that do not tile the rows (the last rank claims one row too many). */
  check_agreed(prism_distributed_solver_setup(s, N, row_begin, row_end + (rank == size - 1),
                                              row_ptr, col_idx, values),
               PRISM_ERROR_MATRIX, "rank");
  /* The failed setup leaves no matrix. */
  check_agreed(prism_distributed_solver_solve(s, b, x, NULL), PRISM_ERROR_ARGUMENT,
               "call prism_distributed_solver_setup first");
  CHECK(prism_distributed_solver_solve(NULL, b, x, NULL) == PRISM_ERROR_ARGUMENT);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  laplacian_rows(1.0);

  prism_distributed_solver* s = NULL;
  check_agreed(prism_distributed_solver_create(MPI_COMM_WORLD,
                                               rank == 0 ? "solver: {tolerance: oops}" : "", &s),
               PRISM_ERROR_CONFIG, "rank 0: ");
  CHECK(s == NULL);
  CHECK(prism_distributed_solver_create(MPI_COMM_WORLD,
                                        "backend: cpu\n"
                                        "solver: {tolerance: 1.0e-12, cg_variant: classic}\n"
                                        "preconditioner: {type: ic0}",
                                        &s) == PRISM_OK);
  if (s != NULL) {
    solves_and_refactors(s);
    laplacian_rows(1.0);
    bad_calls(s);
    prism_distributed_solver_destroy(s);
  }
  /* The Fortran handle's entry point. */
  s = NULL;
  CHECK(prism_distributed_solver_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), "backend: cpu", &s) ==
        PRISM_OK);
  prism_distributed_solver_destroy(s);

  int any = failures;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("test_capi_mpi on %d ranks: %s\n", size, any ? "FAILED" : "passed");
  MPI_Finalize();
  return any != 0 ? 1 : 0;
}
