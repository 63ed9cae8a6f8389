#pragma once
// Console output of a solve: the per-iteration table and the summary with the
// per-phase breakdown, through spdlog.

#include <prism/report.hpp>

#include <string>

namespace prism::cli {

/// Whether any phase was timed: false under timing: total, which times only the loop.
bool phases_timed(const SolveReport& report);

/// Prints every k-th iteration of the history (and the last); k <= 0 prints none.
void print_iteration_table(const SolveReport& report, int every);

/// Prints the summary: ordering, setup, status, residuals, per-phase breakdown.
void print_summary(const SolveReport& report, const std::string& problem_name);

/// Seconds in a readable unit ("812 us", "3.41 ms", "2.07 s").
std::string format_seconds(double seconds);

}  // namespace prism::cli
