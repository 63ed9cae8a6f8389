// `prism solve` with several right-hand sides (rhs: {type: random, columns: K}): one
// multi-column solve, a line per column and the whole solve's time.

#include "cli/console_report.hpp"
#include "cli/solve_steps.hpp"

#include <prism/errors.hpp>

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace prism::cli {

int solve_columns_command(const SolveInput& input, Solver& solver, const Problem& problem) {
  const OutputSpec& out = input.spec.output;
  if (!out.report.empty() || !out.history.empty() || !out.solution.empty()) {
    throw ConfigError("rhs.columns " + std::to_string(problem.columns) +
                      ": the report, history and solution files hold one right-hand side; "
                      "drop output (or --report, --history, --solution) or use columns: 1");
  }
  const std::size_t n = static_cast<std::size_t>(problem.a.rows);
  std::vector<double> x;
  for (int j = 0; j < problem.columns; ++j) x.insert(x.end(), problem.x0.begin(), problem.x0.end());
  const MultiSolveReport report = solver.solve(problem.b.data(), x.data(), n, problem.columns);
  spdlog::info("columns        {} (backend {}, preconditioner {}, factor read {}, spmv {})",
               report.columns, report.backend, report.preconditioner,
               report.preconditioner_reads_once ? "once for all columns" : "column by column",
               report.spmv);
  int failed = 0;
  for (int j = 0; j < report.columns; ++j) {
    const ColumnReport& c = report.column[j];
    spdlog::info("column {:<4}    {:<14} {:>6} iterations, relative residual {:.3e} (true {:.3e})",
                 j, status_name(c.status), c.iterations, c.relative_residual,
                 c.true_relative_residual);
    if (!c.converged()) {
      ++failed;
      spdlog::warn("column {}: {}", j, c.diagnosis);
    }
  }
  spdlog::info("solve          {} for {} columns ({} a column), {} iterations",
               format_seconds(report.solve_seconds), report.columns,
               format_seconds(report.solve_seconds / report.columns), report.iterations);
  if (failed > 0) {
    spdlog::warn("prism: {} of {} columns not converged", failed, report.columns);
    return 2;
  }
  return 0;
}

}  // namespace prism::cli
