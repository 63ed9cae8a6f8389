// A monitor watching the device-side loop (graph: loop; auto with timing total): it is
// told the residuals the loop publishes, the same ones the report's history holds; its
// stop ends a loop that would otherwise run on, with x the iterate of the iteration the
// loop stopped at. Skipped without a GPU.

#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace {

using prism::IterationRecord;

prism::SolverConfig loop_config(int check_every) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cuda;
  c.preconditioner.type = "jacobi";
  c.solver.tolerance = 1e-10;
  c.solver.check_every = check_every;
  c.solver.timing = prism::TimingMode::total;
  c.solver.graph = prism::GraphMode::loop;
  return c;
}

TEST(CudaMonitor, IsToldWhatTheLoopPublishes) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = prism::poisson3d(20, 19, 18);
  const std::vector<double> b = prism::test::random_vector(a.rows, 11);
  for (const int every : {1, 5}) {
    SCOPED_TRACE(every);
    prism::Solver s(loop_config(every));
    s.setup(a);
    std::vector<IterationRecord> seen;
    s.set_monitor([&](const IterationRecord& r) {
      seen.push_back(r);
      return true;
    });
    std::vector<double> x;
    const prism::SolveReport report = s.solve(b, x);
    ASSERT_TRUE(report.converged());
    EXPECT_TRUE(report.device_loop);
    ASSERT_GE(seen.size(), 3u);
    EXPECT_EQ(seen.front().iteration, 0);
    EXPECT_EQ(seen.back().iteration, report.iterations);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const IterationRecord& r = seen[i];
      if (i > 0) EXPECT_GT(r.iteration, seen[i - 1].iteration);
      const IterationRecord& h = report.history[static_cast<std::size_t>(r.iteration)];
      EXPECT_EQ(h.iteration, r.iteration);
      EXPECT_EQ(h.residual_norm, r.residual_norm);
      if (r.iteration > 1 && r.iteration < report.iterations) EXPECT_EQ(r.iteration % every, 0);
    }

    // Without the monitor: the same loop, unwatched, to the same bits.
    s.set_monitor({});
    std::vector<double> x_unwatched;
    const prism::SolveReport unwatched = s.solve(b, x_unwatched);
    EXPECT_EQ(unwatched.iterations, report.iterations);
    EXPECT_EQ(x_unwatched, x);
  }
}

// Tolerance 1e-300: only the monitor ends this loop before its 20,000 iterations. The loop stops
// soon after the request, and x is what a limit at that iteration returns.
TEST(CudaMonitor, ItsStopEndsARunningLoop) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = prism::poisson3d(24, 24, 24);
  const std::vector<double> b = prism::test::random_vector(a.rows, 12);
  prism::SolverConfig c = loop_config(1);
  c.solver.tolerance = 1e-300;  // below what rounding lets the residual reach
  c.solver.max_iterations = 20000;
  prism::Solver s(c);
  s.setup(a);
  int told = 0;
  s.set_monitor([&](const IterationRecord& r) {
    told = r.iteration;
    return r.iteration < 50;
  });
  std::vector<double> x;
  const prism::SolveReport stopped = s.solve(b, x);
  EXPECT_EQ(stopped.status, prism::SolveStatus::stopped);
  EXPECT_EQ(told, 50);  // not told again after it asked to stop
  EXPECT_GE(stopped.iterations, 50);
  EXPECT_LT(stopped.iterations, 20000);
  std::printf("stop requested at iteration 50, loop stopped at %d\n", stopped.iterations);

  c.solver.max_iterations = stopped.iterations;
  prism::Solver limited(c);
  limited.setup(a);
  std::vector<double> x_limited;
  EXPECT_EQ(limited.solve(b, x_limited).status, prism::SolveStatus::max_iterations);
  EXPECT_EQ(x, x_limited);
}

}  // namespace
