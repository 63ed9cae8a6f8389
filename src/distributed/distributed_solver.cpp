#include <prism/distributed.hpp>
#include <prism/errors.hpp>
#include <prism/solver.hpp>

#include "distributed/distributed_pcg.hpp"
#include "distributed/halo.hpp"
#include "distributed/local_operations.hpp"
#include "distributed/local_rows.hpp"
#include "distributed/mpi_support.hpp"
#include "distributed/rank_engine.hpp"
#include "distributed/row_partition.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

namespace prism {

using distributed::agreed;

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

struct DistributedSolver::Impl {
  MPI_Comm comm = MPI_COMM_NULL;  // the caller's, duplicated
  SolverConfig config;
  int rank = 0;
  int size = 1;
  bool ready = false;
  DistributedRowsView rows;  // the sizes only; the arrays are not kept
  std::int64_t global_nnz = 0;
  distributed::DistributedMatrix matrix;
  bool on_device = false;          // GPU ranks (backend cuda)
  distributed::DevicePlan device;  // where a GPU rank works, and its transport
  std::unique_ptr<Solver> block;   // the rank's block of the preconditioner (none if no rows)
  std::unique_ptr<distributed::RankEngine> engine;
  std::int64_t min_rows = 0, max_rows = 0, max_ghosts = 0;
  int max_neighbors = 0;
  std::vector<std::int64_t> pattern_row_ptr, pattern_col_idx;  // setup()'s, for refactor()
  Monitor monitor;

  ~Impl() {
    // The engine and the block work on the device plan's stream: they go first.
    engine.reset();
    block.reset();
    if (on_device) distributed::release_device_plan(device);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
  }

  void require_setup(const char* call) const {
    if (!ready) throw ConfigError(std::string("DistributedSolver::") + call + " before setup()");
  }

  /// `v` in the rank's order, with room for the ghosts when `extended`.
  std::vector<double> to_rank_order(const std::vector<double>& v, bool extended) const {
    const auto& order = matrix.system().order;
    std::vector<double> out(
        static_cast<std::size_t>(extended ? matrix.extended_rows() : matrix.rows()));
    for (std::size_t k = 0; k < order.size(); ++k) out[k] = v[order[k]];
    return out;
  }
  void from_rank_order(const std::vector<double>& v, std::vector<double>& out) const {
    const auto& order = matrix.system().order;
    for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = v[k];
  }

