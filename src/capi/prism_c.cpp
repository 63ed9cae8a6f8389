// The C API (include/prism/prism.h) over prism::Solver: every exception becomes a status
// and a thread-local message here, at the one place they may not pass.

#include <prism/prism.h>
#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "capi/c_status.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

struct prism_solver {
  explicit prism_solver(prism::SolverConfig config) : solver(std::move(config)) {}
  prism::Solver solver;
  prism::CsrMatrix<double> a;  // the pattern given to setup(), for refactor()
  bool from_view = false;      // set up by prism_solver_setup_view: a holds only the size
  bool ready = false;
  std::string backend;
};

namespace {

using prism::capi::fail;
using prism::capi::guarded;
using prism::capi::solve_status;

void fill_info(const prism::SolveReport& report, prism_solve_info* info) {
  if (info == nullptr) return;
  info->status = solve_status(report.status);
  info->iterations = report.iterations;
  info->relative_residual = report.relative_residual;
  info->true_relative_residual = report.true_relative_residual;
  info->solve_seconds = report.solve_seconds;
}

/// One record per column of a multi-column solve (info: NULL or that many).
void fill_info(const prism::MultiSolveReport& report, prism_solve_info* info) {
  if (info == nullptr) return;
  for (std::size_t j = 0; j < report.column.size(); ++j) {
    const prism::ColumnReport& c = report.column[j];
    info[j].status = solve_status(c.status);
    info[j].iterations = c.iterations;
    info[j].relative_residual = c.relative_residual;
    info[j].true_relative_residual = c.true_relative_residual;
    info[j].solve_seconds = report.solve_seconds;
  }
}

/// The checks every call on two vectors of a set-up solver makes; PRISM_OK when they pass.
prism_status check_vectors(const char* call, const prism_solver* solver, const double* in,
                           const double* out) {
  if (solver == nullptr || in == nullptr || out == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, std::string(call) + ": a NULL solver or vector");
  }
  if (!solver->ready) {
    return fail(PRISM_ERROR_ARGUMENT, std::string(call) + ": call prism_solver_setup first");
  }
  return PRISM_OK;
}

/// The arguments of the view calls that C++ cannot check: the solver, the pointers, n and
/// the storage code; the arrays' contents are prism::to_csr_matrix's to check.
prism_status check_view(const char* call, const prism_solver* solver, int64_t n,
                        const int64_t* row_ptr, const int64_t* col_idx, const double* values,
                        int storage) {
  if (solver == nullptr || row_ptr == nullptr || col_idx == nullptr || values == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, std::string(call) + ": a NULL solver or array");
  }
  if (n < 0) return fail(PRISM_ERROR_ARGUMENT, std::string(call) + ": n is " + std::to_string(n));
  if (storage < PRISM_STORAGE_FULL || storage > PRISM_STORAGE_UPPER) {
    return fail(PRISM_ERROR_ARGUMENT,
                std::string(call) + ": storage is " + std::to_string(storage) +
                    ": PRISM_STORAGE_FULL (0), PRISM_STORAGE_LOWER (1) or PRISM_STORAGE_UPPER (2)");
  }
  return PRISM_OK;
}

prism::CsrView64 make_view(int64_t n, const int64_t* row_ptr, const int64_t* col_idx,
                           const double* values, int storage) {
  const prism::Storage kinds[] = {prism::Storage::full, prism::Storage::lower,
                                  prism::Storage::upper};
  return {n, n, row_ptr, col_idx, values, kinds[storage]};
}

}  // namespace

