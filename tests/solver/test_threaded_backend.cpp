// The cpu backend's threaded kernels against its reference kernels on whole solves: for
// every preconditioner and run mode, on the solver suite's matrices and on ones large
// enough that four threads all take part, the threaded solves reach the reference's
// solution in its number of iterations, and on 1, 2 and 4 threads they are the same bit
// for bit (the sums run in a fixed order whatever the thread count). Against the
// reference only the sums round differently (chunked against sequential), and the
// triangular solves where trisolve auto differs (color-set against row by row): on the
// ill-conditioned matrices (jumping coefficients, bcsstk08, 1138_bus) CG amplifies that
// into an iteration or two either way.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::test::random_vector;

struct Case {
  std::string name;
  CsrMatrix<double> a;
  bool well_conditioned;  // the reference's iterations exactly
};

std::vector<Case> cases() {
  const std::string data = PRISM_TEST_DATA_DIR;
  std::vector<Case> out;
  out.push_back({"poisson2d_31x17", prism::poisson2d(31, 17), true});
  out.push_back({"poisson3d27_7x6x5", prism::poisson3d(7, 6, 5, 27), true});
  out.push_back({"anisotropic2d", prism::anisotropic2d(20, 20, 1.0, 100.0), true});
  out.push_back({"layered3d", prism::layered(8, 8, 8, 4, {1.0, 1000.0}), false});
  out.push_back({"elasticity3d", prism::elasticity3d(4, 3, 5, 5, {1.0, 100.0}), false});
  out.push_back({"n1", prism::poisson2d(1, 1), true});
  out.push_back({"bcsstk08", prism::read_matrix_market(data + "/bcsstk08.mtx"), false});
  out.push_back({"1138_bus_laplacian",
                 prism::test::graph_laplacian_plus_identity(
                     prism::read_matrix_market(data + "/1138_bus.mtx")),
                 false});
  // Large enough for four threads in every kernel (16 reduction chunks and more).
  out.push_back({"poisson3d_26x26x25", prism::poisson3d(26, 26, 25), true});
  out.push_back({"poisson3d27_26x26x25", prism::poisson3d(26, 26, 25, 27), true});
  return out;
}

struct Setting {
  std::string name;
  std::string preconditioner;
  prism::Ordering ordering = prism::Ordering::color;
  prism::TimingMode timing = prism::TimingMode::phases;
  prism::Ic0Factorization factorization = prism::Ic0Factorization::automatic;
  prism::Precision precision = prism::Precision::fp64;
  prism::Ic0Factorization block_ic_factorization = prism::Ic0Factorization::automatic;
  prism::SpmvAlgorithm spmv = prism::SpmvAlgorithm::automatic;
  prism::ColorsetLayout layout = prism::ColorsetLayout::automatic;
};

/// Names a Setting in GoogleTest's output (without it, ctest lists its bytes).
void PrintTo(const Setting& s, std::ostream* os) {
  *os << s.name;
}

std::string name_of(const ::testing::TestParamInfo<Setting>& info) {
  return info.param.name;
}

prism::SolverConfig config(const Setting& s, prism::CpuKernels kernels) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.cpu_kernels = kernels;
  c.preconditioner.type = s.preconditioner;
  c.preconditioner.ordering = s.ordering;
  c.preconditioner.ic0.factorization = s.factorization;
  c.preconditioner.ic0.precision = s.precision;
  c.preconditioner.block_ic.factorization = s.block_ic_factorization;
  c.solver.timing = s.timing;
  c.solver.spmv = s.spmv;
  c.preconditioner.colorset_layout = s.layout;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 20000;
  return c;
}

struct Outcome {
  prism::SolveReport report;
  std::vector<double> x;
};

Outcome solve(const Setting& s, prism::CpuKernels kernels, const CsrMatrix<double>& a,
              const std::vector<double>& b) {
  prism::Solver solver(config(s, kernels));
  solver.setup(a);
  Outcome out;
  out.report = solver.solve(b, out.x);
  return out;
}

double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::abs(x[i] - y[i]));
    norm = std::max(norm, std::abs(y[i]));
  }
  return norm > 0.0 ? diff / norm : diff;
}

class ThreadedBackend : public ::testing::TestWithParam<Setting> {};

