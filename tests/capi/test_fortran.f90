! The Fortran module from Fortran: create, set up, solve, refactor, the preconditioner as
! a component (alone, and a Fortran callback in the PCG), a solve on backend memory, three
! right-hand sides at once, and a bad configuration answered with a status and a message.
module test_callbacks
  use, intrinsic :: iso_c_binding
  implicit none
contains
  !> Jacobi for the test matrix (diagonal 2.5), as jacobi computes it: (1 / a_ii) r_i.
  integer(c_int) function jacobi(r, z, n, context) bind(c)
    type(c_ptr), value :: r, z, context
    integer(c_int32_t), value :: n
    real(c_double), pointer :: rv(:), zv(:)
    call c_f_pointer(r, rv, [n])
    call c_f_pointer(z, zv, [n])
    zv = (1.0d0 / 2.5d0) * rv
    jacobi = 0
  end function jacobi
end module test_callbacks

program test_fortran
  use, intrinsic :: iso_c_binding
  use prism
  use test_callbacks
  implicit none
  integer, parameter :: n = 40
  integer(c_int32_t) :: row_ptr(n + 1), col_idx(3 * n)
  real(c_double) :: values(3 * n), x_first(n), z(n), x_jacobi(n)
  real(c_double), target :: b(n), x(n)
  type(c_ptr) :: solver, bad, user
  type(prism_solve_info) :: info, info_jacobi, infos(3)
  real(c_double) :: bs(n, 3), xs(n, 3)
  integer(c_int64_t) :: lrow(n + 1), lcol(2 * n), kl
  real(c_double) :: lval(2 * n)
  integer :: i, k, failures
  failures = 0

  ! The 1D Laplacian with diagonal 2.5, 0-based CSR.
  k = 0
  do i = 1, n
    row_ptr(i) = k
    if (i > 1) then
      k = k + 1; col_idx(k) = i - 2; values(k) = -1.0d0
    end if
    k = k + 1; col_idx(k) = i - 1; values(k) = 2.5d0
    if (i < n) then
      k = k + 1; col_idx(k) = i; values(k) = -1.0d0
    end if
  end do
  row_ptr(n + 1) = k
  do i = 1, n
    b(i) = 1.0d0 + mod(i, 5)
  end do

  call check(prism_solver_create("solver: {tolerance: 1.0e-10}" // new_line('a') // &
                                 "backend: cpu", solver) == PRISM_OK, "create")
  call check(prism_solver_setup(solver, int(n, c_int32_t), row_ptr, col_idx, values) &
             == PRISM_OK, "setup")
  x = 0
  call check(prism_solver_solve(solver, b, x, info) == PRISM_OK, "solve")
  call check(info%status == PRISM_SOLVE_CONVERGED, "converged")
  call check(info%true_relative_residual <= 1.0d-10, "true residual")
  call check(residual() <= 1.0d-10, "residual of x")
  x_first = x

  values = 2 * values
  call check(prism_solver_refactor(solver, values) == PRISM_OK, "refactor")
  x = 0
  call check(prism_solver_solve(solver, b, x, info) == PRISM_OK, "solve after refactor")
  call check(maxval(abs(2 * x - x_first)) <= 1.0d-8 * maxval(abs(x_first)), "x halves")
  call prism_solver_destroy(solver)
  values = values / 2

  call check(prism_solver_create("preconditioner: jacobi" // new_line('a') // "backend: cpu", &
                                 solver) == PRISM_OK, "create jacobi")
  call check(prism_solver_setup(solver, int(n, c_int32_t), row_ptr, col_idx, values) &
             == PRISM_OK, "setup jacobi")
  call check(prism_solver_apply_preconditioner(solver, b, z) == PRISM_OK, "apply")
  call check(all(z == (1.0d0 / 2.5d0) * b), "jacobi is b / diag")
  x_jacobi = 0
  call check(prism_solver_solve(solver, b, x_jacobi, info_jacobi) == PRISM_OK, "solve jacobi")
  x = 0
  call check(prism_solver_solve_on_backend(solver, c_loc(b), c_loc(x), info) == PRISM_OK, &
             "solve on backend")
  call check(all(x == x_jacobi), "backend solve equals host solve")
  ! b, 3 b and 0 as the columns of one solve: the first as the single solve, bit for bit.
  bs(:, 1) = b
  bs(:, 2) = 3 * b
  bs(:, 3) = 0
  xs = 0
  call check(prism_solver_solve_columns(solver, bs, xs, 3_c_int32_t, infos) == PRISM_OK, &
             "solve columns")
  call check(all(infos%status == PRISM_SOLVE_CONVERGED), "columns converged")
  call check(infos(1)%iterations == info_jacobi%iterations, "column 1 iterations")
  call check(infos(3)%iterations == 0, "zero column at iteration 0")
  call check(all(xs(:, 1) == x_jacobi), "column 1 equals the single solve")
  call check(maxval(abs(xs(:, 2) - 3 * x_jacobi)) <= 1.0d-8 * maxval(abs(x_jacobi)), "column 2")
  call check(all(xs(:, 3) == 0), "zero column")
  call prism_solver_destroy(solver)

  call check(prism_solver_create("preconditioner: user" // new_line('a') // "backend: cpu", &
                                 user) == PRISM_OK, "create user")
  call check(prism_solver_set_preconditioner(user, c_funloc(jacobi), c_null_ptr) == PRISM_OK, &
             "set preconditioner")
  call check(prism_solver_setup(user, int(n, c_int32_t), row_ptr, col_idx, values) &
             == PRISM_OK, "setup user")
  x = 0
  call check(prism_solver_solve(user, b, x, info) == PRISM_OK, "solve user")
  call check(info%iterations == info_jacobi%iterations, "user iterations")
  call check(all(x == x_jacobi), "user solution")
  call prism_solver_destroy(user)

  ! The same matrix as 64-bit lower-triangle CSR: the solution of the full one, bit for bit.
  kl = 0
  do i = 1, n
    lrow(i) = kl
    do k = row_ptr(i) + 1, row_ptr(i + 1)
      if (col_idx(k) <= i - 1) then
        kl = kl + 1; lcol(kl) = col_idx(k); lval(kl) = values(k)
      end if
    end do
  end do
  lrow(n + 1) = kl
  call check(prism_solver_create("preconditioner: jacobi" // new_line('a') // "backend: cpu", &
                                 solver) == PRISM_OK, "create view")
  call check(prism_solver_setup_view(solver, int(n, c_int64_t), lrow, lcol, lval, &
                                     PRISM_STORAGE_LOWER) == PRISM_OK, "setup view")
  call check(prism_solver_refactor_view(solver, int(n, c_int64_t), lrow, lcol, lval, &
                                        PRISM_STORAGE_LOWER) == PRISM_OK, "refactor view")
  x = 0
  call check(prism_solver_solve(solver, b, x, info) == PRISM_OK, "solve view")
  call check(all(x == x_jacobi), "lower int64 view equals full int32")
  call prism_solver_destroy(solver)

  call check(prism_solver_create("solver: {tolerance: 2}", bad) == PRISM_ERROR_CONFIG, &
             "bad config")
  call check(index(prism_last_error(), "solver.tolerance") > 0, "message names the key")

  if (failures > 0) stop 1
  print *, "test_fortran: all checks passed"

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, "CHECK failed: ", what
      failures = failures + 1
    end if
  end subroutine check

  real(c_double) function residual()
    real(c_double) :: ax, rr, bb
    integer :: r, e
    rr = 0; bb = 0
    do r = 1, n
      ax = 0
      do e = row_ptr(r) + 1, row_ptr(r + 1)
        ax = ax + values(e) * x(col_idx(e) + 1)
      end do
      rr = rr + (b(r) - ax)**2
      bb = bb + b(r)**2
    end do
    residual = sqrt(rr / bb)
  end function residual

end program test_fortran
