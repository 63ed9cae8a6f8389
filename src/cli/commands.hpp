#pragma once
// The `prism` subcommands. Each returns the process exit code and lets prism::Error
// propagate to main(), which prints it as one line.

#include <exception>
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

/// Prints `error` (a UsageError, std::bad_alloc or std::exception; others are rethrown) as
/// the one line `prism: error: ...` on stderr and returns the exit code, 1. main() calls it;
/// so does the distributed solve on rank 0 before the ranks leave MPI.
int report_error(const std::exception_ptr& error);

}  // namespace prism::cli
