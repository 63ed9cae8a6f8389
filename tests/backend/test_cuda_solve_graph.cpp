// The CG iteration recorded as a CUDA graph, and the device-side loop, against plain
// launches checked on the host: the same iterations, history and bits on every
// preconditioner path; check_every and timing: total with a graph. Skipped without a GPU.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::test::random_vector;

/// The preconditioner paths a recorded graph must reproduce.
struct GraphPath {
  std::string name;
  std::string type;
  prism::TrisolveAlgorithm trisolve;
  prism::Ic0Factorization factorization;
  prism::Precision precision;
  prism::ColorsetLayout layout = prism::ColorsetLayout::automatic;
};

std::vector<GraphPath> graph_paths() {
  return {{"none", "none", prism::TrisolveAlgorithm::automatic, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"jacobi", "jacobi", prism::TrisolveAlgorithm::automatic, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 colorset", "ic0", prism::TrisolveAlgorithm::colorset, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 cusparse", "ic0", prism::TrisolveAlgorithm::cusparse, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 device factor mixed", "ic0", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::backend, prism::Precision::mixed},
          // The folded SELL halves, which also form (r, z) under timing: total.
          {"ic0 device factor sell", "ic0", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::backend, prism::Precision::fp64, prism::ColorsetLayout::sell},
          {"block_ic", "block_ic", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::host, prism::Precision::fp64},
          {"block_ic mixed", "block_ic", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::host, prism::Precision::mixed},
          {"line_jacobi", "line_jacobi", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::host, prism::Precision::fp64},
          {"line_ic", "line_ic", prism::TrisolveAlgorithm::automatic, prism::Ic0Factorization::host,
           prism::Precision::fp64}};
}

prism::SolverConfig graph_config(const GraphPath& path, prism::GraphMode graph) {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.preconditioner.type = path.type;
  config.preconditioner.trisolve = path.trisolve;
  config.preconditioner.ic0.factorization = path.factorization;
  config.preconditioner.ic0.precision = path.precision;
  config.preconditioner.colorset_layout = path.layout;
  config.solver.tolerance = 1e-9;
  config.solver.timing = prism::TimingMode::total;
  config.solver.graph = graph;
  return config;
}

/// The same solve to the bit: iterations, residual norms and solution.
void expect_same_solve(const prism::SolveReport& got, const std::vector<double>& x_got,
                       const prism::SolveReport& want, const std::vector<double>& x_want) {
  EXPECT_EQ(got.iterations, want.iterations);
  ASSERT_EQ(got.history.size(), want.history.size());
  for (std::size_t i = 0; i < want.history.size(); ++i) {
    EXPECT_EQ(got.history[i].residual_norm, want.history[i].residual_norm);
  }
  EXPECT_EQ(x_got, x_want);
}

/// The iteration replayed as a CUDA graph runs the very same kernels on the very same
/// data as plain launches: identical iterations and bit-identical solutions, for every
/// preconditioner path and with and without check_every.
TEST(GpuSolveGraph, ReplayEqualsPlainLaunches) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 12);
  for (const GraphPath& path : graph_paths()) {
    for (int check_every : {1, 4}) {
      SCOPED_TRACE(path.name + " check_every " + std::to_string(check_every));
      prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
      config.solver.check_every = check_every;
      prism::Solver plain(config);
      config.solver.graph = prism::GraphMode::on;
      prism::Solver graph(config);
      plain.setup(a);
      graph.setup(a);
      std::vector<double> xp, xg;
      const auto rp = plain.solve(b, xp);
      const auto rg = graph.solve(b, xg);
      ASSERT_TRUE(rg.converged());
      EXPECT_FALSE(rp.graph);
      EXPECT_TRUE(rg.graph);
      EXPECT_EQ(rg.iterations, rp.iterations);
      EXPECT_EQ(rg.history.size(), rp.history.size());
      EXPECT_EQ(xg, xp);
      EXPECT_EQ(rg.phase_bytes, rp.phase_bytes);
      // A second solve records its own graph on the same solver.
      std::vector<double> xg2;
      EXPECT_EQ(graph.solve(b, xg2).iterations, rg.iterations);
      EXPECT_EQ(xg2, xg);
    }
  }
}

