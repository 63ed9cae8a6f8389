// The distributed C API (include/prism/prism_mpi.h) over prism::DistributedSolver. The C++
// calls agree on their errors themselves; the checks made here first (NULL vectors, calls
// out of order) are agreed here, so that no rank enters a collective the others skipped.

#include <prism/prism_mpi.h>
#include <prism/distributed.hpp>
#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include "capi/c_status.hpp"
#include "distributed/mpi_support.hpp"

#include <memory>
#include <string>
#include <vector>

struct prism_distributed_solver {
  prism_distributed_solver(MPI_Comm comm, prism::SolverConfig config)
      : solver(comm, std::move(config)) {}
  ~prism_distributed_solver() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (checks != MPI_COMM_NULL && !finalized) MPI_Comm_free(&checks);
  }
  prism::DistributedSolver solver;
  MPI_Comm checks = MPI_COMM_NULL;  // the caller's, duplicated: where the checks here agree
  bool ready = false;
  bool solved = false;
  prism::DistributedSolveReport last;
};

namespace {

using prism::capi::fail;
using prism::capi::guarded;

/// Collective: every rank gets the lowest failing rank's status and message ("rank R: "
/// first), or PRISM_OK where no rank failed.
prism_status agree(MPI_Comm comm, prism_status status, const std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = status != PRISM_OK ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return PRISM_OK;
  int code_and_length[2] = {static_cast<int>(status), static_cast<int>(message.size())};
  MPI_Bcast(code_and_length, 2, MPI_INT, first, comm);
  std::string text = rank == first ? message : std::string(code_and_length[1], ' ');
  MPI_Bcast(text.data(), code_and_length[1], MPI_CHAR, first, comm);
  return fail(static_cast<prism_status>(code_and_length[0]),
              "rank " + std::to_string(first) + ": " + text);
}

/// The local check of a call on a set-up solver's vectors, agreed over the ranks.
prism_status check_vectors(const char* call, prism_distributed_solver* s, const double* b,
                           const double* x, std::int64_t columns) {
  std::string problem;
  prism_status status = PRISM_ERROR_ARGUMENT;
  const std::int64_t rows = s->solver.row_end() - s->solver.row_begin();
  if (!s->ready) {
    problem = std::string(call) + ": call prism_distributed_solver_setup first";
  } else if (columns < 1) {
    status = PRISM_ERROR_MATRIX;  // as prism_solver_solve_columns says it
    problem = std::string(call) + ": columns is " + std::to_string(columns) + ": at least 1";
  } else if (rows > 0 && (b == nullptr || x == nullptr)) {
    problem =
        std::string(call) + ": b or x is NULL for the rank's " + std::to_string(rows) + " rows";
  }
  return agree(s->checks, problem.empty() ? PRISM_OK : status, problem);
}

prism::DistributedRowsView rows_view(std::int64_t global_rows, std::int64_t row_begin,
                                     std::int64_t row_end, const std::int64_t* row_ptr,
                                     const std::int64_t* col_idx, const double* values) {
  return {global_rows, row_begin, row_end, row_ptr, col_idx, values};
}

/// The local check of setup()'s and refactor()'s sizes, agreed: what the C++ call reads
/// before its own checks.
prism_status check_rows(const char* call, prism_distributed_solver* s, std::int64_t row_begin,
                        std::int64_t row_end, const std::int64_t* row_ptr) {
  std::string problem;
  if (row_ptr == nullptr) {
    problem = std::string(call) + ": row_ptr is NULL";
  } else if (row_begin < 0 || row_end < row_begin) {
    problem = std::string(call) + ": rows [" + std::to_string(row_begin) + ", " +
              std::to_string(row_end) + "): need 0 <= row_begin <= row_end";
  }
  return agree(s->checks, problem.empty() ? PRISM_OK : PRISM_ERROR_ARGUMENT, problem);
}

void fill_info(const prism::SolveReport& r, prism_solve_info* info) {
  if (info == nullptr) return;
  info->status = prism::capi::solve_status(r.status);
  info->iterations = r.iterations;
  info->relative_residual = r.relative_residual;
  info->true_relative_residual = r.true_relative_residual;
  info->solve_seconds = r.solve_seconds;
}

}  // namespace

extern "C" {

prism_status prism_distributed_solver_create(MPI_Comm comm, const char* config_yaml,
                                             prism_distributed_solver** solver) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_create: solver is NULL");
  }
  *solver = nullptr;
  if (comm == MPI_COMM_NULL) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_create: comm is MPI_COMM_NULL");
  }
  // The configuration is read on every rank first: a rank whose text fails must not leave
  // the others in the constructor's collectives.
  prism::SolverConfig config;
  const prism_status parsed = guarded(
      [&] { config = prism::parse_solver_config(config_yaml == nullptr ? "" : config_yaml); });
  const prism_status status =
      agree(comm, parsed, parsed == PRISM_OK ? std::string() : prism::capi::last_error());
  if (status != PRISM_OK) return status;
  return guarded([&] {
    auto made = std::make_unique<prism_distributed_solver>(comm, std::move(config));
    PRISM_MPI_CHECK(MPI_Comm_dup(comm, &made->checks));
    *solver = made.release();
  });
}