TEST_P(ThreadedBackend, EqualsTheReferenceOnOneTwoAndFourThreads) {
  const Setting& s = GetParam();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<double> b = random_vector(c.a.rows, 21);
    const Outcome ref = solve(s, prism::CpuKernels::reference, c.a, b);
    ASSERT_TRUE(ref.report.converged());
    EXPECT_NE(ref.report.device.find("reference kernels, 1 thread"), std::string::npos);
    std::vector<Outcome> threaded;
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(std::to_string(threads) + " threads");
      const prism::test::ScopedHostThreads scoped(threads);
      threaded.push_back(solve(s, prism::CpuKernels::threaded, c.a, b));
      const prism::SolveReport& r = threaded.back().report;
      EXPECT_NE(r.device.find("threaded kernels, " + std::to_string(threads) + " thread"),
                std::string::npos)
          << r.device;
      ASSERT_TRUE(r.converged());
      // The factorizations give the reference's verdicts, so its shift and retries.
      EXPECT_EQ(r.factorization.shift, ref.report.factorization.shift);
      EXPECT_EQ(r.factorization.retries, ref.report.factorization.retries);
      if (c.well_conditioned) {
        EXPECT_EQ(r.iterations, ref.report.iterations);
      } else {
        EXPECT_LE(std::abs(r.iterations - ref.report.iterations), 2 + ref.report.iterations / 20);
      }
      EXPECT_LE(relative_difference(threaded.back().x, ref.x), 1e-6);
    }
    for (std::size_t k = 1; k < threaded.size(); ++k) {
      EXPECT_EQ(threaded[k].x, threaded[0].x) << "thread counts differ in the bits";
      EXPECT_EQ(threaded[k].report.iterations, threaded[0].report.iterations);
      ASSERT_EQ(threaded[k].report.history.size(), threaded[0].report.history.size());
      for (std::size_t i = 0; i < threaded[0].report.history.size(); ++i) {
        EXPECT_EQ(threaded[k].report.history[i].residual_norm,
                  threaded[0].report.history[i].residual_norm);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllPreconditioners, ThreadedBackend,
    ::testing::Values(
        Setting{"none", "none", prism::Ordering::natural},
        Setting{"jacobi", "jacobi", prism::Ordering::natural},
        Setting{"ic0_natural", "ic0", prism::Ordering::natural}, Setting{"ic0_color", "ic0"},
        Setting{"ic0_color_total", "ic0", prism::Ordering::color, prism::TimingMode::total},
        Setting{"ic0_host_factor", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::host},
        Setting{"ic0_backend_factor", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::backend},
        Setting{"ic0_natural_backend_factor", "ic0", prism::Ordering::natural,
                prism::TimingMode::phases, prism::Ic0Factorization::backend},
        Setting{"ic0_backend_factor_total", "ic0", prism::Ordering::color, prism::TimingMode::total,
                prism::Ic0Factorization::backend},
        Setting{"ic0_mixed", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::automatic, prism::Precision::mixed},
        Setting{"block_ic", "block_ic", prism::Ordering::color},
        Setting{"block_ic_backend_factor", "block_ic", prism::Ordering::color,
                prism::TimingMode::phases, prism::Ic0Factorization::automatic,
                prism::Precision::fp64, prism::Ic0Factorization::backend},
        Setting{"block_ic_natural_backend_factor", "block_ic", prism::Ordering::natural,
                prism::TimingMode::phases, prism::Ic0Factorization::automatic,
                prism::Precision::fp64, prism::Ic0Factorization::backend},
        // The SELL-8 SpMV and color-set solves, and the CSR ones (auto picks SELL for
        // some of these matrices); the reference kernels keep their CSR kernels.
        Setting{"jacobi_sell", "jacobi", prism::Ordering::natural, prism::TimingMode::phases,
                prism::Ic0Factorization::automatic, prism::Precision::fp64,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::sell},
        Setting{"ic0_color_sell_total", "ic0", prism::Ordering::color, prism::TimingMode::total,
                prism::Ic0Factorization::automatic, prism::Precision::fp64,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::sell,
                prism::ColorsetLayout::sell},
        Setting{"ic0_color_csr", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::automatic, prism::Precision::fp64,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::csr_vector,
                prism::ColorsetLayout::csr},
        Setting{"ic0_natural_sell", "ic0", prism::Ordering::natural, prism::TimingMode::phases,
                prism::Ic0Factorization::backend, prism::Precision::fp64,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::sell,
                prism::ColorsetLayout::sell},
        Setting{"ic0_mixed_sell", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::automatic, prism::Precision::mixed,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::automatic,
                prism::ColorsetLayout::sell},
        Setting{"block_ic_sell", "block_ic", prism::Ordering::color, prism::TimingMode::phases,
                prism::Ic0Factorization::automatic, prism::Precision::fp64,
                prism::Ic0Factorization::automatic, prism::SpmvAlgorithm::sell,
                prism::ColorsetLayout::sell}),
    name_of);

// IC(0) and block IC(0) of bcsstk13 break down without a shift: the factorizations on the
// backend take the reference's verdicts, so its shift after the same retries, and the
// same factor (the solves agree as on the other matrices).
TEST(ThreadedBackendFactorization, ThatNeedsAShiftTakesTheReferencesShift) {
  const std::string path = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (path.empty()) GTEST_SKIP() << "shared/matrices/bcsstk13.mtx.gz not available";
  const CsrMatrix<double> a = prism::read_matrix_market(path);
  const std::vector<double> b = random_vector(a.rows, 5);
  const Setting settings[] = {{"ic0", "ic0", prism::Ordering::color, prism::TimingMode::phases,
                               prism::Ic0Factorization::backend},
                              {"ic0_natural", "ic0", prism::Ordering::natural,
                               prism::TimingMode::phases, prism::Ic0Factorization::backend},
                              {"block_ic", "block_ic", prism::Ordering::color,
                               prism::TimingMode::phases, prism::Ic0Factorization::automatic,
                               prism::Precision::fp64, prism::Ic0Factorization::backend}};
  for (const Setting& s : settings) {
    SCOPED_TRACE(s.name);
    const Outcome ref = solve(s, prism::CpuKernels::reference, a, b);
    EXPECT_GT(ref.report.factorization.retries, 0);
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(std::to_string(threads) + " threads");
      const prism::test::ScopedHostThreads scoped(threads);
      const prism::SolveReport r = solve(s, prism::CpuKernels::threaded, a, b).report;
      EXPECT_EQ(r.factorization.retries, ref.report.factorization.retries);
      EXPECT_EQ(r.factorization.shift, ref.report.factorization.shift);
      EXPECT_EQ(r.converged(), ref.report.converged());
    }
  }
}