  /// The report of a solve: the one-process fields, then the slowest rank's times (one
  /// more all-reduce).
  DistributedSolveReport make_report(CgVariant variant, const distributed::PcgOutcome& out) const {
    DistributedSolveReport report;
    report.ranks = size;
    report.global_rows = rows.global_rows;
    report.global_nnz = global_nnz;
    report.cg_variant = std::string(to_string(variant));
    report.backend = engine->backend();
    report.transport = engine->transport();
    report.phases_timed = engine->times_phases();
    report.reductions_per_iteration = variant == CgVariant::classic ? 2 : 1;
    // Without phase timing a GPU rank's host clock saw only the queueing: no phase times.
    report.local = report.phases_timed ? out.phases : DistributedPhases{};
    report.min_rows = min_rows;
    report.max_rows = max_rows;
    report.max_ghosts = max_ghosts;
    report.max_neighbors = max_neighbors;
    const DistributedPhases& t = report.local;
    const double communication = t.halo + t.reductions;
    double slowest[8] = {t.spmv_interior, t.halo,
                         t.spmv_boundary, t.reductions,
                         t.precond,       t.vector_ops,
                         out.seconds,     out.seconds > 0.0 ? communication / out.seconds : 0.0};
    PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, slowest, 8, MPI_DOUBLE, MPI_MAX, comm));
    report.slowest = {slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5]};
    report.communication_share = slowest[7];

    SolveReport& r = report.solve;
    r.backend = engine->backend();
    r.device = std::to_string(size) + " MPI ranks (rank 0: " + engine->device() + "; " +
               engine->transport() + ")";
    r.preconditioner = config.preconditioner.type;
    r.spmv = on_device ? "interior rows during the halo exchange (cuda backend)"
                       : "csr, interior rows during the halo exchange";
    r.ordering.ordering =
        "per rank: " + std::string(to_string(resolved_ordering(config.preconditioner)));
    r.plan.push_back("distributed: " + std::to_string(size) + " ranks, rows " +
                     std::to_string(min_rows) + " to " + std::to_string(max_rows) +
                     " per rank, block Jacobi over the ranks with " + config.preconditioner.type +
                     " on each rank's block");
    r.plan.push_back("transport: " + report.transport + " (" + report.backend + " ranks)");
    r.plan.push_back(std::string("cg_variant: ") + report.cg_variant +
                     (config.solver.cg_variant == CgVariant::automatic
                          ? " (auto: one all-reduce per iteration)"
                          : ""));
    r.rows = static_cast<index_t>(std::min<std::int64_t>(rows.global_rows, kMaxIndex));
    r.nnz = static_cast<index_t>(std::min<std::int64_t>(global_nnz, kMaxIndex));
    r.tolerance = config.solver.tolerance;
    r.absolute_tolerance = config.solver.absolute_tolerance;
    r.max_iterations = config.solver.max_iterations;
    r.status = out.status;
    r.iterations = out.iterations;
    r.rhs_norm = out.rhs_norm;
    r.initial_residual_norm = out.initial_residual_norm;
    const double scale = out.rhs_norm > 0.0 ? out.rhs_norm : 1.0;
    r.relative_residual = out.residual_norm / scale;
    r.true_relative_residual = out.true_residual_norm / scale;
    r.residual_replacements = out.residual_replacements;
    r.diagnosis = out.diagnosis;
    r.solve_seconds = slowest[6];
    r.phase_seconds[static_cast<int>(Phase::spmv)] = slowest[0] + slowest[1] + slowest[2];
    r.phase_seconds[static_cast<int>(Phase::dot)] = slowest[3];
    r.phase_seconds[static_cast<int>(Phase::precond)] = slowest[4];
    r.phase_seconds[static_cast<int>(Phase::update)] = slowest[5];
    r.check_every = 1;
    if (block) r.setup = block->setup_report();
    r.history = out.history;
    return report;
  }

  /// Throws InvalidMatrixError where `v` is not the range and pattern given to setup().
  void check_same_pattern(const DistributedRowsView& v) const {
    if (v.global_rows != rows.global_rows || v.row_begin != rows.row_begin ||
        v.row_end != rows.row_end) {
      throw InvalidMatrixError("refactor: rows [" + std::to_string(v.row_begin) + ", " +
                               std::to_string(v.row_end) + ") of " + std::to_string(v.global_rows) +
                               ", setup() had [" + std::to_string(rows.row_begin) + ", " +
                               std::to_string(rows.row_end) + ") of " +
                               std::to_string(rows.global_rows));
    }
    const std::int64_t n = v.row_end - v.row_begin;
    if (v.row_ptr == nullptr) throw InvalidMatrixError("refactor: row_ptr is null");
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t begin = v.row_ptr[i], end = v.row_ptr[i + 1];
      bool same = begin == pattern_row_ptr[i] && end == pattern_row_ptr[i + 1] &&
                  (begin == end || v.col_idx != nullptr);
      for (std::int64_t k = begin; same && k < end; ++k) same = v.col_idx[k] == pattern_col_idx[k];
      if (!same) {
        throw InvalidMatrixError("refactor: row " + std::to_string(v.row_begin + i) +
                                 " has another pattern than setup() was given");
      }
    }
  }

  void check_size(const char* name, std::size_t got) const {
    const auto want = static_cast<std::size_t>(matrix.rows());
    if (got != want) {
      throw InvalidMatrixError(std::string(name) + " has " + std::to_string(got) +
                               " values for the rank's " + std::to_string(want) + " rows");
    }
  }
};

