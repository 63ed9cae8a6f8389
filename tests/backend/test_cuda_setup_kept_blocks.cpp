// The set-up that keeps the ordered matrix on the GPU for the block and line preconditioners
// (block_ic, line_ic, and auto's choice among them) against the one that builds their
// storage on the host and uploads it (solver.setup: host): the same plan, ordering, factor
// and solves, so the same iterates bit for bit, after setup(), refactor() and
// refactor_on_backend(). Skips without a device.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"
#include "common/gpu.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

struct Solved {
  prism::SolveReport report;
  std::vector<double> x;
  std::vector<prism::SetupStep> steps;
};

prism::SolverConfig config_of(const std::string& type, prism::SetupSite site) {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.preconditioner.type = type;
  config.solver.setup = site;
  config.solver.tolerance = 1e-9;
  config.solver.max_iterations = 3000;
  return config;
}

std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(gen);
  return v;
}

/// A + D / 2: new values on the same pattern, still SPD.
CsrMatrix<double> heavier_diagonal(const CsrMatrix<double>& a) {
  CsrMatrix<double> a2 = a;
  for (index_t i = 0; i < a2.rows; ++i) {
    for (index_t k = a2.row_ptr[i]; k < a2.row_ptr[i + 1]; ++k) {
      if (a2.col_idx[k] == i) a2.values[k] *= 1.5;
    }
  }
  return a2;
}

/// setup(a) and a solve; then refactor(A + D / 2) and a solve; then refactor_on_backend()
/// with A's values from device memory and a solve.
std::vector<Solved> run(const prism::SolverConfig& config, const CsrMatrix<double>& a) {
  prism::Solver solver(config);
  solver.setup(a);
  std::vector<Solved> out;
  const std::vector<double> b = random_vector(static_cast<std::size_t>(a.rows), 11);
  const auto solve = [&] {
    Solved s;
    s.report = solver.solve(b, s.x);
    return s;
  };
  out.push_back(solve());
  out.back().steps = solver.setup_report().steps;
  solver.refactor(heavier_diagonal(a));
  out.push_back(solve());
  {
    // Synchronized after the copy (a pageable cudaMemcpy may return before it lands, and
    // the solver's stream does not wait for the default stream).
    const prism::test::DeviceValues values(a.values);
    solver.refactor_on_backend(values.data(), values.size());
  }
  out.push_back(solve());
  return out;
}

bool kept_on_device(const std::vector<prism::SetupStep>& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const prism::SetupStep& s) {
    return s.name.find("kept on the device") != std::string::npos;
  });
}

void expect_same(const std::vector<Solved>& host, const std::vector<Solved>& kept) {
  ASSERT_EQ(host.size(), kept.size());
  const char* when[] = {"after setup", "after refactor", "after refactor_on_backend"};
  for (std::size_t r = 0; r < host.size(); ++r) {
    SCOPED_TRACE(when[r]);
    const prism::SolveReport& h = host[r].report;
    const prism::SolveReport& d = kept[r].report;
    EXPECT_TRUE(h.converged());
    EXPECT_EQ(d.status, h.status);
    EXPECT_EQ(d.iterations, h.iterations);
    EXPECT_EQ(d.preconditioner, h.preconditioner);
    EXPECT_EQ(d.spmv, h.spmv);
    EXPECT_EQ(d.trisolve, h.trisolve);
    EXPECT_EQ(d.trisolve_layout, h.trisolve_layout);
    EXPECT_EQ(d.precision, h.precision);
    EXPECT_EQ(d.plan, h.plan);
    EXPECT_EQ(d.ordering.method, h.ordering.method);
    EXPECT_EQ(d.ordering.colors.count, h.ordering.colors.count);
    EXPECT_EQ(d.ordering.levels.count, h.ordering.levels.count);
    EXPECT_EQ(d.ordering.levels.max_size, h.ordering.levels.max_size);
    EXPECT_EQ(d.factorization.shift, h.factorization.shift);
    EXPECT_EQ(d.factorization.retries, h.factorization.retries);
    EXPECT_EQ(kept[r].x, host[r].x);  // the same factor and solves: bit for bit
  }
}

void expect_kept_matches_host(const prism::SolverConfig& config, const CsrMatrix<double>& a) {
  prism::SolverConfig host = config;
  host.solver.setup = prism::SetupSite::host;
  prism::SolverConfig kept = config;
  kept.solver.setup = prism::SetupSite::automatic;
  const std::vector<Solved> h = run(host, a);
  const std::vector<Solved> d = run(kept, a);
  EXPECT_FALSE(kept_on_device(h[0].steps));
  EXPECT_TRUE(kept_on_device(d[0].steps));
  expect_same(h, d);
}