TEST(ThreadedBackendSelection, ProblemFileKeyAndDefault) {
  EXPECT_EQ(prism::SolverConfig{}.cpu_kernels, prism::CpuKernels::threaded);
  EXPECT_EQ(prism::parse_solver_config("cpu_kernels: reference").cpu_kernels,
            prism::CpuKernels::reference);
  EXPECT_EQ(prism::parse_solver_config("cpu_kernels: threaded").cpu_kernels,
            prism::CpuKernels::threaded);
  EXPECT_THROW(prism::parse_solver_config("cpu_kernels: fast"), prism::ConfigError);
}

TEST(ThreadedBackendSelection, ReferenceKernelsKeepTheRowByRowSolve) {
  const CsrMatrix<double> a = prism::poisson3d(10, 9, 8);
  const std::vector<double> b = random_vector(a.rows, 3);
  const Setting s{"ic0", "ic0"};
  const Outcome ref = solve(s, prism::CpuKernels::reference, a, b);
  const Outcome threaded = solve(s, prism::CpuKernels::threaded, a, b);
  EXPECT_EQ(ref.report.trisolve, "reference");
  EXPECT_EQ(threaded.report.trisolve, "colorset");
  EXPECT_EQ(ref.report.spmv, "reference");
  EXPECT_TRUE(threaded.report.spmv == "csr" || threaded.report.spmv == "sell")
      << threaded.report.spmv;
}

// The SELL SpMV's and color-set solve's rows are the CSR kernels' bits and the fused dot
// is the same chunked sum, so whole solves agree bit for bit; auto takes SELL on a grid
// (no padding but the boundary rows') and CSR where hubs make it pad.
TEST(ThreadedBackendSelection, SellSolvesAreTheCsrSolvesBits) {
  const CsrMatrix<double> a = prism::poisson3d(26, 26, 25);
  const std::vector<double> b = random_vector(a.rows, 4);
  for (const char* type : {"jacobi", "ic0"}) {
    Setting csr{type, type};
    csr.spmv = prism::SpmvAlgorithm::csr_vector;
    csr.layout = prism::ColorsetLayout::csr;
    Setting sell = csr;
    sell.spmv = prism::SpmvAlgorithm::sell;
    sell.layout = prism::ColorsetLayout::sell;
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(std::string(type) + ", " + std::to_string(threads) + " threads");
      const prism::test::ScopedHostThreads scoped(threads);
      const Outcome c = solve(csr, prism::CpuKernels::threaded, a, b);
      const Outcome s = solve(sell, prism::CpuKernels::threaded, a, b);
      EXPECT_EQ(c.report.spmv, "csr");
      EXPECT_EQ(s.report.spmv, "sell");
      if (std::string(type) == "ic0") {
        EXPECT_EQ(c.report.trisolve_layout, "csr");
        EXPECT_EQ(s.report.trisolve_layout, "sell");
      }
      EXPECT_EQ(s.report.iterations, c.report.iterations);
      EXPECT_EQ(s.x, c.x);
    }
  }
  const Setting automatic{"jacobi", "jacobi", prism::Ordering::natural};
  EXPECT_EQ(solve(automatic, prism::CpuKernels::threaded, a, b).report.spmv, "sell");
  const Outcome colored = solve({"ic0", "ic0"}, prism::CpuKernels::threaded, a, b);
  EXPECT_EQ(colored.report.spmv, "sell");
  EXPECT_EQ(colored.report.trisolve_layout, "sell");
  // A natural order's color-set blocks are single rows: SELL would pad each to 8 lanes.
  const Outcome natural =
      solve({"ic0", "ic0", prism::Ordering::natural}, prism::CpuKernels::threaded, a, b);
  EXPECT_EQ(natural.report.trisolve_layout, "csr");
  const CsrMatrix<double> hubs = prism::test::grid_and_hubs();
  EXPECT_EQ(
      solve(automatic, prism::CpuKernels::threaded, hubs, random_vector(hubs.rows, 4)).report.spmv,
      "csr");
}

}  // namespace