DistributedSolver::DistributedSolver(MPI_Comm comm, SolverConfig config)
    : impl_(std::make_unique<Impl>()) {
  PRISM_MPI_CHECK(MPI_Comm_dup(comm, &impl_->comm));
  PRISM_MPI_CHECK(MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN));
  impl_->rank = distributed::comm_rank(impl_->comm);
  impl_->size = distributed::comm_size(impl_->comm);
  Impl& s = *impl_;
  // GPU ranks for backend cuda, and for auto where every rank has a device.
  s.on_device =
      config.backend == BackendKind::cuda ||
      (config.backend == BackendKind::automatic && distributed::every_rank_has_a_device(s.comm));
  agreed(s.comm, [&] {
    if (!s.on_device && config.solver.transport == DistributedTransport::nccl) {
      throw ConfigError(
          "solver.transport: nccl needs GPU ranks (backend cuda or auto with a GPU per rank)");
    }
    if (s.on_device) s.device = distributed::plan_device(s.comm, config);
  });
  if (s.on_device) {
    config.backend = BackendKind::cuda;
    config.device = s.device.device;
    config.stream = s.device.stream;
  } else {
    config.backend = BackendKind::cpu;
  }
  s.config = std::move(config);
}

DistributedSolver::~DistributedSolver() = default;
DistributedSolver::DistributedSolver(DistributedSolver&&) noexcept = default;
DistributedSolver& DistributedSolver::operator=(DistributedSolver&&) noexcept = default;

void DistributedSolver::setup(const DistributedRowsView& rows) {
  Impl& s = *impl_;
  s.ready = false;
  const distributed::RowRanges ranges = distributed::gather_row_ranges(s.comm, rows);
  distributed::LocalSystem system;
  agreed(s.comm, [&] {
    distributed::check_local_rows(rows);
    system = distributed::split_local_rows(rows);
  });
  distributed::Halo halo(s.comm, ranges, system, rows.row_begin);
  const std::int64_t local_rows = rows.row_end - rows.row_begin;
  s.pattern_row_ptr.assign(rows.row_ptr, rows.row_ptr + local_rows + 1);
  s.pattern_col_idx.assign(rows.col_idx, rows.col_idx + rows.row_ptr[local_rows]);
  s.engine.reset();  // it reads the matrix replaced here
  s.matrix = distributed::DistributedMatrix(std::move(system), std::move(halo));
  s.rows = {rows.global_rows, rows.row_begin, rows.row_end, nullptr, nullptr, nullptr};
  agreed(s.comm, [&] {
    s.block.reset();
    CsrMatrix<double>& diagonal_block = s.matrix.system().diagonal_block;
    if (diagonal_block.rows > 0) {
      s.block = std::make_unique<Solver>(s.config);
      s.block->setup(diagonal_block);
    }
    diagonal_block = CsrMatrix<double>{};  // the block's Solver keeps what it needs
  });
  agreed(s.comm, [&] {
    const distributed::EngineParts parts{s.comm, &s.matrix, s.block.get(), &s.config};
    s.engine = s.on_device ? distributed::make_cuda_engine(parts, s.device)
                           : distributed::make_host_engine(parts);
  });
  agreed(s.comm, [&] { s.engine->connect(); });  // only once every rank has its engine

  // Sizes for the report, over the ranks.
  std::int64_t sums[1] = {rows.row_ptr[local_rows]};
  std::int64_t mins[1] = {local_rows};
  std::int64_t maxs[3] = {local_rows, s.matrix.halo().ghost_count(), s.matrix.halo().neighbors()};
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 1, MPI_INT64_T, MPI_SUM, s.comm));
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, mins, 1, MPI_INT64_T, MPI_MIN, s.comm));
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, maxs, 3, MPI_INT64_T, MPI_MAX, s.comm));
  s.global_nnz = sums[0];
  s.min_rows = mins[0];
  s.max_rows = maxs[0];
  s.max_ghosts = maxs[1];
  s.max_neighbors = static_cast<int>(maxs[2]);
  s.ready = true;
}

void DistributedSolver::refactor(const DistributedRowsView& rows) {
  Impl& s = *impl_;
  distributed::LocalSystem system;
  agreed(s.comm, [&] {
    s.require_setup("refactor()");
    s.check_same_pattern(rows);
    distributed::check_local_rows(rows);
    system = distributed::split_local_rows(rows);  // the same order and ghosts as setup()'s
  });
  s.ready = false;
  distributed::LocalSystem& kept = s.matrix.system();
  kept.interior = std::move(system.interior);
  kept.boundary = std::move(system.boundary);
  agreed(s.comm, [&] {
    if (s.block) s.block->refactor(system.diagonal_block);
  });
  agreed(s.comm, [&] { s.engine->refresh_matrix(); });
  s.ready = true;
}

