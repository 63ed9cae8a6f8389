#include "solver/validate.hpp"

#include "io/parameters.hpp"

#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include <cmath>
#include <cstdlib>

namespace prism {
namespace {

std::string name(std::string_view s) {
  return std::string(s);
}

/// The range and allowed values of each key, as the parameter table declares them.
std::optional<ConfigViolation> check_keys(const SolverConfig& config) {
  ProblemSpec spec;
  spec.config = config;
  for (const Parameter& p : parameters()) {
    if (!is_solver_config_key(p.key) || !p.value) continue;
    const std::string text = p.value(spec);
    switch (p.type) {
      case ParameterType::integer:
      case ParameterType::real: {
        // format_number round-trips, so the text is the exact value.
        const double v = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(v) || !p.in_range(v)) {
          return ConfigViolation{{p.key}, p.key + ": must be " + p.range_text() + ", got " + text};
        }
        break;
      }
      case ParameterType::choice: {
        bool known = false;
        for (const auto& v : p.values) known = known || v == text;
        if (!known) {
          return ConfigViolation{
              {p.key}, p.key + ": unknown value '" + text + "'; allowed: " + join(p.values, " | ")};
        }
        break;
      }
      default:
        break;
    }
  }
  return std::nullopt;
}

/// The rules that tie keys together.
std::optional<ConfigViolation> check_combinations(const SolverConfig& config) {
  const SolverOptions& s = config.solver;
  if ((s.graph == GraphMode::on || s.graph == GraphMode::loop) && s.timing != TimingMode::total) {
    return ConfigViolation{{"solver.graph", "solver.timing"},
                           "solver.graph: " + name(to_string(s.graph)) +
                               " needs solver.timing: total (a graph replay is timed whole), "
                               "got " +
                               name(to_string(s.timing))};
  }
  if (s.graph == GraphMode::loop && s.max_iterations > kMaxLoopIterations) {
    return ConfigViolation{{"solver.graph", "solver.max_iterations"},
                           "solver.graph: loop keeps every residual on the device and takes "
                           "solver.max_iterations up to " +
                               std::to_string(kMaxLoopIterations) + ", got " +
                               std::to_string(s.max_iterations)};
  }

  const PreconditionerOptions& p = config.preconditioner;
  const bool colorset =
      p.trisolve == TrisolveAlgorithm::automatic || p.trisolve == TrisolveAlgorithm::colorset;
  if (p.ic0.precision == Precision::mixed && !colorset) {
    return ConfigViolation{{"preconditioner.ic0.precision", "preconditioner.trisolve"},
                           "preconditioner.ic0.precision: mixed stores the factor for the "
                           "color-set solves and needs preconditioner.trisolve: colorset or "
                           "auto, got " +
                               name(to_string(p.trisolve))};
  }
  // block_ic's options are checked where they may apply: type auto may pick block_ic.
  // Only solve inverted uses the color-set solves.
  const bool block_ic =
      (p.type == "block_ic" || p.type == "auto") && p.block_ic.solve == BlockIcSolve::inverted;
  if (block_ic && p.block_ic.precision == Precision::mixed && !colorset) {
    return ConfigViolation{{"preconditioner.block_ic.precision", "preconditioner.trisolve"},
                           "preconditioner.block_ic.precision: mixed stores the factor for the "
                           "color-set solves and needs preconditioner.trisolve: colorset or "
                           "auto, got " +
                               name(to_string(p.trisolve))};
  }
  if (block_ic && p.block_ic.factorization == Ic0Factorization::backend && !colorset) {
    return ConfigViolation{{"preconditioner.block_ic.factorization", "preconditioner.trisolve"},
                           "preconditioner.block_ic.factorization: backend writes the color-set "
                           "solves' storage and needs preconditioner.trisolve: colorset or auto, "
                           "got " +
                               name(to_string(p.trisolve))};
  }
  if (p.ic0.factorization == Ic0Factorization::backend && !colorset) {
    return ConfigViolation{{"preconditioner.ic0.factorization", "preconditioner.trisolve"},
                           "preconditioner.ic0.factorization: backend solves with the color-set "
                           "solves and needs preconditioner.trisolve: colorset or auto, got " +
                               name(to_string(p.trisolve))};
  }
  if (p.type == "user" && p.ordering == Ordering::color) {
    return ConfigViolation{{"preconditioner.ordering", "preconditioner.type"},
                           "preconditioner.ordering: color with preconditioner.type: user; the "
                           "callback works on vectors in the caller's ordering: use natural or "
                           "auto"};
  }
  const bool lines = p.type == "line_jacobi" || p.type == "line_ic";
  if (lines && p.ordering != Ordering::automatic) {
    return ConfigViolation{{"preconditioner.ordering", "preconditioner.type"},
                           "preconditioner.ordering: " + p.type +
                               " orders the unknowns by its lines; use auto, got " +
                               name(to_string(p.ordering))};
  }
  if ((p.type == "block_ic" || p.type == "line_ic") &&
      (!greedy_coloring(p.coloring.method) || p.coloring.balance)) {
    return ConfigViolation{{"preconditioner.coloring.method", "preconditioner.type"},
                           "preconditioner.coloring: " + p.type + " colors its " +
                               (lines ? "lines" : "blocks") +
                               " greedily (method: greedy, balance: false)"};
  }
  if (p.coloring.method == ColoringMethod::jones_plassmann &&
      p.coloring.vertex_order != VertexOrder::natural) {
    return ConfigViolation{
        {"preconditioner.coloring.vertex_order", "preconditioner.coloring.method"},
        "preconditioner.coloring.vertex_order: " + name(to_string(p.coloring.vertex_order)) +
            " needs preconditioner.coloring.method: greedy (jones_plassmann orders rows by "
            "hash priorities)"};
  }
  if (p.coloring.method == ColoringMethod::parallel_greedy &&
      p.coloring.vertex_order == VertexOrder::smallest_last) {
    return ConfigViolation{
        {"preconditioner.coloring.vertex_order", "preconditioner.coloring.method"},
        "preconditioner.coloring.vertex_order: smallest_last needs "
        "preconditioner.coloring.method: greedy (parallel_greedy would need about one round "
        "per row in that order)"};
  }
  if (p.coloring.method == ColoringMethod::level_cyclic) {
    if (p.coloring.vertex_order != VertexOrder::natural) {
      return ConfigViolation{
          {"preconditioner.coloring.vertex_order", "preconditioner.coloring.method"},
          "preconditioner.coloring.vertex_order: " + name(to_string(p.coloring.vertex_order)) +
              " needs preconditioner.coloring.method: greedy (level_cyclic visits rows in "
              "natural order)"};
    }
    if (p.coloring.balance) {
      return ConfigViolation{{"preconditioner.coloring.balance", "preconditioner.coloring.method"},
                             "preconditioner.coloring.balance: true needs "
                             "preconditioner.coloring.method: greedy (level_cyclic balances the "
                             "colors by itself)"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ConfigViolation> find_violation(const SolverConfig& config) {
  if (auto v = check_keys(config)) return v;
  return check_combinations(config);
}

void validate(const SolverConfig& config) {
  if (auto v = find_violation(config)) throw ConfigError(v->message);
}

}  // namespace prism
