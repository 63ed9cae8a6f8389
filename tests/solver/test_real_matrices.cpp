// PCG with IC(0) converges to 1e-8 on every SPD matrix of ../shared/matrices, in both
// orderings, with the shift retry where plain IC(0) breaks down. The shared copy of
// 1138_bus is not SPD (every value is 1.0; Eigen's LLT fails, its smallest eigenvalue
// is -3.3): there prism must report a breakdown status, not crash or iterate forever.

#include <Eigen/SparseCholesky>

#include <prism/solver.hpp>

#include "common/param_names.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

namespace {

class RealMatrix : public ::testing::TestWithParam<std::tuple<std::string, prism::Ordering>> {};

TEST_P(RealMatrix, Ic0PcgConvergesTo1e8) {
  const auto& [name, ordering] = GetParam();
  const std::string path = prism::test::shared_matrix(name);
  if (path.empty()) GTEST_SKIP() << "shared/matrices/" << name << " not available";
  const prism::CsrMatrix<double> a = prism::read_matrix_market(path);

  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  config.preconditioner.type = "ic0";
  config.preconditioner.ordering = ordering;
  config.solver.tolerance = 1e-8;
  config.solver.max_iterations = 10000;
  prism::Solver solver(config);
  solver.setup(a);

  // b = A * 1, the manufactured solution of the benchmarks.
  const std::vector<double> ones(static_cast<std::size_t>(a.rows), 1.0);
  const Eigen::VectorXd eb = prism::test::to_eigen(a) * prism::test::to_eigen(ones);
  const std::vector<double> b(eb.data(), eb.data() + eb.size());
  std::vector<double> x;
  const prism::SolveReport r = solver.solve(b, x);
  ASSERT_TRUE(r.converged()) << prism::status_name(r.status) << " after " << r.iterations
                             << " iterations, residual " << r.relative_residual;
  EXPECT_LE(r.relative_residual, 1e-8);
  EXPECT_LE(prism::test::relative_residual(a, x, b), 1e-7);
  RecordProperty("iterations", r.iterations);
  RecordProperty("shift_retries", r.factorization.retries);
  std::printf("%s %s: %d iterations, shift %.3g (%d retries), true residual %.2e\n", name.c_str(),
              std::string(prism::to_string(ordering)).c_str(), r.iterations, r.factorization.shift,
              r.factorization.retries, r.true_relative_residual);
}

INSTANTIATE_TEST_SUITE_P(
    SharedMatrices, RealMatrix,
    ::testing::Combine(::testing::Values("bcsstk08.mtx", "bcsstk13.mtx.gz", "G3_circuit.mtx.gz"),
                       ::testing::Values(prism::Ordering::natural, prism::Ordering::color)),
    [](const auto& info) {
      return prism::test::file_stem_name(std::get<0>(info.param)) + "_" +
             std::string(prism::to_string(std::get<1>(info.param)));
    });

TEST(RealMatrix, IndefiniteSharedBus1138IsReportedAsBreakdown) {
  const std::string path = prism::test::shared_matrix("1138_bus.mtx");
  if (path.empty()) GTEST_SKIP() << "shared/matrices/1138_bus.mtx not available";
  const prism::CsrMatrix<double> a = prism::read_matrix_market(path);
  // Independent confirmation that this copy is not positive definite.
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt(prism::test::to_eigen(a));
  ASSERT_NE(llt.info(), Eigen::Success);

  for (auto ordering : {prism::Ordering::natural, prism::Ordering::color}) {
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cpu;
    config.preconditioner.type = "ic0";
    config.preconditioner.ordering = ordering;
    prism::Solver solver(config);
    solver.setup(a);
    std::vector<double> x;
    const prism::SolveReport r = solver.solve(std::vector<double>(a.rows, 1.0), x);
    EXPECT_EQ(r.status, prism::SolveStatus::breakdown);
    EXPECT_GT(r.factorization.retries, 0) << "IC(0) of an indefinite matrix needs a shift";
  }
}

}  // namespace