extern "C" {

const char* prism_last_error(void) {
  return prism::capi::last_error().c_str();
}

const char* prism_status_name(int status) {
  static const char* const names[] = {"ok",
                                      "input error",
                                      "config error",
                                      "matrix error",
                                      "numerical error",
                                      "backend error",
                                      "device memory error",
                                      "io error",
                                      "argument error",
                                      "other error"};
  return status >= 0 && status <= PRISM_ERROR_OTHER ? names[status] : "unknown status";
}

const char* prism_solve_status_name(int status) {
  static const char* const names[] = {"converged", "max_iterations", "breakdown", "stagnated",
                                      "stopped"};
  return status >= 0 && status <= PRISM_SOLVE_STOPPED ? names[status] : "unknown solve status";
}

prism_status prism_solver_create(const char* config_yaml, prism_solver** solver) {
  if (solver == nullptr) return fail(PRISM_ERROR_ARGUMENT, "prism_solver_create: solver is NULL");
  *solver = nullptr;
  return guarded([&] {
    const prism::SolverConfig config =
        prism::parse_solver_config(config_yaml == nullptr ? "" : config_yaml);
    auto made = std::make_unique<prism_solver>(config);
    made->backend = made->solver.backend_name();
    *solver = made.release();
  });
}

prism_status prism_solver_setup(prism_solver* solver, int32_t n, const int32_t* row_ptr,
                                const int32_t* col_idx, const double* values) {
  if (solver == nullptr || row_ptr == nullptr ||
      (n > 0 && (col_idx == nullptr || values == nullptr))) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_solver_setup: a NULL solver or array");
  }
  solver->ready = false;  // a failed setup leaves no matrix to solve with
  if (n < 0) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_solver_setup: n is " + std::to_string(n));
  }
  // The offsets must be readable as given before the entries are: row_ptr[0] = 0 and
  // never decreasing, so that row_ptr[n] is the number of entries.
  if (row_ptr[0] != 0) {
    return fail(PRISM_ERROR_MATRIX, "prism_solver_setup: row_ptr[0] is " +
                                        std::to_string(row_ptr[0]) + ", not 0 (0-based CSR)");
  }
  for (int32_t i = 0; i < n; ++i) {
    if (row_ptr[i + 1] < row_ptr[i]) {
      return fail(PRISM_ERROR_MATRIX, "prism_solver_setup: row_ptr[" + std::to_string(i + 1) +
                                          "] < row_ptr[" + std::to_string(i) + "]");
    }
  }
  return guarded([&] {
    prism::CsrMatrix<double> a;
    a.rows = a.cols = n;
    a.row_ptr.assign(row_ptr, row_ptr + n + 1);
    a.col_idx.assign(col_idx, col_idx + row_ptr[n]);
    a.values.assign(values, values + row_ptr[n]);
    solver->solver.setup(a);
    solver->a = std::move(a);
    solver->from_view = false;
    solver->backend = solver->solver.backend_name();
    solver->ready = true;
  });
}

prism_status prism_solver_refactor(prism_solver* solver, const double* values) {
  if (solver == nullptr || values == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_solver_refactor: a NULL solver or array");
  }
  if (!solver->ready) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_solver_refactor: call prism_solver_setup first");
  }
  if (solver->from_view) {
    return fail(PRISM_ERROR_ARGUMENT,
                "prism_solver_refactor: the solver was set up by prism_solver_setup_view: call "
                "prism_solver_refactor_view");
  }
  return guarded([&] {
    solver->a.values.assign(values, values + solver->a.values.size());
    solver->solver.refactor(solver->a);
  });
}

prism_status prism_solver_setup_view(prism_solver* solver, int64_t n, const int64_t* row_ptr,
                                     const int64_t* col_idx, const double* values, int storage) {
  const char* call = "prism_solver_setup_view";
  if (const prism_status s = check_view(call, solver, n, row_ptr, col_idx, values, storage)) {
    if (solver != nullptr) solver->ready = false;
    return s;
  }
  solver->ready = false;  // a failed setup leaves no matrix to solve with
  return guarded([&] {
    solver->solver.setup(make_view(n, row_ptr, col_idx, values, storage));
    solver->a = prism::CsrMatrix<double>{};
    solver->a.rows = solver->a.cols = static_cast<prism::index_t>(n);
    solver->from_view = true;
    solver->backend = solver->solver.backend_name();
    solver->ready = true;
  });
}

