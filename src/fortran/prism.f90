! prism's Fortran module: the C API of include/prism/prism.h through iso_c_binding
! (Fortran 2003). Compile it with the application's compiler and link prism::prism:
!   gfortran -c prism.f90 && gfortran app.f90 prism.o -lprism ... (or CMake, see
!   docs/embedding.md). Matrices are CSR with 0-based int32 indices, both triangles
!   (prism_solver_setup_view: int64 indices, c_int64_t, and one triangle or both).
module prism
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: PRISM_OK = 0, PRISM_ERROR_INPUT = 1, &
    PRISM_ERROR_CONFIG = 2, PRISM_ERROR_MATRIX = 3, PRISM_ERROR_NUMERICAL = 4, &
    PRISM_ERROR_BACKEND = 5, PRISM_ERROR_DEVICE_MEMORY = 6, PRISM_ERROR_IO = 7, &
    PRISM_ERROR_ARGUMENT = 8, PRISM_ERROR_OTHER = 9
  integer(c_int), parameter, public :: PRISM_SOLVE_CONVERGED = 0, &
    PRISM_SOLVE_MAX_ITERATIONS = 1, PRISM_SOLVE_BREAKDOWN = 2, PRISM_SOLVE_STAGNATED = 3, &
    PRISM_SOLVE_STOPPED = 4
  integer(c_int), parameter, public :: PRISM_STORAGE_FULL = 0, PRISM_STORAGE_LOWER = 1, &
    PRISM_STORAGE_UPPER = 2

  type, bind(c), public :: prism_solve_info
    integer(c_int) :: status = 0
    integer(c_int) :: iterations = 0
    real(c_double) :: relative_residual = 0
    real(c_double) :: true_relative_residual = 0
    real(c_double) :: solve_seconds = 0
  end type prism_solve_info

  public :: prism_solver_create, prism_solver_setup, prism_solver_refactor, &
    prism_solver_solve, prism_solver_destroy, prism_last_error, &
    prism_solver_solve_on_backend, prism_solver_apply_preconditioner, &
    prism_solver_apply_preconditioner_on_backend, prism_solver_set_preconditioner, &
    prism_preconditioner_fn, prism_solver_setup_view, prism_solver_refactor_view, &
    prism_solver_solve_columns, prism_solver_solve_columns_on_backend

  !> The form of a caller's preconditioner (prism_solver_set_preconditioner, type user):
  !> z = M^{-1} r on n values at r and z in the backend's memory (host addresses on the
  !> cpu backend: c_f_pointer them); returns 0, or non-zero to stop the solve.
  abstract interface
    function prism_preconditioner_fn(r, z, n, context) bind(c) result(status)
      import :: c_ptr, c_int, c_int32_t
      type(c_ptr), value :: r, z, context
      integer(c_int32_t), value :: n
      integer(c_int) :: status
    end function prism_preconditioner_fn
  end interface

  interface
    function c_create(config, solver) bind(c, name="prism_solver_create") result(status)
      import :: c_char, c_ptr, c_int
      character(kind=c_char), dimension(*), intent(in) :: config
      type(c_ptr), intent(out) :: solver
      integer(c_int) :: status
    end function c_create

    function prism_solver_setup(solver, n, row_ptr, col_idx, values) &
        bind(c, name="prism_solver_setup") result(status)
      import :: c_ptr, c_int, c_int32_t, c_double
      type(c_ptr), value :: solver
      integer(c_int32_t), value :: n
      integer(c_int32_t), dimension(*), intent(in) :: row_ptr, col_idx
      real(c_double), dimension(*), intent(in) :: values
      integer(c_int) :: status
    end function prism_solver_setup

    !> row_ptr (n + 1), col_idx and values (row_ptr(n + 1) each): 0-based CSR with 64-bit
    !> indices; storage: PRISM_STORAGE_FULL, _LOWER or _UPPER (one triangle is mirrored).
    function prism_solver_setup_view(solver, n, row_ptr, col_idx, values, storage) &
        bind(c, name="prism_solver_setup_view") result(status)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: solver
      integer(c_int64_t), value :: n
      integer(c_int64_t), dimension(*), intent(in) :: row_ptr, col_idx
      real(c_double), dimension(*), intent(in) :: values
      integer(c_int), value :: storage
      integer(c_int) :: status
    end function prism_solver_setup_view

    !> New values on the pattern given to prism_solver_setup_view, passed the same way.
    function prism_solver_refactor_view(solver, n, row_ptr, col_idx, values, storage) &
        bind(c, name="prism_solver_refactor_view") result(status)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: solver
      integer(c_int64_t), value :: n
      integer(c_int64_t), dimension(*), intent(in) :: row_ptr, col_idx
      real(c_double), dimension(*), intent(in) :: values
      integer(c_int), value :: storage
      integer(c_int) :: status
    end function prism_solver_refactor_view

    function prism_solver_refactor(solver, values) bind(c, name="prism_solver_refactor") &
        result(status)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: solver
      real(c_double), dimension(*), intent(in) :: values
      integer(c_int) :: status
    end function prism_solver_refactor

    function prism_solver_solve(solver, b, x, info) bind(c, name="prism_solver_solve") &
        result(status)
      import :: c_ptr, c_int, c_double, prism_solve_info
      type(c_ptr), value :: solver
      real(c_double), dimension(*), intent(in) :: b
      real(c_double), dimension(*), intent(inout) :: x
      type(prism_solve_info), intent(out) :: info
      integer(c_int) :: status
    end function prism_solver_solve

    !> b and x are addresses in the backend's memory (device memory on cuda, e.g. from
    !> CUDA Fortran or OpenACC's host_data use_device; c_loc of host arrays on cpu).
    function prism_solver_solve_on_backend(solver, b, x, info) &
        bind(c, name="prism_solver_solve_on_backend") result(status)
      import :: c_ptr, c_int, prism_solve_info
      type(c_ptr), value :: solver, b, x
      type(prism_solve_info), intent(out) :: info
      integer(c_int) :: status
    end function prism_solver_solve_on_backend

    !> `columns` right-hand sides at once: b and x are n x columns arrays (column j of
    !> b(:, j) is one right-hand side), info one record per column.
    function prism_solver_solve_columns(solver, b, x, columns, info) &
        bind(c, name="prism_solver_solve_columns") result(status)
      import :: c_ptr, c_int, c_int32_t, c_double, prism_solve_info
      type(c_ptr), value :: solver
      real(c_double), dimension(*), intent(in) :: b
      real(c_double), dimension(*), intent(inout) :: x
      integer(c_int32_t), value :: columns
      type(prism_solve_info), dimension(*), intent(inout) :: info
      integer(c_int) :: status
    end function prism_solver_solve_columns

    !> prism_solver_solve_columns on addresses in the backend's memory.
    function prism_solver_solve_columns_on_backend(solver, b, x, columns, info) &
        bind(c, name="prism_solver_solve_columns_on_backend") result(status)
      import :: c_ptr, c_int, c_int32_t, prism_solve_info
      type(c_ptr), value :: solver, b, x
      integer(c_int32_t), value :: columns
      type(prism_solve_info), dimension(*), intent(inout) :: info
      integer(c_int) :: status
    end function prism_solver_solve_columns_on_backend

    function prism_solver_apply_preconditioner(solver, r, z) &
        bind(c, name="prism_solver_apply_preconditioner") result(status)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: solver
      real(c_double), dimension(*), intent(in) :: r
      real(c_double), dimension(*), intent(out) :: z
      integer(c_int) :: status
    end function prism_solver_apply_preconditioner

    function prism_solver_apply_preconditioner_on_backend(solver, r, z) &
        bind(c, name="prism_solver_apply_preconditioner_on_backend") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: solver, r, z
      integer(c_int) :: status
    end function prism_solver_apply_preconditioner_on_backend

    !> apply: c_funloc of a prism_preconditioner_fn (c_null_funptr removes it).
    function prism_solver_set_preconditioner(solver, apply, context) &
        bind(c, name="prism_solver_set_preconditioner") result(status)
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: solver, context
      type(c_funptr), value :: apply
      integer(c_int) :: status
    end function prism_solver_set_preconditioner

    subroutine prism_solver_destroy(solver) bind(c, name="prism_solver_destroy")
      import :: c_ptr
      type(c_ptr), value :: solver
    end subroutine prism_solver_destroy

    function c_last_error() bind(c, name="prism_last_error") result(message)
      import :: c_ptr
      type(c_ptr) :: message
    end function c_last_error

    function c_strlen(s) bind(c, name="strlen") result(length)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: length
    end function c_strlen
  end interface

contains

  !> A solver configured by a YAML text (the problem file's solver, preconditioner and
  !> backend keys); '' for the defaults. Lines are separated by new_line('a').
  function prism_solver_create(config, solver) result(status)
    character(len=*), intent(in) :: config
    type(c_ptr), intent(out) :: solver
    integer(c_int) :: status
    status = c_create(config // c_null_char, solver)
  end function prism_solver_create

  !> The message of the last failing call on this thread.
  function prism_last_error() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    text = c_last_error()
    length = int(c_strlen(text))
    call c_f_pointer(text, chars, [length])
    allocate(character(len=length) :: message)
    do i = 1, length
      message(i:i) = chars(i)
    end do
  end function prism_last_error

end module prism
