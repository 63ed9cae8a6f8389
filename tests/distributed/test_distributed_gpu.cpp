// GPU ranks (backend cuda): the SpMV and the solves against the cpu ranks on the same
// partition, over each transport that can run here: MPI through host buffers always,
// NCCL where built and no two ranks share a GPU (NCCL refuses that). Skipped without a GPU.
#include "distributed_support.hpp"

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

namespace prism::test {
namespace {

bool gpu_here() {
  SolverConfig probe;
  probe.preconditioner.type = "none";
  return Solver(probe).backend_name() == "cuda";
}

SolverConfig gpu_config(const char* preconditioner, DistributedTransport transport) {
  SolverConfig c;
  c.backend = BackendKind::cuda;
  c.preconditioner.type = preconditioner;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 5000;
  c.solver.transport = transport;
  return c;
}

/// A solver for `a` on this rank's rows by nonzeros, or null where the transport cannot
/// run here (nccl: not built, or two ranks on one GPU), agreed by every rank.
std::unique_ptr<DistributedSolver> make_solver(const CsrMatrix<double>& a,
                                               const SolverConfig& config) {
  try {
    auto solver = std::make_unique<DistributedSolver>(MPI_COMM_WORLD, config);
    solver->setup(rows_of(a, bounds_by_nonzeros(a, world_size()), world_rank()).view());
    return solver;
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    if (message.find("share a GPU") != std::string::npos ||
        message.find("without NCCL") != std::string::npos) {
      if (world_rank() == 0) std::cout << "[distributed gpu] skipped: " << message << "\n";
      return nullptr;
    }
    throw;
  }
}

std::vector<double> local_rows_of(const std::vector<double>& v, const CsrMatrix<double>& a) {
  const std::vector<std::int64_t> bounds = bounds_by_nonzeros(a, world_size());
  return slice(v, bounds[world_rank()], bounds[world_rank() + 1]);
}

const DistributedTransport kTransports[] = {DistributedTransport::mpi, DistributedTransport::nccl};

TEST(DistributedGpu, MultiplyMatchesTheCpuRanks) {
  if (!gpu_here()) GTEST_SKIP() << "no CUDA device";
  for (const CsrMatrix<double>& a :
       {poisson3d(17, 13, 11), elasticity3d(5, 4, 3, 2, {1.0, 20.0})}) {
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> x(static_cast<std::size_t>(a.rows));
    for (double& v : x) v = dist(gen);
    SolverConfig cpu = gpu_config("none", DistributedTransport::automatic);
    cpu.backend = BackendKind::cpu;
    std::vector<double> y_cpu, y_gpu;
    make_solver(a, cpu)->multiply(local_rows_of(x, a), y_cpu);
    for (const DistributedTransport transport : kTransports) {
      auto gpu = make_solver(a, gpu_config("none", transport));
      if (!gpu) continue;
      gpu->multiply(local_rows_of(x, a), y_gpu);
      ASSERT_EQ(y_gpu.size(), y_cpu.size());
      // Another summation order: each row within rounding of the sum of |a_ij x_j|.
      const std::int64_t first = bounds_by_nonzeros(a, world_size())[world_rank()];
      double worst = 0.0;
      for (std::size_t i = 0; i < y_cpu.size(); ++i) {
        const index_t row = static_cast<index_t>(first + static_cast<std::int64_t>(i));
        double magnitude = 0.0;
        for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
          magnitude += std::abs(a.values[k] * x[a.col_idx[k]]);
        }
        worst = std::max(worst, std::abs(y_gpu[i] - y_cpu[i]) / magnitude);
      }
      EXPECT_LT(worst, 1e-13) << a.rows << " rows, transport " << to_string(transport);
    }
  }
}

TEST(DistributedGpu, SolvesLikeTheCpuRanks) {
  if (!gpu_here()) GTEST_SKIP() << "no CUDA device";
  const CsrMatrix<double> a = poisson3d(24, 20, 16);
  std::vector<double> b(static_cast<std::size_t>(a.rows));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 + 0.001 * static_cast<double>(i % 97);
  const std::vector<double> b_mine = local_rows_of(b, a);
  for (const char* preconditioner : {"ic0", "jacobi"}) {
    for (const CgVariant variant : {CgVariant::classic, CgVariant::single_reduction}) {
      SolverConfig cpu = gpu_config(preconditioner, DistributedTransport::automatic);
      cpu.backend = BackendKind::cpu;
      cpu.solver.cg_variant = variant;
      std::vector<double> x_cpu(b_mine.size(), 0.0);
      const DistributedSolveReport on_cpu = make_solver(a, cpu)->solve(b_mine, x_cpu);
      ASSERT_TRUE(on_cpu.solve.converged());
      double scale = 0.0;
      for (double v : x_cpu) scale = std::max(scale, std::abs(v));
      MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      for (const DistributedTransport transport : kTransports) {
        SolverConfig config = gpu_config(preconditioner, transport);
        config.solver.cg_variant = variant;
        auto gpu = make_solver(a, config);
        if (!gpu) continue;
        std::vector<double> x(b_mine.size(), 0.0);
        const DistributedSolveReport r = gpu->solve(b_mine, x);
        EXPECT_TRUE(r.solve.converged()) << r.solve.diagnosis;
        EXPECT_LE(r.solve.true_relative_residual, 1e-9);
        EXPECT_EQ(r.backend, "cuda");
        if (transport == DistributedTransport::nccl) {
          EXPECT_EQ(r.transport, "nccl");
        } else {  // the halo on device buffers where the MPI is CUDA-aware
          EXPECT_TRUE(r.transport == "mpi (host-staged)" || r.transport == "mpi (CUDA-aware)")
              << r.transport;
        }
        EXPECT_LE(std::abs(r.solve.iterations - on_cpu.solve.iterations), 3)
            << preconditioner << " " << to_string(variant);
        double worst = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i)
          worst = std::max(worst, std::abs(x[i] - x_cpu[i]));
        EXPECT_LE(worst, 1e-6 * scale);
        if (world_rank() == 0) {
          std::cout << "[distributed gpu] " << preconditioner << " " << to_string(variant) << " "
                    << r.transport << ": " << r.solve.iterations << " iterations (cpu ranks "
                    << on_cpu.solve.iterations << "), communication "
                    << 100.0 * r.communication_share << "%\n";
        }
      }
    }
  }
}