prism_status prism_solver_refactor_view(prism_solver* solver, int64_t n, const int64_t* row_ptr,
                                        const int64_t* col_idx, const double* values, int storage) {
  const char* call = "prism_solver_refactor_view";
  if (const prism_status s = check_view(call, solver, n, row_ptr, col_idx, values, storage)) {
    return s;
  }
  if (!solver->ready) {
    return fail(PRISM_ERROR_ARGUMENT, std::string(call) + ": call prism_solver_setup_view first");
  }
  return guarded([&] { solver->solver.refactor(make_view(n, row_ptr, col_idx, values, storage)); });
}

prism_status prism_solver_solve(prism_solver* solver, const double* b, double* x,
                                prism_solve_info* info) {
  if (const prism_status s = check_vectors("prism_solver_solve", solver, b, x)) return s;
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    const std::vector<double> rhs(b, b + n);
    std::vector<double> solution(x, x + n);
    const prism::SolveReport report = solver->solver.solve(rhs, solution);
    std::copy(solution.begin(), solution.end(), x);
    fill_info(report, info);
  });
}

prism_status prism_solver_solve_on_backend(prism_solver* solver, const double* b, double* x,
                                           prism_solve_info* info) {
  if (const prism_status s = check_vectors("prism_solver_solve_on_backend", solver, b, x)) {
    return s;
  }
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    fill_info(solver->solver.solve_on_backend(b, x, n), info);
  });
}

prism_status prism_solver_solve_columns(prism_solver* solver, const double* b, double* x,
                                        int32_t columns, prism_solve_info* info) {
  if (const prism_status s = check_vectors("prism_solver_solve_columns", solver, b, x)) return s;
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    fill_info(solver->solver.solve(b, x, n, columns), info);
  });
}

prism_status prism_solver_solve_columns_on_backend(prism_solver* solver, const double* b, double* x,
                                                   int32_t columns, prism_solve_info* info) {
  if (const prism_status s = check_vectors("prism_solver_solve_columns_on_backend", solver, b, x)) {
    return s;
  }
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    fill_info(solver->solver.solve_on_backend(b, x, n, columns), info);
  });
}

prism_status prism_solver_apply_preconditioner(prism_solver* solver, const double* r, double* z) {
  if (const prism_status s = check_vectors("prism_solver_apply_preconditioner", solver, r, z)) {
    return s;
  }
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    std::vector<double> out;
    solver->solver.apply_preconditioner(std::vector<double>(r, r + n), out);
    std::copy(out.begin(), out.end(), z);
  });
}

prism_status prism_solver_apply_preconditioner_on_backend(prism_solver* solver, const double* r,
                                                          double* z) {
  if (const prism_status s =
          check_vectors("prism_solver_apply_preconditioner_on_backend", solver, r, z)) {
    return s;
  }
  return guarded([&] {
    const std::size_t n = static_cast<std::size_t>(solver->a.rows);
    solver->solver.apply_preconditioner_on_backend(r, z, n);
  });
}

prism_status prism_solver_set_preconditioner(prism_solver* solver, prism_preconditioner_fn apply,
                                             void* context) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_solver_set_preconditioner: solver is NULL");
  }
  return guarded([&] {
    if (apply == nullptr) {
      solver->solver.set_preconditioner_callback({});
      return;
    }
    // A C callback cannot throw: its non-zero return becomes the exception the solve turns
    // into a status.
    solver->solver.set_preconditioner_callback(
        [apply, context](const double* r, double* z, std::size_t n) {
          const int code = apply(r, z, static_cast<int32_t>(n), context);
          if (code != 0) {
            throw prism::Error("the preconditioner callback returned " + std::to_string(code));
          }
        });
  });
}

const char* prism_solver_backend(const prism_solver* solver) {
  return solver == nullptr ? "" : solver->backend.c_str();
}

void prism_solver_destroy(prism_solver* solver) {
  delete solver;
}

}  // extern "C"
