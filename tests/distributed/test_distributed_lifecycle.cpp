// What a distributed solver does between and around solves: refactor() on new values
// (equal to a fresh setup()), the monitor (called on every rank, its stop agreed), and
// several right-hand sides (each column equal to a one-column solve).
#include "distributed_support.hpp"

#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <algorithm>
#include <cmath>

namespace prism::test {
namespace {

SolverConfig cpu_config(const char* preconditioner) {
  SolverConfig c;
  c.backend = BackendKind::cpu;
  c.preconditioner.type = preconditioner;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 2000;
  return c;
}

/// New values on a's pattern, still SPD: off-diagonals scaled, the diagonal raised.
CsrMatrix<double> new_values(CsrMatrix<double> a) {
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] *= a.col_idx[k] == i ? 1.5 : 0.8;
    }
  }
  return a;
}

/// b_i = sin(i + phase) over the rank's rows [begin, end).
std::vector<double> wavy(std::int64_t begin, std::int64_t end, double phase) {
  std::vector<double> b;
  for (std::int64_t i = begin; i < end; ++i) b.push_back(std::sin(static_cast<double>(i) + phase));
  return b;
}

struct Split {
  std::vector<std::int64_t> bounds;
  DistributedRows rows;
  std::size_t n() const { return static_cast<std::size_t>(rows.row_end - rows.row_begin); }
};

Split split(const CsrMatrix<double>& a) {
  Split s;
  s.bounds = bounds_by_nonzeros(a, world_size());
  s.rows = rows_of(a, s.bounds, world_rank());
  return s;
}

TEST(DistributedLifecycle, RefactorEqualsAFreshSetup) {
  const CsrMatrix<double> a = poisson3d(9, 9, 8);
  const CsrMatrix<double> a2 = new_values(a);
  const Split first = split(a);
  const Split second = split(a2);
  for (const char* preconditioner : {"ic0", "block_ic", "jacobi"}) {
    for (const CgVariant variant : {CgVariant::classic, CgVariant::single_reduction}) {
      SolverConfig config = cpu_config(preconditioner);
      config.solver.cg_variant = variant;
      const std::vector<double> b = wavy(first.rows.row_begin, first.rows.row_end, 0.3);

      DistributedSolver refactored(MPI_COMM_WORLD, config);
      refactored.setup(first.rows.view());
      std::vector<double> x_first(first.n(), 0.0);
      refactored.solve(b, x_first);
      refactored.refactor(second.rows.view());
      std::vector<double> x(first.n(), 0.0);
      const DistributedSolveReport r = refactored.solve(b, x);

      DistributedSolver fresh(MPI_COMM_WORLD, config);
      fresh.setup(second.rows.view());
      std::vector<double> x_fresh(first.n(), 0.0);
      const DistributedSolveReport f = fresh.solve(b, x_fresh);

      EXPECT_EQ(r.solve.status, SolveStatus::converged) << preconditioner;
      EXPECT_EQ(r.solve.iterations, f.solve.iterations) << preconditioner;
      EXPECT_EQ(x, x_fresh) << preconditioner << ": refactor() differs from setup()";
      EXPECT_NE(x, x_first) << preconditioner << ": the new values were not used";
    }
  }
}

