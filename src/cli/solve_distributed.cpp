// `mpirun -np P prism solve FILE.yaml` (P >= 2): rank 0 reads or generates the problem,
// splits the rows into P contiguous blocks of about equal nonzeros, scatters them, and
// gathers the solution; every rank solves its rows with prism::DistributedSolver. Only
// rank 0 logs and writes files; every step that can fail is agreed between the ranks, so
// all of them exit with the same code and none waits for a rank that has given up.
// Built only with MPI (CMake PRISM_WITH_MPI).

#include <prism/analysis.hpp>
#include <prism/distributed.hpp>
#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include "cli/commands.hpp"
#include "cli/console_report.hpp"
#include "cli/solve_steps.hpp"
#include "distributed/mpi_support.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace prism::cli {
namespace {

using distributed::mpi_count;

/// MPI_Init_thread and MPI_Finalize around the solve. The host kernels' threads never call
/// MPI, so the main thread alone talking to MPI (FUNNELED) is enough.
class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    PRISM_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// Runs step on every rank (it may do nothing off rank 0). When it throws on any rank,
/// every rank throws: rank 0 its own exception (so a usage error keeps its hint), or the
/// lowest failing rank's, agreed (distributed::agree).
template <typename Step>
void on_every_rank(MPI_Comm comm, const Step& step) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  try {
    distributed::agree(comm, error);
  } catch (...) {
    if (error) std::rethrow_exception(error);
    throw;
  }
}

/// solver.check on the whole matrix (Solver::setup's checks, with its messages).
void check_whole_matrix(const CsrMatrix<double>& a, const SolverConfig& config) {
  const SolverOptions& options = config.solver;
  switch (options.check) {
    case MatrixCheck::full:
      check_spd_candidate(a, options.symmetry_tolerance, config.numbering);
      break;
    case MatrixCheck::pattern:
      check_pattern(a, config.numbering);
      break;
    case MatrixCheck::none:
      check_storage(a, config.numbering);
      break;
  }
}

/// Rank 0's matrix, b and x0 split into the ranks' rows (scattered from rank 0).
struct Scattered {
  DistributedRows rows;
  std::vector<double> b, x0;
};

/// One rank's share of an array of rank 0, by counts and displacements.
template <typename T>
std::vector<T> scatter(MPI_Comm comm, const std::vector<T>& all, const std::vector<int>& counts,
                       const std::vector<int>& displs, int mine, MPI_Datatype type) {
  std::vector<T> out(static_cast<std::size_t>(mine));
  PRISM_MPI_CHECK(MPI_Scatterv(all.data(), counts.data(), displs.data(), type, out.data(), mine,
                               type, 0, comm));
  return out;
}

