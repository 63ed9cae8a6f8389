#pragma once
// The `prism` subcommands. Each returns the process exit code and lets prism::Error
// propagate to main(), which prints it as one line.

#include <string>
#include <vector>

namespace prism::cli {

/// prism solve FILE.yaml [options]: 0 converged, 2 not converged.
int solve_command(const std::vector<std::string>& args);

/// prism info FILE.mtx|FILE.yaml: matrix, coloring and level-set statistics.
int info_command(const std::vector<std::string>& args);

/// prism options [--markdown]: every problem-file key with its type, allowed values,
/// default and doc; --markdown prints docs/problem-file.md.
int options_command(const std::vector<std::string>& args);

/// Thrown for bad command-line usage (exit 1 with a hint to --help).
struct UsageError {
  std::string message;
};

}  // namespace prism::cli