TEST(DistributedGpu, TimingTotalLeavesThePhasesOut) {
  if (!gpu_here()) GTEST_SKIP() << "no CUDA device";
  const CsrMatrix<double> a = poisson3d(12, 12, 12);
  SolverConfig config = gpu_config("ic0", DistributedTransport::automatic);
  config.solver.timing = TimingMode::total;
  auto solver = make_solver(a, config);
  std::vector<double> b(local_rows_of(std::vector<double>(a.rows, 1.0), a)), x(b.size(), 0.0);
  const DistributedSolveReport r = solver->solve(b, x);
  EXPECT_TRUE(r.solve.converged());
  EXPECT_FALSE(r.phases_timed);
  EXPECT_EQ(r.local.halo + r.local.reductions + r.local.precond, 0.0);
  EXPECT_GT(r.solve.solve_seconds, 0.0);
}

TEST(DistributedGpu, RefactorEqualsAFreshSetupAndTheMonitorStops) {
  if (!gpu_here()) GTEST_SKIP() << "no CUDA device";
  const CsrMatrix<double> a = poisson3d(14, 13, 12);
  CsrMatrix<double> a2 = a;  // new values on a's pattern: the diagonal raised
  for (index_t i = 0; i < a2.rows; ++i) {
    for (index_t k = a2.row_ptr[i]; k < a2.row_ptr[i + 1]; ++k) {
      if (a2.col_idx[k] == i) a2.values[k] *= 1.5;
    }
  }
  const DistributedRows rows2 = rows_of(a2, bounds_by_nonzeros(a2, world_size()), world_rank());
  const std::vector<double> b = local_rows_of(std::vector<double>(a.rows, 1.0), a);
  for (const DistributedTransport transport : kTransports) {
    auto refactored = make_solver(a, gpu_config("ic0", transport));
    if (!refactored) continue;
    refactored->refactor(rows2.view());
    std::vector<double> x(b.size(), 0.0), x_fresh(b.size(), 0.0);
    const DistributedSolveReport r = refactored->solve(b, x);
    const DistributedSolveReport f =
        make_solver(a2, gpu_config("ic0", transport))->solve(b, x_fresh);
    EXPECT_TRUE(r.solve.converged()) << r.solve.diagnosis;
    EXPECT_LE(std::abs(r.solve.iterations - f.solve.iterations), 1);
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      worst = std::max(worst, std::abs(x[i] - x_fresh[i]));
      scale = std::max(scale, std::abs(x_fresh[i]));
    }
    EXPECT_LE(worst, 1e-8 * std::max(scale, 1.0)) << to_string(transport);

    refactored->set_monitor([](const IterationRecord& record) { return record.iteration < 4; });
    std::fill(x.begin(), x.end(), 0.0);
    const DistributedSolveReport stopped = refactored->solve(b, x);
    EXPECT_EQ(stopped.solve.status, SolveStatus::stopped);
    EXPECT_EQ(stopped.solve.iterations, 4);
  }
}

}  // namespace
}  // namespace prism::test