Scattered scatter_problem(MPI_Comm comm, const Problem* problem, int rank, int size) {
  // Row boundaries, from rank 0's row pointers.
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(size) + 1);
  if (rank == 0) {
    const std::vector<std::int64_t> row_ptr(problem->a.row_ptr.begin(), problem->a.row_ptr.end());
    bounds = partition_rows_by_nonzeros(row_ptr.data(), problem->a.rows, size);
  }
  PRISM_MPI_CHECK(MPI_Bcast(bounds.data(), size + 1, MPI_INT64_T, 0, comm));
  std::vector<int> row_counts(size), row_displs(size), nnz_counts(size), nnz_displs(size);
  for (int q = 0; q < size; ++q) {
    row_counts[q] = mpi_count(bounds[q + 1] - bounds[q], "rows of a rank");
    row_displs[q] = mpi_count(bounds[q], "rows before a rank");
    if (rank == 0) {
      nnz_displs[q] = problem->a.row_ptr[bounds[q]];
      nnz_counts[q] = problem->a.row_ptr[bounds[q + 1]] - nnz_displs[q];
    }
  }
  PRISM_MPI_CHECK(MPI_Bcast(nnz_counts.data(), size, MPI_INT, 0, comm));
  const int rows = row_counts[rank];
  const int nnz = nnz_counts[rank];
  const std::vector<index_t> empty_index;
  const std::vector<double> empty_value;
  static const CsrMatrix<double> none;
  const CsrMatrix<double>& a = rank == 0 ? problem->a : none;
  // Row r's end pointer, rank 0's numbering: row_ptr[1..rows] of the block.
  std::vector<int> end_displs(row_displs);
  for (int& d : end_displs) d += 1;
  const std::vector<index_t> ends =
      scatter(comm, rank == 0 ? a.row_ptr : empty_index, row_counts, end_displs, rows, MPI_INT);
  const std::vector<index_t> cols =
      scatter(comm, rank == 0 ? a.col_idx : empty_index, nnz_counts, nnz_displs, nnz, MPI_INT);
  Scattered out;
  out.rows.values =
      scatter(comm, rank == 0 ? a.values : empty_value, nnz_counts, nnz_displs, nnz, MPI_DOUBLE);
  out.b =
      scatter(comm, rank == 0 ? problem->b : empty_value, row_counts, row_displs, rows, MPI_DOUBLE);
  out.x0 = scatter(comm, rank == 0 ? problem->x0 : empty_value, row_counts, row_displs, rows,
                   MPI_DOUBLE);
  out.rows.global_rows = bounds[size];
  out.rows.row_begin = bounds[rank];
  out.rows.row_end = bounds[rank + 1];
  const std::int64_t first = rows > 0 ? std::int64_t{ends[rows - 1]} - nnz : 0;
  out.rows.row_ptr.assign(1, 0);
  for (const index_t end : ends) out.rows.row_ptr.push_back(end - first);
  out.rows.col_idx.assign(cols.begin(), cols.end());
  return out;
}

/// x of every rank, in rank 0 (the ranks' rows in order).
std::vector<double> gather_solution(MPI_Comm comm, const std::vector<double>& x,
                                    std::int64_t global_rows, int rank, int size) {
  const std::vector<std::int64_t> counts64 =
      distributed::allgather(comm, static_cast<std::int64_t>(x.size()));
  std::vector<int> counts(size), displs(size, 0);
  for (int q = 0; q < size; ++q) {
    counts[q] = mpi_count(counts64[q], "rows of a rank");
    if (q > 0) displs[q] = displs[q - 1] + counts[q - 1];
  }
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(global_rows) : 0);
  PRISM_MPI_CHECK(MPI_Gatherv(x.data(), counts[rank], MPI_DOUBLE, all.data(), counts.data(),
                              displs.data(), MPI_DOUBLE, 0, comm));
  return all;
}

/// The report's "distributed" object.
DistributedFigures figures_of(const DistributedSolveReport& r) {
  DistributedFigures f;
  f.ranks = r.ranks;
  f.backend = r.backend;
  f.transport = r.transport;
  f.cg_variant = r.cg_variant;
  f.reductions_per_iteration = r.reductions_per_iteration;
  f.phases_timed = r.phases_timed;
  f.communication_share = r.communication_share;
  const DistributedPhases& t = r.slowest;
  f.spmv_interior = t.spmv_interior;
  f.halo = t.halo;
  f.spmv_boundary = t.spmv_boundary;
  f.reductions = t.reductions;
  f.precond = t.precond;
  f.vector_ops = t.vector_ops;
  f.min_rows = r.min_rows;
  f.max_rows = r.max_rows;
  f.max_ghosts = r.max_ghosts;
  f.max_neighbors = r.max_neighbors;
  return f;
}

