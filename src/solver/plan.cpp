#include "solver/plan.hpp"

#include "precond/preconditioner.hpp"
#include "solver/preconditioner_choice.hpp"
#include "solver/validate.hpp"

#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include <cstdio>
#include <string>

namespace prism::solver {
namespace {

/// Independent row blocks of the lower triangle of `a` in its order: a row starts a new
/// block where it couples to a row of the current one (the rule of
/// kernels::independent_blocks, counted straight from A's pattern).
int independent_lower_blocks(const CsrMatrix<double>& a) {
  int blocks = a.rows > 0 ? 1 : 0;
  index_t start = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < i && j >= start) {
        start = i;
        ++blocks;
        break;
      }
    }
  }
  return blocks;
}

/// Where a backend that factors in parallel does: "a GPU", "threaded cpu kernels".
std::string parallel_factor_site(const backend::Backend& backend) {
  return backend.kind() == backend::Backend::Kind::device ? "a GPU" : "threaded cpu kernels";
}

/// ic0: where the factorization runs, then the triangular solve.
void resolve_ic0(const backend::Backend& backend, const CsrMatrix<double>& ordered, Plan& plan) {
  PreconditionerOptions& p = plan.preconditioner;
  const bool colorset_allowed =
      p.trisolve == TrisolveAlgorithm::automatic || p.trisolve == TrisolveAlgorithm::colorset;
  if (p.ic0.factorization == Ic0Factorization::automatic) {
    // Where the backend factors a color's rows at once (a GPU, the threaded cpu kernels),
    // a multicolor order takes few dependent steps, so it factors there and the color-set
    // solves read its factor in place; elsewhere (the reference kernels, a natural order,
    // other solves) the host's reference kernel does.
    const bool parallel =
        backend.factors_in_parallel() && p.ordering == Ordering::color && colorset_allowed;
    p.ic0.factorization = parallel ? Ic0Factorization::backend : Ic0Factorization::host;
    plan.reasons.push_back(
        "ic0.factorization: " + std::string(to_string(p.ic0.factorization)) +
        (parallel ? " (a multicolor order, color-set solves, " + parallel_factor_site(backend) + ")"
                  : " (backend " + backend.name() + ", ordering " +
                        std::string(to_string(p.ordering)) + ")"));
  }
  if (p.trisolve != TrisolveAlgorithm::automatic) return;
  if (p.ic0.factorization == Ic0Factorization::backend) {
    p.trisolve = TrisolveAlgorithm::colorset;
    plan.reasons.emplace_back("trisolve: colorset (the backend's factor is laid out for it)");
    return;
  }
  const int blocks = independent_lower_blocks(ordered);
  p.trisolve = backend.pick_trisolve(blocks, p.ic0.precision);
  plan.reasons.push_back("trisolve: " + std::string(to_string(p.trisolve)) + " (" +
                         std::to_string(blocks) + " independent row blocks, " +
                         std::string(to_string(p.ic0.precision)) + " factor, " + backend.name() +
                         " backend)");
}

/// block_ic: where the factorization runs. Where the backend factors in parallel (a GPU,
/// the threaded cpu kernels) the block rows of a level are factored together there (and
/// with solve inverted the operators of the solves formed in place); elsewhere, or with
/// solves inverted that are not the color-set ones, the host factors.
void resolve_block_ic(const backend::Backend& backend, Plan& plan) {
  PreconditionerOptions& p = plan.preconditioner;
  if (p.block_ic.factorization != Ic0Factorization::automatic) return;
  const bool colorset = p.block_ic.solve == BlockIcSolve::trsv ||
                        p.trisolve == TrisolveAlgorithm::automatic ||
                        p.trisolve == TrisolveAlgorithm::colorset;
  const bool parallel = backend.factors_in_parallel() && colorset;
  p.block_ic.factorization = parallel ? Ic0Factorization::backend : Ic0Factorization::host;
  if (parallel && p.trisolve == TrisolveAlgorithm::automatic &&
      p.block_ic.solve == BlockIcSolve::inverted)
    p.trisolve = TrisolveAlgorithm::colorset;
  const std::string site = parallel_factor_site(backend);
  const std::string why = p.block_ic.solve == BlockIcSolve::trsv
                              ? " (" + site + ")"
                              : " (color-set solves, " + site + ")";
  plan.reasons.push_back(
      "block_ic.factorization: " + std::string(to_string(p.block_ic.factorization)) +
      (parallel ? why : " (backend " + backend.name() + ")"));
}

}  // namespace

const char* run_mode_name(RunMode mode) {
  switch (mode) {
    case RunMode::launches:
      return "launches";
    case RunMode::replay:
      return "replay";
    case RunMode::loop:
      return "loop";
  }
  return "?";
}

Ordering resolve_ordering(const PreconditionerOptions& options, std::vector<std::string>& reasons) {
  if (options.ordering != Ordering::automatic) return options.ordering;
  const Ordering ordering = resolved_ordering(options);
  if (precond::Registry::instance().uses_lines(options.type)) {
    reasons.push_back("ordering: lines (" + options.type + " solves each line's rows in order)");
    return ordering;
  }
  const std::string factor = options.type == kAutoType ? "ic0 or block_ic" : options.type;
  reasons.push_back("ordering: " + std::string(to_string(ordering)) +
                    (ordering == Ordering::color
                         ? " (the " + factor + " factor and solves run color by color)"
                         : " (preconditioner " + options.type + " gains nothing from colors)"));
  return ordering;
}

