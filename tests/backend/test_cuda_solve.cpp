// Whole solves on the GPU against the CPU: every preconditioner and ordering, the IC(0)
// factorization on the device, mixed precision, and the failures' rows named as the caller
// numbers them (the twins of test_row_names.cpp). Skipped without a GPU.

#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"
#include "common/param_names.hpp"
#include "solver/row_name_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::test::grid_and_clique;
using prism::test::grid_and_hubs;
using prism::test::max_abs_diff;
using prism::test::random_vector;

TEST(GpuSolveBackendFactorization, MatchesHostFactorizationAndRefactors) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> a = prism::poisson3d(24, 22, 20);
  const std::vector<double> b = random_vector(a.rows, 6);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.preconditioner.type = "ic0";
  config.solver.tolerance = 1e-10;
  prism::Solver host(config);
  config.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  prism::Solver device(config);
  host.setup(a);
  device.setup(a);
  std::vector<double> xh, xd;
  const auto rh = host.solve(b, xh);
  const auto rd = device.solve(b, xd);
  ASSERT_TRUE(rd.converged());
  EXPECT_EQ(rd.trisolve, "colorset");
  EXPECT_LE(std::abs(rd.iterations - rh.iterations), 2);
  EXPECT_LE(prism::test::relative_residual(a, xd, b), 1e-9);

  // Refactor on the device equals a fresh device setup.
  a = prism::test::scaled_and_shifted(a, 2.0, 1.0);
  device.refactor(a);
  prism::Solver fresh(config);
  fresh.setup(a);
  std::vector<double> x1, x2;
  const auto r1 = device.solve(b, x1);
  const auto r2 = fresh.solve(b, x2);
  EXPECT_EQ(r1.iterations, r2.iterations);
  EXPECT_LE(max_abs_diff(x1, x2), 1e-12);
}

// Whole solves: GPU against CPU, every preconditioner and ordering. CG iterates the
// same recurrence on both, but the GPU sums in another order; on well-conditioned
// problems the iteration counts agree within 2, on ill-conditioned ones (jumping
// coefficients, stiffness matrices) rounding shifts them by a few percent.
class GpuSolve : public ::testing::TestWithParam<std::tuple<std::string, prism::Ordering>> {};

void compare_gpu_with_cpu(const std::string& precond, prism::Ordering ordering,
                          const CsrMatrix<double>& a, int allowed_difference) {
  const std::vector<double> b = random_vector(a.rows, 21);
  prism::SolverConfig config;
  config.preconditioner.type = precond;
  config.preconditioner.ordering = ordering;
  config.solver.tolerance = 1e-10;
  config.solver.max_iterations = 20000;
  config.backend = prism::BackendKind::cpu;
  prism::Solver cpu(config);
  config.backend = prism::BackendKind::cuda;
  prism::Solver gpu(config);
  cpu.setup(a);
  gpu.setup(a);
  std::vector<double> xc, xg;
  const prism::SolveReport rc = cpu.solve(b, xc);
  const prism::SolveReport rg = gpu.solve(b, xg);
  ASSERT_TRUE(rc.converged());
  ASSERT_TRUE(rg.converged());
  EXPECT_EQ(rg.backend, "cuda");
  EXPECT_LE(std::abs(rg.iterations - rc.iterations), allowed_difference)
      << "gpu " << rg.iterations << ", cpu " << rc.iterations;
  EXPECT_LE(prism::test::relative_residual(a, xg, b), 1e-9);
  EXPECT_NEAR(rg.true_relative_residual, prism::test::relative_residual(a, xg, b), 1e-11);
  EXPECT_EQ(rg.factorization.retries, rc.factorization.retries);
  EXPECT_EQ(rg.ordering.colors.count, rc.ordering.colors.count);
}