TEST(DistributedLifecycle, RefactorRejectsAnotherPatternOnEveryRank) {
  const CsrMatrix<double> a = poisson3d(6, 6, 6);
  const Split s = split(a);
  DistributedSolver solver(MPI_COMM_WORLD, cpu_config("ic0"));
  expect_same_error_everywhere<ConfigError>([&] { solver.refactor(s.rows.view()); },
                                            "before setup()");
  solver.setup(s.rows.view());
  DistributedRows other = s.rows;
  if (world_rank() == world_size() - 1 && other.col_idx.size() > 1) {
    std::swap(other.col_idx[0], other.col_idx[1]);  // row_begin's first two columns
  }
  const std::string last = std::to_string(world_size() - 1);
  expect_same_error_everywhere<InvalidMatrixError>([&] { solver.refactor(other.view()); },
                                                   "rank " + last + ": refactor: row ");
  // A value that is not finite, on the pattern: the rank's check names it.
  DistributedRows bad = s.rows;
  if (world_rank() == 0) bad.values[0] = std::nan("");
  expect_same_error_everywhere<InvalidMatrixError>([&] { solver.refactor(bad.view()); },
                                                   "rank 0: row 0, column 0: value is not finite");
  // A rejected input leaves the solver as it was.
  std::vector<double> x(s.n(), 0.0);
  const std::vector<double> b(s.n(), 1.0);
  EXPECT_EQ(solver.solve(b, x).solve.status, SolveStatus::converged);
}

TEST(DistributedLifecycle, MonitorStopsEveryRankAtTheChosenIteration) {
  const CsrMatrix<double> a = poisson3d(10, 10, 10);
  const Split s = split(a);
  for (const CgVariant variant : {CgVariant::classic, CgVariant::single_reduction}) {
    for (const int stop_at : {0, 5}) {
      SolverConfig config = cpu_config("ic0");
      config.solver.cg_variant = variant;
      DistributedSolver solver(MPI_COMM_WORLD, config);
      solver.setup(s.rows.view());
      std::vector<IterationRecord> seen;
      // Only the last rank asks to stop: the ranks agree, so every rank stops there.
      const bool asker = world_rank() == world_size() - 1;
      solver.set_monitor([&](const IterationRecord& r) {
        seen.push_back(r);
        return !(asker && r.iteration == stop_at);
      });
      std::vector<double> x(s.n(), 0.0);
      const DistributedSolveReport report =
          solver.solve(wavy(s.rows.row_begin, s.rows.row_end, 0.0), x);
      EXPECT_EQ(report.solve.status, SolveStatus::stopped);
      EXPECT_EQ(report.solve.iterations, stop_at);
      ASSERT_EQ(seen.size(), static_cast<std::size_t>(stop_at + 1));
      for (int k = 0; k <= stop_at; ++k) {
        EXPECT_EQ(seen[k].iteration, k);
        EXPECT_EQ(seen[k].residual_norm, report.solve.history[k].residual_norm);
      }
      EXPECT_NE(report.solve.diagnosis.find("stopped by the monitor"), std::string::npos)
          << report.solve.diagnosis;

      // Removed, the solve runs to convergence.
      solver.set_monitor({});
      std::fill(x.begin(), x.end(), 0.0);
      EXPECT_EQ(solver.solve(wavy(s.rows.row_begin, s.rows.row_end, 0.0), x).solve.status,
                SolveStatus::converged);
    }
  }
}

TEST(DistributedLifecycle, MonitorThatThrowsThrowsOnEveryRank) {
  const CsrMatrix<double> a = poisson3d(8, 8, 8);
  const Split s = split(a);
  DistributedSolver solver(MPI_COMM_WORLD, cpu_config("jacobi"));
  solver.setup(s.rows.view());
  solver.set_monitor([](const IterationRecord& r) {
    if (world_rank() == 0 && r.iteration == 2) throw ConfigError("the monitor gave up");
    return true;
  });
  std::vector<double> x(s.n(), 0.0);
  const std::vector<double> b = wavy(s.rows.row_begin, s.rows.row_end, 1.0);
  expect_same_error_everywhere<ConfigError>([&] { solver.solve(b, x); },
                                            "rank 0: the monitor gave up");
}

