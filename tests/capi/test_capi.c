/* The C API from C: create from a YAML text, set up, solve, refactor, the preconditioner
 * as a component, and every kind of bad call answered with a status and a message, never
 * an abort. */
#include <prism/prism.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

enum { N = 50 };

/* The 1D Laplacian with a shifted diagonal (2.5, -1): SPD, tridiagonal. */
static int32_t row_ptr[N + 1], col_idx[3 * N];
static double values[3 * N];

static void laplacian(double scale) {
  int32_t k = 0;
  for (int32_t i = 0; i < N; ++i) {
    row_ptr[i] = k;
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
  row_ptr[N] = k;
}

/* ||b - A x|| / ||b|| with the arrays above. */
static double residual(const double* b, const double* x) {
  double rr = 0.0, bb = 0.0;
  for (int32_t i = 0; i < N; ++i) {
    double ax = 0.0;
    for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) ax += values[k] * x[col_idx[k]];
    rr += (b[i] - ax) * (b[i] - ax);
    bb += b[i] * b[i];
  }
  return sqrt(rr / bb);
}

/* Jacobi for the matrix above: z = r / 2.5, as 1 / a_ii times r_i (jacobi's arithmetic). */
static int jacobi(const double* r, double* z, int32_t n, void* context) {
  const double* scale = (const double*)context;
  for (int32_t i = 0; i < n; ++i) z[i] = (1.0 / (2.5 * *scale)) * r[i];
  return 0;
}

static int failing(const double* r, double* z, int32_t n, void* context) {
  (void)r, (void)z, (void)n, (void)context;
  return 7;
}

/* The preconditioner alone, a caller's preconditioner in the PCG, solves on backend memory
 * (host memory on the cpu backend). */
static void preconditioner_component(const double* b) {
  prism_solver *builtin = NULL, *user = NULL;
  double r[N], z[N], x_builtin[N], x[N], scale = 1.0;
  prism_solve_info info_builtin, info;
  laplacian(1.0);
  CHECK(prism_solver_create("preconditioner: jacobi\nbackend: cpu", &builtin) == PRISM_OK);
  CHECK(prism_solver_setup(builtin, N, row_ptr, col_idx, values) == PRISM_OK);
  for (int i = 0; i < N; ++i) r[i] = 0.5 + i;
  CHECK(prism_solver_apply_preconditioner(builtin, r, z) == PRISM_OK);
  for (int i = 0; i < N; ++i) CHECK(z[i] == (1.0 / 2.5) * r[i]);
  CHECK(prism_solver_apply_preconditioner_on_backend(builtin, r, r) == PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "r and z overlap") != NULL);

  memset(x_builtin, 0, sizeof x_builtin);
  CHECK(prism_solver_solve(builtin, b, x_builtin, &info_builtin) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve_on_backend(builtin, b, x, &info) == PRISM_OK);
  CHECK(info.iterations == info_builtin.iterations);
  CHECK(memcmp(x, x_builtin, sizeof x) == 0);

  CHECK(prism_solver_create("preconditioner: user\nbackend: cpu", &user) == PRISM_OK);
  CHECK(prism_solver_setup(user, N, row_ptr, col_idx, values) == PRISM_ERROR_CONFIG);
  CHECK(strstr(prism_last_error(), "prism_solver_set_preconditioner") != NULL);
  CHECK(prism_solver_set_preconditioner(user, jacobi, &scale) == PRISM_OK);
  CHECK(prism_solver_setup(user, N, row_ptr, col_idx, values) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve(user, b, x, &info) == PRISM_OK);
  CHECK(info.status == PRISM_SOLVE_CONVERGED);
  CHECK(info.iterations == info_builtin.iterations);
  CHECK(memcmp(x, x_builtin, sizeof x) == 0);
  CHECK(prism_solver_set_preconditioner(user, failing, NULL) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve(user, b, x, &info) == PRISM_ERROR_OTHER);
  CHECK(strstr(prism_last_error(), "callback returned 7") != NULL);
  CHECK(prism_solver_set_preconditioner(NULL, jacobi, NULL) == PRISM_ERROR_ARGUMENT);
  prism_solver_destroy(user);
  prism_solver_destroy(builtin);
}

