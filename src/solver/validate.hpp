#pragma once
// Every rule a SolverConfig must satisfy, in one place: the range of each key (from the
// parameter table, src/io/parameters.cpp) and the rules that tie keys together. The Solver
// constructor and the YAML reader both call it, so the library and the CLI reject the same
// configurations with the same messages. Rules that need the backend (an algorithm the
// chosen backend lacks) stay with the backend.

#include <prism/options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace prism {

/// A device-side loop (solver.graph: loop) keeps one residual per iteration in device
/// memory: it takes at most this many iterations.
inline constexpr int kMaxLoopIterations = 1 << 24;

/// A rule a configuration breaks: the problem-file keys involved, the one the message
/// starts with first, and the message ("solver.tolerance: must be > 0 and < 1, got 2").
struct ConfigViolation {
  std::vector<std::string> keys;
  std::string message;
};

/// The first rule `config` breaks, in parameter-table order, then the cross-key rules;
/// nothing when it is valid.
std::optional<ConfigViolation> find_violation(const SolverConfig& config);

/// Throws ConfigError with find_violation()'s message when `config` breaks a rule.
void validate(const SolverConfig& config);

}  // namespace prism
