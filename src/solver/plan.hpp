#pragma once
// Every `auto` choice of a solve, resolved once, in one place, into enums that are passed
// down (the preconditioner and the backend receive resolved options) and reported with
// the reason for each choice (SolveReport::plan, `prism solve --log-level debug`).

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include "backend/backend.hpp"

#include <string>
#include <vector>

namespace prism::solver {

/// How the iterations after the first run.
enum class RunMode {
  launches,  ///< every operation launched one by one
  replay,    ///< the work between two convergence checks recorded once and replayed
  loop,      ///< the whole loop, convergence test included, runs in the backend
};

const char* run_mode_name(RunMode mode);

/// The resolved set-up choices (Solver::setup).
struct Plan {
  PreconditionerOptions preconditioner;  ///< no automatic ordering, trisolve or factorization
  SpmvAlgorithm spmv = SpmvAlgorithm::automatic;  ///< automatic only where the backend has one
  std::vector<std::string> reasons;               ///< "key: value (why)", one per auto choice
};

/// The ordering, before the matrix is reordered: color for ic0, block_ic and auto,
/// natural for the others.
Ordering resolve_ordering(const PreconditionerOptions& options, std::vector<std::string>& reasons);

/// The rest, on the matrix in the solver's order: the SpMV algorithm, and for ic0 the
/// triangular solve and where the factorization runs. With `kept` (the ordered matrix in
/// the backend's memory; `ordered` then holds its size alone) the SpMV's choice is made
/// there, and the preconditioner must be factored on the backend (ic0 and block_ic planned
/// so, or line_ic; Solver::Impl::builds_on_backend).
Plan resolve_plan(const SolverConfig& config, const backend::Backend& backend,
                  const CsrMatrix<double>& ordered, std::vector<std::string> reasons,
                  const backend::OrderedMatrix* kept = nullptr);

/// The plan line of a block preconditioner's blocks: "blocks: 67240 of 3 rows (3 to 3; node
/// blocks from the pattern), 25.5% of sum |a_ij| inside them".
std::string describe_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                            const BlockIcOptions& options);
/// The same with the share of sum |a_ij| inside the blocks given (diagonal_block_weight).
std::string describe_blocks(double inside_weight, const BlockPartition& blocks,
                            const BlockIcOptions& options);

/// How a solve's iterations run (the options may change between solves:
/// Solver::set_solver_options). Throws ConfigError when the options insist on a mode the
/// backend does not have.
/// `recordable`: the preconditioner's apply can be recorded (no host round trip in it);
/// `monitored`: a monitor watches the residuals (said in the reason).
RunMode resolve_run_mode(const SolverOptions& options, const backend::Backend& backend,
                         std::string* reason = nullptr, bool recordable = true,
                         bool monitored = false);

}  // namespace prism::solver
