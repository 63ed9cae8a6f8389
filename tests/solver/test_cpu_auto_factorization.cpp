// `factorization: auto` on the cpu backend: the threaded kernels factor a color's (a
// level's) rows at once, so auto puts ic0 and block_ic there where the order and the
// solves allow it, as on a GPU; the reference kernels keep the host's factorization. The
// plan says which and why, and the factor is the reference's, so the iterations are too.

#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;

prism::SolverConfig config(const std::string& type, prism::CpuKernels kernels) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.cpu_kernels = kernels;
  c.preconditioner.type = type;
  c.solver.tolerance = 1e-10;
  return c;
}

prism::SolveReport solve(const prism::SolverConfig& c, const CsrMatrix<double>& a) {
  prism::Solver solver(c);
  solver.setup(a);
  std::vector<double> x;
  return solver.solve(prism::test::random_vector(a.rows, 7), x);
}

/// The plan's line that starts with `key`, or "".
std::string plan_line(const prism::SolveReport& r, const std::string& key) {
  const auto it = std::find_if(r.plan.begin(), r.plan.end(),
                               [&](const std::string& line) { return line.rfind(key, 0) == 0; });
  return it != r.plan.end() ? *it : "";
}

TEST(CpuAutoFactorization, Ic0OnTheThreadedKernelsOfAMulticolorOrder) {
  const CsrMatrix<double> a = prism::poisson3d(12, 11, 10);
  const prism::test::ScopedHostThreads threads(2);
  const prism::SolveReport threaded = solve(config("ic0", prism::CpuKernels::threaded), a);
  EXPECT_EQ(plan_line(threaded, "ic0.factorization: "),
            "ic0.factorization: backend (a multicolor order, color-set solves, threaded cpu "
            "kernels)");
  EXPECT_EQ(threaded.trisolve, "colorset");
  const prism::SolveReport ref = solve(config("ic0", prism::CpuKernels::reference), a);
  EXPECT_EQ(plan_line(ref, "ic0.factorization: "),
            "ic0.factorization: host (backend cpu, ordering color)");
  EXPECT_EQ(threaded.iterations, ref.iterations);
}

TEST(CpuAutoFactorization, Ic0StaysOnTheHostWhereTheOrderOrTheSolvesForbid) {
  const CsrMatrix<double> a = prism::poisson2d(20, 18);
  prism::SolverConfig natural = config("ic0", prism::CpuKernels::threaded);
  natural.preconditioner.ordering = prism::Ordering::natural;
  EXPECT_EQ(plan_line(solve(natural, a), "ic0.factorization: "),
            "ic0.factorization: host (backend cpu, ordering natural)");
  prism::SolverConfig row_by_row = config("ic0", prism::CpuKernels::threaded);
  row_by_row.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  EXPECT_EQ(plan_line(solve(row_by_row, a), "ic0.factorization: "),
            "ic0.factorization: host (backend cpu, ordering color)");
}

TEST(CpuAutoFactorization, BlockIcOnTheThreadedKernels) {
  const CsrMatrix<double> a = prism::elasticity3d(5, 4, 4, 1, {1.0});
  const prism::SolveReport threaded = solve(config("block_ic", prism::CpuKernels::threaded), a);
  EXPECT_EQ(plan_line(threaded, "block_ic.factorization: "),
            "block_ic.factorization: backend (color-set solves, threaded cpu kernels)");
  const prism::SolveReport ref = solve(config("block_ic", prism::CpuKernels::reference), a);
  EXPECT_EQ(plan_line(ref, "block_ic.factorization: "),
            "block_ic.factorization: host (backend cpu)");
  EXPECT_LE(std::abs(threaded.iterations - ref.iterations), 1);

  prism::SolverConfig trsv = config("block_ic", prism::CpuKernels::threaded);
  trsv.preconditioner.block_ic.solve = prism::BlockIcSolve::trsv;
  EXPECT_EQ(plan_line(solve(trsv, a), "block_ic.factorization: "),
            "block_ic.factorization: backend (threaded cpu kernels)");
  // Inverted solves that are not the color-set ones read a host factor.
  prism::SolverConfig row_by_row = config("block_ic", prism::CpuKernels::threaded);
  row_by_row.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  EXPECT_EQ(plan_line(solve(row_by_row, a), "block_ic.factorization: "),
            "block_ic.factorization: host (backend cpu)");
}

}  // namespace