TEST(DistributedLifecycle, ColumnsEqualOneColumnSolves) {
  const CsrMatrix<double> a = anisotropic3d(8, 8, 8, 1.0, 1.0, 0.05);
  const Split s = split(a);
  const int columns = 3;
  DistributedSolver solver(MPI_COMM_WORLD, cpu_config("ic0"));
  solver.setup(s.rows.view());
  std::vector<double> b, x;
  for (int j = 0; j < columns; ++j) {
    const std::vector<double> bj = wavy(s.rows.row_begin, s.rows.row_end, 0.7 * j);
    b.insert(b.end(), bj.begin(), bj.end());
    x.insert(x.end(), s.n(), j == 2 ? 0.5 : 0.0);  // column 2 from another initial guess
  }
  const std::vector<double> x0 = x;
  const std::vector<DistributedSolveReport> reports = solver.solve(b, x, columns);
  ASSERT_EQ(reports.size(), static_cast<std::size_t>(columns));
  for (int j = 0; j < columns; ++j) {
    const auto begin = static_cast<std::ptrdiff_t>(j * s.n());
    const auto end = begin + static_cast<std::ptrdiff_t>(s.n());
    std::vector<double> xj(x0.begin() + begin, x0.begin() + end);
    const DistributedSolveReport one =
        solver.solve(std::vector<double>(b.begin() + begin, b.begin() + end), xj);
    EXPECT_EQ(reports[j].solve.status, SolveStatus::converged) << "column " << j;
    EXPECT_EQ(reports[j].solve.iterations, one.solve.iterations) << "column " << j;
    EXPECT_EQ(std::vector<double>(x.begin() + begin, x.begin() + end), xj) << "column " << j;
  }
  expect_same_error_everywhere<InvalidMatrixError>([&] { solver.solve(b, x, 0); },
                                                   "columns is 0: at least 1");
  std::vector<double> short_x(x.begin(), x.end() - (world_rank() == 0 ? 1 : 0));
  expect_same_error_everywhere<InvalidMatrixError>([&] { solver.solve(b, short_x, columns); },
                                                   "rank 0: x has ");
}

TEST(DistributedLifecycle, AnEmptyRankRefactorsMonitorsAndSolvesColumns) {
  // Rank 0 owns no rows (where there are two ranks or more); the others split the rest.
  const CsrMatrix<double> a = poisson3d(7, 7, 7);
  std::vector<std::int64_t> bounds{0};
  const int owners = std::max(1, world_size() - 1);
  if (world_size() > 1) bounds.push_back(0);
  for (int r = 1; r <= owners; ++r) bounds.push_back(std::int64_t{a.rows} * r / owners);
  const DistributedRows rows = rows_of(a, bounds, world_rank());
  const DistributedRows rows2 = rows_of(new_values(a), bounds, world_rank());
  const std::size_t n = static_cast<std::size_t>(rows.row_end - rows.row_begin);

  DistributedSolver solver(MPI_COMM_WORLD, cpu_config("ic0"));
  solver.setup(rows.view());
  solver.refactor(rows2.view());
  DistributedSolver fresh(MPI_COMM_WORLD, cpu_config("ic0"));
  fresh.setup(rows2.view());
  std::vector<double> b = wavy(rows.row_begin, rows.row_end, 0.2);
  b.insert(b.end(), b.begin(), b.end());  // two equal columns
  std::vector<double> x(2 * n, 0.0), x_fresh(n, 0.0);
  const std::vector<DistributedSolveReport> reports = solver.solve(b, x, 2);
  const DistributedSolveReport f = fresh.solve(
      std::vector<double>(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n)), x_fresh);
  EXPECT_EQ(reports[1].solve.iterations, f.solve.iterations);
  EXPECT_EQ(std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(n), x.end()), x_fresh);

  int calls = 0;
  solver.set_monitor([&](const IterationRecord& r) {
    ++calls;
    return r.iteration < 2 || world_rank() != 0;  // the empty rank asks to stop
  });
  std::fill(x.begin(), x.end(), 0.0);
  const std::vector<DistributedSolveReport> stopped = solver.solve(b, x, 2);
  EXPECT_EQ(stopped[0].solve.status, SolveStatus::stopped);
  EXPECT_EQ(stopped[1].solve.iterations, 2);
  EXPECT_EQ(calls, 6);
}

}  // namespace
}  // namespace prism::test
