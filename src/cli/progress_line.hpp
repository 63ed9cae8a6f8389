#pragma once
// A live progress line while `prism solve` iterates: on a terminal only, so that logs and
// pipes get the table after the solve and nothing else.

#include <prism/solver.hpp>

#include <chrono>

namespace prism::cli {

/// Iteration, relative residual against the tolerance and elapsed time, rewritten in
/// place at most 10 times a second through a Solver monitor. Off (no monitor) where
/// stdout is not a terminal, the log level hides info, or the options may run the
/// device-side loop (graph: auto or loop with timing: total), which a monitor would rule
/// out: a terminal must not change how the iterations run.
class ProgressLine {
 public:
  explicit ProgressLine(const SolverOptions& options);
  /// The monitor to give Solver::set_monitor; empty when off.
  Solver::Monitor monitor();
  /// Clears the line, if one was written.
  void finish();

 private:
  bool on_ = false;
  bool written_ = false;
  double tolerance_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace prism::cli
