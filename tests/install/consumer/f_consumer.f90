! A Fortran program on the installed package: [[4, 1], [1, 3]] x = [1, 2].
program f_consumer
  use, intrinsic :: iso_c_binding
  use prism
  implicit none
  integer(c_int32_t) :: row_ptr(3) = [0, 2, 4], col_idx(4) = [0, 1, 0, 1]
  real(c_double) :: values(4) = [4.0d0, 1.0d0, 1.0d0, 3.0d0], b(2) = [1.0d0, 2.0d0], x(2)
  type(c_ptr) :: solver
  type(prism_solve_info) :: info
  x = 0
  if (prism_solver_create("backend: cpu", solver) /= PRISM_OK) stop 1
  if (prism_solver_setup(solver, 2_c_int32_t, row_ptr, col_idx, values) /= PRISM_OK) stop 1
  if (prism_solver_solve(solver, b, x, info) /= PRISM_OK) stop 1
  call prism_solver_destroy(solver)
  print '(a, i0, a, 2f10.6)', "f_consumer: ", info%iterations, " iterations, x =", x
  if (info%status /= PRISM_SOLVE_CONVERGED) stop 1
  if (abs(x(1) - 1.0d0 / 11) > 1.0d-9 .or. abs(x(2) - 7.0d0 / 11) > 1.0d-9) stop 1
end program f_consumer