TEST_P(GpuSolve, MatchesCpuSolveWithin2IterationsOnWellConditionedProblems) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto& [precond, ordering] = GetParam();
  for (const CsrMatrix<double>& a :
       {prism::poisson2d(61, 47), prism::poisson3d(12, 11, 10, 27), prism::poisson2d(1, 1)}) {
    SCOPED_TRACE(a.rows);
    compare_gpu_with_cpu(precond, ordering, a, 2);
  }
}

TEST_P(GpuSolve, MatchesCpuSolveOnIllConditionedProblems) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto& [precond, ordering] = GetParam();
  if (precond == "none") GTEST_SKIP() << "plain CG needs > 10^4 iterations here";
  std::vector<std::pair<std::string, CsrMatrix<double>>> cases{
      {"layered3d", prism::layered(16, 16, 16, 4, {1.0, 1000.0})},
      {"elasticity3d", prism::elasticity3d(12, 12, 12, 3, {1.0, 100.0})},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")},
      {"grid_and_clique", grid_and_clique()},
      {"grid_and_hubs", grid_and_hubs()}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty() && precond == "ic0") {
    cases.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  }
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    compare_gpu_with_cpu(precond, ordering, a, 30);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPreconditioners, GpuSolve,
                         prism::test::all_preconditioners_and_orderings(),
                         prism::test::precond_ordering_name);

TEST(GpuSolveMixed, ConvergesWithinTwoIterationsOfDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(30, 28, 26);
  const std::vector<double> b = random_vector(a.rows, 21);
  for (auto factorization : {prism::Ic0Factorization::host, prism::Ic0Factorization::backend}) {
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cuda;
    config.solver.tolerance = 1e-10;
    config.preconditioner.type = "ic0";
    config.preconditioner.ic0.factorization = factorization;
    prism::Solver full(config);
    config.preconditioner.ic0.precision = prism::Precision::mixed;
    prism::Solver mixed(config);
    full.setup(a);
    mixed.setup(a);
    std::vector<double> xf, xm;
    const auto rf = full.solve(b, xf);
    const auto rm = mixed.solve(b, xm);
    ASSERT_TRUE(rm.converged());
    EXPECT_EQ(rm.precision, "mixed");
    EXPECT_EQ(rf.precision, "double");
    EXPECT_LE(std::abs(rm.iterations - rf.iterations), 2);
    EXPECT_LE(prism::test::relative_residual(a, xm, b), 1e-9);
    // The float factor halves the value bytes of both solves.
    const int lower = static_cast<int>(prism::Phase::lower_solve);
    EXPECT_LT(rm.phase_bytes[lower] / rm.iterations, rf.phase_bytes[lower] / rf.iterations);
  }
}

// The factorizations run on the device (ic0's engine, jacobi's inversion, block_ic's
// kernels); their rows come back as the caller's, from 0 or from 1.
TEST(GpuRowNames, FailuresNameTheCallersRow) {
  PRISM_SKIP_WITHOUT_GPU();
  using prism::test::expect_named;
  using prism::test::row_name_config;
  const prism::test::RowCase breakdown = prism::test::breakdown_case();
  const prism::test::RowCase diagonal = prism::test::diagonal_case();
  const prism::BackendKind cuda = prism::BackendKind::cuda;
  for (const prism::Numbering n : {prism::Numbering::from_zero, prism::Numbering::from_one}) {
    expect_named(breakdown, row_name_config(cuda, "ic0", n), false,
                 "ic0: factorization broke down at row ", " (pivot ");
    expect_named(diagonal, row_name_config(cuda, "ic0", n), true, "ic0: diagonal entry of row ",
                 " is not positive (-1)");
    expect_named(diagonal, row_name_config(cuda, "jacobi", n), true,
                 "jacobi: diagonal entry of row ", " is not positive");
    prism::SolverConfig blocks = row_name_config(cuda, "block_ic", n);
    blocks.preconditioner.block_ic.block_size = 1;
    expect_named(breakdown, blocks, false,
                 "block_ic: factorization broke down at the block of row ",
                 " after 0 shift retries");
  }
}

}  // namespace