/// What only a distributed solve measures, after the one-process summary.
void print_distributed_summary(const DistributedSolveReport& r) {
  const DistributedPhases& t = r.slowest;
  spdlog::info(
      "ranks          {} {} ranks over {} (rows {} to {} per rank; up to {} ghosts from "
      "up to {} ranks)",
      r.ranks, r.backend, r.transport, r.min_rows, r.max_rows, r.max_ghosts, r.max_neighbors);
  spdlog::info("cg variant     {} ({} all-reduce{} per iteration)", r.cg_variant,
               r.reductions_per_iteration, r.reductions_per_iteration == 1 ? "" : "s");
  if (!r.phases_timed) {
    spdlog::info("communication  not measured (solver.timing: total; phases would time it)");
    return;
  }
  spdlog::info("communication  {:.1f}% of the solve (halo {}, reductions {}; the slowest rank's)",
               100.0 * r.communication_share, format_seconds(t.halo), format_seconds(t.reductions));
  spdlog::info(
      "rank phases    spmv interior {}, boundary {}, precond {}, vector ops {} "
      "(each the slowest rank's)",
      format_seconds(t.spmv_interior), format_seconds(t.spmv_boundary), format_seconds(t.precond),
      format_seconds(t.vector_ops));
}

int solve_on_ranks(const std::vector<std::string>& args, MPI_Comm world, int rank, int size) {
  SolveInput input;
  on_every_rank(world, [&] { input = read_solve_input(args); });
  if (rank != 0) spdlog::set_level(spdlog::level::off);  // rank 0 alone logs

  Problem problem;
  on_every_rank(world, [&] {
    if (rank != 0) return;
    if (input.spec.rhs.columns > 1) {
      throw ConfigError("rhs.columns = " + std::to_string(input.spec.rhs.columns) +
                        ": several right-hand sides are not distributed yet (run one process)");
    }
    prepare_outputs(input);
    spdlog::info("prism: solving {} ({}) on {} MPI ranks", input.spec.name, input.problem_file,
                 size);
    const auto t0 = std::chrono::steady_clock::now();
    problem = assemble_problem(input.spec);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spdlog::info("matrix         {} ({} rows, {} nonzeros) assembled in {}",
                 matrix_source(input.spec.matrix), problem.a.rows, problem.a.nnz(),
                 format_seconds(seconds));
    // The whole matrix, as the one-process solve checks it: the ranks check only their
    // diagonal blocks, not the couplings between them.
    check_whole_matrix(problem.a, input.spec.config);
  });
  Scattered part = scatter_problem(world, rank == 0 ? &problem : nullptr, rank, size);
  if (rank == 0) problem.a = CsrMatrix<double>{};  // the ranks hold it now

  DistributedSolver solver(world, input.spec.config);
  solver.setup(part.rows.view());
  part.rows = DistributedRows{};
  std::vector<double> x = part.x0;
  const DistributedSolveReport report = solver.solve(part.b, x);
  const std::vector<double> x_all = gather_solution(world, x, solver.global_rows(), rank, size);

  int code = 0;
  on_every_rank(world, [&] {
    if (rank != 0) return;
    log_setup(report.solve.setup);  // rank 0's block of the preconditioner
    print_solve_results(input, report.solve, problem.exact_solution, x_all);
    print_distributed_summary(report);
    code = write_solve_outputs(input, report.solve, x_all, figures_of(report));
  });
  PRISM_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, 0, world));
  return code;
}

}  // namespace

bool launched_with_several_ranks() {
  // PRISM_DISTRIBUTED=1 takes the distributed path on one rank too (the 1-GPU baseline of
  // a scaling run: the same code as on P ranks).
  const char* forced = std::getenv("PRISM_DISTRIBUTED");
  if (forced != nullptr && std::string(forced) == "1") return true;
  // Open MPI, MPICH (Hydra) and MVAPICH tell each process the job's size.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && std::atoi(value) > 1) return true;
  }
  return false;
}

int distributed_solve_command(const std::vector<std::string>& args) {
  MpiSession session;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 1;
  try {
    code = solve_on_ranks(args, MPI_COMM_WORLD, rank, size);
  } catch (...) {
    // Rank 0 prints the error (the other ranks exit quietly with it) before any rank leaves
    // MPI: a rank that exits first with status 1 can have mpirun kill rank 0 before its
    // line is out. Every rank gets here, since the ranks agree on each error.
    if (rank == 0) code = report_error(std::current_exception());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return code;
}

}  // namespace prism::cli