void DistributedSolver::set_monitor(Monitor monitor) {
  impl_->monitor = std::move(monitor);
}

std::vector<DistributedSolveReport> DistributedSolver::solve(const std::vector<double>& b,
                                                             std::vector<double>& x, int columns) {
  Impl& s = *impl_;
  agreed(s.comm, [&] {
    s.require_setup("solve()");
    if (columns < 1) {
      throw InvalidMatrixError("columns is " + std::to_string(columns) + ": at least 1");
    }
    const auto rows = static_cast<std::size_t>(s.matrix.rows());
    for (const auto& [name, size] : {std::pair{"b", b.size()}, std::pair{"x", x.size()}}) {
      if (size != rows * static_cast<std::size_t>(columns)) {
        throw InvalidMatrixError(std::string(name) + " has " + std::to_string(size) +
                                 " values for " + std::to_string(columns) + " columns of the " +
                                 "rank's " + std::to_string(rows) + " rows");
      }
    }
  });
  const auto rows = static_cast<std::ptrdiff_t>(s.matrix.rows());
  std::vector<DistributedSolveReport> reports;
  std::vector<double> b_column, x_column;
  for (int j = 0; j < columns; ++j) {
    b_column.assign(b.begin() + j * rows, b.begin() + (j + 1) * rows);
    x_column.assign(x.begin() + j * rows, x.begin() + (j + 1) * rows);
    reports.push_back(solve(b_column, x_column));
    std::copy(x_column.begin(), x_column.end(), x.begin() + j * rows);
  }
  return reports;
}

DistributedSolveReport DistributedSolver::solve(const std::vector<double>& b,
                                                std::vector<double>& x) {
  Impl& s = *impl_;
  agreed(s.comm, [&] {
    s.require_setup("solve()");
    s.check_size("b", b.size());
    s.check_size("x", x.size());
  });
  const CgVariant variant = s.config.solver.cg_variant == CgVariant::classic
                                ? CgVariant::classic
                                : CgVariant::single_reduction;
  distributed::PcgContext context;
  context.engine = s.engine.get();
  context.rows = s.matrix.rows();
  context.extended_rows = s.matrix.extended_rows();
  context.options = s.config.solver;
  context.variant = variant;
  context.monitor = &s.monitor;
  context.comm = s.comm;
  distributed::RankVector b_local = s.engine->make_vector(s.matrix.rows());
  distributed::RankVector x_local = s.engine->make_vector(s.matrix.rows());
  s.engine->upload(s.to_rank_order(b, false), b_local);
  s.engine->upload(s.to_rank_order(x, false), x_local);
  const distributed::PcgOutcome out = distributed::distributed_pcg(context, b_local, x_local);
  std::vector<double> x_rank;
  s.engine->download(x_local, x_rank);
  s.from_rank_order(x_rank, x);

  return s.make_report(variant, out);
}

void DistributedSolver::multiply(const std::vector<double>& x, std::vector<double>& y) {
  Impl& s = *impl_;
  agreed(s.comm, [&] {
    s.require_setup("multiply()");
    s.check_size("x", x.size());
  });
  distributed::RankVector x_local = s.engine->make_vector(s.matrix.extended_rows());
  distributed::RankVector y_local = s.engine->make_vector(s.matrix.rows());
  s.engine->upload(s.to_rank_order(x, true), x_local);
  DistributedPhases ignored;
  s.engine->multiply(x_local.data(), y_local.data(), ignored);
  std::vector<double> y_rank;
  s.engine->download(y_local, y_rank);
  y.resize(y_rank.size());
  s.from_rank_order(y_rank, y);
}

int DistributedSolver::rank() const {
  return impl_->rank;
}
int DistributedSolver::ranks() const {
  return impl_->size;
}
std::int64_t DistributedSolver::row_begin() const {
  return impl_->rows.row_begin;
}
std::int64_t DistributedSolver::row_end() const {
  return impl_->rows.row_end;
}
std::int64_t DistributedSolver::global_rows() const {
  return impl_->rows.global_rows;
}

}  // namespace prism
