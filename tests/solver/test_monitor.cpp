// Solver::set_monitor: the monitor sees every residual the solver reads, in the units of
// the caller's b, and can stop a solve at a chosen iteration with the iterate of that
// iteration.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using prism::CsrMatrix;
using prism::IterationRecord;

prism::SolverConfig config(int check_every) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.solver.tolerance = 1e-10;
  c.solver.check_every = check_every;
  return c;
}

TEST(Monitor, SeesEveryRecordOfTheHistory) {
  const CsrMatrix<double> a = prism::poisson2d(20, 17);
  const std::vector<double> b = prism::test::random_vector(a.rows, 1);
  for (const int every : {1, 3}) {
    SCOPED_TRACE(every);
    prism::Solver s(config(every));
    s.setup(a);
    std::vector<IterationRecord> seen;
    s.set_monitor([&](const IterationRecord& r) {
      seen.push_back(r);
      return true;
    });
    std::vector<double> x;
    const prism::SolveReport report = s.solve(b, x);
    ASSERT_TRUE(report.converged());
    ASSERT_EQ(seen.size(), report.history.size());
    for (std::size_t k = 0; k < seen.size(); ++k) {
      EXPECT_EQ(seen[k].iteration, report.history[k].iteration);
      EXPECT_EQ(seen[k].residual_norm, report.history[k].residual_norm);
      EXPECT_EQ(seen[k].relative_residual, report.history[k].relative_residual);
    }
    s.set_monitor({});
    seen.clear();
    s.solve(b, x);
    EXPECT_TRUE(seen.empty());
  }
}

// Stopped at iteration 5, x is the 5th iterate: what an iteration limit of 5 returns.
TEST(Monitor, StopsAtTheChosenIterationWithThatIterate) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  const std::vector<double> b = prism::test::random_vector(a.rows, 2);
  for (const prism::TimingMode timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
    prism::SolverConfig c = config(1);
    c.solver.timing = timing;
    prism::Solver s(c);
    s.setup(a);
    s.set_monitor([](const IterationRecord& r) { return r.iteration < 5; });
    std::vector<double> x_stopped;
    const prism::SolveReport stopped = s.solve(b, x_stopped);
    EXPECT_EQ(stopped.status, prism::SolveStatus::stopped);
    EXPECT_EQ(stopped.iterations, 5);
    EXPECT_NE(stopped.diagnosis.find("stopped by the monitor at iteration 5"), std::string::npos)
        << stopped.diagnosis;

    c.solver.max_iterations = 5;
    prism::Solver limited(c);
    limited.setup(a);
    std::vector<double> x_limited;
    EXPECT_EQ(limited.solve(b, x_limited).status, prism::SolveStatus::max_iterations);
    EXPECT_EQ(x_stopped, x_limited);
  }
}

TEST(Monitor, StopAtTheInitialResidualKeepsTheGuess) {
  const CsrMatrix<double> a = prism::poisson2d(6, 6);
  prism::Solver s(config(1));
  s.setup(a);
  s.set_monitor([](const IterationRecord&) { return false; });
  std::vector<double> x(36, 0.5);
  const prism::SolveReport r = s.solve(prism::test::random_vector(36, 3), x);
  EXPECT_EQ(r.status, prism::SolveStatus::stopped);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(x, std::vector<double>(36, 0.5));
}

// The monitor sees ||r|| of the caller's b, also where the solver scales b internally.
TEST(Monitor, SeesTheResidualsOfTheCallersRightHandSide) {
  const CsrMatrix<double> a = prism::poisson2d(8, 8);
  std::vector<double> b = prism::test::random_vector(64, 4);
  for (double& v : b) v *= 1e200;
  prism::Solver s(config(1));
  s.setup(a);
  double first = 0.0;
  s.set_monitor([&](const IterationRecord& r) {
    if (r.iteration == 0) first = r.residual_norm;
    return true;
  });
  std::vector<double> x;
  const prism::SolveReport report = s.solve(b, x);
  ASSERT_TRUE(report.converged());
  EXPECT_NEAR(first / report.rhs_norm, 1.0, 1e-12);
  EXPECT_GT(first, 1e199);
}

// graph: loop (the cpu backend runs the loop on the host by the device loop's rules): the
// monitor watches it, sees the records the history holds at every check_every iterations
// and the last, and its stop ends the loop after that iteration with that iterate.
TEST(Monitor, WatchesTheLoopTheBackendRuns) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  const std::vector<double> b = prism::test::random_vector(a.rows, 5);
  for (const int every : {1, 4}) {
    SCOPED_TRACE(every);
    prism::SolverConfig c = config(every);
    c.solver.timing = prism::TimingMode::total;
    c.solver.graph = prism::GraphMode::loop;
    prism::Solver s(c);
    s.setup(a);
    std::vector<IterationRecord> seen;
    s.set_monitor([&](const IterationRecord& r) {
      seen.push_back(r);
      return true;
    });
    std::vector<double> x;
    const prism::SolveReport report = s.solve(b, x);
    ASSERT_TRUE(report.converged());
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().iteration, 0);
    EXPECT_EQ(seen.back().iteration, report.iterations);
    for (const IterationRecord& r : seen) {
      const IterationRecord& h = report.history[static_cast<std::size_t>(r.iteration)];
      EXPECT_EQ(h.iteration, r.iteration);
      EXPECT_EQ(h.residual_norm, r.residual_norm);
      if (r.iteration > 1 && r.iteration < report.iterations) {
        EXPECT_EQ(r.iteration % every, 0) << r.iteration;
      }
    }

    s.set_monitor([](const IterationRecord& r) { return r.iteration < 8; });
    std::vector<double> x_stopped;
    const prism::SolveReport stopped = s.solve(b, x_stopped);
    EXPECT_EQ(stopped.status, prism::SolveStatus::stopped);
    EXPECT_EQ(stopped.iterations, 8);
    c.solver.max_iterations = 8;
    prism::Solver limited(c);
    limited.setup(a);
    std::vector<double> x_limited;
    EXPECT_EQ(limited.solve(b, x_limited).status, prism::SolveStatus::max_iterations);
    EXPECT_EQ(x_stopped, x_limited);
  }
}

}  // namespace
