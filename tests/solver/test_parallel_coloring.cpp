// coloring.method: jones_plassmann through the solver on the cpu backend (the host twin of
// the GPU coloring): a valid multicolor IC(0) that converges, reported by name, with a
// set-up breakdown whose steps fit inside its total; vertex orders are greedy's only.

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

}  // namespace
