// coloring.method: jones_plassmann through the solver on the cpu backend (the host twin of
// the GPU coloring): a valid multicolor IC(0) that converges, reported by name, with a
// set-up breakdown whose steps fit inside its total; vertex orders are greedy's only.
// coloring.method: parallel_greedy on the cpu backend gives greedy's ordering and
// iterations in its vertex orders; smallest_last is greedy's only.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

prism::SolverConfig jones_plassmann_config() {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  config.preconditioner.type = "ic0";
  config.preconditioner.ordering = prism::Ordering::color;
  config.preconditioner.coloring.method = prism::ColoringMethod::jones_plassmann;
  config.solver.tolerance = 1e-8;
  return config;
}

TEST(ParallelColoringSolve, ConvergesWithTheJonesPlassmannOrdering) {
  const prism::CsrMatrix<double> a = prism::poisson3d(21, 19, 17);
  prism::Solver solver(jones_plassmann_config());
  solver.setup(a);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  const prism::SolveReport r = solver.solve(b, x);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.ordering.method, "jones_plassmann");
  EXPECT_GE(r.ordering.colors.count, 2);
  EXPECT_LE(r.ordering.colors.count, 7);  // first fit: at most the degree + 1
  const prism::SetupReport& s = r.setup;
  const double steps = s.check_seconds + s.coloring_seconds + s.permutation_seconds +
                       s.analysis_seconds + s.factorization_seconds + s.upload_seconds;
  EXPECT_GT(s.coloring_seconds, 0.0);
  EXPECT_GE(s.total_seconds, steps);
}

TEST(ParallelColoringSolve, VertexOrderNeedsGreedy) {
  prism::SolverConfig config = jones_plassmann_config();
  config.preconditioner.coloring.vertex_order = prism::VertexOrder::largest_first;
  EXPECT_THROW(prism::Solver{config}, prism::ConfigError);
}

TEST(ParallelColoringSolve, ParallelGreedyIsGreedy) {
  const prism::CsrMatrix<double> a = prism::poisson3d(21, 19, 17, 27);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  for (const auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first}) {
    prism::SolveReport reports[2];
    int slot = 0;
    for (const auto method :
         {prism::ColoringMethod::greedy, prism::ColoringMethod::parallel_greedy}) {
      prism::SolverConfig config = jones_plassmann_config();
      config.preconditioner.coloring.method = method;
      config.preconditioner.coloring.vertex_order = order;
      prism::Solver solver(config);
      solver.setup(a);
      std::vector<double> x(b.size(), 0.0);
      reports[slot++] = solver.solve(b, x);
    }
    EXPECT_TRUE(reports[1].converged());
    EXPECT_EQ(reports[1].ordering.method, "parallel_greedy");
    EXPECT_EQ(reports[1].ordering.vertex_order, prism::to_string(order));
    EXPECT_EQ(reports[1].ordering.colors.count, reports[0].ordering.colors.count);
    EXPECT_EQ(reports[1].ordering.colors.min_size, reports[0].ordering.colors.min_size);
    EXPECT_EQ(reports[1].iterations, reports[0].iterations);  // the same ordering and factor
    EXPECT_EQ(reports[1].relative_residual, reports[0].relative_residual);
  }
}

TEST(ParallelColoringSolve, ParallelGreedyRejectsSmallestLast) {
  prism::SolverConfig config = jones_plassmann_config();
  config.preconditioner.coloring.method = prism::ColoringMethod::parallel_greedy;
  config.preconditioner.coloring.vertex_order = prism::VertexOrder::smallest_last;
  EXPECT_THROW(prism::Solver{config}, prism::ConfigError);
}

}  // namespace

// coloring.method: auto (the default) on the cpu backend is Boost's greedy coloring, and
// says so in the report.
TEST(ParallelColoringSolve, AutoIsGreedyOnTheCpu) {
  const prism::CsrMatrix<double> a = prism::poisson3d(21, 19, 17, 27);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  EXPECT_EQ(prism::SolverConfig{}.preconditioner.coloring.method, prism::ColoringMethod::automatic);
  prism::SolveReport reports[2];
  int slot = 0;
  for (const auto method : {prism::ColoringMethod::greedy, prism::ColoringMethod::automatic}) {
    prism::SolverConfig config = jones_plassmann_config();
    config.preconditioner.coloring.method = method;
    config.preconditioner.coloring.vertex_order = prism::VertexOrder::largest_first;
    prism::Solver solver(config);
    solver.setup(a);
    std::vector<double> x(b.size(), 0.0);
    reports[slot++] = solver.solve(b, x);
  }
  EXPECT_EQ(reports[1].ordering.method, "greedy");
  EXPECT_EQ(reports[1].ordering.colors.count, reports[0].ordering.colors.count);
  EXPECT_EQ(reports[1].ordering.colors.min_size, reports[0].ordering.colors.min_size);
  EXPECT_EQ(reports[1].iterations, reports[0].iterations);
}
