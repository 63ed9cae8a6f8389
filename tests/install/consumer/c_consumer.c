/* A C program on the installed package: the 2 x 2 system [[4, 1], [1, 3]] x = [1, 2]. */
#include <prism/prism.h>

#include <math.h>
#include <stdio.h>

int main(void) {
  const int32_t row_ptr[] = {0, 2, 4};
  const int32_t col_idx[] = {0, 1, 0, 1};
  const double values[] = {4.0, 1.0, 1.0, 3.0};
  const double b[] = {1.0, 2.0};
  double x[] = {0.0, 0.0};
  prism_solve_info info;
  prism_solver* solver = NULL;
  if (prism_solver_create("backend: cpu", &solver) != PRISM_OK ||
      prism_solver_setup(solver, 2, row_ptr, col_idx, values) != PRISM_OK ||
      prism_solver_solve(solver, b, x, &info) != PRISM_OK) {
    fprintf(stderr, "c_consumer: %s\n", prism_last_error());
    return 1;
  }
  prism_solver_destroy(solver);
  /* x = [1/11, 7/11] */
  const int ok = info.status == PRISM_SOLVE_CONVERGED && fabs(x[0] - 1.0 / 11) < 1e-9 &&
                 fabs(x[1] - 7.0 / 11) < 1e-9;
  printf("c_consumer: %s after %d iterations, x = %.6f %.6f\n",
         prism_solve_status_name(info.status), info.iterations, x[0], x[1]);
  return ok ? 0 : 1;
}