prism_status prism_distributed_solver_create_f(MPI_Fint comm, const char* config_yaml,
                                               prism_distributed_solver** solver) {
  return prism_distributed_solver_create(MPI_Comm_f2c(comm), config_yaml, solver);
}

prism_status prism_distributed_solver_setup(prism_distributed_solver* solver, int64_t global_rows,
                                            int64_t row_begin, int64_t row_end,
                                            const int64_t* row_ptr, const int64_t* col_idx,
                                            const double* values) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_setup: solver is NULL");
  }
  const prism_status checked =
      check_rows("prism_distributed_solver_setup", solver, row_begin, row_end, row_ptr);
  if (checked != PRISM_OK) return checked;
  solver->ready = false;
  return guarded([&] {
    solver->solver.setup(rows_view(global_rows, row_begin, row_end, row_ptr, col_idx, values));
    solver->ready = true;
  });
}

prism_status prism_distributed_solver_refactor(prism_distributed_solver* solver,
                                               int64_t global_rows, int64_t row_begin,
                                               int64_t row_end, const int64_t* row_ptr,
                                               const int64_t* col_idx, const double* values) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_refactor: solver is NULL");
  }
  prism_status checked =
      check_rows("prism_distributed_solver_refactor", solver, row_begin, row_end, row_ptr);
  if (checked == PRISM_OK) {
    const std::string problem =
        solver->ready
            ? ""
            : "prism_distributed_solver_refactor: call prism_distributed_solver_setup first";
    checked = agree(solver->checks, problem.empty() ? PRISM_OK : PRISM_ERROR_ARGUMENT, problem);
  }
  if (checked != PRISM_OK) return checked;
  return guarded([&] {
    try {
      solver->solver.refactor(rows_view(global_rows, row_begin, row_end, row_ptr, col_idx, values));
    } catch (const prism::NumericalError&) {
      solver->ready = false;  // the blocks' factors are gone
      throw;
    }
  });
}

prism_status prism_distributed_solver_solve(prism_distributed_solver* solver, const double* b,
                                            double* x, prism_solve_info* info) {
  return prism_distributed_solver_solve_columns(solver, b, x, 1, info);
}

prism_status prism_distributed_solver_solve_columns(prism_distributed_solver* solver,
                                                    const double* b, double* x, int32_t columns,
                                                    prism_solve_info* info) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_solve: solver is NULL");
  }
  const prism_status checked =
      check_vectors("prism_distributed_solver_solve", solver, b, x, columns);
  if (checked != PRISM_OK) return checked;
  return guarded([&] {
    const std::int64_t n = solver->solver.row_end() - solver->solver.row_begin();
    const std::size_t total = static_cast<std::size_t>(n) * static_cast<std::size_t>(columns);
    std::vector<double> b_host, x_host;
    if (n > 0) {
      b_host.assign(b, b + total);
      x_host.assign(x, x + total);
    }
    const std::vector<prism::DistributedSolveReport> reports =
        solver->solver.solve(b_host, x_host, columns);
    if (n > 0) std::copy(x_host.begin(), x_host.end(), x);
    for (std::size_t j = 0; j < reports.size(); ++j) {
      fill_info(reports[j].solve, info == nullptr ? nullptr : info + j);
    }
    solver->last = reports.back();
    solver->solved = true;
  });
}

prism_status prism_distributed_solver_set_monitor(prism_distributed_solver* solver,
                                                  prism_monitor_fn monitor, void* context) {
  if (solver == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_set_monitor: solver is NULL");
  }
  return guarded([&] {
    if (monitor == nullptr) {
      solver->solver.set_monitor({});
      return;
    }
    solver->solver.set_monitor([monitor, context](const prism::IterationRecord& r) {
      return monitor(r.iteration, r.residual_norm, r.relative_residual, context) == 0;
    });
  });
}

prism_status prism_distributed_solver_report(const prism_distributed_solver* solver,
                                             prism_distributed_info* info) {
  if (solver == nullptr || info == nullptr) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_report: a NULL solver or info");
  }
  if (!solver->solved) {
    return fail(PRISM_ERROR_ARGUMENT, "prism_distributed_solver_report: no solve yet");
  }
  const prism::DistributedSolveReport& r = solver->last;
  info->ranks = r.ranks;
  info->global_rows = r.global_rows;
  info->global_nnz = r.global_nnz;
  info->status = prism::capi::solve_status(r.solve.status);
  info->iterations = r.solve.iterations;
  info->relative_residual = r.solve.relative_residual;
  info->true_relative_residual = r.solve.true_relative_residual;
  info->solve_seconds = r.solve.solve_seconds;
  info->reductions_per_iteration = r.reductions_per_iteration;
  info->halo_seconds = r.slowest.halo;
  info->reduction_seconds = r.slowest.reductions;
  info->communication_share = r.communication_share;
  prism::capi::last_error().clear();
  return PRISM_OK;
}

void prism_distributed_solver_destroy(prism_distributed_solver* solver) {
  delete solver;
}

}  // extern "C"
