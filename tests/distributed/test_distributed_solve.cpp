// Distributed solves against the one-process Solver on the whole matrix: the same
// solution to the tolerance, for both CG variants and several rank-local preconditioners.
// The iteration counts are printed (rank 0) and recorded as test properties.
#include "distributed_support.hpp"

#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace prism::test {
namespace {

struct Case {
  const char* name;
  CsrMatrix<double> (*matrix)();
  const char* preconditioner;
};

const Case kCases[] = {
    {"poisson3d_12", [] { return poisson3d(12, 12, 12); }, "ic0"},
    {"poisson3d_12", [] { return poisson3d(12, 12, 12); }, "jacobi"},
    {"anisotropic3d_10", [] { return anisotropic3d(10, 10, 10, 1.0, 1.0, 0.01); }, "line_jacobi"},
    {"anisotropic3d_10", [] { return anisotropic3d(10, 10, 10, 1.0, 1.0, 0.01); }, "ic0"},
    {"elasticity3d_4",
     [] {
       return elasticity3d(4, 4, 4, 2, {1.0, 10.0});
     },
     "block_ic"},
};

SolverConfig config_for(const char* preconditioner, CgVariant variant) {
  SolverConfig c;
  c.backend = BackendKind::cpu;
  c.preconditioner.type = preconditioner;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 5000;
  c.solver.cg_variant = variant;
  return c;
}

std::vector<double> manufactured_rhs(const CsrMatrix<double>& a) {
  std::vector<double> b(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) b[i] += a.values[k];
  }
  return b;  // b = A * 1
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

/// Solves on the world's ranks; returns this rank's rows of x and the report.
std::vector<double> solve_distributed(const CsrMatrix<double>& a, const std::vector<double>& b,
                                      const SolverConfig& config, DistributedSolveReport& report) {
  const std::vector<std::int64_t> bounds = bounds_by_nonzeros(a, world_size());
  const DistributedRows rows = rows_of(a, bounds, world_rank());
  DistributedSolver solver(MPI_COMM_WORLD, config);
  solver.setup(rows.view());
  std::vector<double> x(static_cast<std::size_t>(rows.row_end - rows.row_begin), 0.0);
  report = solver.solve(slice(b, rows.row_begin, rows.row_end), x);
  return x;
}

TEST(DistributedSolve, EqualsTheOneRankSolution) {
  for (const Case& c : kCases) {
    const CsrMatrix<double> a = c.matrix();
    const std::vector<double> b = manufactured_rhs(a);
    Solver one(config_for(c.preconditioner, CgVariant::automatic));
    one.setup(a);
    std::vector<double> x_one(b.size(), 0.0);
    const SolveReport serial = one.solve(b, x_one);
    EXPECT_TRUE(serial.converged()) << c.name;
    std::vector<double> x_classic;
    for (const CgVariant variant : {CgVariant::classic, CgVariant::single_reduction}) {
      DistributedSolveReport report;
      const std::vector<double> x =
          solve_distributed(a, b, config_for(c.preconditioner, variant), report);
      const std::string what =
          std::string(c.name) + " " + c.preconditioner + " " + std::string(to_string(variant));
      EXPECT_EQ(report.solve.status, SolveStatus::converged)
          << what << ": " << report.solve.diagnosis;
      EXPECT_LE(report.solve.true_relative_residual, 1e-10) << what;
      EXPECT_EQ(report.ranks, world_size());
      EXPECT_EQ(report.global_rows, a.rows);
      EXPECT_EQ(report.global_nnz, a.nnz());
      EXPECT_EQ(report.reductions_per_iteration, variant == CgVariant::classic ? 2 : 1);
      // x = 1 to the tolerance's accuracy; both solutions meet it, so they meet each other.
      const std::vector<std::int64_t> bounds = bounds_by_nonzeros(a, world_size());
      std::vector<double> diff(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) diff[i] = x[i] - x_one[bounds[world_rank()] + i];
      EXPECT_LE(max_abs(diff), 1e-6 * std::max(1.0, max_abs(x_one))) << what;
      if (variant == CgVariant::classic) {
        x_classic = x;
      } else {  // the two variants agree with each other as closely
        for (std::size_t i = 0; i < x.size(); ++i) diff[i] = x[i] - x_classic[i];
        EXPECT_LE(max_abs(diff), 1e-6 * std::max(1.0, max_abs(x_one))) << what;
      }
      if (world_rank() == 0) {
        std::cout << "[distributed] " << what << ": " << report.ranks << " ranks "
                  << report.solve.iterations << " iterations (one rank: " << serial.iterations
                  << "), true relative residual " << report.solve.true_relative_residual << "\n";
        ::testing::Test::RecordProperty(what + " iterations", report.solve.iterations);
      }
    }
  }
}

TEST(DistributedSolve, OneRankCommunicatorMatchesTheSolver) {
  // Every rank alone on MPI_COMM_SELF: no halo, block Jacobi is the whole preconditioner,
  // so the classic variant runs the one-process iteration.
  const CsrMatrix<double> a = poisson3d(9, 8, 7);
  const std::vector<double> b = manufactured_rhs(a);
  Solver one(config_for("jacobi", CgVariant::automatic));
  one.setup(a);
  std::vector<double> x_one(b.size(), 0.0);
  const SolveReport serial = one.solve(b, x_one);
  DistributedSolver solver(MPI_COMM_SELF, config_for("jacobi", CgVariant::classic));
  const DistributedRows rows = rows_of(a, {0, a.rows}, 0);
  solver.setup(rows.view());
  std::vector<double> x(b.size(), 0.0);
  const DistributedSolveReport report = solver.solve(b, x);
  EXPECT_EQ(report.ranks, 1);
  EXPECT_NEAR(report.solve.iterations, serial.iterations, 1);
  std::vector<double> diff(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) diff[i] = x[i] - x_one[i];
  EXPECT_LE(max_abs(diff), 1e-8);
}

TEST(DistributedSolve, ZeroRightHandSideGivesZero) {
  const CsrMatrix<double> a = poisson3d(6, 5, 4);
  DistributedSolveReport report;
  const std::vector<double> x =
      solve_distributed(a, std::vector<double>(static_cast<std::size_t>(a.rows), 0.0),
                        config_for("ic0", CgVariant::automatic), report);
  EXPECT_EQ(report.solve.status, SolveStatus::converged);
  EXPECT_EQ(report.solve.iterations, 0);
  EXPECT_EQ(max_abs(x), 0.0);
}

TEST(DistributedSolve, ReportsTheIterationLimitOnEveryRank) {
  const CsrMatrix<double> a = poisson3d(10, 10, 10);
  SolverConfig config = config_for("none", CgVariant::automatic);
  config.solver.max_iterations = 3;
  DistributedSolveReport report;
  solve_distributed(a, manufactured_rhs(a), config, report);
  EXPECT_EQ(report.solve.status, SolveStatus::max_iterations);
  EXPECT_EQ(report.solve.iterations, 3);
  EXPECT_EQ(report.solve.history.size(), 4u);
  EXPECT_NE(report.solve.diagnosis.find("iteration limit"), std::string::npos);
  EXPECT_GE(report.communication_share, 0.0);
  EXPECT_LE(report.communication_share, 1.0);
}

}  // namespace
}  // namespace prism::test