/* prism_solver_setup_view with int64 indices and the lower triangle: the solution of the
 * full int32 matrix, bit for bit; refactor through it; bad arrays answered with a status. */
static void views(const double* b) {
  int64_t lrow[N + 1], lcol[2 * N];
  double lval[2 * N], x_full[N], x[N];
  prism_solver *full = NULL, *lower = NULL;
  const char* config = "solver: {tolerance: 1.0e-10}\npreconditioner: ic0\nbackend: cpu";
  int64_t k = 0;
  laplacian(2.0);
  for (int32_t i = 0; i < N; ++i) {
    lrow[i] = k;
    for (int32_t e = row_ptr[i]; e < row_ptr[i + 1] && col_idx[e] <= i; ++e) {
      lcol[k] = col_idx[e];
      lval[k++] = values[e];
    }
  }
  lrow[N] = k;
  CHECK(prism_solver_create(config, &full) == PRISM_OK);
  CHECK(prism_solver_create(config, &lower) == PRISM_OK);
  CHECK(prism_solver_setup(full, N, row_ptr, col_idx, values) == PRISM_OK);
  laplacian(1.0); /* set up with A, refactored to 2 A below */
  for (int64_t e = 0; e < k; ++e) lval[e] /= 2.0;
  CHECK(prism_solver_setup_view(lower, N, lrow, lcol, lval, PRISM_STORAGE_LOWER) == PRISM_OK);
  for (int64_t e = 0; e < k; ++e) lval[e] *= 2.0;
  CHECK(prism_solver_refactor_view(lower, N, lrow, lcol, lval, PRISM_STORAGE_LOWER) == PRISM_OK);
  memset(x_full, 0, sizeof x_full);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve(full, b, x_full, NULL) == PRISM_OK);
  CHECK(prism_solver_solve(lower, b, x, NULL) == PRISM_OK);
  CHECK(memcmp(x, x_full, sizeof x) == 0);

  CHECK(prism_solver_refactor(lower, lval) == PRISM_ERROR_ARGUMENT);
  CHECK(strstr(prism_last_error(), "prism_solver_refactor_view") != NULL);
  CHECK(prism_solver_setup_view(lower, N, lrow, lcol, lval, 7) == PRISM_ERROR_ARGUMENT);
  lrow[0] = 1; /* 1-based by mistake */
  CHECK(prism_solver_setup_view(lower, N, lrow, lcol, lval, PRISM_STORAGE_LOWER) ==
        PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "row_ptr[0] is 1, not 0") != NULL);
  lrow[0] = 0;
  lrow[5] = lrow[4] - 1; /* decreasing row pointers */
  CHECK(prism_solver_setup_view(lower, N, lrow, lcol, lval, PRISM_STORAGE_LOWER) ==
        PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "row_ptr[5]") != NULL);
  CHECK(prism_solver_solve(lower, b, x, NULL) == PRISM_ERROR_ARGUMENT); /* set-up failed */
  CHECK(prism_solver_setup_view(lower, 1LL << 31, lrow, lcol, lval, 0) == PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "32-bit") != NULL);
  prism_solver_destroy(lower);
  prism_solver_destroy(full);
}