// The device-side loop (a graph while node testing convergence on the device) against
// plain launches checked on the host every iteration: same stop, same history, same bits.
TEST(GpuSolveGraph, DeviceLoopEqualsHostChecks) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 13);
  for (const GraphPath& path : graph_paths()) {
    for (int max_iterations : {1000, 2, 9}) {
      SCOPED_TRACE(path.name + " max_iterations " + std::to_string(max_iterations));
      prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
      config.solver.max_iterations = max_iterations;
      prism::Solver plain(config);
      config.solver.graph = prism::GraphMode::automatic;  // auto takes the loop on a GPU
      prism::Solver loop(config);
      plain.setup(a);
      loop.setup(a);
      std::vector<double> xp, xl;
      const auto rp = plain.solve(b, xp);
      const auto rl = loop.solve(b, xl);
      EXPECT_EQ(rp.status, max_iterations == 1000 ? prism::SolveStatus::converged
                                                  : prism::SolveStatus::max_iterations);
      EXPECT_EQ(rl.status, rp.status);
      EXPECT_TRUE(rl.graph);
      EXPECT_TRUE(rl.device_loop);
      ASSERT_NO_FATAL_FAILURE(expect_same_solve(rl, xl, rp, xp));
      for (std::size_t i = 0; i < rp.history.size(); ++i) {
        EXPECT_EQ(rl.history[i].iteration, rp.history[i].iteration);
      }
      EXPECT_EQ(rl.phase_bytes, rp.phase_bytes);
      std::vector<double> xl2;  // a second solve records its own loop
      EXPECT_EQ(loop.solve(b, xl2).iterations, rl.iterations);
      EXPECT_EQ(xl2, xl);
    }
  }
}

// The device-side loop on a system of 300k rows, whose reductions run their full grid of
// blocks (kReductionBlocks partial sums for the loop's test to finish): same stops, norms
// and bits as host checks, over several solves of one solver.
TEST(GpuSolveGraph, DeviceLoopEqualsHostChecksOnAFullReductionGrid) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson2d(560, 540);
  const std::vector<double> b = random_vector(a.rows, 15);
  const GraphPath path = graph_paths().back();  // the default GPU path: SELL halves
  for (int max_iterations : {60, 3}) {
    SCOPED_TRACE("max_iterations " + std::to_string(max_iterations));
    prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
    config.solver.max_iterations = max_iterations;
    prism::Solver plain(config);
    config.solver.graph = prism::GraphMode::automatic;
    prism::Solver loop(config);
    plain.setup(a);
    loop.setup(a);
    std::vector<double> xp, xl;
    const auto rp = plain.solve(b, xp);
    for (int solve = 0; solve < 3; ++solve) {
      xl.clear();  // x is the initial guess: start each solve from zero
      const auto rl = loop.solve(b, xl);
      EXPECT_EQ(rl.status, prism::SolveStatus::max_iterations);
      EXPECT_TRUE(rl.device_loop);
      ASSERT_NO_FATAL_FAILURE(expect_same_solve(rl, xl, rp, xp));
    }
  }
}

// timing: total takes the fused steps (cg_step, cg_direction_dot; x updated one step
// late), timing: phases one operation per phase: the same iterates, bit for bit, except
// where the SELL halves form (r, z) under timing: total (rz rounds differently).
TEST(GpuSolveGraph, FusedStepsEqualPhaseTimedSteps) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 14);
  for (const GraphPath& path : graph_paths()) {
    SCOPED_TRACE(path.name);
    prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
    prism::Solver fused(config);
    config.solver.timing = prism::TimingMode::phases;
    prism::Solver phased(config);
    fused.setup(a);
    phased.setup(a);
    std::vector<double> xf, xp;
    const auto rf = fused.solve(b, xf);
    const auto rp = phased.solve(b, xp);
    ASSERT_TRUE(rf.converged());
    if (path.factorization == prism::Ic0Factorization::backend && rf.trisolve_layout == "sell") {
      ASSERT_TRUE(rp.converged());
      EXPECT_LE(std::abs(rf.iterations - rp.iterations), 1);
      EXPECT_LE(prism::test::relative_residual(a, xf, b), 1e-8);
      continue;
    }
    ASSERT_NO_FATAL_FAILURE(expect_same_solve(rf, xf, rp, xp));
  }
}

TEST(GpuSolveGraph, GraphOnWithPhaseTimingIsAConfigError) {
  PRISM_SKIP_WITHOUT_GPU();
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.graph = prism::GraphMode::on;  // timing: phases, the default
  EXPECT_THROW(prism::Solver{config}, prism::ConfigError);
}

TEST(GpuSolveChecks, CheckEveryAndTimingTotal) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(24, 24, 24);
  const std::vector<double> b = random_vector(a.rows, 8);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.check_every = 10;
  config.solver.timing = prism::TimingMode::total;
  for (auto graph : {prism::GraphMode::on, prism::GraphMode::automatic}) {
    SCOPED_TRACE(std::string(prism::to_string(graph)));
    config.solver.graph = graph;
    prism::Solver s(config);
    s.setup(a);
    std::vector<double> x;
    const auto r = s.solve(b, x);
    ASSERT_TRUE(r.converged());
    EXPECT_TRUE(r.graph);  // graph: auto records when nothing is timed per phase
    if (graph == prism::GraphMode::on) {
      EXPECT_FALSE(r.device_loop);
      EXPECT_EQ(r.iterations % 10, 0);  // the host checks every 10th iteration
    } else {
      // auto takes the device-side loop, which tests every iteration by itself.
      EXPECT_TRUE(r.device_loop);
      EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
    }
    for (double t : r.phase_seconds) EXPECT_EQ(t, 0.0);
    EXPECT_LE(prism::test::relative_residual(a, x, b), 1e-8);
  }
}

}  // namespace