// Node blocks (elasticity, which needs a shift), blocks of a given size with a short last
// one, supernodes (a grouping before the coloring), both solves and both precisions.
TEST(CudaSetupKeptBlocks, BlockIcSolvesAsTheHostBuiltStorage) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> elasticity = prism::elasticity3d(5, 4, 6, 2, {1.0, 1000.0});
  const CsrMatrix<double> poisson = prism::poisson3d(9, 7, 5);  // 315 rows: blocks of 4 end short
  for (const auto solve : {prism::BlockIcSolve::inverted, prism::BlockIcSolve::trsv}) {
    for (const auto precision : {prism::Precision::fp64, prism::Precision::mixed}) {
      SCOPED_TRACE(std::string(prism::to_string(solve)) + ", " +
                   std::string(prism::to_string(precision)));
      prism::SolverConfig c = config_of("block_ic", prism::SetupSite::automatic);
      c.preconditioner.block_ic.solve = solve;
      c.preconditioner.block_ic.precision = precision;
      {
        SCOPED_TRACE("elasticity node blocks");
        expect_kept_matches_host(c, elasticity);
      }
      {
        SCOPED_TRACE("poisson, block_size 4");
        prism::SolverConfig sized = c;
        sized.preconditioner.block_ic.block_size = 4;
        expect_kept_matches_host(sized, poisson);
      }
      {
        SCOPED_TRACE("elasticity, supernodes of 12");
        prism::SolverConfig super = c;
        super.preconditioner.block_ic.supernode = 12;
        expect_kept_matches_host(super, elasticity);
      }
    }
  }
}

// Lines along one axis (anisotropic) and toward a wall (stretched), in their colors.
TEST(CudaSetupKeptBlocks, LineIcSolvesAsTheHostBuiltStorage) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::SolverConfig c = config_of("line_ic", prism::SetupSite::automatic);
  {
    SCOPED_TRACE("anisotropic3d 13x11x9");
    expect_kept_matches_host(c, prism::anisotropic3d(13, 11, 9, 1.0, 1e-3, 1e-3));
  }
  {
    SCOPED_TRACE("stretched3d 6x5x24");
    expect_kept_matches_host(c, prism::stretched3d(6, 5, 24, 200.0));
  }
  {
    SCOPED_TRACE("poisson3d 6x6x6 (lines of one row)");
    expect_kept_matches_host(c, prism::poisson3d(6, 6, 6));
  }
}

// auto's choice and what it chose, as on the host: block_ic, line_ic and ic0.
TEST(CudaSetupKeptBlocks, AutoChoosesAndSolvesAsOnTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::SolverConfig c = config_of("auto", prism::SetupSite::automatic);
  const std::vector<std::pair<std::string, CsrMatrix<double>>> cases = {
      {"elasticity3d 4x5x3", prism::elasticity3d(4, 5, 3, 1, {1.0})},
      {"anisotropic3d 12x10x8", prism::anisotropic3d(12, 10, 8, 1.0, 1e-3, 1e-3)},
      {"poisson3d 10x9x8", prism::poisson3d(10, 9, 8)}};
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    expect_kept_matches_host(c, a);
  }
}

// A diagonal that is not positive under check: pattern: the same message either way.
TEST(CudaSetupKeptBlocks, BadDiagonalIsNamedAsOnTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const std::string type : {"block_ic", "line_ic"}) {
    SCOPED_TRACE(type);
    CsrMatrix<double> a = type == "block_ic" ? prism::elasticity3d(3, 3, 3, 1, {1.0})
                                             : prism::anisotropic3d(8, 6, 5, 1.0, 1e-3, 1e-3);
    const index_t bad = 37;
    for (index_t k = a.row_ptr[bad]; k < a.row_ptr[bad + 1]; ++k) {
      if (a.col_idx[k] == bad) a.values[k] = -1.0;
    }
    std::string messages[2];
    int slot = 0;
    for (const auto site : {prism::SetupSite::host, prism::SetupSite::automatic}) {
      prism::SolverConfig config = config_of(type, site);
      config.solver.check = prism::MatrixCheck::pattern;
      prism::Solver solver(config);
      try {
        solver.setup(a);
        ADD_FAILURE() << "setup accepted a negative diagonal";
      } catch (const prism::Error& e) {
        messages[slot] = e.what();
      }
      ++slot;
    }
    EXPECT_FALSE(messages[0].empty());
    EXPECT_EQ(messages[1], messages[0]);
  }
}

}  // namespace