int main(void) {
  prism_solver* solver = NULL;
  double b[N], x[N], x_first[N];
  prism_solve_info info;
  for (int i = 0; i < N; ++i) b[i] = 1.0 + (i % 7);
  preconditioner_component(b);
  views(b);

  CHECK(prism_solver_create("solver: {tolerance: 1.0e-10}\npreconditioner: ic0\nbackend: cpu",
                            &solver) == PRISM_OK);
  CHECK(solver != NULL);
  CHECK(strcmp(prism_solver_backend(solver), "cpu") == 0);
  laplacian(1.0);
  CHECK(prism_solver_setup(solver, N, row_ptr, col_idx, values) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve(solver, b, x, &info) == PRISM_OK);
  CHECK(info.status == PRISM_SOLVE_CONVERGED);
  CHECK(info.iterations > 0);
  CHECK(info.true_relative_residual <= 1e-10);
  CHECK(residual(b, x) <= 1e-10);
  memcpy(x_first, x, sizeof x);

  /* Three right-hand sides at once (b, 2 b, 0): each column as its own solve, bit for bit;
   * the zero column at iteration 0; then on backend memory (host memory on cpu). */
  {
    double bs[3 * N], xs[3 * N], xb[3 * N];
    prism_solve_info infos[3];
    for (int i = 0; i < N; ++i) {
      bs[i] = b[i];
      bs[N + i] = 2.0 * b[i];
      bs[2 * N + i] = 0.0;
    }
    memset(xs, 0, sizeof xs);
    memset(xb, 0, sizeof xb);
    CHECK(prism_solver_solve_columns(solver, bs, xs, 3, infos) == PRISM_OK);
    CHECK(infos[0].status == PRISM_SOLVE_CONVERGED && infos[0].iterations == info.iterations);
    CHECK(infos[1].status == PRISM_SOLVE_CONVERGED);
    CHECK(infos[2].status == PRISM_SOLVE_CONVERGED && infos[2].iterations == 0);
    for (int i = 0; i < N; ++i) {
      CHECK(xs[i] == x[i]);
      CHECK(xs[2 * N + i] == 0.0);
    }
    CHECK(residual(bs + N, xs + N) <= 1e-10);
    CHECK(prism_solver_solve_columns_on_backend(solver, bs, xb, 3, NULL) == PRISM_OK);
    CHECK(memcmp(xb, xs, sizeof xs) == 0);
    CHECK(prism_solver_solve_columns(solver, bs, xs, 0, NULL) == PRISM_ERROR_MATRIX);
    CHECK(strstr(prism_last_error(), "columns is 0") != NULL);
    CHECK(prism_solver_solve_columns(solver, bs, bs + 1, 2, NULL) == PRISM_ERROR_MATRIX);
    CHECK(strstr(prism_last_error(), "overlap") != NULL);
  }

  /* Refactor with 2 A: the solution halves. */
  laplacian(2.0);
  CHECK(prism_solver_refactor(solver, values) == PRISM_OK);
  memset(x, 0, sizeof x);
  CHECK(prism_solver_solve(solver, b, x, NULL) == PRISM_OK);
  for (int i = 0; i < N; ++i) CHECK(fabs(2.0 * x[i] - x_first[i]) <= 1e-8 * fabs(x_first[i]));

  /* Bad calls: a status and a message, the solver still usable. */
  CHECK(prism_solver_solve(solver, NULL, x, NULL) == PRISM_ERROR_ARGUMENT);
  CHECK(strlen(prism_last_error()) > 0);
  values[1] = 5.0; /* a(0, 1) no longer equals a(1, 0) */
  CHECK(prism_solver_refactor(solver, values) == PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "symmetric") != NULL);
  row_ptr[0] = 1;
  CHECK(prism_solver_setup(solver, N, row_ptr, col_idx, values) == PRISM_ERROR_MATRIX);
  CHECK(strstr(prism_last_error(), "row_ptr[0]") != NULL);
  CHECK(prism_solver_solve(solver, b, x, NULL) == PRISM_ERROR_ARGUMENT); /* set-up failed */
  prism_solver_destroy(solver);

  prism_solver* bad = NULL;
  CHECK(prism_solver_create("solver: {tolerance: 2}", &bad) == PRISM_ERROR_CONFIG);
  CHECK(bad == NULL);
  CHECK(strstr(prism_last_error(), "<config>:1:21: solver.tolerance") != NULL);
  CHECK(prism_solver_create("preconditioner: ilu", &bad) == PRISM_ERROR_CONFIG);
  CHECK(prism_solver_create(NULL, NULL) == PRISM_ERROR_ARGUMENT);
  CHECK(prism_solver_create(NULL, &bad) == PRISM_OK); /* the defaults */
  CHECK(prism_solver_setup(bad, -3, row_ptr, col_idx, values) == PRISM_ERROR_ARGUMENT);
  prism_solver_destroy(bad);
  prism_solver_destroy(NULL);
  CHECK(strcmp(prism_status_name(PRISM_ERROR_CONFIG), "config error") == 0);
  CHECK(strcmp(prism_solve_status_name(PRISM_SOLVE_STAGNATED), "stagnated") == 0);

  if (failures == 0) printf("test_capi: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