Plan resolve_plan(const SolverConfig& config, const backend::Backend& backend,
                  const CsrMatrix<double>& ordered, std::vector<std::string> reasons,
                  const backend::OrderedMatrix* kept) {
  Plan plan;
  plan.reasons = std::move(reasons);
  plan.preconditioner = config.preconditioner;
  plan.preconditioner.ordering = resolve_ordering(config.preconditioner, plan.reasons);
  plan.spmv = kept != nullptr ? backend.pick_spmv_on_backend(*kept, config.solver.spmv)
                              : backend.pick_spmv(ordered, config.solver.spmv);
  if (config.solver.spmv == SpmvAlgorithm::automatic) {
    plan.reasons.push_back(plan.spmv == SpmvAlgorithm::automatic
                               ? "spmv: auto (the " + backend.name() + " backend has one SpMV)"
                               : "spmv: " + std::string(to_string(plan.spmv)) + " (the " +
                                     backend.name() + " backend's choice for this pattern)");
  }
  const PreconditionerOptions& p = plan.preconditioner;
  if (p.type == "ic0") resolve_ic0(backend, ordered, plan);
  if (p.type == "block_ic") resolve_block_ic(backend, plan);
  const bool factored_there =
      (p.type == "ic0" && p.ic0.factorization == Ic0Factorization::backend) ||
      (p.type == "block_ic" && p.block_ic.factorization == Ic0Factorization::backend) ||
      p.type == "line_ic";
  if (kept != nullptr && !factored_there) {
    throw Error("setup: the matrix kept on the " + backend.name() + " backend needs " + p.type +
                " factored there");
  }
  return plan;
}

RunMode resolve_run_mode(const SolverOptions& options, const backend::Backend& backend,
                         std::string* reason, bool recordable, bool monitored) {
  const auto why = [&](RunMode mode, const std::string& text) {
    if (reason != nullptr) *reason = std::string("run: ") + run_mode_name(mode) + " (" + text + ")";
    return mode;
  };
  switch (options.graph) {
    case GraphMode::off:
      return why(RunMode::launches, "graph: off");
    case GraphMode::on:
    case GraphMode::loop: {
      const bool loop = options.graph == GraphMode::loop;
      if (!recordable && backend.can_record()) {
        throw ConfigError(std::string("solver.graph: ") + (loop ? "loop" : "on") +
                          " records the iteration, and the preconditioner's apply goes "
                          "through the host on the " +
                          backend.name() + " backend; use graph: off or auto");
      }
      if (loop ? !backend.can_loop() : !backend.can_record()) {
        throw ConfigError(std::string("solver.graph: ") + (loop ? "loop" : "on") +
                          " needs a backend that " +
                          (loop ? "runs device-side loops" : "records graphs") + "; the " +
                          backend.name() + " backend does not");
      }
      return why(loop ? RunMode::loop : RunMode::replay,
                 std::string("graph: ") + (loop ? "loop" : "on"));
    }
    case GraphMode::automatic:
      break;
  }
  // A replayed graph records no per-phase events, so `auto` records only under
  // timing: total; a device-side loop where the backend runs one.
  if (options.timing != TimingMode::total) {
    return why(RunMode::launches, "graph: auto with timing: phases times every operation");
  }
  if (!backend.can_record()) {
    return why(RunMode::launches,
               "graph: auto; the " + backend.name() + " backend records no graphs");
  }
  if (!recordable) {
    return why(RunMode::launches, "graph: auto; the preconditioner applies through the host");
  }
  // A loop keeps every residual in device memory; `auto` replays beyond its limit.
  if (backend.can_loop() && options.max_iterations <= kMaxLoopIterations) {
    return why(RunMode::loop, monitored ? "graph: auto, timing: total; the monitor watches it"
                                        : "graph: auto, timing: total");
  }
  return why(RunMode::replay, "graph: auto, timing: total; no device-side loop for this limit");
}

std::string describe_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                            const BlockIcOptions& options) {
  return describe_blocks(diagonal_block_weight(a, blocks), blocks, options);
}

std::string describe_blocks(double inside_weight, const BlockPartition& blocks,
                            const BlockIcOptions& options) {
  const SetStats sizes = set_stats(blocks.ptr);
  std::string kind = options.block_size > 0 ? "block_size " + std::to_string(options.block_size)
                                            : std::string("node blocks from the pattern");
  if (options.supernode > 0) {
    kind = "supernodes of up to " + std::to_string(options.supernode) + " rows of " + kind;
  }
  char text[240];
  std::snprintf(text, sizeof text,
                "blocks: %lld of %.3g rows (%lld to %lld; %s), %.1f%% of sum |a_ij| inside them",
                static_cast<long long>(blocks.count()), sizes.mean_size,
                static_cast<long long>(sizes.min_size), static_cast<long long>(sizes.max_size),
                kind.c_str(), 100.0 * inside_weight);
  return text;
}

}  // namespace prism::solver
