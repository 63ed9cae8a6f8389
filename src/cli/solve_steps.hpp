#pragma once
// The steps of `prism solve` that the one-process solve (solve_command.cpp) and the
// distributed one (solve_distributed.cpp, MPI builds only) share.

#include <prism/problem.hpp>
#include <prism/report.hpp>
#include <prism/report_io.hpp>
#include <prism/solver.hpp>

#include <string>
#include <vector>

namespace prism::cli {

/// The command line and the problem file it names.
struct SolveInput {
  std::string problem_file;
  ProblemSpec spec;  ///< with -o overrides and the command line's outputs and logging applied
};

/// Parses the arguments and reads the problem file; sets spdlog's level. Throws UsageError
/// or prism::Error.
SolveInput read_solve_input(const std::vector<std::string>& args);

/// Checks that each output names a file of its own and no input; creates its folder.
void prepare_outputs(const SolveInput& input);

/// "poisson3d 64x64x64" or the matrix file.
std::string matrix_source(const MatrixSpec& m);

/// --log-level debug: the set-up steps' times.
void log_setup(const SetupReport& setup);

/// The plan, the iteration table, the summary and the error against a manufactured solution.
void print_solve_results(const SolveInput& input, const SolveReport& report,
                         const std::vector<double>& exact_solution, const std::vector<double>& x);

/// Writes the report, history and solution files the spec asks for (the report with
/// `distributed`'s figures where its ranks > 0); returns the exit code: 0 converged, 2 not.
int write_solve_outputs(const SolveInput& input, const SolveReport& report,
                        const std::vector<double>& x, const DistributedFigures& distributed = {});

/// rhs.columns > 1: the columns solved together (solve_columns_command.cpp) on a set-up solver;
/// returns the exit code: 0 every column converged, 2 not. Throws ConfigError where the
/// spec asks for output files (they hold one right-hand side).
int solve_columns_command(const SolveInput& input, Solver& solver, const Problem& problem);

/// MPI builds: whether an MPI launcher started this process as one of several ranks (its
/// environment says so) or PRISM_DISTRIBUTED=1 asks for the distributed path on any rank
/// count, and the solve over those ranks.
bool launched_with_several_ranks();
int distributed_solve_command(const std::vector<std::string>& args);

}  // namespace prism::cli
