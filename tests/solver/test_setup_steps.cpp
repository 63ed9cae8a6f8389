// SetupReport::steps (issue 47): setup() records its finer steps, each inside its group
// (the permutation's steps within permutation_seconds, the analysis' within
// analysis_seconds), in the order they ran; a refactor records none; the report's level
// sets fit the order (tests/analysis/test_level_sets.cpp compares them exactly).

#include <prism/analysis.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

double sum_of(const prism::SetupReport& s, const std::string& prefix) {
  double total = 0.0;
  for (const prism::SetupStep& step : s.steps) {
    if (step.name.rfind(prefix, 0) == 0) total += step.seconds;
  }
  return total;
}

TEST(SetupSteps, EachStepIsInsideItsGroup) {
  const prism::CsrMatrix<double> a = prism::poisson3d(20, 17, 11);
  for (const auto ordering : {prism::Ordering::color, prism::Ordering::natural}) {
    SCOPED_TRACE(std::string(prism::to_string(ordering)));
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cpu;
    config.preconditioner.type = "ic0";
    config.preconditioner.ordering = ordering;
    prism::Solver solver(config);
    solver.setup(a);
    const prism::SetupReport& s = solver.setup_report();
    std::vector<std::string> names;
    for (const prism::SetupStep& step : s.steps) {
      names.push_back(step.name);
      EXPECT_GE(step.seconds, 0.0) << step.name;
      EXPECT_FALSE(step.device) << step.name;  // the cpu backend
    }
    const bool permuted = ordering == prism::Ordering::color;
    std::vector<std::string> want;
    if (permuted) want.push_back("permutation: pattern and values");
    for (const char* name : {"analysis: plan", "analysis: level sets (report)",
                             "analysis: ic0 pattern (L, U = L^T)"}) {
      want.emplace_back(name);
    }
    EXPECT_EQ(names, want);
    EXPECT_LE(sum_of(s, "permutation:"), s.permutation_seconds);
    EXPECT_LE(sum_of(s, "analysis:"), s.analysis_seconds);

    // The report's level sets are those of the order the solver uses.
    std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0), x;
    config.solver.max_iterations = 1;
    solver.set_solver_options(config.solver);
    const prism::SolveReport report = solver.solve(b, x);
    if (permuted) {  // rows of a color never couple: at most one level a color
      EXPECT_GE(report.ordering.levels.count, 1);
      EXPECT_LE(report.ordering.levels.count, report.ordering.colors.count);
    } else {
      EXPECT_EQ(report.ordering.levels.count, prism::level_sets(a).num_levels);
    }
    EXPECT_DOUBLE_EQ(report.ordering.levels.mean_size * report.ordering.levels.count, a.rows);

    prism::CsrMatrix<double> doubled = a;
    for (double& v : doubled.values) v *= 2.0;
    solver.refactor(doubled);
    EXPECT_TRUE(solver.setup_report().steps.empty());
  }
}

}  // namespace
